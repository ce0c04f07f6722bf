package lint

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// checkPlacement reports where the workload's pods cannot run: mixed
// images (LIM-1), no matching node (SCH-1), untolerated taints (SCH-3),
// images on the wrong OS (SCH-5, IMG-4) or build (IMG-2), spec.os without
// a selector (SCH-2) and no OS selector in a mixed cluster (SCH-5).
// Independent problems are reported together: LIM-1 does not stop the
// placement checks, and behind SCH-3 the images are checked against the
// nodes the pod selects, where it lands once it tolerates their taints, so
// a wrong build is not found only after the toleration is fixed.
func (r *run) checkPlacement(p *podInfo) {
	r.reportUnknownImages(p)
	r.checkDaemonSetOnWindows(p)
	r.checkSpecOSSelector(p)
	if p.mixedImages {
		r.reportMixedImages(p)
	}
	before := len(r.findings)
	failed := false
	switch {
	case len(p.matched) == 0:
		failed = true
		if !r.reportNoNode(p) {
			return
		}
		r.checkImagesAnywhere(p)
		r.checkPinnedImages(p)
	case len(p.reachable) == 0:
		r.reportTainted(p)
		failed = true
		r.checkImages(p, p.matched, true)
	default:
		failed = r.checkImages(p, p.reachable, false)
	}
	if !failed {
		r.checkOSSelector(p)
		return
	}
	// Only failures that were reported (not silenced by winkube.io/ignore)
	// are fixed.
	if len(r.findings) > before {
		r.proposeEdit(p)
	}
}

// reportUnknownImages is IMG-3: an image outside the catalog, or a catalog
// image whose tag names no build, was not matched against the nodes. Say so
// and how to fix it rather than guess.
func (r *run) reportUnknownImages(p *podInfo) {
	for _, pi := range p.images {
		switch {
		case errors.Is(pi.img.Missing, imageinfo.ErrNoRepository):
			// A name in Docker Hub's library namespace that is no official
			// image: often a local build loaded onto the nodes by hand.
			r.report(&p.w.object, "IMG-3", "no-repository", pi.path.String(),
				fmt.Sprintf("%s names no repository Docker Hub has (its library namespace holds only the official images): nodes fail the pull with ErrImagePull unless the image was loaded onto each of them", pi.img.Ref()),
				fmt.Sprintf("push the image to a registry and give its full name in %s (registry/owner/name:tag), or load it onto every node before the pod starts", pi.path))
		case pi.img.Missing != nil:
			r.report(&p.w.object, "IMG-3", "unpullable", pi.path.String(),
				fmt.Sprintf("%s cannot be pulled (%v): every node fails the pull with ErrImagePull, then ImagePullBackOff", pi.img.Ref(), pi.img.Missing),
				fmt.Sprintf("change %s to a tag the repository publishes; the Windows base images publish only release tags such as ltsc2022 or ltsc2019, no latest", pi.path))
		case pi.unknown && r.unpinnedWindowsBuilds(p) != nil:
			// checkDaemonSetOnWindows says more (SCH-5).
		case pi.unknown:
			msg := fmt.Sprintf("%s is not in winkube's image catalog, so its OS and Windows build are unknown and were not checked against the nodes", pi.ref)
			if err := r.resolveErrs[pi.ref]; err != nil {
				msg = fmt.Sprintf("the registry did not answer for %s (%v) and winkube's image catalog does not know it, so its OS and Windows build were not checked against the nodes", pi.ref, err)
			}
			r.report(&p.w.object, "IMG-3", "", pi.path.String(), msg,
				fmt.Sprintf("run winkube lint --resolve-images registry to read its platforms from the registry, or pin the OS it was built for in %s", p.w.path.Child("nodeSelector")))
		case !pi.img.Known && pi.img.HasOS("windows") && len(pi.img.WindowsBuilds()) == 0:
			r.report(&p.w.object, "IMG-3", "no-release-tag", pi.path.String(),
				fmt.Sprintf("the tag of %s names no Windows release, so its build is unknown and it was checked as if it ran on every Windows build", pi.ref),
				fmt.Sprintf("use a tag that names the release (for example ltsc2022 or 1809) so the build can be checked, or add the tag to the catalog in pkg/imageinfo (catalog.go) in a pull request"))
		}
	}
}

