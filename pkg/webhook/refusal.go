package webhook

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// mixedImages is LIM-1 in the rule book's words.
func mixedImages(images []podImage) *rules.Finding {
	var cs []windows.ContainerOS
	for _, pi := range images {
		if pi.known() {
			cs = append(cs, windows.ContainerOS{Path: pi.path + " " + pi.ref, OSes: pi.ans.Image.OSes()})
		}
	}
	vs := windows.MixedPodOS(cs)
	if len(vs) == 0 {
		return refusal("LIM-1", "no operating system runs every image of the pod: "+describeOSes(images), "")
	}
	return refusal("LIM-1", vs[0].Message, vs[0].Fix)
}

func describeOSes(images []podImage) string {
	var parts []string
	for _, pi := range images {
		if pi.known() {
			parts = append(parts, fmt.Sprintf("%s %s offers %s", pi.path, pi.ref, strings.Join(pi.ans.Image.OSes(), ", ")))
		}
	}
	return strings.Join(parts, "; ")
}

// wrongOS is the refusal for a pod field pinning an OS an image lacks:
// the pull fails with "no match for platform" (IMG-4).
func wrongOS(pin osPin, images []podImage) *rules.Finding {
	for _, pi := range images {
		if !pi.known() || pi.ans.Image.HasOS(pin.os) {
			continue
		}
		v := pi.ans.Image.OnHost(windows.Host{OS: pin.os, Arch: "amd64", Runtime: windows.RuntimeContainerd})
		return refusal(
			v.Rule,
			fmt.Sprintf("%s, but %s %s runs only on %s: on a %s node the pull fails with %v", pin.source, pi.path, pi.ref, strings.Join(pi.ans.Image.OSes(), ", "), pin.os, v.Err()),
			fmt.Sprintf("remove %s and let winkube place the pod, or use an image built for %s", pin.source, pin.os),
		)
	}
	return refusal("IMG-4", pin.source+" contradicts the pod's images", "")
}

// pinnedBuildsRefusal is IMG-2 for a pod that pins only Windows builds
// its images cannot run on.
func pinnedBuildsRefusal(s *scheduling, images []podImage) *rules.Finding {
	source, builds := s.pinnedBuilds()
	if builds == nil {
		return nil
	}
	var firstImage *podImage
	first := windows.OnPinnedBuilds(builds, func(h windows.Host) windows.Verdict {
		pi, v := failingImage(images, h)
		if firstImage == nil {
			firstImage = pi
		}
		return v
	})
	if first.Runs {
		return nil
	}
	return refusal(
		first.Rule,
		fmt.Sprintf("%s, but %s cannot run there: %v", source, firstImage.path, first.Err()),
		fmt.Sprintf("remove %s and let winkube place the pod, or use an image built for %s", source, strings.Join(builds, ", ")),
	)
}

// failingImage returns the first known image that cannot run on a host
// and the rule book's verdict on it; nil when every image runs.
func failingImage(images []podImage, h windows.Host) (*podImage, windows.Verdict) {
	for i := range images {
		pi := &images[i]
		if !pi.known() {
			continue
		}
		if v := pi.ans.Image.OnHost(h); !v.Runs {
			return pi, v
		}
	}
	return nil, windows.Verdict{Runs: true}
}

// hostKey is what decides whether images run on a node.
type hostKey struct {
	os, arch, runtime string
	build             windows.Build
}

type hostResult struct {
	key     hostKey
	image   *podImage
	verdict windows.Verdict
}

// hostChecks remembers failingImage per kind of host: clusters have many
// nodes but few OS, architecture, build and runtime combinations, so a
// short list searched in order beats a map on every admission.
type hostChecks []hostResult

func (hc *hostChecks) failing(images []podImage, h windows.Host) (*podImage, windows.Verdict) {
	k := hostKey{h.OS, h.Arch, h.Runtime, h.Build}
	for i := range *hc {
		if r := &(*hc)[i]; r.key == k {
			return r.image, r.verdict
		}
	}
	r := hostResult{key: k}
	r.image, r.verdict = failingImage(images, h)
	*hc = append(*hc, r)
	return r.image, r.verdict
}
