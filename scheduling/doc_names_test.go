package scheduling

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocsNameNoUnexportedFunctions: the doc comments of exported
// declarations do not send the reader to unexported functions and types,
// which godoc does not show (say, cfgExpand or cfgScoreWeights in
// configfile.Load's doc). Only camel-case names are checked, so that English
// words that happen to name a helper do not count.
func TestDocsNameNoUnexportedFunctions(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	hidden := map[string]bool{}
	camel := func(s string) bool { return strings.IndexFunc(s, unicode.IsUpper) > 0 }
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && !ast.IsExported(d.Name.Name) && camel(d.Name.Name) {
					hidden[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && !ast.IsExported(ts.Name.Name) && camel(ts.Name.Name) {
						hidden[ts.Name.Name] = true
					}
				}
			}
		}
	}
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	for _, f := range files {
		for _, d := range f.Decls {
			var name string
			var doc *ast.CommentGroup
			switch d := d.(type) {
			case *ast.FuncDecl:
				name, doc = d.Name.Name, d.Doc
			case *ast.GenDecl:
				if len(d.Specs) == 1 {
					if ts, ok := d.Specs[0].(*ast.TypeSpec); ok {
						name, doc = ts.Name.Name, d.Doc
					}
				}
			}
			if doc == nil || !ast.IsExported(name) {
				continue
			}
			for _, w := range word.FindAllString(doc.Text(), -1) {
				if hidden[w] {
					t.Errorf("%s: the doc of %s names the unexported %s", fset.Position(d.Pos()), name, w)
				}
			}
		}
	}
}
