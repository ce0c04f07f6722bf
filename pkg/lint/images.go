package lint

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/windows"
)

// imageFailure is one container that fails on some of the nodes checked.
type imageFailure struct {
	image   *podImage
	verdict windows.Verdict
	nodes   []*Node
}

// checkImagesAnywhere runs behind SCH-1, when no node matches the pod.
// Fixing the selectors helps only if some node runs the images, so an
// image that runs on no node of the cluster at all is reported too: IMG-2
// for a Windows image whose build no Windows node has, IMG-4 otherwise.
// Images that run somewhere are left to the SCH-1 fix.
func (r *run) checkImagesAnywhere(p *podInfo) {
	if p.mixedImages {
		return // LIM-1 already says the pod cannot run anywhere
	}
	for i := range p.images {
		pi := &p.images[i]
		if pi.unknown || len(r.nodesFor(p, pi)) > 0 {
			continue
		}
		v := r.firstMismatch(pi)
		rule, err := v.Rule, v.Err()
		r.report(&p.w.object, rule, "", pi.path.String(),
			fmt.Sprintf("%s runs on no node of cluster %s (%s), so changing the selectors alone will not place the pod: %v",
				pi.ref, r.target.Name, describeNodeBuilds(r.target.Nodes), err),
			r.imageFix(p, pi, rule))
	}
}

// checkPinnedImages also runs behind SCH-1: matching a node is not enough
// when the OS or the Windows builds the pod's own fields pin cannot run an
// image, which the webhook refuses for the same rule. Images reported as
// running nowhere are left out.
func (r *run) checkPinnedImages(p *podInfo) {
	if p.mixedImages || p.osSelector == "" {
		return
	}
	builds, _ := windows.PinnedBuilds(&p.sched)
	for i := range p.images {
		pi := &p.images[i]
		if pi.unknown || len(r.nodesFor(p, pi)) == 0 {
			continue
		}
		pin := "kubernetes.io/os=" + p.osSelector
		v := pi.img.OnHost(windows.Host{OS: p.osSelector, Arch: "amd64", Runtime: windows.RuntimeContainerd})
		if v.Runs && p.osSelector == "windows" && builds != nil {
			pin = "node.kubernetes.io/windows-build=" + strings.Join(builds, "|")
			v = windows.OnPinnedBuilds(builds, pi.img.OnHost)
		}
		if v.Runs {
			continue
		}
		r.report(&p.w.object, v.Rule, "", pi.path.String(),
			fmt.Sprintf("the pod's selectors pin %s, where %s cannot run, so a node with those labels would not run it either: %v", pin, pi.ref, v.Err()),
			r.imageFix(p, pi, v.Rule))
	}
}

// firstMismatch returns the verdict of a node the image cannot run on,
// preferring a node of an OS the image is built for: "wrong build" says
// more than "wrong OS".
func (r *run) firstMismatch(pi *podImage) windows.Verdict {
	first := windows.Verdict{Runs: true}
	for _, n := range r.target.Nodes {
		if v := r.runsOn(pi, n); windows.MoreTelling(first, v) {
			first = v
		}
	}
	return first
}

// checkImages matches every image against the nodes (IMG-2, IMG-4, SCH-5)
// and reports one finding per container and failure kind. The nodes are
// those the pod reaches, or with tolerated set those it selects but does
// not tolerate yet. In a pod that mixes Linux and Windows images (LIM-1)
// an image on the other OS's nodes is that finding again; only wrong
// builds are added.
func (r *run) checkImages(p *podInfo, nodes []*Node, tolerated bool) bool {
	var failures []*imageFailure
	for i := range p.images {
		pi := &p.images[i]
		byKind := map[bool]*imageFailure{}
		for _, n := range nodes {
			v := r.runsOn(pi, n)
			if v.Runs {
				continue
			}
			wrongBuild := v.Cause == windows.CauseBuild
			if p.mixedImages && !wrongBuild {
				continue
			}
			f := byKind[wrongBuild]
			if f == nil {
				f = &imageFailure{image: pi, verdict: v}
				byKind[wrongBuild] = f
				failures = append(failures, f)
			}
			f.nodes = append(f.nodes, n)
		}
	}
	for _, f := range failures {
		r.reportImageFailure(p, f, nodes, tolerated)
	}
	return len(failures) > 0
}

