package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder keeps the errors PackageDocNamesExist reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) { r.errs = append(r.errs, fmt.Sprint(args...)) }

func TestPackageDocNamesExist(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("doc.go", "// Package p maps its names: NodeThing, NodeThing.Run, GoneName,\n// PluginName, api.OtherPkg, RunAll… and CPU.\npackage p\n")
	write("p.go", "package p\n\ntype NodeThing struct{ FieldOne int }\n\nfunc (NodeThing) Run() {}\n")
	r := &recorder{TB: t}
	PackageDocNamesExist(r, dir, map[string]bool{"PluginName": true})
	want := []string{"the package doc cites GoneName, which the package does not declare"}
	if strings.Join(r.errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors = %q, want %q", r.errs, want)
	}
}
