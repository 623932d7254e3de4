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
// when the ratios of several trials (their mean, then a moving average,
// each ratio clamped) say the neighbour is at least 5 % cheaper, when a
// few trials in a row each find it clearly cheaper (a sixth), or when a
// few trials' mean says so by a margin the stream's spread makes sure
// (surelyCheaper): a stream of cheap cycles that a second worker makes
// half again as long or more, or of pods alike that it makes a sixth
// longer, leaves it within a few hundred cycles. While trials find a
// neighbour cheaper, and at a stream's start, they come often (one cycle
// in quickPeriod);
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
	// spread is a moving average (spreadKeep) of the squared logarithm
	// of a cycle's cost at the current width over recent: how unlike
	// the stream's pods are, from which surelyCheaper judges how far
	// a few trials' mean can be trusted. It starts at spreadPrior.
	spread float64
	// trial is the level of the trial in progress (-1: none); left is
	// how many of its cycles are still to run; base is recent when it
	// began; sum and count measure its cycles after the first.
	trial, left int
	base, sum   float64
	count       int
	// ratio[l] is the mean of the logarithms of the first minTrials
	// trials' ratios at level l to the current level, then their moving
	// average (ratioKeep); trials[l] counts them.
	ratio  [governorLevels]float64
	trials [governorLevels]int
	// cheaper[l] counts the trials in a row at level l that found it
	// clearly cheaper than the current level.
	cheaper [governorLevels]int
	up      bool
	// period is how many cycles run, on average, per trial begun: it
	// starts at quickPeriod, is quickPeriod after a trial that finds its
	// neighbour cheaper (by moveBelow), or while the trials' mean does,
	// doubles, up to maxPeriod, after each that finds it clearly dearer
	// (clearlyDearer), and is trialPeriod after any other.
	period uint64
}

// surelyCheaper reports whether level l's trials, at least quickTrials
// of them, put it below moveBelow by more than three standard errors of
// their mean, each trial's error following from the stream's spread
// over its measured cycles and the base's (about eight cycles): a stream
// of pods alike, where a second worker lengthens cheap cycles by a sixth
// (SchedulingBasic over every node on two vCPUs), leaves the shared
// width within a few trials, where a stream of unlike pods (the varied
// stream, whose trials at one worker vary by a third) waits for the
// moving average of minTrials trials.
func (g *widthGovernor) surelyCheaper(l int) bool {
	n := g.trials[l]
	if n < quickTrials || g.count == 0 {
		return false
	}
	perTrial := g.spread * (1/float64(g.count) + 1.0/8)
	return g.ratio[l]+3*math.Sqrt(perTrial/float64(min(n, minTrials))) < moveBelow
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
	// spreadKeep is the weight of the old average in spread, which
	// follows about the last 32 cycles.
	spreadKeep = 31.0 / 32
	// spreadPrior is spread before any cycle: costs unlike by half
	// (the square of ln 1.5), so that the first trials are judged as
	// for unlike pods until the stream's own cycles say otherwise.
	spreadPrior = 0.164
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
	g.spread = spreadPrior
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
			y := min(x, pauseCap*g.recent)
			// A pause counts as a cycle unlike by half, as in a trial.
			dev := min(max(math.Log(max(y, 1e-9)/g.recent), -clampLog), clampLog)
			g.spread = spreadKeep*g.spread + (1-spreadKeep)*dev*dev
			g.recent = recentKeep*g.recent + (1-recentKeep)*y
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
	// The mean of a level's first minTrials trials, then a moving
	// average that follows the last few.
	if g.trials[t] < minTrials {
		g.ratio[t] += (r - g.ratio[t]) / float64(g.trials[t]+1)
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
	if g.cheaper[t] > 0 || r < moveBelow || g.ratio[t] < moveBelow {
		g.period = quickPeriod
	}
	if g.cheaper[t] < quickTrials && !g.surelyCheaper(t) && (g.trials[t] < minTrials || g.ratio[t] >= moveBelow) {
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
