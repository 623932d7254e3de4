package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/scheduling"
)

// TestRun runs the program: the snippet it prints loads as a
// KubeSchedulerConfiguration naming the extender, and the extender's
// filter and scores change the decision for the reasons the README gives.
func TestRun(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(b.String(), "127.0.0.1:PORT")
	for _, s := range []string{
		"Default profile alone (requests only): Scheduled on node-c.",
		"Default profile + LoadAware extender (weight 5, over HTTP): Scheduled on node-a.",
		"node-c  rejected  http://127.0.0.1:PORT  node(s) cpu usage exceed threshold",
		"node-e  rejected  http://127.0.0.1:PORT  node(s) cpu usage exceed threshold",
		"selected node-a (total 727, margin 75 over node-d)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	var snippet []string
	for _, line := range strings.Split(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "    "); ok {
			snippet = append(snippet, rest)
		}
	}
	c, err := scheduling.LoadConfig([]byte(strings.Join(snippet, "\n")))
	if err != nil {
		t.Fatalf("the printed snippet does not load: %v\n%s", err, strings.Join(snippet, "\n"))
	}
	if len(c.Extenders) != 1 || !c.Extenders[0].IsFilter() || !c.Extenders[0].IsPrioritizer() || c.Extenders[0].Config().Weight != 5 {
		t.Fatalf("snippet's extenders: %+v", c.Extenders)
	}
}
