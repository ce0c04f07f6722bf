package kubeversion

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// Default must be the k8s.io/kubernetes release go.mod requires, and the one
// linked into this binary when the build info says.
func TestDefaultIsBuiltIn(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "k8s.io/kubernetes" {
			found = true
			if f[1] != Default {
				t.Errorf("go.mod requires k8s.io/kubernetes %s; kubeversion.Default is %s", f[1], Default)
			}
		}
	}
	if !found {
		t.Error("go.mod does not require k8s.io/kubernetes")
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "k8s.io/kubernetes" && d.Version != Default {
				t.Errorf("built with k8s.io/kubernetes %s; kubeversion.Default is %s", d.Version, Default)
			}
		}
	}
	if m, err := ParseMinor(Default); err != nil || m != DefaultMinor {
		t.Errorf("ParseMinor(Default) = %d, %v; DefaultMinor is %d", m, err, DefaultMinor)
	}
}

func TestParse(t *testing.T) {
	good := map[string]Version{
		"v1.36.3":      {Minor: 36, Patch: 3},
		"1.26":         {Minor: 26, Patch: -1},
		"v1.27":        {Minor: 27, Patch: -1},
		"1.27+":        {Minor: 27, Patch: -1},
		"22":           {Minor: 22, Patch: -1},
		" v1.9 ":       {Minor: 9, Patch: -1},
		"v1.36.0-rc.1": {Minor: 36, Patch: 0, Pre: "rc.1"},
	}
	for in, want := range good {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "banana", "2.1", "1.x", "1", "0", "1.2.3.4", "1.27.x", "1.-3", "1.+3", "1.27-rc.1"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}

func TestServerMinor(t *testing.T) {
	if m, err := ServerMinor("1", "27+"); err != nil || m != 27 {
		t.Errorf("ServerMinor(1, 27+) = %d, %v", m, err)
	}
	if _, err := ServerMinor("2", "0"); err == nil {
		t.Error("ServerMinor(2, 0) accepted")
	}
}

func TestFull(t *testing.T) {
	for in, want := range map[string]string{"1.27": "v1.27.0", "v1.36.3": "v1.36.3", "1.36.0-rc.1": "v1.36.0-rc.1"} {
		v, err := Parse(in)
		if err != nil || v.Full() != want {
			t.Errorf("Parse(%q).Full() = %q, %v; want %q", in, v.Full(), err, want)
		}
	}
}
