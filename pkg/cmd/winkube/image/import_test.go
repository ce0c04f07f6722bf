package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/imageinfo/facts"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// rule: IMG-3 — an imported image is known offline: `winkube image` with
// the catalog alone shows the imported platforms, from imported.
func TestImageImportThenShow(t *testing.T) {
	dataDir := t.TempDir()
	ref := "registry.example.com/team/agent:0.3"
	out, errOut, code := runImage(t, "import", "--data-dir", dataDir, rt.DockerSave(t, ref, rt.Version2022))
	if code != 0 || !strings.Contains(out, "imported "+ref+": [windows/amd64:"+rt.Version2022+"]") {
		t.Fatalf("import: exit %d, out %q, err %q", code, out, errOut)
	}
	out, errOut, code = runImage(t, "--resolve-images", "catalog", "--data-dir", dataDir, ref)
	got := squeeze(out)
	if code != 0 || !strings.Contains(got, ref+" (single-platform image, from imported)") || !strings.Contains(got, "windows/amd64 "+rt.Version2022+" Windows Server 2022") {
		t.Errorf("image: exit %d, out:\n%s\nerr %s", code, out, errOut)
	}
}

// One file that is not an image fails the import with an error naming
// it, and nothing of the other files is stored.
func TestImageImportAllOrNothing(t *testing.T) {
	dataDir := t.TempDir()
	good := rt.DockerSave(t, "registry.example.com/team/agent:0.3", rt.Version2022)
	bad := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(bad, []byte("not an image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runImage(t, "import", "--data-dir", dataDir, good, bad)
	if code != ExitUsage || !strings.HasPrefix(errOut, bad+": not an image") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want %d and one line naming %s", code, errOut, ExitUsage, bad)
	}
	if _, err := os.Stat(facts.ImportedPath(dataDir)); !os.IsNotExist(err) {
		t.Errorf("the facts file exists after a failed import: %v", err)
	}
	_, errOut, code = runImage(t, "import", "--ref", "::bad::", good)
	if code != ExitUsage || !strings.Contains(errOut, "--ref") {
		t.Errorf("bad --ref: exit %d, stderr %q", code, errOut)
	}
}

// rule: IMG-3 — a registry's answer is kept in the data dir: when the
// registry is gone, the same question is answered from the cache, with
// the registry's platforms, not the catalog's guess.
func TestImageRegistryAnswerKeptForOffline(t *testing.T) {
	dataDir := t.TempDir()
	srv := rt.Start(t)
	srv.PushIndex(t, "team/web:1.0", rt.Linux("amd64"), rt.Windows(rt.Version2019))
	ref := srv.Ref("team/web:1.0")
	out, _, code := runImage(t, "--data-dir", dataDir, ref)
	if code != 0 || !strings.Contains(out, "from registry") {
		t.Fatalf("online: exit %d, out:\n%s", code, out)
	}
	srv.Close()
	for _, mode := range []string{"registry", "catalog"} {
		out, _, code = runImage(t, "--data-dir", dataDir, "--resolve-images", mode, ref)
		got := squeeze(out)
		if code != 0 || !strings.Contains(got, "from cache") || !strings.Contains(got, "windows/amd64 "+rt.Version2019) || !strings.Contains(got, "linux/amd64") {
			t.Errorf("offline, --resolve-images %s: exit %d, out:\n%s", mode, code, out)
		}
	}
}
