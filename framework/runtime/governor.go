package runtime

import (
	"math"
	"sync"
	"time"
)

// widthGovernor chooses how many of the workers each cycle's loops use,
// from what cycles cost on this machine now. A second worker shortens a
// cycle only when the nodes' work outweighs handing it over, and on one
// machine that holds for every cycle, on another, or at another hour (a
// busy neighbour, a host that moves the vCPUs apart), for none. The
// governor measures instead of guessing; results never depend on the
// width.
//
// The widths form a ladder: the most the pool gives a loop, then halved
// until 1 (16, 8, 4, 2, 1; 9, 5, 3, 2, 1). Cycles run at the current
// width, the widest until measurements say otherwise. Now and then (one
// cycle in trialPeriod on average, at times that do not fall in step
// with a stream of pods that repeats) a trial runs trialCycles cycles at
// a neighbouring width, one below, then one above; its first cycle is
// left out of its measure, since it pays for the nodes' data moving
// between cores. Pods differ in cost far more than widths do, so a
// trial is judged against the cycles just before it, as the ratio of
// the two widths' wall time per node, and the current width moves only
// when the ratios of several trials (a moving average, each ratio
// clamped) say the neighbour is at least 5 % cheaper, or when a few
// trials in a row each find it clearly cheaper (a sixth): a stream of
// cheap cycles that a second worker makes half again as long or more
// leaves it within a few hundred cycles. While trials find a neighbour clearly cheaper,
// and at a stream's start, they come often (one cycle in quickPeriod);
// while they find it clearly dearer (a fifth), less and less often,
// down to one cycle in maxPeriod.
type widthGovernor struct {
	mu sync.Mutex
	// most is the top of the ladder the measurements are for: a cycle
	// whose pool gives it another starts them again.
	most int
	// level is the ladder's index of the current width.
	level int
	// cycles counts the cycles chosen for since most was set.
	cycles uint64
	// recent is a moving average of the ns per node of the cycles at
	// the current width (recentKeep), 0 before one; it is the base a trial
	// is judged against.
	recent float64
	// trial is the level of the trial in progress (-1: none); left is
	// how many of its cycles are still to run; base is recent when it
	// began; sum and count measure its cycles after the first.
	trial, left int
	base, sum   float64
	count       int
	// ratio[l] is the moving average (ratioKeep) of the logarithm of
	// the trials' ratios at level l to the current level; trials[l]
	// counts them.
	ratio  [governorLevels]float64
	trials [governorLevels]int
	// cheaper[l] counts the trials in a row at level l that found it
	// clearly cheaper than the current level.
	cheaper [governorLevels]int
	up      bool
	// period is how many cycles run, on average, per trial begun: it
	// starts at quickPeriod, is quickPeriod after a trial that finds its
	// neighbour clearly cheaper (clearlyCheaper), doubles, up to
	// maxPeriod, after each that finds it clearly dearer
	// (clearlyDearer), and is trialPeriod after any other.
	period uint64
}

// governorLevels bounds the ladder's length (a pool of up to 2^(governorLevels-1)
// workers has a level for each halving).
const governorLevels = 8

const (
	// warmCycles are not measured: the first cycles pay for starting
	// the workers and for the first touch of every node.
	warmCycles = 64
	// trialPeriod is how many cycles run, on average, per trial begun
	// while the neighbours' costs are close to the current width's: a
	// trial at a dearer width costs trialCycles/trialPeriod of the
	// difference.
	trialPeriod = 512
	// maxPeriod is the longest period between trials, reached while
	// every trial finds its neighbour clearly dearer.
	maxPeriod = 16 * trialPeriod
	// quickPeriod is the period between trials at a stream's start and
	// while trials find a neighbour clearly cheaper.
	quickPeriod = 64
	// quickTrials is how many trials in a row finding a neighbour
	// clearly cheaper move the current width there, before minTrials.
	quickTrials = 3
	// trialCycles is the length of a trial.
	trialCycles = 8
	// recentKeep is the weight of the old average in recent, which
	// follows about the last eight cycles.
	recentKeep = 7.0 / 8
	// ratioKeep is the weight of the old average in ratio, which
	// follows about the last eight trials of a level.
	ratioKeep = 7.0 / 8
	// minTrials is how many trials a level needs before the current
	// width may move to it.
	minTrials = 8
	// pauseCap bounds one cycle's cost, as a multiple of the average
	// it is folded into: a cycle caught by a pause (the collector,
	// another process) counts as twice the average at most.
	pauseCap = 2
)

// clampLog bounds the logarithm of one trial's ratio.
var clampLog = math.Log(1.5)

// moveBelow is the logarithm of the ratio a neighbour's trials must
// average below for the current width to move to it: 5 % cheaper,
// so that widths of about equal cost do not trade places on noise.
var moveBelow = math.Log(0.95)

