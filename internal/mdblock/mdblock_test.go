package mdblock

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestLines(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	text := "# Title\n\n```sh\nwinkube up\n```\n\n```yaml\nkind: Pod\n```\n```bash\necho a \\\n  b\n```\n```sh\nopen\n"
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, open, err := Lines(page, "sh", "bash")
	want := []Line{{4, "winkube up"}, {11, `echo a \`}, {12, "  b"}, {15, "open"}}
	if err != nil || !open || !reflect.DeepEqual(lines, want) {
		t.Errorf("Lines = %v, open %v, %v; want %v, open", lines, open, err, want)
	}
	if _, _, err := Lines(filepath.Join(t.TempDir(), "none.md"), "sh"); err == nil {
		t.Error("a missing page: no error")
	}
}
