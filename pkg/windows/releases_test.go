package windows

import "testing"

func TestReleasesTable(t *testing.T) {
	// rule: IMG-1
	want := []struct {
		build int
		names []string
		ltsc  bool
	}{
		{14393, []string{"2016", "1607"}, true},
		{17763, []string{"2019", "ltsc2019", "1809"}, true},
		{18362, []string{"1903"}, false},
		{18363, []string{"1909"}, false},
		{19041, []string{"2004"}, false},
		{19042, []string{"20H2"}, false},
		{20348, []string{"2022", "ltsc2022"}, true},
		{25398, []string{"23H2"}, false},
		{26100, []string{"2025", "ltsc2025"}, true},
	}
	got := Releases()
	if len(got) != len(want) {
		t.Fatalf("Releases() has %d entries, want %d", len(got), len(want))
	}
	for i, w := range want {
		r := got[i]
		if r.Build != w.build || r.LTSC != w.ltsc {
			t.Errorf("Releases()[%d] = %d ltsc=%v, want %d ltsc=%v", i, r.Build, r.LTSC, w.build, w.ltsc)
		}
		if r.UBR <= 0 || r.ProductName == "" {
			t.Errorf("release %d lacks UBR or product name: %+v", r.Build, r)
		}
		for _, n := range w.names {
			if byName, ok := ReleaseByName(n); !ok || byName.Build != w.build {
				t.Errorf("ReleaseByName(%q) = %d, %v, want %d", n, byName.Build, ok, w.build)
			}
		}
	}
}

func TestReleasesReturnsCopy(t *testing.T) {
	// rule: IMG-1 (callers cannot edit the table)
	Releases()[1].Names[0] = "changed"
	if r, _ := ReleaseByBuild(17763); r.Names[0] != "2019" {
		t.Fatalf("Releases() leaked the table: %v", r.Names)
	}
}

func TestReleaseByName(t *testing.T) {
	// rule: IMG-1, KLT-1
	tests := []struct {
		name      string
		wantBuild int
		wantOK    bool
	}{
		{"2019", 17763, true},
		{"LTSC2019", 17763, true},
		{"1809", 17763, true},
		{"20h2", 19042, true},
		{"20H2", 19042, true},
		{"2022", 20348, true},
		{"ltsc2022", 20348, true},
		{"ltsc2025", 26100, true},
		{"23H2", 25398, true},
		{"10.0.17763", 17763, true},
		{"10.0.17763.5329", 17763, true},
		{"17763", 17763, true},
		{"20348", 20348, true},
		{"6.3.17763", 0, false},
		{"2012", 0, false},
		{"", 0, false},
		{"ltsc", 0, false},
	}
	for _, tt := range tests {
		r, ok := ReleaseByName(tt.name)
		if ok != tt.wantOK || r.Build != tt.wantBuild {
			t.Errorf("ReleaseByName(%q) = %d, %v, want %d, %v", tt.name, r.Build, ok, tt.wantBuild, tt.wantOK)
		}
	}
}

func TestReleaseNodeInfo(t *testing.T) {
	// rule: KLT-1
	r, ok := ReleaseByBuild(17763)
	if !ok {
		t.Fatal("2019 missing")
	}
	if got := r.Version().String(); got != "10.0.17763.5329" {
		t.Errorf("kernelVersion = %s, want 10.0.17763.5329", got)
	}
	if r.ProductName != "Windows Server 2019 Datacenter" {
		t.Errorf("osImage = %q", r.ProductName)
	}
	if sac, _ := ReleaseByBuild(19042); sac.ProductName != "Windows Server Datacenter" {
		t.Errorf("20H2 osImage = %q, want the year-less SAC name", sac.ProductName)
	}
	if _, ok := ReleaseByBuild(12345); ok {
		t.Error("ReleaseByBuild(12345) found a release")
	}
}
