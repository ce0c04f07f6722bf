package agreement

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
)

// rule: KP-7
// TestNodePortIssueAgreement: for every Service of the inputs, lint (from
// the nodes its backends can land on) and doctor (from the nodes the
// emulated fleet runs them on) both report KP-7's NodePort issue or
// neither, in the rule book's words; doctor names a subset of lint's
// nodes (lint: can land on; doctor: runs on).
func TestNodePortIssueAgreement(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)
	all := nodes(target)
	services, found := 0, 0
	for _, in := range loadInputs(t) {
		var svcs []*corev1.Service
		for _, o := range in.objs {
			if o.Obj.GetKind() != "Service" {
				continue
			}
			s := &corev1.Service{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Obj.Object, s); err != nil {
				t.Fatalf("%s: %v", in.file, err)
			}
			if s.Namespace == "" {
				s.Namespace = "default"
			}
			svcs = append(svcs, s)
		}
		if len(svcs) == 0 {
			continue
		}
		lintSays := map[string]string{}
		for _, f := range lintFindings(target, in.objs) {
			if f.Rule == "KP-7" && f.Case == "" && f.Kind == "Service" {
				lintSays[objectKey(f.Kind, f.Namespace, f.Name)] = f.Message
			}
		}
		fl := runFleet(t, workloadsOf(in.objs), all, runtimeClassesOf(in.objs))
		fl.state.Services = svcs
		doctorSays := map[string]string{}
		for _, f := range doctor.Check(fl.state).Findings {
			if f.Rule == "KP-7" && f.Case == "" && len(f.Objects) > 0 {
				o := f.Objects[0]
				doctorSays[objectKey(o.Kind, o.Namespace, o.Name)] = f.Message
			}
		}
		for _, s := range svcs {
			services++
			key := objectKey("Service", s.Namespace, s.Name)
			l, d := lintSays[key], doctorSays[key]
			name := filepath.Base(in.file) + " " + key
			switch {
			case (l == "") != (d == ""):
				t.Errorf("%s: lint says %q, doctor %q", name, l, d)
			case l != "":
				found++
				if !sameWords(l, d) {
					t.Errorf("%s: lint and doctor word KP-7 differently:\n lint:   %s\n doctor: %s", name, l, d)
				}
			}
		}
	}
	if services < 5 || found == 0 {
		t.Errorf("compared %d Services, %d with KP-7", services, found)
	}
}

// sameWords: the messages agree outside the node list in parentheses
// (lint's nodes are where the pods can land, doctor's where they run),
// and doctor's nodes are among lint's.
func sameWords(lint, doctor string) bool {
	lint = strings.TrimPrefix(lint, "spec.externalTrafficPolicy: ")
	lb, lnodes, lok := cutNodes(lint)
	db, dnodes, dok := cutNodes(doctor)
	if !lok || !dok || lb != db {
		return false
	}
	for _, n := range strings.Split(dnodes, ", ") {
		if !strings.Contains(", "+lnodes+",", ", "+n+",") {
			return false
		}
	}
	return true
}

// cutNodes takes the parenthesised node list out of a KP-7 message.
func cutNodes(msg string) (rest, nodes string, ok bool) {
	before, after, ok := strings.Cut(msg, "(")
	if !ok {
		return msg, "", false
	}
	nodes, after, ok = strings.Cut(after, ")")
	return before + "()" + after, nodes, ok
}

// lintFindings lints one input against the target.
func lintFindings(target *lint.Target, objs []manifest.Object) []lint.Finding {
	return lint.New(target).Lint(objs).Findings
}
