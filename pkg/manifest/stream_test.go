package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// streamSeeds are inputs where a stream and lone documents could differ.
var streamSeeds = []string{
	"a: &x 1\n---\nkind: Pod\napiVersion: v1\nb: *x\n",                       // alias to the previous document's anchor
	"kind: Pod\napiVersion: v1\nmetadata: &m {name: a}\nx: *m\n---\ny: *m\n", // own anchor, then a foreign one
	"kind: Pod\napiVersion: v1\n---\n--- |\n  text\n---\nkind: Pod\napiVersion: v1",
	"kind: Pod\napiVersion: v1\nx: |\n  text", // block scalar at the end, no newline
	"kind: Pod\napiVersion: v1\nx: |\n  text\n---\nkind: Pod\napiVersion: v1\n",
	"kind: Pod\napiVersion: v1\n----\n---\nkind: Pod\napiVersion: v1\n", // "----" is text, not a separator
	"%YAML 1.1\n---\nkind: Pod\napiVersion: v1\n",
	"kind: Pod\napiVersion: v1\n...\nkind: Service\napiVersion: v1\n",
	"kind: Pod\napiVersion: v1\nx: [1, 2\n---\nkind: Pod\napiVersion: v1\n", // a broken document between good ones
	"\ufeff---\nkind: Pod\napiVersion: v1\r\n---\r\nkind: Pod\r\napiVersion: v1\r\n",
	"--- {kind: Pod, apiVersion: v1}\n--- {kind: Pod, apiVersion: v1}\n",
	"kind: Pod\napiVersion: v1\nx: 'open\n---\nkind: Pod\napiVersion: v1\n",
	"- {kind: Pod, apiVersion: v1}\n- &p {kind: Pod, apiVersion: v1}\n- *p\n",
}

// FuzzStream checks that parsing a file's documents with one parser
// (parseStream) gives the objects, lines and errors that parsing each
// document alone gives.
func FuzzStream(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := source{file: "f.yaml", fixable: true}
		objs, errs := parseYAML(src, data)
		var wantObjs []Object
		var wantErrs []error
		for _, doc := range SplitDocuments(data) {
			o, err := parseDocument(src, doc, nil)
			wantObjs = append(wantObjs, o...)
			if err != nil {
				wantErrs = append(wantErrs, err)
			}
		}
		if got, want := describeObjects(objs), describeObjects(wantObjs); got != want {
			t.Fatalf("one parser for the file:\n%s\none parser per document:\n%s", got, want)
		}
		if got, want := fmt.Sprint(errs), fmt.Sprint(wantErrs); got != want {
			t.Fatalf("one parser for the file: %s\none parser per document: %s", got, want)
		}
	})
}

// describeObjects prints what the loader's callers see of objects: their
// place, their content and the lines of their YAML tree.
func describeObjects(objs []Object) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "%s:%d doc %d root %q fixable %v tree line %d: %v\n", o.File, o.Line, o.Doc, o.Root, o.Fixable, o.TreeLine, o.Obj.Object)
		describeNode(&b, o.Tree, 1)
	}
	return b.String()
}

func describeNode(b *strings.Builder, n *yaml.Node, depth int) {
	if n == nil {
		return
	}
	fmt.Fprintf(b, "%*s%d %s %q line %d col %d &%s\n", depth*2, "", n.Kind, n.Tag, n.Value, n.Line, n.Column, n.Anchor)
	for _, c := range n.Content {
		describeNode(b, c, depth+1)
	}
}

// TestParseStreamStops checks which documents the single parser vouches
// for: all of a plain file, and none from the first document that could
// read differently alone.
func TestParseStreamStops(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"kind: Pod\n---\nkind: Pod\n---\nkind: Pod", 3},
		{"a: &x 1\n---\nb: *x\n---\nc: 1\n", 1},        // foreign alias
		{"a: &x 1\nb: *x\n---\nc: 1\n", 2},             // own alias
		{"a: 1\n---\nb: [1\n---\nc: 1\n", 1},           // broken document
		{"a: 1\n---\n%YAML 1.1\n---\nc: 1\n", 1},       // directive
		{"a: 1\n---\nb: 1\n...\nc: 1\n---\nd: 1\n", 1}, // end marker
		{"a: 1\n---\n--- |\n  x\n---\nb: 1\n", 3},      // "--- |" keeps its line
		{"----\n---\nb: 1\n", 2},                       // "----" is text
	} {
		docs := SplitDocuments([]byte(tc.in))
		if got := len(parseStream(docs)); got != tc.want {
			t.Errorf("%q: %d documents from the stream, want %d", tc.in, got, tc.want)
		}
	}
}
