package windows

import "testing"

func TestReleasesMatchSeeds(t *testing.T) {
	// rule: IMG-1, VER-1
	// Builds as the upstream Windows docs print them, not copied from the
	// table under test: the windows-build label table of the scheduling
	// guide (seed 003), the IPv6 kernel note of the 1.17–1.20 intro (seed
	// 000: version 2004 is 10.0.19041) and the 1.27 support list (seed 002,
	// whose names must all resolve).
	seeds := []struct {
		name  string
		label string
	}{
		{"2019", "10.0.17763"},
		{"1809", "10.0.17763"},
		{"1903", "10.0.18362"},
		{"2004", "10.0.19041"},
	}
	for _, sd := range seeds {
		r, ok := ReleaseByName(sd.name)
		if !ok || r.Version().Label() != sd.label {
			t.Errorf("ReleaseByName(%q) = %s, %v; the docs say %s", sd.name, r.Version().Label(), ok, sd.label)
		}
	}
	for _, name := range []string{"2019", "2022", "20H2", "1909"} {
		if _, ok := ReleaseByName(name); !ok {
			t.Errorf("release %q named by the upstream support lists is unknown", name)
		}
	}
}

func TestReleasesTableShape(t *testing.T) {
	// rule: IMG-1, KLT-1
	// What every row needs whatever its values: ascending builds, a UBR
	// for nodeInfo.kernelVersion, a product name for osImage, and an
	// "ltscYYYY" alias on LTSC rows, as the MCR image tags use.
	got := Releases()
	for i, r := range got {
		if i > 0 && r.Build <= got[i-1].Build {
			t.Errorf("release %d is not after %d", r.Build, got[i-1].Build)
		}
		if r.UBR <= 0 || r.ProductName == "" {
			t.Errorf("release %d lacks UBR or product name: %+v", r.Build, r)
		}
		if r.LTSC {
			if byName, ok := ReleaseByName("ltsc" + r.Name()); !ok || byName.Build != r.Build {
				t.Errorf("LTSC release %d has no ltsc%s alias", r.Build, r.Name())
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
