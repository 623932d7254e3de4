package main

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestCommandLine: -h prints the usage and exits 0 without starting the
// server; an unknown flag or an argument exits 2 with the usage.
func TestCommandLine(t *testing.T) { exampletest.CheckNoFlags(t, "extender", usage) }

// TestRun runs the program: the snippet it prints loads as a
// KubeSchedulerConfiguration naming the extender, and the extender's
// filter and scores change the decision for the reasons the README gives.
// The printed winner, total and margin are recomputed here from each
// plugin's normalized score and the profile's weights (the extender's
// score times 10 times its weight 5).
func TestRun(t *testing.T) {
	var b bytes.Buffer
	d, err := run(&b)
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(b.String(), "127.0.0.1:PORT")
	for _, s := range []string{
		"Default profile alone (requests only): Scheduled on node-c.",
		"Default profile + LoadAware extender (weight 5, over HTTP): Scheduled on node-a.",
		"node-c  rejected  http://127.0.0.1:PORT  node(s) cpu usage exceed threshold",
		"node-e  rejected  http://127.0.0.1:PORT  node(s) cpu usage exceed threshold",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	weights := scheduling.DefaultProfile().Weights
	type total struct {
		node  string
		score int64
	}
	var totals []total
	for _, ns := range d.Result.Scores() {
		var sum int64
		extender := false
		for _, ps := range ns.Scores {
			w, ok := weights[ps.Plugin]
			switch {
			case ok && ps.Weighted != ps.Normalized*w:
				t.Errorf("%s %s: weighted %d, want normalized %d x weight %d", ns.Node, ps.Plugin, ps.Weighted, ps.Normalized, w)
			case !ok && strings.HasPrefix(ps.Plugin, "http://127.0.0.1:"):
				extender = true
				if ps.Weighted%(10*5) != 0 || ps.Weighted < 0 || ps.Weighted > 10*10*5 {
					t.Errorf("%s: the extender adds %d, want its 0..10 score x 10 x weight 5", ns.Node, ps.Weighted)
				}
			case !ok:
				t.Errorf("%s: unexpected scorer %q", ns.Node, ps.Plugin)
			}
			sum += ps.Weighted
		}
		if !extender {
			t.Errorf("%s: no extender score", ns.Node)
		}
		totals = append(totals, total{ns.Node, sum})
	}
	slices.SortStableFunc(totals, func(a, b total) int { return cmp.Compare(b.score, a.score) })
	if len(totals) < 2 || totals[0].node != "node-a" || totals[0].score == totals[1].score {
		t.Fatalf("totals %v: want node-a alone on top", totals)
	}
	want := fmt.Sprintf("selected node-a (total %d, margin %d over %s)", totals[0].score, totals[0].score-totals[1].score, totals[1].node)
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	var snippet []string
	for _, line := range strings.Split(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "    "); ok {
			snippet = append(snippet, rest)
		}
	}
	c, err := configfile.Load([]byte(strings.Join(snippet, "\n")))
	if err != nil {
		t.Fatalf("the printed snippet does not load: %v\n%s", err, strings.Join(snippet, "\n"))
	}
	if len(c.Extenders) != 1 || !c.Extenders[0].IsFilter() || !c.Extenders[0].IsPrioritizer() || c.Extenders[0].Config().Weight != 5 {
		t.Fatalf("snippet's extenders: %+v", c.Extenders)
	}
}
