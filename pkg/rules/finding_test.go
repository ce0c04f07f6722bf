package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneFindingType walks the non-test Go files under pkg/ and fails for
// a type named Finding or finding that is not this package's: a producer
// with a finding struct of its own picks severities, fixes and see-also
// that the rule book does not. A command's Finding may only add where it
// was found, by embedding rules.Finding.
func TestOneFindingType(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join("..", "rules") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !strings.EqualFold(ts.Name.Name, "finding") {
				return true
			}
			if !embedsFinding(ts) {
				t.Errorf("%s: type %s does not embed rules.Finding", fset.Position(ts.Pos()), ts.Name.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// embedsFinding reports whether a type is a struct embedding rules.Finding.
func embedsFinding(ts *ast.TypeSpec) bool {
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return false
	}
	for _, f := range st.Fields.List {
		if sel, ok := f.Type.(*ast.SelectorExpr); ok && len(f.Names) == 0 && sel.Sel.Name == "Finding" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "rules" {
				return true
			}
		}
	}
	return false
}
