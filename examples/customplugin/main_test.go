package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
)

// TestOutput checks the program's output against the golden file, and that
// the README shows it.
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
	for _, s := range []string{"selected b-1", "bare  rejected  ZonePreference  node(s) had no zone label", "100 -> 100 x 2 = 200"} {
		if !strings.Contains(b.String(), s) {
			t.Fatalf("output lacks %q", s)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), string(want)) {
		t.Fatal("README.md does not show the output of testdata/output.txt")
	}
}

// TestWalkthroughQuotesThePackage: docs/framework.md's walkthrough shows
// the plugin's files whole and the program's registry line, so the
// walkthrough is the code this package builds, tests and runs.
func TestWalkthroughQuotesThePackage(t *testing.T) {
	doc, err := os.ReadFile("../../docs/framework.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"zonepreference/args.go", "zonepreference/zonepreference.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(doc, append([]byte("```go\n"), src...)) {
			t.Errorf("docs/framework.md does not show %s whole", f)
		}
	}
	main, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	const line = "reg.Register(zonepreference.Name, zonepreference.New)"
	if !bytes.Contains(main, []byte(line)) || !bytes.Contains(doc, []byte(line)) {
		t.Errorf("main.go and docs/framework.md must both register the plugin with %q", line)
	}
}

func TestMain(m *testing.M) { exampletest.Main(m, main) }
