// Package agreement runs the same workloads through lint, the webhook,
// the emulated node and doctor, and checks that they name the same rule
// for the same cause (issue 20: one rule book by construction). It is a
// test-only package because it imports every command's package.
package agreement

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// sight says, for a class of rules, which commands can see its cause
// and how each reports it. lint sees everything a manifest shows; the
// others see what reaches them.
var sight = []struct {
	rules    string
	validate string // the validating webhook, on the workload
	mutate   string // the mutating webhook, on a pod the template makes
	node     string // the emulated node running that pod
	doctor   string // doctor, reading what the node wrote
}{
	{rules: "API-1..API-6",
		validate: "the same IDs on API servers older than 1.27; from 1.27 the API server rejects these itself and the webhook leaves them to it (PodTarget.Admission)",
		mutate:   "-", node: "- (the API server refuses the pod)", doctor: "-"},
	{rules: "API-8, VER-*, LIM-* of a pod spec (windows.PodViolations)",
		validate: "the same IDs (LIM-14 only for a grace period the user set: the API server fills in 30 s for every pod)",
		mutate:   "-", node: "- (the node runs the pod as Windows would)", doctor: "-"},
	{rules: "LIM-1 (images of both OSes)",
		validate: "the same ID for workloads", mutate: "the same ID for Pods (refused)", node: "-", doctor: "-"},
	{rules: "SCH-5, IMG-2, IMG-4 (an image on a node it cannot run on), lint errors only",
		validate: "-",
		mutate:   "the same ID: a refusal when the pod's own placement contradicts its images (lint also says so where its selectors match no node: windows.PinnedBuilds), else placed-by names the rule of what it added (it also adds SCH-5/SCH-3/SCH-2 where lint sees no failure); LIM-1 refusals cover a mixed pod's image rules",
		node:     "the same ID for the pull or start failure on each node the pod lands on; nothing when lint says the pods stay Pending (SCH-1, SCH-3, SCH-4: lint's IMG-2 there is a forecast); for a LIM-1 pod, the rule of whichever image fails where it lands",
		doctor:   "the same IDs as the node, read from the pod statuses (and DaemonSet counts) the node leaves"},
	{rules: "an image that runs on no node of the cluster",
		validate: "-", mutate: "adds nothing (no placement helps) and warns with lint's rule for where the pod lands (windows.Reach)", node: "as lint", doctor: "as the node"},
	{rules: "SCH-5 info (only taints keep the pod off) and SCH-5 warning (a DaemonSet with an image outside the catalog)",
		validate: "-", mutate: "places by what it knows", node: "no failure (left out here)", doctor: "-"},
	{rules: "IMG-3 and images outside the catalog",
		validate: "-", mutate: "places by what it knows", node: "pulls linux/amd64 (left out here: lint does not guess)", doctor: "left out here"},
	{rules: "WK-1..WK-7 (winkube's own pod annotations)",
		validate: "the same IDs and words (TestAnnotationAgreement)", mutate: "-",
		node: "WK-1..WK-6: CreateContainerConfigError in the same words", doctor: "-"},
	{rules: "KP-7's NodePort issue (TestNodePortIssueAgreement)",
		validate: "-", mutate: "-", node: "-",
		doctor: "the same Services, in the same words: service.OverlayNodePortIssue over the nodes the backends run on (lint: can land on)"},
	{rules: "GMSA-1..GMSA-3 (TestGMSAAgreement)",
		validate: "the windows-gmsa webhook (pkg/gmsa, not winkube's): the same rule in its words", mutate: "-", node: "-",
		doctor: "the same rule and words on a pod admitted before the spec or RBAC changed"},
	{rules: "API-9, API-10, SCH-1..4, IMG-5, LIM-10..13, KP-*",
		validate: "- (apiVersions, unknown keys, Services and RuntimeClasses are lint's)", mutate: "-", node: "-", doctor: "KP-*/LIM-12 from the live kube-proxy flags, not compared here"},
}

func placementRule(r string) bool { return r == "SCH-5" || r == "IMG-2" || r == "IMG-4" }

