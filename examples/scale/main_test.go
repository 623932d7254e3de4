package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
)

// TestRun replays a small cluster under both profiles: every pod is
// accounted for and the table reports CPU times and peak memory.
func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-nodes", "100", "-pods", "1000", "-replicas", "20"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"resources 100 nodes: 1000 pods accounted for (adds up)",
		"default 100 nodes: 1000 pods accounted for (adds up)",
		"µs/POD+BUILD", "peak memory (maxrss): ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

// TestOverload replays a small overloaded cluster with and without
// queueing hints: the outcomes agree and hints run fewer cycles.
func TestOverload(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-overload", "-nodes", "20", "-pods", "40"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "same outcome for every pod: true") || !strings.Contains(s, "fewer cycles") {
		t.Errorf("output:\n%s", s)
	}
}

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestCommandLine: -h prints the usage and exits 0; bad flags exit 1
// naming the flag and its value.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, "Usage: go run ./examples/scale [flags]"},
		{[]string{"-nodes", "0"}, 1, "scale: -nodes=0: must be at least 1"},
		{[]string{"-pods", "-1"}, 1, "scale: -pods=-1: must not be negative"},
		{[]string{"-profiles", "fast"}, 1, `scale: -profiles="fast": unknown profile "fast"`},
		{[]string{"extra"}, 1, `scale: unexpected arguments ["extra"]`},
	} {
		code, stdout, stderr := exampletest.Run(t, tc.args...)
		if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("scale %v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}
