package webhook

import (
	"fmt"
	"sort"

	"github.com/winkube/winkube/pkg/windows"
)

// runsSomewhere reports whether a node of the OS runs every image of the
// pod. When none does, no placement helps: winkube adds nothing and says
// what the pod meets where it lands (unplaced), as lint does.
func runsSomewhere(nodes []*node, os string, images []podImage, hostProcess bool, hosts *hostChecks) bool {
	ofOS := false
	for _, n := range nodes {
		if n.OS != os {
			continue
		}
		ofOS = true
		h := n.Host
		if hostProcess {
			h.Build = windows.Build{}
		}
		if pi, _ := hosts.failing(images, h); pi == nil {
			return true
		}
	}
	// With no node of the OS yet, placing the pod there keeps it Pending
	// until one joins (SCH-1), which is placement that helps.
	return !ofOS
}

// unplaced are the warnings for a pod whose images run on no node of the
// cluster, in lint's terms: the rule each image failure breaks on the
// nodes the pod reaches as it is (SCH-5 for a Linux node it lands on for
// want of an OS selector, IMG-2 for a Windows build), or, when its
// selectors match no node, the image's own verdict (a wrong build says
// more than a wrong OS).
func unplaced(s *scheduling, images []podImage, nodes []*node) []string {
	matched, reachable := windows.Reach(&s.spec, objects(nodes))
	landing, where := reachable, "where the pod lands as it is"
	switch {
	case len(matched) == 0:
		return []string{anywhere(images, nodes)}
	case len(reachable) == 0:
		landing, where = matched, "which the pod selects (it also lacks a toleration for their taints)"
	}
	byRule := map[string][]*node{}
	first := map[string]windows.Verdict{}
	firstImage := map[string]*podImage{}
	hosts := &hostChecks{}
	for _, i := range landing {
		n := nodes[i]
		pi, v := hosts.failing(images, n.Host)
		if pi == nil {
			continue
		}
		rule := v.RuleForPod(false)
		if _, ok := first[rule]; !ok {
			first[rule], firstImage[rule] = v, pi
		}
		byRule[rule] = append(byRule[rule], n)
	}
	var out []string
	for rule, ns := range byRule {
		pi := firstImage[rule]
		out = append(out, fmt.Sprintf("winkube (%s): %s %s runs on no node of the cluster, so the pod was not placed; it fails on %s, %s: %v (fix: use an image built for a node of the cluster, or add nodes that run it)",
			rule, pi.path, pi.ref, describeNodes(ns), where, first[rule].Err()))
	}
	sort.Strings(out)
	return out
}

// anywhere is the warning when the pod's selectors match no node and its
// image runs on none either.
func anywhere(images []podImage, nodes []*node) string {
	var first windows.Verdict
	var firstImage *podImage
	for _, n := range nodes {
		pi, v := failingImage(images, n.Host)
		if pi == nil {
			continue
		}
		if firstImage == nil || windows.MoreTelling(first, v) {
			first, firstImage = v, pi
		}
	}
	if firstImage == nil {
		return "winkube (SCH-1): the pod's selectors match no node of the cluster; the pod stays Pending"
	}
	return fmt.Sprintf("winkube (%s): the pod's selectors match no node of the cluster (SCH-1), and %s %s runs on none of them: %v (fix: use an image built for a node of the cluster, or add nodes that run it)",
		first.Rule, firstImage.path, firstImage.ref, first.Err())
}
