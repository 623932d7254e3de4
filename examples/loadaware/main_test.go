package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
)

// TestRun runs the program's logic and checks that the two strategies
// choose different nodes for the reasons the README gives.
func TestRun(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{
		"LeastAllocated chose node-d (under-requested, hot)",
		"LoadAware chose node-a (over-requested, idle)",
		"selected node-d (total 71, margin 6 over node-b)",
		"selected node-a (total 79, margin 25 over node-b)",
		"node-d  rejected  LoadAwareScheduling  node(s) cpu usage exceed threshold",
		"22 (68%)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestCommandLine: -h prints the usage and exits 0; an unknown flag or an
// argument exits 2 with the usage.
func TestCommandLine(t *testing.T) { exampletest.CheckNoFlags(t, "loadaware", usage) }