// checkSpecOSSelector is SCH-2: spec.os is only checked by the kubelet
// after the scheduler placed the pod.
func (r *run) checkSpecOSSelector(p *podInfo) {
	if p.w.spec.OS == nil || p.osSelector != "" || (p.rc != nil && p.rc.Scheduling != nil) {
		return
	}
	os := string(p.w.spec.OS.Name)
	if os != "windows" && os != "linux" {
		return
	}
	r.report(&p.w.object, "SCH-2", "", p.w.path.Child("os").String(),
		fmt.Sprintf("spec.os.name is %s but spec.os does not steer the scheduler and %s pins no OS", os, p.w.path.Child("nodeSelector")),
		fmt.Sprintf("add %s kubernetes.io/os: %s%s", p.w.path.Child("nodeSelector"), os, tolerationHint(os)))
}

func tolerationHint(os string) string {
	if os == "windows" {
		return " and a toleration for the Windows nodes' taint (os=windows:NoSchedule)"
	}
	return ""
}

// checkOSSelector is the advisory half of SCH-5: the pod is placed well
// today only because of the taints of the other OS's nodes. The OS to pin
// must come from the images: the nodes a pod reaches by default are the
// untainted Linux ones, and advising a Windows image (one winkube does not
// know) to pin Linux would break it.
func (r *run) checkOSSelector(p *podInfo) {
	if p.osSelector != "" || !r.target.Mixed() || p.os == "" || !p.osFromImages {
		return
	}
	r.report(&p.w.object, "SCH-5", "advice", "",
		fmt.Sprintf("%s pins no OS; in this mixed cluster only node taints keep the %s pods off the other OS's nodes", p.w.path.Child("nodeSelector"), p.os),
		fmt.Sprintf("add %s kubernetes.io/os: %s", p.w.path.Child("nodeSelector"), p.os))
}

// reportMixedImages is LIM-1, with the rule book's wording.
func (r *run) reportMixedImages(p *podInfo) {
	containers := make([]windows.ContainerOS, 0, len(p.images))
	for _, pi := range p.images {
		containers = append(containers, windows.ContainerOS{Path: pi.path.String() + " " + pi.ref, OSes: pi.img.OSes()})
	}
	for _, v := range windows.MixedPodOS(containers) {
		v.Path = ""
		r.reportViolation(&p.w.object, v)
	}
}

// reportNoNode is SCH-1: the selectors match no node of the target cluster.
// It returns false when the finding is no failure to fix.
func (r *run) reportNoNode(p *podInfo) bool {
	at := p.w.path.Child("nodeSelector").String()
	if p.w.spec.NodeName != "" {
		at = p.w.path.Child("nodeName").String()
	}
	selectors := describeSelector(&p.sched)
	if p.rc != nil && p.rc.Scheduling != nil {
		selectors += fmt.Sprintf(" with RuntimeClass %s merged in", p.rc.Name)
	}
	fix := fmt.Sprintf("change %s (and any required node affinity) to labels the nodes have (kubernetes.io/os, node.kubernetes.io/windows-build=%s)", at, r.windowsBuildLabels())
	if !p.w.perNode {
		r.report(&p.w.object, "SCH-1", "", at,
			fmt.Sprintf("no node of cluster %s matches the pod's selectors (%s); the pods stay Pending", r.target.Name, selectors), fix)
		return true
	}
	// The DaemonSet controller creates pods only for matching nodes, so
	// nothing is Pending: the DaemonSet simply runs nowhere.
	if arch := absentArch(&p.sched, r.target.Nodes); arch != "" {
		// Charts ship one DaemonSet per architecture; the ones for
		// architectures the cluster lacks are expected to stay empty.
		r.report(&p.w.object, "SCH-1", "other-arch", at,
			fmt.Sprintf("cluster %s has no %s node, so this DaemonSet matches no node and runs no pods; normal for one of a set of per-architecture DaemonSets", r.target.Name, arch),
			"") // the rule book's fix for other-arch
		return false
	}
	r.report(&p.w.object, "SCH-1", "daemonset", at,
		fmt.Sprintf("the pod's selectors (%s) match no node of cluster %s: the DaemonSet runs no pods", selectors, r.target.Name), fix)
	return true
}

