package manifest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const podHead = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n"

// TestYAMLErrorLines checks that syntax errors point at the line the user
// must change, not at the start of the enclosing mapping.
func TestYAMLErrorLines(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"# c\n---\n" + podHead + "spec:\n  containers:\n  - name: a\n    image: b\n   bad: 1\n", "f.yaml:11: yaml: did not find expected key"},
		{podHead + "spec:\n  a: b\n c: d\n", "f.yaml:7: yaml: did not find expected key"},
		{podHead + "  labels: {a: b\n  x: y\n", "f.yaml:5: yaml: did not find expected ',' or '}'"},
		{podHead + "  namespace: \"x\n", "f.yaml:5: yaml: found unexpected end of stream"},
		{podHead + "\tfoo: x\n", "f.yaml:5: yaml: found a tab character that violates indentation"},
		{podHead + "  - a\n", "f.yaml:5: yaml: did not find expected key"},
		{podHead + "  namespace: x: y\n", "f.yaml:5: yaml: mapping values are not allowed in this context"},
		{podHead + "  namespace: *x\n", "f.yaml:5: yaml: unknown anchor 'x' referenced"},
		{podHead + "  labels:\n    a: b\n    a: c\n", "f.yaml:7: duplicate key \"a\""},
		{podHead + "  labels:\n    ? [a]\n    : b\n", "f.yaml:6: a list cannot be a mapping key"},
		{"apiVersion: v1\n", "f.yaml:1: missing kind"},
		{"kind: Pod\n", "f.yaml:1: missing apiVersion"},
		{"apiVersion: v1\nkind: List\nitems:\n- 1\n", "f.yaml:4: List items[0] is not an object"},
		{"apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n", "f.yaml:4: List items[0]: missing apiVersion"},
	}
	for _, tt := range tests {
		_, errs := parseYAML(source{file: "f.yaml"}, []byte(tt.in))
		if len(errs) != 1 || errs[0].Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.in, errs, tt.want)
		}
	}
}

func TestYAMLValues(t *testing.T) {
	in := podHead + `spec:
  base: &base {a: 1, b: two}
  merged:
    <<: *base
    b: 2
  several:
    <<: [*base, {c: 3}]
  scalars: [~, null, true, yes, "yes", off, 0x10, 1_000, 2.5, 3.0, .inf, 2001-12-14, "12", !!str 7, 99999999999999999999]
  1: numeric key
`
	objs, errs := parseYAML(source{file: "f.yaml"}, []byte(in))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	spec := objs[0].Obj.Object["spec"].(map[string]any)
	got := fmt.Sprintf("%v|%v|%#v", spec["merged"], spec["several"], spec["scalars"])
	want := `map[a:1 b:2]|map[a:1 b:two c:3]|[]interface {}{interface {}(nil), interface {}(nil), true, true, "yes", false, 16, 1000, 2.5, 3, +Inf, "2001-12-14", "12", "7", 1e+20}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if spec["1"] != "numeric key" {
		t.Errorf("numeric key: %v", spec)
	}
	objs[0].Obj.DeepCopy()
}

// TestHostileYAML checks that alias bombs and self-referencing anchors end
// in an error quickly.
func TestHostileYAML(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'k'; i++ {
		prev := string(i - 1)
		bomb += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	tests := map[string]string{
		"alias bomb":      podHead + "spec:\n" + indent(bomb),
		"recursive alias": podHead + "spec: &s\n  self: *s\n",
		"deep nesting":    podHead + "spec: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n",
	}
	for name, in := range tests {
		start := time.Now()
		_, errs := parseYAML(source{file: "f.yaml"}, []byte(in))
		if len(errs) != 1 {
			t.Errorf("%s: got %v, want one error", name, errs)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", name, d)
		}
		t.Logf("%s: %v", name, errs)
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
