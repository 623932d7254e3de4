package scheduling

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/runtime"
	"pgregory.net/rapid"
)

// fmtDecision is the decision line spelled with fmt verbs, field by field:
// the format AppendDecision writes without fmt.
func fmtDecision(d *Decision, start time.Time) string {
	var b strings.Builder
	off := d.Time.Sub(start)
	fmt.Fprintf(&b, "+%d.%06ds #%d %s %s", off/time.Second, (off%time.Second)/time.Microsecond, d.Cycle, d.Pod, d.Outcome)
	if d.Profile != "" && d.Profile != DefaultSchedulerName {
		fmt.Fprintf(&b, " profile=%s", d.Profile)
	}
	if d.Node != "" {
		fmt.Fprintf(&b, " node=%s", d.Node)
	}
	if d.FastPath != "" {
		fmt.Fprintf(&b, " fast-path=%s", d.FastPath)
	}
	if d.ReusedFrom > 0 {
		fmt.Fprintf(&b, " reused=#%d", d.ReusedFrom)
	}
	if len(d.Top) > 0 && d.FastPath == "" && d.Outcome != OutcomeUnschedulable && d.Outcome != OutcomeError {
		fmt.Fprintf(&b, " total=%d margin=%d", d.Top[0].Total, d.Margin)
		if d.Ties > 1 {
			fmt.Fprintf(&b, " ties=%d", d.Ties)
		}
		if len(d.Top) > 1 {
			fmt.Fprintf(&b, " runner-up=%s", d.Top[1].Name)
		}
	}
	if d.Outcome != OutcomeBound {
		fmt.Fprintf(&b, " evaluated=%d feasible=%d start=%d attempt=%d", d.EvaluatedNodes, d.FeasibleNodes, d.StartIndex, d.Attempt)
	}
	if d.Stage != "" && d.Outcome != OutcomeScheduled && d.Outcome != OutcomeBound {
		fmt.Fprintf(&b, " stage=%s", d.Stage)
		if d.Plugin != "" {
			fmt.Fprintf(&b, " plugin=%s", d.Plugin)
		}
	}
	if d.NominatedNode != "" {
		fmt.Fprintf(&b, " nominated=%s", d.NominatedNode)
	}
	if len(d.Victims) > 0 {
		fmt.Fprintf(&b, " victims=%s", strings.Join(d.Victims, ","))
	}
	if d.Message != "" {
		fmt.Fprintf(&b, ": %s", d.Message)
	}
	return b.String()
}

// TestPropAppendDecisionIsFmt: the decision line is the fmt spelling of
// every field, for any decision, offsets before the start included.
func TestPropAppendDecisionIsFmt(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	word := rapid.SampledFrom([]string{"", "n1", "default/web-3", "default-scheduler", "other", "0: node(s) had untolerated taint"})
	outcomes := rapid.SampledFrom([]Outcome{OutcomeScheduled, OutcomeBound, OutcomeUnschedulable, OutcomeError, "Nominated"})
	rapid.Check(t, func(t *rapid.T) {
		d := Decision{
			Time:           start.Add(time.Duration(rapid.Int64Range(-5e12, 5e12).Draw(t, "off"))),
			Cycle:          rapid.Int64Range(-3, 1e9).Draw(t, "cycle"),
			Pod:            word.Draw(t, "pod"),
			Profile:        word.Draw(t, "profile"),
			Attempt:        rapid.IntRange(0, 9).Draw(t, "attempt"),
			Outcome:        outcomes.Draw(t, "outcome"),
			Node:           word.Draw(t, "node"),
			FastPath:       rapid.SampledFrom([]string{"", "nominated", "reused"}).Draw(t, "fast"),
			ReusedFrom:     rapid.Int64Range(-1, 99).Draw(t, "reused"),
			EvaluatedNodes: rapid.IntRange(0, 5000).Draw(t, "evaluated"),
			FeasibleNodes:  rapid.IntRange(-1, 5000).Draw(t, "feasible"),
			StartIndex:     rapid.IntRange(0, 5000).Draw(t, "start"),
			Margin:         rapid.Int64Range(-10, 1000).Draw(t, "margin"),
			Ties:           rapid.IntRange(0, 4).Draw(t, "ties"),
			Stage:          rapid.SampledFrom([]string{"", "Filter", "PreFilter"}).Draw(t, "stage"),
			Plugin:         word.Draw(t, "plugin"),
			Message:        word.Draw(t, "message"),
			NominatedNode:  word.Draw(t, "nominated"),
		}
		for i := rapid.IntRange(0, 3).Draw(t, "top"); i > 0; i-- {
			d.Top = append(d.Top, runtime.RankedNode{Name: word.Draw(t, "topName"), Total: rapid.Int64Range(-100, 1e6).Draw(t, "total")})
		}
		for i := rapid.IntRange(0, 3).Draw(t, "victims"); i > 0; i-- {
			d.Victims = append(d.Victims, word.Draw(t, "victim"))
		}
		want := fmtDecision(&d, start)
		if got := string(AppendDecision([]byte("x"), &d, start)); got != "x"+want {
			t.Fatalf("AppendDecision:\n got %q\nwant %q", got, "x"+want)
		}
		var b strings.Builder
		FormatDecision(&b, &d, start)
		if b.String() != want {
			t.Fatalf("FormatDecision:\n got %q\nwant %q", b.String(), want)
		}
	})
}

// TestAppendDecisionAllocatesNothing: with room in dst, a line costs no
// allocation (a replay hashes or writes one per decision).
func TestAppendDecisionAllocatesNothing(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := Decision{Time: start.Add(1500 * time.Millisecond), Cycle: 17, Pod: "default/web-3", Outcome: OutcomeScheduled, Node: "n4",
		Top: []runtime.RankedNode{{Name: "n4", Total: 187}, {Name: "n9", Total: 175}}, Margin: 12, EvaluatedNodes: 420, FeasibleNodes: 420, StartIndex: 840}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { buf = AppendDecision(buf[:0], &d, start) }); n != 0 {
		t.Errorf("AppendDecision allocates %v times a line", n)
	}
	if got, want := string(buf), "+1.500000s #17 default/web-3 Scheduled node=n4 total=187 margin=12 runner-up=n9 evaluated=420 feasible=420 start=840 attempt=0"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}
