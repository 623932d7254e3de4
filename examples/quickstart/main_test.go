package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
)

// TestOutput checks the program's output against the golden file, and that
// the README shows the same output.
func TestOutput(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("output changed; got:\n%s\nwant:\n%s", b.String(), want)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), string(want)) {
		t.Fatal("README.md does not show the quickstart output of testdata/output.txt")
	}
	for _, s := range []string{"selected large (total 62, margin 37 over medium)", "small   rejected  FitsCPU  Insufficient cpu"} {
		if !strings.Contains(b.String(), s) {
			t.Fatalf("output lacks %q", s)
		}
	}
}

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestCommandLine: -h prints the usage and exits 0; an unknown flag or an
// argument exits 2 with the usage.
func TestCommandLine(t *testing.T) { exampletest.CheckNoFlags(t, "quickstart", usage) }
