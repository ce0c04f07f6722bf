package format

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func lines(l ...string) string { return strings.Join(l, values.NL) + values.NL }

// Out-Default's defaults (about_Format.ps1xml): scalars one per line;
// a hashtable as a Name/Value table with a 30-character Name column;
// a PSCustomObject of up to four properties as a table sized to its
// cells with numbers right-aligned, of five or more as a list; two
// blank lines after each table or list.
func TestFormatter(t *testing.T) {
	h := values.NewHashtable()
	h.Set("b", 2)
	h.Set("a", 1)
	for _, c := range []struct {
		name string
		in   []any
		want string
	}{
		{"scalars", []any{1, "a", true, 2.5, nil}, lines("1", "a", "True", "2.5")},
		{"hashtable", []any{h}, lines("", "Name                           Value", "----                           -----", "b                              2", "a                              1", "", "")},
		{"table", []any{values.NewObject("System.Management.Automation.PSCustomObject", "Name", "x", "Value", 3), values.NewObject("System.Management.Automation.PSCustomObject", "Name", "longer name", "Value", 12345)},
			lines("", "Name        Value", "----        -----", "x               3", "longer name 12345", "", "")},
		{"list", []any{values.NewObject("System.Management.Automation.PSCustomObject", "A", 1, "B", 2, "C", 3, "D", 4, "E", 5)},
			lines("", "A : 1", "B : 2", "C : 3", "D : 4", "E : 5", "", "")},
	} {
		var b strings.Builder
		f := New(&b, false)
		for _, v := range c.in {
			f.Write(v)
		}
		f.Flush()
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
}
