package agreement

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// buildNumber matches a Windows Server build number as digits: the
// releases' builds of pkg/windows' table (a new release's build belongs
// there too).
var buildNumber = regexp.MustCompile(`\b(14393|17763|18362|18363|19041|19042|20348|25398|26100)\b`)

// literalAllowed are the directories whose code may spell builds: the rule
// book, the rules' documentation text, test fixtures and helper tools.
var literalAllowed = []string{
	"pkg/windows",                         // the rule book: the one place
	"pkg/rules",                           // the rules' text, as docs/rules.md prints it
	"pkg/imageinfo/registry/registrytest", // a fake registry's image configs
	"pkg/lint/lintcorpus",                 // manifests the linter is tried on
	"hack",                                // benchmarks' made-up clusters
}

// rule: IMG-1, KLT-1
// A Windows build is a fact of the node (windows.HostOf) or of the rule
// book's table, never a literal in program code: no string or number
// literal outside the allowed directories names a build (comments may).
func TestNoWindowsBuildLiterals(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || allowedDir(filepath.ToSlash(rel))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, lit := range buildLiterals(t, path) {
			t.Errorf("%s:%d: the literal %s names a Windows build; take it from the node (windows.HostOf) or pkg/windows", rel, lit.line, lit.text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func allowedDir(rel string) bool {
	for _, a := range literalAllowed {
		if rel == a {
			return true
		}
	}
	return false
}

type literal struct {
	line int
	text string
}

// buildLiterals are the string and number literals of a file that name a
// build.
func buildLiterals(t *testing.T, path string) []literal {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []literal
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && buildNumber.MatchString(lit.Value) {
			out = append(out, literal{fset.Position(lit.Pos()).Line, lit.Value})
		}
		return true
	})
	return out
}
