package netcmd

import (
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// fromJSON keeps a document's shape: property order, nesting, the
// number kinds, escapes; text that is not one JSON value is an error.
func TestFromJSON(t *testing.T) {
	v, err := fromJSON([]byte(`{"b": 1, "a": [1, 2.5, "x\u00e9", null, false], "c": {"d": 3000000000}}`))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*values.Object)
	if len(o.Names) != 3 || o.Names[0] != "b" || o.Names[1] != "a" {
		t.Errorf("order %v", o.Names)
	}
	a, _ := o.Get("a")
	list := a.([]any)
	if list[0] != 1 || list[1] != 2.5 || list[2] != "xé" || list[3] != nil || list[4] != false {
		t.Errorf("array %#v", list)
	}
	c, _ := o.Get("c")
	if d, _ := c.(*values.Object).Get("d"); d != 3000000000 {
		t.Errorf("a large integer: %#v", d)
	}
	if v, err := fromJSON([]byte(`[]`)); err != nil || len(v.([]any)) != 0 {
		t.Errorf("an empty array: %#v %v", v, err)
	}
	if v, err := fromJSON([]byte(` "text" `)); err != nil || v != "text" {
		t.Errorf("a string document: %#v %v", v, err)
	}
	for _, bad := range []string{`{"a":}`, `[1, 2`, `{} {}`, ``, `nope`} {
		if _, err := fromJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