// archLabels are the node labels that pin a CPU architecture.
var archLabels = []string{corev1.LabelArchStable, labelBetaArch}

// absentArch returns the architecture the nodeSelector pins when no node
// of the cluster has it, "" otherwise.
func absentArch(spec *corev1.PodSpec, nodes []*Node) string {
	for _, k := range archLabels {
		arch, ok := spec.NodeSelector[k]
		if !ok {
			continue
		}
		for _, n := range nodes {
			if n.Obj.Labels[k] == arch {
				return ""
			}
		}
		return arch
	}
	return archAffinityAbsent(spec.Affinity, nodes)
}

// archAffinityAbsent returns the architectures a required node affinity
// pins with kubernetes.io/arch In (...) when no node has any of them.
func archAffinityAbsent(a *corev1.Affinity, nodes []*Node) string {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	var archs []string
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		pinned := false
		for _, req := range term.MatchExpressions {
			if (req.Key == corev1.LabelArchStable || req.Key == labelBetaArch) && req.Operator == corev1.NodeSelectorOpIn {
				pinned = true
				for _, v := range req.Values {
					for _, n := range nodes {
						if n.Obj.Labels[req.Key] == v {
							return ""
						}
					}
					archs = append(archs, v)
				}
			}
		}
		if !pinned {
			// A term without an arch requirement failed for another reason.
			return ""
		}
	}
	return strings.Join(archs, "|")
}

// describeSelector renders the merged nodeSelector for messages.
func describeSelector(spec *corev1.PodSpec) string {
	var parts []string
	for k, v := range spec.NodeSelector {
		parts = append(parts, k+"="+v)
	}
	if spec.Affinity != nil && spec.Affinity.NodeAffinity != nil && spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		parts = append(parts, "required node affinity")
	}
	if len(parts) == 0 {
		return "no selector"
	}
	return joinList(parts)
}

// windowsBuildLabels lists the cluster's Windows build labels.
func (r *run) windowsBuildLabels() string {
	seen := map[string]bool{}
	var labels []string
	for _, n := range r.target.Nodes {
		if l := windows.HostOf(n.Obj).BuildLabel; l != "" && !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	if len(labels) == 0 {
		return "none"
	}
	return strings.Join(labels, "|")
}

// reportTainted is SCH-3: the selected nodes all carry a taint the pod
// does not tolerate. When the images run on only some of the selected
// builds, the fix also pins the build, since the toleration alone would let
// the pods onto nodes that cannot run them (IMG-2, reported separately).
func (r *run) reportTainted(p *podInfo) {
	taint, _ := untoleratedTaint(p.matched[0], p.sched.Tolerations)
	outcome := "the pods stay Pending"
	if p.w.perNode {
		outcome = "the DaemonSet runs no pods"
	}
	fix := fmt.Sprintf("add to %s: {key: %s, operator: Equal, value: %q, effect: %s}", p.w.path.Child("tolerations"), taint.Key, taint.Value, taint.Effect)
	if b := r.buildToPin(p); b != "" {
		fix += fmt.Sprintf(", and set %s node.kubernetes.io/windows-build: %q, the only build the images run on", p.w.path.Child("nodeSelector"), b)
	}
	r.report(&p.w.object, "SCH-3", "", p.w.path.Child("tolerations").String(),
		fmt.Sprintf("every node the pod selects (%s) has a taint it does not tolerate, e.g. %s; %s",
			describeNodes(p.matched), taint.ToString(), outcome), fix)
}

// buildToPin is the windows-build label the pod must add to its selector
// so that the nodes it selects all run its images: "" when the selector
// pins a build already, or when every selected node (or none) runs them.
func (r *run) buildToPin(p *podInfo) string {
	if _, ok := p.sched.NodeSelector[corev1.LabelWindowsBuild]; ok || p.mixedImages {
		return ""
	}
	var good []*Node
	for _, n := range r.nodesFor(p, nil) {
		if slices.Contains(p.matched, n) {
			good = append(good, n)
		}
	}
	if len(good) == 0 || len(good) == len(p.matched) {
		return ""
	}
	return commonBuild(good, p.matched)
}
