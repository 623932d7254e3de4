package runtime

import (
	"time"

	"github.com/schedkit/schedkit/framework"
)

// StepTimes is how long each step of one cycle took on the framework's
// clock (CycleOptions.TimeSteps), split as kube-scheduler's
// framework_extension_point_duration_seconds metric splits a cycle, with
// the weighing and the choice of the node on their own. A step the cycle
// did not reach is zero: a pod that PreFilter rejects has PreFilter
// alone; a cycle with one feasible node scores nothing.
type StepTimes struct {
	// PreFilter is the PreFilter plugins, with the node-blind PreScore
	// plugins when the workers run them beside PreFilter.
	PreFilter time.Duration
	// Filter is the Filter plugins over the candidates, the list of the
	// feasible nodes, the extenders' filters and, when asked, the
	// explanations of the filters' verdicts.
	Filter time.Duration
	// PreScore is the PreScore plugins (those that did not run beside
	// PreFilter) and, when the workers run them side by side, the score
	// plugins' preparations (fastpath.ScorePreparer), which one worker
	// makes in its first Score call instead.
	PreScore time.Duration
	// Score is the Score plugins over the feasible nodes.
	Score time.Duration
	// NormalizeScore is NormalizeScore, the weights and the totals, with
	// the extenders' scores; the ranking of the totals too when the
	// weighing ranks as it adds (TotalsOnly cycles without extenders).
	NormalizeScore time.Duration
	// SelectHost is the choice of the node among the best totals.
	SelectHost time.Duration
}

// Total returns the sum of the steps.
func (s StepTimes) Total() time.Duration {
	return s.PreFilter + s.Filter + s.PreScore + s.Score + s.NormalizeScore + s.SelectHost
}

// Add adds o's steps to s's, for an average over many cycles.
func (s *StepTimes) Add(o StepTimes) {
	s.PreFilter += o.PreFilter
	s.Filter += o.Filter
	s.PreScore += o.PreScore
	s.Score += o.Score
	s.NormalizeScore += o.NormalizeScore
	s.SelectHost += o.SelectHost
}

// stepClock times a cycle's steps into Result.Steps when the cycle asks
// for it; off, a mark is one branch.
type stepClock struct {
	clock framework.Clock
	last  time.Time
	on    bool
}

// start turns the clock on from now.
func (c *stepClock) start(clock framework.Clock) {
	c.clock, c.on = clock, true
	c.last = clock.Now()
}

// mark adds the time since the last mark (or the start) to d. It is
// inlined: an untimed cycle's marks cost a branch each.
func (c *stepClock) mark(d *time.Duration) {
	if c.on {
		c.read(d)
	}
}

// read is mark's reading of the clock.
func (c *stepClock) read(d *time.Duration) {
	now := c.clock.Now()
	*d += now.Sub(c.last)
	c.last = now
}
