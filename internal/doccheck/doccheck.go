// Package doccheck holds checks that a package's documentation stays true
// to its code, shared by the packages' tests.
package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// PackageDocNamesExist checks that every Go name the package doc of the
// package in dir cites (a camel-case word such as NodeMetricWarning, or
// Type.Method) is a name the package declares, so that a rename or a
// removal cannot leave the doc's map stale. Names in elsewhere (plugin
// names, other packages' identifiers, example names) are not checked; a
// name qualified by a package (api.Pod) or followed by "…" (a prefix) is
// skipped.
func PackageDocNamesExist(t testing.TB, dir string, elsewhere map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var doc string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if n == "doc.go" {
			doc = f.Doc.Text()
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					typ := d.Recv.List[0].Type
					if st, ok := typ.(*ast.StarExpr); ok {
						typ = st.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				names[name] = true
				names[d.Name.Name] = true // a method may be cited without its type
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						var fields []*ast.Field // interface methods and struct fields
						switch typ := s.Type.(type) {
						case *ast.InterfaceType:
							fields = typ.Methods.List
						case *ast.StructType:
							fields = typ.Fields.List
						}
						for _, m := range fields {
							for _, id := range m.Names {
								names[s.Name.Name+"."+id.Name] = true
								names[id.Name] = true
							}
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							names[id.Name] = true
						}
					}
				}
			}
		}
	}
	if doc == "" {
		t.Fatal("doc.go has no package comment")
	}
	camel := func(s string) bool {
		return strings.Contains(s, ".") || strings.IndexFunc(s[1:], unicode.IsUpper) >= 0
	}
	acronym := func(s string) bool { return strings.IndexFunc(s, unicode.IsLower) < 0 }
	// A name followed by "…" is a prefix (the Framework.Run… methods).
	// A name qualified by a package (api.Pod, framework.Snapshot) is
	// another package's.
	for _, ix := range regexp.MustCompile(`\b[A-Z][A-Za-z0-9_]*(\.[A-Z][A-Za-z0-9]*)?\b(…)?`).FindAllStringIndex(doc, -1) {
		w := doc[ix[0]:ix[1]]
		if ix[0] > 0 && doc[ix[0]-1] == '.' {
			continue
		}
		if !camel(w) || acronym(w) || strings.HasSuffix(w, "…") || elsewhere[w] {
			continue
		}
		if !names[w] {
			t.Errorf("the package doc cites %s, which the package does not declare", w)
		}
	}
}
