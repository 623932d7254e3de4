package scheduling

import (
	"strconv"
	"strings"
	"time"
)

// FormatDecision writes one decision as a log line (without newline):
// "+12.000500s #17 default/web-3 Scheduled node=n4 total=187 margin=12
// runner-up=n9 evaluated=420 feasible=420 start=840"; when nodes tied for
// the best total, "ties=N" after the margin counts them (the seeded
// tie-break chose among them).
func FormatDecision(b *strings.Builder, d *Decision, start time.Time) {
	var buf [256]byte
	b.Write(AppendDecision(buf[:0], d, start))
}

// AppendDecision appends d's log line (FormatDecision's, without newline)
// to dst and returns the extended slice; with a reused dst it allocates
// nothing.
func AppendDecision(dst []byte, d *Decision, start time.Time) []byte {
	off := d.Time.Sub(start)
	dst = append(dst, '+')
	dst = strconv.AppendInt(dst, int64(off/time.Second), 10)
	dst = append(dst, '.')
	dst = appendPadded6(dst, int64((off%time.Second)/time.Microsecond))
	dst = append(dst, "s #"...)
	dst = strconv.AppendInt(dst, d.Cycle, 10)
	dst = append(dst, ' ')
	dst = append(dst, d.Pod...)
	dst = append(dst, ' ')
	dst = append(dst, d.Outcome...)
	if d.Profile != "" && d.Profile != DefaultSchedulerName {
		dst = append(dst, " profile="...)
		dst = append(dst, d.Profile...)
	}
	if d.Node != "" {
		dst = append(dst, " node="...)
		dst = append(dst, d.Node...)
	}
	if d.FastPath != "" {
		dst = append(dst, " fast-path="...)
		dst = append(dst, d.FastPath...)
	}
	if d.ReusedFrom > 0 {
		dst = append(dst, " reused=#"...)
		dst = strconv.AppendInt(dst, d.ReusedFrom, 10)
	}
	if len(d.Top) > 0 && d.FastPath == "" && d.Outcome != OutcomeUnschedulable && d.Outcome != OutcomeError {
		dst = append(dst, " total="...)
		dst = strconv.AppendInt(dst, d.Top[0].Total, 10)
		dst = append(dst, " margin="...)
		dst = strconv.AppendInt(dst, d.Margin, 10)
		if d.Ties > 1 {
			dst = append(dst, " ties="...)
			dst = strconv.AppendInt(dst, int64(d.Ties), 10)
		}
		if len(d.Top) > 1 {
			dst = append(dst, " runner-up="...)
			dst = append(dst, d.Top[1].Name...)
		}
	}
	if d.Outcome != OutcomeBound {
		dst = append(dst, " evaluated="...)
		dst = strconv.AppendInt(dst, int64(d.EvaluatedNodes), 10)
		dst = append(dst, " feasible="...)
		dst = strconv.AppendInt(dst, int64(d.FeasibleNodes), 10)
		dst = append(dst, " start="...)
		dst = strconv.AppendInt(dst, int64(d.StartIndex), 10)
		dst = append(dst, " attempt="...)
		dst = strconv.AppendInt(dst, int64(d.Attempt), 10)
	}
	if d.Stage != "" && d.Outcome != OutcomeScheduled && d.Outcome != OutcomeBound {
		dst = append(dst, " stage="...)
		dst = append(dst, d.Stage...)
		if d.Plugin != "" {
			dst = append(dst, " plugin="...)
			dst = append(dst, d.Plugin...)
		}
	}
	if d.NominatedNode != "" {
		dst = append(dst, " nominated="...)
		dst = append(dst, d.NominatedNode...)
	}
	if len(d.Victims) > 0 {
		dst = append(dst, " victims="...)
		for i, v := range d.Victims {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, v...)
		}
	}
	if d.Message != "" {
		dst = append(dst, ": "...)
		dst = append(dst, d.Message...)
	}
	return dst
}

// appendPadded6 appends v as fmt's %06d does: at least six characters,
// zeros after the sign.
func appendPadded6(dst []byte, v int64) []byte {
	var digits [20]byte
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	b := strconv.AppendUint(digits[:0], u, 10)
	width := 6
	if neg {
		dst = append(dst, '-')
		width--
	}
	for i := len(b); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, b...)
}
