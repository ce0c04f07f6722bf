package agreement

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readsBuildLabel matches reading a node's windows-build label from its
// labels, by the constant or by the literal.
var readsBuildLabel = regexp.MustCompile(`Labels\[\s*(corev1\.|windows\.|v1\.)?LabelWindowsBuild\s*\]|Labels\[\s*"node\.kubernetes\.io/windows-build"\s*\]`)

// writesLabel is what follows a label read that is an assignment.
var writesLabel = regexp.MustCompile(`^\s*=[^=]`)

// rule: SCH-1, IMG-1
// A node's Windows build is read in one place, windows.HostOf: no other
// non-test Go file reads the windows-build label off a node (writing it,
// or naming it in a pod's selector, is not reading a node).
func TestOnlyWindowsReadsTheBuildLabel(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || rel == filepath.Join("pkg", "windows") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if loc := readsBuildLabel.FindStringIndex(line); loc != nil && !writesLabel.MatchString(line[loc[1]:]) {
				t.Errorf("%s:%d reads the windows-build label; use windows.HostOf(node).Build or .BuildLabel", rel, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
