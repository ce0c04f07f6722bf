package dns

import (
	"slices"
	"testing"
)

func TestCandidatesWindowsOneSuffix(t *testing.T) {
	// rule: DNS-1
	cases := map[string][]string{
		"kubernetes":                           {"kubernetes.default.svc.cluster.local"},
		"kubernetes.default":                   {"kubernetes.default"},
		"kubernetes.default.svc":               {"kubernetes.default.svc"},
		"kubernetes.default.svc.cluster.local": {"kubernetes.default.svc.cluster.local"},
		"kubernetes.":                          {"kubernetes"},
		"www.example.com":                      {"www.example.com"},
	}
	for name, want := range cases {
		if got := Candidates(name, "default", "windows", "cluster.local"); !slices.Equal(got, want) {
			t.Errorf("windows %q: got %q, want %q", name, got, want)
		}
	}
}

func TestCandidatesLinuxSearchListNdots5(t *testing.T) {
	cases := map[string][]string{
		"kubernetes": {
			"kubernetes.default.svc.cluster.local", "kubernetes.svc.cluster.local",
			"kubernetes.cluster.local", "kubernetes",
		},
		"kubernetes.default": {
			"kubernetes.default.default.svc.cluster.local", "kubernetes.default.svc.cluster.local",
			"kubernetes.default.cluster.local", "kubernetes.default",
		},
		// Five dots reach ndots: the name is tried as is first.
		"a.b.c.d.e.f": {
			"a.b.c.d.e.f", "a.b.c.d.e.f.default.svc.cluster.local",
			"a.b.c.d.e.f.svc.cluster.local", "a.b.c.d.e.f.cluster.local",
		},
		"kubernetes.default.svc.cluster.local.": {"kubernetes.default.svc.cluster.local"},
	}
	for name, want := range cases {
		if got := Candidates(name, "default", "linux", "cluster.local"); !slices.Equal(got, want) {
			t.Errorf("linux %q: got %q, want %q", name, got, want)
		}
	}
}

func TestCandidatesDomainAndEmpty(t *testing.T) {
	if got := Candidates("web", "shop", "windows", ""); !slices.Equal(got, []string{"web.shop.svc.cluster.local"}) {
		t.Errorf("empty domain defaults to cluster.local: got %q", got)
	}
	if got := Candidates("web", "shop", "Windows", "corp.example."); !slices.Equal(got, []string{"web.shop.svc.corp.example"}) {
		t.Errorf("custom domain: got %q", got)
	}
	if got := Candidates("", "default", "linux", "cluster.local"); got != nil {
		t.Errorf("empty name: got %q, want none", got)
	}
}
