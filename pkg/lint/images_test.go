package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/rules"
)

// rule: IMG-3, SCH-5
// A Windows image without a selector is never told to pin Linux, and an
// image outside the catalog is reported by name instead of guessed at.
func TestWindowsImagesAreNeverAdvisedLinux(t *testing.T) {
	for _, f := range []string{"legacy-images.yaml", "sac-tags.yaml", "nanoserver-images.yaml", "unknown-image.yaml"} {
		r := lintFiles(t, "", 0, filepath.Join("testdata", "golden", f))
		for _, fd := range r.Findings {
			if strings.Contains(fd.Fix, "kubernetes.io/os: linux") {
				t.Errorf("%s: %s %s advises Linux: %s", f, fd.Name, fd.Rule, fd.Fix)
			}
		}
		for _, e := range r.Edits {
			if e.NodeSelector["kubernetes.io/os"] == "linux" {
				t.Errorf("%s: --fix pins Linux: %+v", f, e)
			}
		}
	}
	r := lintFiles(t, "", 0, filepath.Join("testdata", "golden", "unknown-image.yaml"))
	if n := rulesOf(r)["IMG-3"]; n != 2 {
		t.Errorf("IMG-3 findings = %d, want one per unknown image:\n%s", n, dump(r))
	}
	for _, fd := range r.Findings {
		if fd.Rule == "IMG-3" && (fd.Severity != rules.SeverityInfo || !strings.Contains(fd.Message, "registry.example.org/team/")) {
			t.Errorf("IMG-3 finding does not name the image as info: %+v", fd)
		}
		if fd.Severity == rules.SeverityError {
			t.Errorf("an unknown image changed the verdict: %+v", fd)
		}
	}
}
