package scheduling

import (
	"fmt"
	"strings"
	"time"
)

// FormatDecision writes one decision as a log line (without newline):
// "+12.000500s #17 default/web-3 Scheduled node=n4 total=187 margin=12
// runner-up=n9 evaluated=420 feasible=420 start=840"; when nodes tied for
// the best total, "ties=N" after the margin counts them (the seeded
// tie-break chose among them).
func FormatDecision(b *strings.Builder, d *Decision, start time.Time) {
	off := d.Time.Sub(start)
	fmt.Fprintf(b, "+%d.%06ds #%d %s %s", off/time.Second, (off%time.Second)/time.Microsecond, d.Cycle, d.Pod, d.Outcome)
	if d.Profile != "" && d.Profile != DefaultSchedulerName {
		fmt.Fprintf(b, " profile=%s", d.Profile)
	}
	if d.Node != "" {
		fmt.Fprintf(b, " node=%s", d.Node)
	}
	if d.FastPath != "" {
		fmt.Fprintf(b, " fast-path=%s", d.FastPath)
	}
	if d.ReusedFrom > 0 {
		fmt.Fprintf(b, " reused=#%d", d.ReusedFrom)
	}
	if len(d.Top) > 0 && d.FastPath == "" && d.Outcome != OutcomeUnschedulable && d.Outcome != OutcomeError {
		fmt.Fprintf(b, " total=%d margin=%d", d.Top[0].Total, d.Margin)
		if d.Ties > 1 {
			fmt.Fprintf(b, " ties=%d", d.Ties)
		}
		if len(d.Top) > 1 {
			fmt.Fprintf(b, " runner-up=%s", d.Top[1].Name)
		}
	}
	if d.Outcome != OutcomeBound {
		fmt.Fprintf(b, " evaluated=%d feasible=%d start=%d attempt=%d", d.EvaluatedNodes, d.FeasibleNodes, d.StartIndex, d.Attempt)
	}
	if d.Stage != "" && d.Outcome != OutcomeScheduled && d.Outcome != OutcomeBound {
		fmt.Fprintf(b, " stage=%s", d.Stage)
		if d.Plugin != "" {
			fmt.Fprintf(b, " plugin=%s", d.Plugin)
		}
	}
	if d.NominatedNode != "" {
		fmt.Fprintf(b, " nominated=%s", d.NominatedNode)
	}
	if len(d.Victims) > 0 {
		fmt.Fprintf(b, " victims=%s", strings.Join(d.Victims, ","))
	}
	if d.Message != "" {
		fmt.Fprintf(b, ": %s", d.Message)
	}
}
