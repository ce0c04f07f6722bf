package windows

import (
	"fmt"
	"strconv"
	"strings"
)

// Build is a Windows version: major.minor.build[.revision]. The revision is the
// update build revision (UBR), which changes with every monthly patch.
type Build struct{ Major, Minor, Build, Revision int }

// ParseBuild reads "10.0.17763" or "10.0.17763.5329". Each part must be a
// non-negative decimal number; anything else is an error naming the input.
func ParseBuild(s string) (Build, error) {
	text := strings.TrimSpace(s)
	dots := strings.Count(text, ".")
	if dots != 2 && dots != 3 {
		return Build{}, fmt.Errorf("invalid Windows build %q: want major.minor.build or major.minor.build.revision (e.g. 10.0.17763)", s)
	}
	var nums [4]int
	rest := text
	for i := 0; i <= dots; i++ {
		var p string
		p, rest, _ = strings.Cut(rest, ".")
		n, err := parsePart(p)
		if err != nil {
			return Build{}, fmt.Errorf("invalid Windows build %q: part %d %w", s, i+1, err)
		}
		nums[i] = n
	}
	return Build{Major: nums[0], Minor: nums[1], Build: nums[2], Revision: nums[3]}, nil
}

// parsePart accepts digits only, so "+1", "-1" and " 1" are refused.
func parsePart(p string) (int, error) {
	if p == "" {
		return 0, fmt.Errorf("is empty")
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a number", p)
		}
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", p)
	}
	return n, nil
}

// String is the full version, with the revision only when it is non-zero.
func (b Build) String() string {
	if b.Revision != 0 {
		return fmt.Sprintf("%d.%d.%d.%d", b.Major, b.Minor, b.Build, b.Revision)
	}
	return b.Label()
}

// Label is the value of the node.kubernetes.io/windows-build node label
// (rule SCH-1): major.minor.build without the revision.
func (b Build) Label() string {
	return fmt.Sprintf("%d.%d.%d", b.Major, b.Minor, b.Build)
}

// IsZero reports whether b is the zero value (no build known).
func (b Build) IsZero() bool { return b == Build{} }

// Compare orders builds by major, minor, build and then revision; it returns
// -1, 0 or +1 like strings.Compare.
func (b Build) Compare(o Build) int {
	for _, d := range [][2]int{{b.Major, o.Major}, {b.Minor, o.Minor}, {b.Build, o.Build}, {b.Revision, o.Revision}} {
		switch {
		case d[0] < d[1]:
			return -1
		case d[0] > d[1]:
			return 1
		}
	}
	return 0
}

// WithoutRevision drops the UBR: compatibility (IMG-2) and node labels
// (SCH-1) never look at it.
func (b Build) WithoutRevision() Build {
	b.Revision = 0
	return b
}
