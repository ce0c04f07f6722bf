package rules

import (
	"slices"
	"testing"
)

// TestVerdictsNameRules: every rule and every related rule in the verdict
// table exists, and case names are unique per rule.
func TestVerdictsNameRules(t *testing.T) {
	for id, rv := range verdicts {
		if _, ok := Get(id); !ok {
			t.Errorf("verdict for unknown rule %s", id)
		}
		seen := map[string]bool{}
		for _, c := range rv.Cases {
			if c.Name == "" || seen[c.Name] || c.Text == "" {
				t.Errorf("%s: case %q is unnamed, repeated or undocumented", id, c.Name)
			}
			seen[c.Name] = true
			for _, s := range append(slices.Clone(rv.See), c.See...) {
				if _, ok := Get(s); !ok {
					t.Errorf("%s: see-also %s is no rule", id, s)
				}
			}
		}
	}
}

// TestNewCarriesTheVerdict: a finding takes severity, fix and see-also
// from the rule book; a case overrides only what it sets; a producer's
// more specific fix wins.
func TestNewCarriesTheVerdict(t *testing.T) {
	// rule: TS-1
	f := New("TS-1", "no-kube-proxy", "no kube-proxy")
	if f.Severity != SeverityWarning || f.Fix != VerdictOf("TS-1", "").Fix || f.Case != "no-kube-proxy" {
		t.Errorf("TS-1 no-kube-proxy: %+v", f)
	}
	if New("TS-1", "", "x").Severity != SeverityError {
		t.Error("TS-1: want error")
	}
	// rule: TS-8
	if got := New("TS-8", "unregistered", "x").See; !slices.Equal(got, []string{"NET-8", "TS-1"}) {
		t.Errorf("TS-8 unregistered see %v", got)
	}
	// rule: IMG-3
	if New("IMG-3", "no-release-tag", "x").Severity != SeverityInfo {
		t.Error("IMG-3 no-release-tag: a case without a severity keeps the rule's")
	}
	// rule: KP-8
	if got := New("KP-8", "", "x").WithFix("set it to win-1"); got.Fix != "set it to win-1" || !slices.Equal(got.See, []string{"TS-5"}) {
		t.Errorf("KP-8 with fix: %+v", got)
	}
	if !HasCase("SCH-5", "advice") || HasCase("SCH-5", "nonsense") || !HasCase("LIM-1", "") {
		t.Error("HasCase")
	}
}
