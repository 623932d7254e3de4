package framework

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameTheDefaultRelease: wherever the docs say which
// kube-scheduler release runs when none is chosen (the scheduler's loop,
// the what-if questions, the configuration loader), they name
// DefaultKubeVersion. Each statement must be found, so that a rewording
// cannot drop it from the check unnoticed. The package docs of the public
// packages that name the older release name the default one too, and none
// calls the older release the default.
func TestDocsNameTheDefaultRelease(t *testing.T) {
	t.Run("package docs", testPackageDocsNameTheDefaultRelease)
	var files []string
	for _, pattern := range []string{"../README.md", "../docs/*.md", "../examples/*/README.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	docs := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(data)
	}
	// Each statement captures the release it names.
	for _, statement := range []string{
		`runs kube-scheduler (v1\.\d+)'s scheduling loop`,
		`questions run kube-scheduler (v1\.\d+)'s scheduling cycles`,
		`all on by default\s+as in kube-scheduler (v1\.\d+)`,
		`merged with the defaults exactly as\s+kube-scheduler (v1\.\d+) merges them`,
		"`cfg.Write\\(w\\)` prints, byte for byte, what kube-scheduler (v1\\.\\d+)",
	} {
		re := regexp.MustCompile(statement)
		found := 0
		for f, text := range docs {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				found++
				if m[1] != DefaultKubeVersion.String() {
					t.Errorf("%s: %q names %s, but the default release is %s", f, m[0], m[1], DefaultKubeVersion)
				}
			}
		}
		if found == 0 {
			t.Errorf("no doc says %q", statement)
		}
	}
}

// testPackageDocsNameTheDefaultRelease checks the package doc comments of
// every package of the module outside internal/ and testdata/: one that
// names v1.36 also names v1.37, and says nothing like "v1.36, the default"
// or "v1.36's default".
func testPackageDocsNameTheDefaultRelease(t *testing.T) {
	older := regexp.MustCompile(`\bv1\.36\b`)
	newer := regexp.MustCompile(`\bv1\.37\b`)
	calledDefault := regexp.MustCompile(`v1\.36(\.\d+)?('s)?,? \(?(the |by )?default`)
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != ".." && (n == "internal" || n == "testdata" || n == "kube" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		var doc strings.Builder
		name := ""
		for _, e := range entries {
			if n := e.Name(); e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(path, e.Name()), nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				return err
			}
			name = f.Name.Name
			if f.Doc != nil {
				doc.WriteString(f.Doc.Text())
			}
		}
		if name == "" {
			return nil
		}
		text := strings.Join(strings.Fields(doc.String()), " ")
		checked++
		if older.MatchString(text) && !newer.MatchString(text) {
			t.Errorf("package %s (%s): its doc names %s but not %s, the default release", name, path, KubeV136, DefaultKubeVersion)
		}
		if m := calledDefault.FindString(text); m != "" {
			t.Errorf("package %s (%s): its doc calls %s the default (%q); the default release is %s", name, path, KubeV136, m, DefaultKubeVersion)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no package doc checked")
	}
}