// validateSees reports whether the validating webhook reports rule r for
// an object of kind at Kubernetes 1.minor.
func validateSees(r, kind string, minor int) bool {
	switch {
	case r == "LIM-1":
		return kind != "Pod"
	case r == "API-1" || r == "API-2" || r == "API-3" || r == "API-4" || r == "API-5" || r == "API-6":
		return !windows.OSFieldAlwaysEnforced(minor)
	case r == "API-8" || strings.HasPrefix(r, "VER-"):
		return true
	case strings.HasPrefix(r, "LIM-"):
		return !serviceRule(r)
	case strings.HasPrefix(r, "WK-"):
		return r != "WK-8" // winkube.io/ignore is lint's own
	}
	return false
}

// serviceRule: LIM-10..13 are about Services.
func serviceRule(r string) bool {
	return r == "LIM-10" || r == "LIM-11" || r == "LIM-12" || r == "LIM-13" || r == "LIM-16"
}

// TestAgreement: for every workload of the inputs, lint, the webhook,
// the emulated node and doctor name the same rules for the same cause
// (see sight), at the default Kubernetes version and at 1.26, where the
// webhook also stands in for the API server's OS field checks.
func TestAgreement(t *testing.T) {
	inputs := loadInputs(t)
	for _, minor := range []int{kubeversion.DefaultMinor, 26} {
		target := cluster(t, minor)
		shared := newWebhook(t, target, nil)
		all := nodes(target)
		compared := 0
		for _, in := range inputs {
			ws := workloadsOf(in.objs)
			if len(ws) == 0 {
				continue
			}
			name := fmt.Sprintf("1.%d/%s", minor, filepath.Base(in.file))
			classes := runtimeClassesOf(in.objs)
			h := shared
			if len(classes) > 0 {
				h = newWebhook(t, target, classes)
			}
			var lint lintSays
			lint.all, lint.errs = lintVerdicts(target, in.objs)
			f := runFleet(t, ws, all, classes)
			dv := doctorVerdicts(f.state)
			for _, w := range ws {
				compared++
				checkWorkload(t, name, minor, w, lint, admit(t, h, w), f.node, dv)
			}
		}
		if compared < 100 {
			t.Errorf("1.%d: only %d workloads compared", minor, compared)
		}
	}
}

// checkWorkload compares one workload's verdicts.
func checkWorkload(t *testing.T, name string, minor int, w *workload, lint lintSays, a admission, nv, dv verdicts) {
	t.Helper()
	key := w.key()
	sees := func(r string) bool { return validateSees(r, w.kind, minor) }
	// rule: LIM-1
	if want, got := lint.all.sorted(key, sees), (verdicts{key: a.validate}).sorted(key, sees); !same(want, got) {
		t.Errorf("%s %s: lint says %v, the validating webhook %v", name, key, want, got)
	}
	failing := lint.errs.sorted(key, placementRule)
	// rule: IMG-2
	for _, r := range failing {
		if a.refused != r && !a.placed[r] && a.refused != "LIM-1" {
			t.Errorf("%s %s: lint says %s; the mutating webhook neither refuses nor places for it (refused %q, placed %v)",
				name, key, r, a.refused, (verdicts{key: a.placed}).sorted(key, placementRule))
		}
	}
	if r := a.refused; r != "" && r != "LIM-1" && !lint.all[key][r] {
		t.Errorf("%s %s: the mutating webhook refuses for %s, lint says %v", name, key, r, lint.all.sorted(key, placementRule))
	}
	// rule: SCH-5
	node := nv.sorted(key, placementRule)
	switch {
	case pending(lint.errs[key]):
		if len(node) > 0 {
			t.Errorf("%s %s: lint says the pods stay Pending, yet the emulated node fails with %v", name, key, node)
		}
	case lint.errs[key]["LIM-1"]:
		// A pod mixing OSes fails on every node; which image's rule
		// the node shows depends on where it lands.
	case !same(failing, node):
		t.Errorf("%s %s: lint says %v, the emulated node fails with %v", name, key, failing, node)
	}
	// rule: IMG-4
	if d := dv.sorted(key, placementRule); !same(node, d) {
		t.Errorf("%s %s: the emulated node fails with %v, doctor reports %v", name, key, node, d)
	}
}

// lintSays is lint's verdicts on one input.
type lintSays struct {
	all, errs verdicts
}

// pending: lint says the pods are never scheduled (no node matches SCH-1,
// a taint not tolerated SCH-3, a RuntimeClass conflict SCH-4), so no node
// runs them and lint's image verdict is a forecast.
func pending(errs map[string]bool) bool { return errs["SCH-1"] || errs["SCH-3"] || errs["SCH-4"] }

func same(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