func (r *run) reportImageFailure(p *podInfo, f *imageFailure, nodes []*Node, tolerated bool) {
	rule := f.verdict.RuleForPod(p.osSelector != "")
	share := fmt.Sprintf("%d of the %d nodes", len(f.nodes), len(nodes))
	switch {
	case len(nodes) == 1:
		share = "the only node"
	case len(f.nodes) == len(nodes):
		share = fmt.Sprintf("any of the %d nodes", len(f.nodes))
	}
	where := "the pod can be scheduled on"
	if tolerated {
		where = "the pod selects, where it lands once it tolerates their taints"
	}
	msg := fmt.Sprintf("%s cannot run on %s %s (%s): %v",
		f.image.ref, share, where, describeNodes(f.nodes), f.verdict.Err())
	r.report(&p.w.object, rule, "", f.image.path.String(), msg, r.imageFix(p, f.image, rule))
}

// imageFix proposes the selector (and tolerations) that keep the pod on
// nodes its images run on.
func (r *run) imageFix(p *podInfo, pi *podImage, rule string) string {
	sel := p.w.path.Child("nodeSelector")
	good := r.nodesFor(p, pi)
	if len(good) == 0 {
		return fmt.Sprintf("no node of cluster %s runs %s: use an image built for %s, or add nodes that run it", r.target.Name, pi.ref, describeNodeBuilds(r.target.Nodes))
	}
	os := good[0].OS
	fix := fmt.Sprintf("set %s kubernetes.io/os: %s", sel, os)
	if b := commonBuild(good, r.target.Nodes); b != "" {
		fix += fmt.Sprintf(" and node.kubernetes.io/windows-build: %q", b)
	}
	var taints []string
	for _, t := range missingTolerations(&corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: os}, Tolerations: p.sched.Tolerations}, good) {
		taints = append(taints, fmt.Sprintf("{key: %s, operator: %s, value: %q, effect: %s}", t.Key, t.Operator, t.Value, t.Effect))
	}
	if len(taints) > 0 {
		fix += fmt.Sprintf(", and add to %s: %s", p.w.path.Child("tolerations"), strings.Join(taints, ", "))
	}
	if rule == "IMG-2" {
		fix += fmt.Sprintf("; or change %s to an image built for the selected nodes' build", pi.path)
	}
	if rule == "IMG-4" && p.osSelector != "" && p.osSelector != os {
		// The pod pins its OS on purpose: moving it to the image's OS is
		// the second choice, not the advice (a Windows workload is never
		// told to pin Linux alone).
		fix = fmt.Sprintf("change %s to an image built for %s%s; or, if the workload is meant for %s, %s",
			pi.path, p.osSelector, windowsTagHint(p.osSelector, pi), os, fix)
	}
	return fix
}

// windowsTagHint says how Windows tags of multi-OS repositories look.
func windowsTagHint(os string, pi *podImage) string {
	switch {
	case os != "windows":
		return ""
	case strings.HasPrefix(pi.img.Repository, "mcr.microsoft.com/dotnet/") && !strings.HasPrefix(pi.img.Repository, "mcr.microsoft.com/dotnet/framework/"):
		// .NET 8 made its shared tags (8.0, latest) Linux-only.
		return " (.NET's shared tags such as 8.0 and latest list Linux only since .NET 8; use a tag that names the Windows release, such as 8.0-nanoserver-ltsc2022)"
	}
	return " (where the repository publishes Windows images too, a tag that names nanoserver or windowsservercore and the release)"
}

// nodesFor returns the nodes of the cluster where every container of the
// pod runs, ignoring the pod's selectors and tolerations.
func (r *run) nodesFor(p *podInfo, only *podImage) []*Node {
	var out []*Node
	for _, n := range r.target.Nodes {
		ok := true
		for i := range p.images {
			pi := &p.images[i]
			if only != nil && pi != only {
				continue
			}
			if !r.runsOn(pi, n).Runs {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

// commonBuild is the windows-build label to select when the nodes in good
// are only some of the cluster's Windows nodes: the newest build among
// them. It is "" when good holds every Windows build of the cluster.
func commonBuild(good, all []*Node) string {
	want := map[windows.Build]bool{}
	for _, n := range good {
		if n.IsWindows() {
			want[n.Build.WithoutRevision()] = true
		}
	}
	covered := true
	for _, n := range all {
		if n.IsWindows() && !want[n.Build.WithoutRevision()] {
			covered = false
		}
	}
	if covered {
		return ""
	}
	var best windows.Build
	for b := range want {
		if b.Compare(best) > 0 {
			best = b
		}
	}
	if best.IsZero() {
		return ""
	}
	return best.Label()
}

func describeNodeBuilds(nodes []*Node) string {
	seen := map[string]bool{}
	var out []string
	for _, n := range nodes {
		d := n.OS
		if n.IsWindows() {
			d = "windows " + n.Build.Label()
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return joinList(out)
}
