package lint

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// podInfo is what placement and the limitation checks know about the pods
// of one workload.
type podInfo struct {
	w *workload
	// rc is the RuntimeClass named by the pod, nil when none or not found.
	rc *nodev1.RuntimeClass
	// sched holds the scheduling fields after the RuntimeClass merge (SCH-4).
	sched corev1.PodSpec
	// matched are the nodes the selectors and affinity allow; reachable
	// those whose taints the pod also tolerates.
	matched, reachable []*Node
	// osSelector is the OS the selectors pin ("" when they pin none).
	osSelector string
	images     []podImage
	// os is the OS the pod's containers need: windows, linux, or "" when
	// they disagree (LIM-1) or run anywhere.
	os string
	// mixedImages is set when no OS runs every container (LIM-1).
	mixedImages bool
	// osFromImages is set when os comes from what the images offer rather
	// than from the pod's own fields or the nodes it reaches.
	osFromImages bool
}

// podImage is one container's image.
type podImage struct {
	container string
	path      *field.Path
	ref       string
	img       imageinfo.Image
	// unknown is set for an image outside the catalog: its OS and build are
	// not known, so it constrains nothing (see resolveImages).
	unknown bool
}

// isWindows reports whether the pod runs Windows containers.
func (p *podInfo) isWindows() bool { return p.os == "windows" }

// place computes where the workload's pods can run and what they run.
func (r *run) place(w *workload) *podInfo {
	p := &podInfo{w: w}
	p.sched = corev1.PodSpec{
		NodeName:     w.spec.NodeName,
		NodeSelector: copyMap(w.spec.NodeSelector),
		Affinity:     w.spec.Affinity,
		Tolerations:  append([]corev1.Toleration(nil), w.spec.Tolerations...),
	}
	r.mergeRuntimeClass(p)
	p.matched, p.reachable = r.target.reachable(&p.sched)
	p.osSelector = windows.SelectedOS(&p.sched)
	r.resolveImages(p)
	return p
}

// mergeRuntimeClass applies the RuntimeClass's scheduling the way the API
// server's RuntimeClass admission plugin does (SCH-4).
func (r *run) mergeRuntimeClass(p *podInfo) {
	name := p.w.spec.RuntimeClassName
	if name == nil || *name == "" {
		return
	}
	rc, ok := r.runtimeClasses[*name]
	if !ok {
		r.reportMissingRuntimeClass(p.w, *name)
		return
	}
	p.rc = rc
	if rc.Scheduling == nil {
		return
	}
	for key, v := range rc.Scheduling.NodeSelector {
		if podValue, ok := p.sched.NodeSelector[key]; ok && podValue != v {
			r.report(&p.w.object, "SCH-4", "", "",
				fmt.Sprintf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", key, v, key, podValue),
				fmt.Sprintf("remove %s from %s; RuntimeClass %s already selects the nodes", key, p.w.path.Child("nodeSelector"), rc.Name))
			continue
		}
		if p.sched.NodeSelector == nil {
			p.sched.NodeSelector = map[string]string{}
		}
		p.sched.NodeSelector[key] = v
	}
	p.sched.Tolerations = append(p.sched.Tolerations, rc.Scheduling.Tolerations...)
}

func (r *run) reportMissingRuntimeClass(w *workload, name string) {
	path := w.path.Child("runtimeClassName")
	if r.target.RuntimeClasses != nil {
		// The live cluster was read: admission will reject the pod.
		r.report(&w.object, "SCH-4", "", path.String(),
			fmt.Sprintf("pod rejected: RuntimeClass %q not found", name),
			fmt.Sprintf("create RuntimeClass %s or change %s", name, path))
		return
	}
	r.report(&w.object, "SCH-4", "not-in-input", path.String(),
		fmt.Sprintf("RuntimeClass %q is not in the input, so its scheduling was not merged and placement may be wrong", name),
		fmt.Sprintf("lint RuntimeClass %s together with this file, or pass --kubeconfig to read it from the cluster", name))
}

// reachable returns the nodes whose labels satisfy the pod's selectors and
// affinity, and among them those whose taints the pod tolerates
// (windows.Reach).
func (t *Target) reachable(spec *corev1.PodSpec) (matched, reachable []*Node) {
	objs := make([]*corev1.Node, len(t.Nodes))
	for i, n := range t.Nodes {
		objs[i] = n.Obj
	}
	m, r := windows.Reach(spec, objs)
	for _, i := range m {
		matched = append(matched, t.Nodes[i])
	}
	for _, i := range r {
		reachable = append(reachable, t.Nodes[i])
	}
	return matched, reachable
}

// untoleratedTaint finds a taint of the node that keeps the pod off.
func untoleratedTaint(n *Node, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	return windows.UntoleratedTaint(n.Obj, tolerations)
}

// resolveImages looks up every init and regular container's image and
// works out which OS the pod needs. An image outside the catalog is not
// guessed at: it is reported (IMG-3) and takes no part in the OS and build
// checks, so the verdict rests on what is known.
func (r *run) resolveImages(p *podInfo) {
	hint := p.osHint()
	add := func(cs []corev1.Container, path *field.Path) {
		for i := range cs {
			img := r.image(cs[i].Image)
			pi := podImage{container: cs[i].Name, path: path.Index(i).Child("image"), ref: cs[i].Image, img: img, unknown: !img.Cataloged}
			p.images = append(p.images, pi)
		}
	}
	add(p.w.spec.InitContainers, p.w.path.Child("initContainers"))
	add(p.w.spec.Containers, p.w.path.Child("containers"))
	p.os, p.mixedImages, p.osFromImages = commonOS(p.images, hint)
}

// osHint is the OS the pod's own fields ask for.
func (p *podInfo) osHint() string {
	if p.w.spec.OS != nil && (p.w.spec.OS.Name == "windows" || p.w.spec.OS.Name == "linux") {
		return string(p.w.spec.OS.Name)
	}
	if p.osSelector != "" {
		return p.osSelector
	}
	return uniformOS(p.reachable)
}

// uniformOS is the OS all nodes share, "" when they differ or there are none.
func uniformOS(nodes []*Node) string {
	os := ""
	for _, n := range nodes {
		if os != "" && n.OS != os {
			return ""
		}
		os = n.OS
	}
	return os
}

// commonOS intersects the OSes the catalogued images offer. mixed is true
// when no OS offers every image (LIM-1); fromImages when the images, not
// the hint, decided the OS.
func commonOS(images []podImage, hint string) (os string, mixed, fromImages bool) {
	common := map[string]bool{"linux": true, "windows": true}
	known := 0
	for _, pi := range images {
		if pi.unknown {
			continue
		}
		known++
		for o := range common {
			if !pi.img.HasOS(o) {
				delete(common, o)
			}
		}
	}
	switch {
	case known == 0:
		return hint, false, false
	case len(common) == 0:
		return "", true, false
	case len(common) == 1:
		for o := range common {
			return o, false, true
		}
	}
	return hint, false, false
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// describeNodes names up to four nodes and counts the rest, as the rule
// book names hosts (windows.DescribeHosts).
func describeNodes(nodes []*Node) string {
	return windows.DescribeHosts(hostsOf(nodes))
}

// hostsOf are the nodes as the rule book reads them.
func hostsOf(nodes []*Node) []windows.Host {
	hosts := make([]windows.Host, len(nodes))
	for i, n := range nodes {
		hosts[i] = n.Host()
	}
	return hosts
}

func joinList(items []string) string {
	sorted := append([]string(nil), items...)
	sort.Strings(sorted)
	out := ""
	for i, s := range sorted {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
