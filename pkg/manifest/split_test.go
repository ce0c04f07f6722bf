package manifest

import (
	"os"
	"testing"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSplitDocuments(t *testing.T) {
	in := "\ufeff---\na: 1\n--- # c\n# only a comment\n...\n---\nb: 2\r\n---\t\nc: 3\n---x\n--- |\n  text\n"
	type doc struct {
		line int
		data string
	}
	want := []doc{
		{2, "a: 1\n"},
		{7, "b: 2\r\n"},
		{9, "c: 3\n---x\n"},
		{11, "--- |\n  text\n"},
	}
	got := SplitDocuments([]byte(in))
	if len(got) != len(want) {
		t.Fatalf("got %d documents, want %d: %+v", len(got), len(want), got)
	}
	for i, d := range got {
		if d.Index != i || d.Line != want[i].line || string(d.Data) != want[i].data {
			t.Errorf("doc %d = {%d %d %q}, want {%d %d %q}", i, d.Index, d.Line, d.Data, i, want[i].line, want[i].data)
		}
		if in[d.Offset:d.Offset+len(d.Data)] != string(d.Data) {
			t.Errorf("doc %d: Offset %d does not point at Data", i, d.Offset)
		}
	}
}
