package windows

import (
	"strings"
	"testing"
)

func b(build, rev int) Build { return Build{10, 0, build, rev} }

func TestCheckImageCompatible(t *testing.T) {
	// rule: IMG-2
	tests := []struct {
		name        string
		host, image Build
		ok          bool
		errContains string
	}{
		// 2016 and 2019 hosts: the build must be equal.
		{"2016 runs 2016", b(14393, 6614), b(14393, 100), true, ""},
		{"2016 refuses 2019", b(14393, 6614), b(17763, 5329), false, "same build"},
		{"2019 runs 2019", b(17763, 5329), b(17763, 5329), true, ""},
		{"2019 refuses 2016", b(17763, 5329), b(14393, 6614), false, "same build"},
		{"2019 refuses 2022", b(17763, 5329), b(20348, 2227), false, "same build"},
		{"1903 refuses 1809", b(18362, 1256), b(17763, 1), false, "same build"},
		{"20H2 refuses 2004", b(19042, 1889), b(19041, 1415), false, "same build"},
		{"20H2 runs 20H2", b(19042, 1889), b(19042, 1), true, ""},
		// 2022 hosts run only 2022.
		{"2022 runs 2022", b(20348, 2227), b(20348, 169), true, ""},
		{"2022 refuses 2019", b(20348, 2227), b(17763, 5329), false, "only images of the same build"},
		{"2022 refuses 2025", b(20348, 2227), b(26100, 2314), false, "20348"},
		{"2022 refuses 20H2", b(20348, 2227), b(19042, 1889), false, ""},
		// 23H2 (25398) runs 20348..25398.
		{"23H2 runs 2022", b(25398, 643), b(20348, 2227), true, ""},
		{"23H2 runs 23H2", b(25398, 643), b(25398, 1), true, ""},
		{"23H2 refuses 2019", b(25398, 643), b(17763, 5329), false, "builds 20348 to 25398"},
		{"23H2 refuses 2025", b(25398, 643), b(26100, 2314), false, ""},
		// 2025 runs 2022 and 2025.
		{"2025 runs 2022", b(26100, 2314), b(20348, 2227), true, ""},
		{"2025 runs 2025", b(26100, 2314), b(26100, 1), true, ""},
		{"2025 runs 23H2", b(26100, 2314), b(25398, 643), true, ""},
		{"2025 refuses 2019", b(26100, 2314), b(17763, 5329), false, "builds 20348 to 26100"},
		{"2025 refuses newer", b(26100, 2314), b(26200, 1), false, ""},
		// A future host after 2025: floor is the newest older LTSC, 2025.
		{"future host refuses 2022", b(30000, 1), b(20348, 1), false, "builds 26100 to 30000"},
		{"future host runs 2025", b(30000, 1), b(26100, 1), true, ""},
		// Major and minor must match.
		{"major mismatch", b(17763, 1), Build{6, 0, 17763, 1}, false, "major and minor"},
		{"minor mismatch", b(20348, 1), Build{10, 1, 20348, 1}, false, "major and minor"},
		// The revision never matters.
		{"UBR ignored, older image", b(17763, 5329), b(17763, 1), true, ""},
		{"UBR ignored, newer image", b(17763, 1), b(17763, 9999), true, ""},
		{"UBR ignored, no revision", b(20348, 0), b(20348, 2227), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckImageCompatible(tt.host, tt.image)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckImageCompatible(%s, %s) = %v, want nil", tt.host, tt.image, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckImageCompatible(%s, %s) = nil, want error", tt.host, tt.image)
			}
			if !strings.Contains(err.Error(), tt.errContains) {
				t.Errorf("error %q does not contain %q", err, tt.errContains)
			}
		})
	}
}

func TestCompatibleImageBuilds(t *testing.T) {
	// rule: IMG-2
	tests := []struct{ host, lo, hi int }{
		{14393, 14393, 14393},
		{17763, 17763, 17763},
		{19042, 19042, 19042},
		{20348, 20348, 20348},
		{25398, 20348, 25398},
		{26100, 20348, 26100},
		{30000, 26100, 30000},
	}
	for _, tt := range tests {
		lo, hi := compatibleImageBuilds(tt.host)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("compatibleImageBuilds(%d) = [%d, %d], want [%d, %d]", tt.host, lo, hi, tt.lo, tt.hi)
		}
	}
}
