package scheduling

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSubpackageErrorsNameTheirPackage: errors begin with the name of the
// package that returns them, so no package below scheduling (cluster,
// whatif, configfile, replay, …) builds an error or panic message that
// begins "scheduling: ".
func TestSubpackageErrorsNameTheirPackage(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Dir(path) == "." || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 || !errorConstructor(call.Fun) {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "scheduling: ") {
				t.Errorf("%s: %q begins with another package's name (package %s returns it)", fset.Position(lit.Pos()), s, f.Name.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no subpackage source checked")
	}
}

// errorConstructor reports whether fun is fmt.Errorf, errors.New or panic.
func errorConstructor(fun ast.Expr) bool {
	switch fun := fun.(type) {
	case *ast.Ident:
		return fun.Name == "panic"
	case *ast.SelectorExpr:
		pkg, ok := fun.X.(*ast.Ident)
		return ok && (pkg.Name == "fmt" && fun.Sel.Name == "Errorf" || pkg.Name == "errors" && fun.Sel.Name == "New")
	}
	return false
}
