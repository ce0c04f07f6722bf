package applets

import (
	"sort"
	"strings"
	"testing"
)

// busybox [--list | --help | APPLET [ARGS]]: the multi-call binary lists
// its applets (sorted, one a line), names them after its banner, and
// runs one by name, its messages in that applet's name.
func TestBusyboxMultiCall(t *testing.T) {
	e := newEnv()
	out, _, code := e.run(t, "", "busybox", "--list")
	names := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || !sort.StringsAreSorted(names) || len(names) != len(table) {
		t.Errorf("--list: %d names (table has %d), sorted %v", len(names), len(table), sort.StringsAreSorted(names))
	}
	for _, argv := range [][]string{{"busybox"}, {"busybox", "--help"}} {
		out, _, code := e.run(t, "", argv...)
		if code != 0 || !strings.HasPrefix(out, "BusyBox v1.37.0 ") || !strings.Contains(out, "Currently defined functions:\n\t[, awk, base64, basename, ") {
			t.Errorf("%q = %d %q", argv, code, out)
		}
	}
	runCases(t, e, []tc{
		{argv: []string{"/bin/busybox", "/bin/cat", "/data.txt"}, out: "one\ntwo\nthree\nfour\n"},
		{argv: []string{"busybox", "[", "1", "-lt", "2", "]"}},
		{argv: []string{"busybox", "head", "-x"}, errText: "head: invalid option -- 'x'", code: 1},
		{argv: []string{"busybox", "sh", "-c", "true"}, errText: "sh: applet not found", code: 127},
		{argv: []string{"busybox", "false"}, code: 1},
	})
	if _, ok := Table()["busybox"]; !ok {
		t.Error("Table has no busybox")
	}
}
