package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// redrawEvery is how often the progress bar may redraw while a task
// advances: a fast replay reports thousands of arrivals a second, and a
// redraw per report costs more terminal time than the scheduling.
const redrawEvery = 100 * time.Millisecond

// progress draws a one-line progress bar on a terminal. It redraws when the
// task or its unit changes, when the task completes, and otherwise at most
// once per redrawEvery of its clock. A nil *progress draws nothing, so
// callers need not check whether stdout is a terminal.
type progress struct {
	w   io.Writer
	now func() time.Time
	// task and unit are on screen (task "" when the line is clear); last
	// is when they were drawn.
	task, unit string
	last       time.Time
	// draws counts redraws (for tests).
	draws int
}

// newProgress returns a bar written to w, throttled on the clock now.
func newProgress(w io.Writer, now func() time.Time) *progress {
	return &progress{w: w, now: now}
}

// update reports that task has done of total units.
func (p *progress) update(task, unit string, done, total int) {
	if p == nil {
		return
	}
	t := p.now()
	if task == p.task && unit == p.unit && done < total && t.Sub(p.last) < redrawEvery {
		return
	}
	p.task, p.unit, p.last = task, unit, t
	p.draws++
	const width = 30
	filled := 0
	if total > 0 {
		filled = width * min(done, total) / total
	}
	fmt.Fprintf(p.w, "\r\033[K%-20s [%s%s] %d/%d %s", task, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, unit)
}

// clear erases the bar, if one is drawn.
func (p *progress) clear() {
	if p == nil || p.task == "" {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
	p.task, p.unit = "", ""
}
