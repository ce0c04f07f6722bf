package lint

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
)

// ruleCases pairs, per rule, a manifest that breaks the rule (bad) with one
// that follows it (good). Files live in testdata/rules, clusters in
// testdata/clusters.
var ruleCases = []ruleCase{
	// rule: API-1
	{rule: "API-1", bad: "api-1-bad.yaml", good: "api-1-good.yaml"},
	// rule: API-2
	{rule: "API-2", bad: "api-2-bad.yaml", good: "api-2-good.yaml"},
	// rule: API-3
	{rule: "API-3", bad: "api-3-bad.yaml", good: "api-3-good.yaml"},
	// rule: API-4
	{rule: "API-4", bad: "api-4-bad.yaml", good: "api-4-good.yaml"},
	// rule: API-5
	{rule: "API-5", bad: "api-5-bad.yaml", good: "api-5-good.yaml"},
	// rule: API-6
	{rule: "API-6", bad: "api-6-bad.yaml", good: "api-6-good.yaml"},
	// rule: API-8
	{rule: "API-8", bad: "api-8-bad.yaml", good: "api-8-good.yaml", minor: 22},
	// rule: API-9
	{rule: "API-9", bad: "api-9-bad.yaml", good: "api-9-good.yaml"},
	// rule: LIM-1
	{rule: "LIM-1", bad: "lim-1-bad.yaml", good: "lim-1-good.yaml"},
	// rule: LIM-2
	{rule: "LIM-2", bad: "lim-2-bad.yaml", good: "lim-2-good.yaml"},
	// rule: LIM-3
	{rule: "LIM-3", bad: "lim-3-bad.yaml", good: "lim-3-good.yaml"},
	// rule: LIM-4
	{rule: "LIM-4", bad: "lim-4-bad.yaml", good: "lim-4-good.yaml"},
	// rule: LIM-5
	{rule: "LIM-5", bad: "lim-5-bad.yaml", good: "lim-5-good.yaml"},
	// rule: LIM-6
	{rule: "LIM-6", bad: "lim-6-bad.yaml", good: "lim-6-good.yaml"},
	// rule: LIM-7
	{rule: "LIM-7", bad: "lim-7-bad.yaml", good: "lim-7-good.yaml", cluster: "docker"},
	// rule: LIM-8
	{rule: "LIM-8", bad: "lim-8-bad.yaml", good: "lim-8-good.yaml"},
	// rule: LIM-9
	{rule: "LIM-9", bad: "lim-9-bad.yaml", good: "lim-9-good.yaml"},
	// rule: LIM-10
	{rule: "LIM-10", bad: "lim-10-bad.yaml", good: "lim-10-good.yaml"},
	// rule: LIM-11
	{rule: "LIM-11", bad: "lim-11-bad.yaml", good: "lim-11-good.yaml"},
	// rule: LIM-12
	{rule: "LIM-12", bad: "lim-12-bad.yaml", good: "lim-12-good.yaml"},
	// rule: LIM-13
	{rule: "LIM-13", bad: "lim-13-bad.yaml", good: "lim-13-good.yaml"},
	// rule: LIM-14
	{rule: "LIM-14", bad: "lim-14-bad.yaml", good: "lim-14-good.yaml", cluster: "docker"},
	// rule: LIM-15
	{rule: "LIM-15", bad: "lim-15-bad.yaml", good: "lim-15-good.yaml"},
	// rule: LIM-17
	{rule: "LIM-17", bad: "lim-17-bad.yaml", good: "lim-17-good.yaml"},
	// rule: LIM-18
	{rule: "LIM-18", bad: "lim-18-bad.yaml", good: "lim-18-good.yaml"},
	// rule: LIM-19
	{rule: "LIM-19", bad: "lim-19-bad.yaml", good: "lim-19-good.yaml"},
	// rule: LIM-20
	{rule: "LIM-20", bad: "lim-20-bad.yaml", good: "lim-20-good.yaml"},
	// rule: SCH-1
	{rule: "SCH-1", bad: "sch-1-bad.yaml", good: "sch-1-good.yaml"},
	// rule: SCH-2
	{rule: "SCH-2", bad: "sch-2-bad.yaml", good: "sch-2-good.yaml"},
	// rule: SCH-3
	{rule: "SCH-3", bad: "sch-3-bad.yaml", good: "sch-3-good.yaml"},
	// rule: SCH-4
	{rule: "SCH-4", bad: "sch-4-bad.yaml", good: "sch-4-good.yaml"},
	// rule: SCH-5
	{rule: "SCH-5", bad: "sch-5-bad.yaml", good: "sch-5-good.yaml"},
	// rule: IMG-2
	{rule: "IMG-2", bad: "img-2-bad.yaml", good: "img-2-good.yaml"},
	// rule: IMG-4
	{rule: "IMG-4", bad: "img-4-bad.yaml", good: "img-4-good.yaml"},
	// rule: KP-5
	{rule: "KP-5", bad: "kp-5-bad.yaml", good: "kp-5-good.yaml"},
	// rule: VER-2
	{rule: "VER-2", bad: "ver-2-bad.yaml", good: "ver-2-good.yaml", minor: 21},
	// rule: KP-7
	{rule: "KP-7", bad: "kp-7-bad.yaml", good: "kp-7-good.yaml"},
	// rule: SCH-3
	{rule: "SCH-3", bad: "runtimeclass-sch-3-bad.yaml", good: "runtimeclass-sch-3-good.yaml"},
	// rule: SCH-4
	{rule: "SCH-4", bad: "runtimeclass-sch-4-bad.yaml", good: "runtimeclass-sch-4-good.yaml"},
	// rule: WK-1
	{rule: "WK-1", bad: "wk-1-bad.yaml", good: "wk-1-good.yaml"},
	// rule: WK-2
	{rule: "WK-2", bad: "wk-2-bad.yaml", good: "wk-2-good.yaml"},
	// rule: WK-3
	{rule: "WK-3", bad: "wk-3-bad.yaml", good: "wk-3-good.yaml"},
	// rule: WK-4
	{rule: "WK-4", bad: "wk-4-bad.yaml", good: "wk-4-good.yaml"},
	// rule: WK-5
	{rule: "WK-5", bad: "wk-5-bad.yaml", good: "wk-5-good.yaml"},
	// rule: WK-6
	{rule: "WK-6", bad: "wk-6-bad.yaml", good: "wk-6-good.yaml"},
	// rule: WK-7
	{rule: "WK-7", bad: "wk-7-bad.yaml", good: "wk-7-good.yaml"},
	// rule: WK-8
	{rule: "WK-8", bad: "wk-8-bad.yaml", good: "wk-8-good.yaml"},
	// rule: GMSA-1
	{rule: "GMSA-1", bad: "gmsa-1-bad.yaml", good: "gmsa-1-good.yaml"},
	// rule: GMSA-2
	{rule: "GMSA-2", bad: "gmsa-2-bad.yaml", good: "gmsa-2-good.yaml"},
	// rule: GMSA-3
	{rule: "GMSA-3", bad: "gmsa-3-bad.yaml", good: "gmsa-3-good.yaml"},
}

// A live cluster that does not say whether kube-proxy runs with DSR makes
// LIM-12 the rule book's dsr-unknown case: a warning that says so, not an
// error.
//
// rule: LIM-12
func TestLIM12DSRUnknown(t *testing.T) {
	c, err := v1alpha1.Load("")
	if err != nil {
		t.Fatal(err)
	}
	target, err := TargetFromClusterAt(c, kubeversion.DefaultMinor)
	if err != nil {
		t.Fatal(err)
	}
	target.DSR, target.DSRKnown = false, false
	objs, errs := manifest.Load([]string{"testdata/rules/lim-12-bad.yaml"}, manifest.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []Finding
	for _, f := range New(target).Lint(objs).Findings {
		if f.Rule == "LIM-12" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != rules.SeverityWarning || got[0].Case != "dsr-unknown" ||
		!strings.HasSuffix(got[0].Message, "(the live cluster does not say whether it does)") {
		t.Fatalf("LIM-12 findings = %+v, want one dsr-unknown warning", got)
	}
}
