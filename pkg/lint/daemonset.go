package lint

import (
	"fmt"
	"strings"
)

// checkDaemonSetOnWindows is SCH-5 for the most common Windows-node
// breakage: a DaemonSet that pins no OS and reaches the Windows nodes
// (it tolerates their taint, usually with a bare operator: Exists) runs
// a pod on every one of them, and an image the catalog does not know
// fails there unless it publishes a Windows entry for each of their
// builds. Once the registry says what the image offers, checkImages
// decides instead (an error for a Linux-only image).
func (r *run) checkDaemonSetOnWindows(p *podInfo) {
	builds := r.unpinnedWindowsBuilds(p)
	if builds == nil {
		return
	}
	for _, pi := range p.images {
		if !pi.unknown || pi.img.Missing != nil {
			continue
		}
		r.report(&p.w.object, "SCH-5", "unknown-image", pi.path.String(),
			fmt.Sprintf("%s is not in winkube's image catalog, and this DaemonSet pins no OS while reaching the Windows nodes, so it runs a pod on each of them: unless the image publishes a Windows entry for %s, those pods fail with ErrImagePull, then ImagePullBackOff",
				pi.ref, strings.Join(builds, " and ")),
			fmt.Sprintf("add %s kubernetes.io/os: linux if the image is Linux-only (and narrow %s), or run winkube lint --resolve-images registry to check what the image offers",
				p.w.path.Child("nodeSelector"), p.w.path.Child("tolerations")))
	}
}

// unpinnedWindowsBuilds is the Windows builds a DaemonSet without an OS
// selector reaches, as windows-build labels; nil when it pins an OS (in
// its selectors or spec.os), its known images already decide the OS, or
// it reaches no Windows node.
func (r *run) unpinnedWindowsBuilds(p *podInfo) []string {
	if !p.w.perNode || p.osSelector != "" || p.w.spec.OS != nil || p.osFromImages || p.mixedImages {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range p.reachable {
		if !n.IsWindows() {
			continue
		}
		b := "an unknown build"
		if !n.Build.IsZero() {
			b = n.Build.Label()
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}