// clearlyDearer is the logarithm of the ratio above which a neighbour's
// trials lengthen the period between trials.
var clearlyDearer = math.Log(1.2)

// clearlyCheaper is the logarithm of the ratio below which one trial
// finds its neighbour clearly cheaper: clearlyDearer's mirror.
var clearlyCheaper = -clearlyDearer

// ladder returns the width at level l of a ladder topped by most: most
// at the top, halved (rounded up) at each level below, 1 at level 0.
func ladder(l, most int) int {
	t := top(most)
	switch {
	case l >= t:
		return most
	case l <= 0:
		return 1
	}
	d := 1 << (t - l)
	return max((most+d-1)/d, 1)
}

// top returns the highest level of a ladder topped by most: the levels
// are enough halvings of most to reach 1, at most governorLevels.
func top(most int) int {
	l := 0
	for l < governorLevels-1 && 1<<l < most {
		l++
	}
	return l
}

// reset starts the measurements again for a ladder topped by most.
func (g *widthGovernor) reset(most int) {
	g.most, g.level, g.cycles, g.recent = most, top(most), 0, 0
	g.trial, g.left, g.base, g.sum, g.count = -1, 0, 0, 0, 0
	g.ratio, g.trials, g.cheaper = [governorLevels]float64{}, [governorLevels]int{}, [governorLevels]int{}
	g.period = quickPeriod
}

// choose returns the width of the next cycle, given the most workers the
// pool gives a loop (at least 2), and the level to note its cost with.
func (g *widthGovernor) choose(most int) (width, level int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.most != most {
		g.reset(most)
	}
	g.cycles++
	if g.trial < 0 && g.cycles > warmCycles && g.recent > 0 && mix(g.cycles)%g.period == 0 {
		// The ladder has two levels at least (most ≥ 2): one below or
		// one above the current is always on it.
		g.up = !g.up
		t := g.level - 1
		if (g.up && g.level < top(most)) || g.level == 0 {
			t = g.level + 1
		}
		g.trial, g.left, g.base, g.sum, g.count = t, trialCycles, g.recent, 0, 0
	}
	if g.trial >= 0 {
		return ladder(g.trial, most), g.trial
	}
	return ladder(g.level, most), g.level
}

// note folds in a cycle run at level (choose) that took d over n nodes
// with its loops capped at width workers (a width not its level's
// counts as run, unmeasured).
func (g *widthGovernor) note(most, level, width int, d time.Duration, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.most != most {
		return
	}
	measured := n > 0 && width == ladder(level, most) && g.cycles > warmCycles
	x := float64(d) / float64(max(n, 1))
	switch {
	case g.trial >= 0 && level == g.trial:
		if measured && g.left < trialCycles {
			g.sum += min(x, pauseCap*g.base)
			g.count++
		}
		if g.left--; g.left <= 0 {
			g.endTrial()
		}
	case level == g.level && measured:
		if g.recent == 0 {
			g.recent = x
		} else {
			g.recent = recentKeep*g.recent + (1-recentKeep)*min(x, pauseCap*g.recent)
		}
	}
}

// endTrial folds the trial just run into its level's ratio and moves the
// current width there when its trials say it is cheaper.
func (g *widthGovernor) endTrial() {
	t := g.trial
	g.trial = -1
	if g.count == 0 || g.base <= 0 || g.sum <= 0 {
		return
	}
	// One trial may meet a pause (the collector, another process) that
	// none of its base did, or the reverse: its ratio counts for at
	// most 1.5 either way.
	r := min(max(math.Log(g.sum/float64(g.count)/g.base), -clampLog), clampLog)
	if g.trials[t] == 0 {
		g.ratio[t] = r
	} else {
		g.ratio[t] = ratioKeep*g.ratio[t] + (1-ratioKeep)*r
	}
	g.trials[t]++
	if r < clearlyCheaper {
		g.cheaper[t]++
	} else {
		g.cheaper[t] = 0
	}
	if g.trials[t] >= minTrials && g.ratio[t] > clearlyDearer {
		g.period = min(2*g.period, maxPeriod)
		return
	}
	g.period = trialPeriod
	if g.cheaper[t] > 0 {
		g.period = quickPeriod
	}
	if g.cheaper[t] < quickTrials && (g.trials[t] < minTrials || g.ratio[t] >= moveBelow) {
		return
	}
	// Move: the old level is now a neighbour as cheap, relative to the
	// new, as the trials measured; the other ratios were relative to
	// the old level and start again.
	old, r, n := g.level, g.ratio[t], g.trials[t]
	g.ratio, g.trials, g.cheaper = [governorLevels]float64{}, [governorLevels]int{}, [governorLevels]int{}
	g.ratio[old], g.trials[old] = -r, n
	g.level, g.recent, g.period = t, g.sum/float64(g.count), trialPeriod
}

// mix scrambles a cycle count (splitmix64's finalizer), so that the cycles
// that begin trials do not fall in step with a stream of pods that
// repeats with a period.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
