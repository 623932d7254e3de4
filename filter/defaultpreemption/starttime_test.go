package defaultpreemption

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// tickingClock advances one nanosecond at each read, as the wall clock
// does between two reads, and counts the reads.
type tickingClock struct {
	framework.FakeClock
	now   time.Time
	reads int
}

func (c *tickingClock) Now() time.Time {
	c.reads++
	c.now = c.now.Add(time.Nanosecond)
	return c.now
}

func stPlugin(t interface{ Fatal(...any) }, c framework.Clock) *DefaultPreemption {
	pl, err := newDefaultPreemption(DefaultDefaultPreemptionArgs(), framework.NewHandle(c, 1, framework.DefaultKubeVersion))
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*DefaultPreemption)
}

func stPod(name string, prio int32, start *time.Time) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}
	p.Spec.Priority = &prio
	p.Status.StartTime = start
	return p
}

func stPodInfo(t interface{ Fatal(...any) }, p *api.Pod) *framework.PodInfo {
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

// TestMoreImportantWithoutStartTimes: kube's MoreImportantPod gives a pod
// without a start time the clock's reading, first for a and then for b.
// A clock that advances between the reads makes a the more important, a
// clock that stands still does not, and the RealClock, which advances,
// answers as the advancing clock does.
func TestMoreImportantWithoutStartTimes(t *testing.T) {
	past := time.Now().Add(-time.Hour)
	future := time.Now().Add(time.Hour)
	for _, tt := range []struct {
		name      string
		a, b      *api.Pod
		ticking   bool // under a clock that advances at each read
		stopped   bool // under a FakeClock
		wallClock bool // under the RealClock
		reads     int  // of the ticking clock
	}{
		{"neither has a start time", stPod("a", 1, nil), stPod("b", 1, nil), true, false, true, 2},
		{"a has none, b started in the past", stPod("a", 1, nil), stPod("b", 1, &past), false, false, false, 1},
		{"a started in the past, b has none", stPod("a", 1, &past), stPod("b", 1, nil), true, true, true, 1},
		{"a has none, b starts in the future", stPod("a", 1, nil), stPod("b", 1, &future), true, true, true, 1},
		{"a has the higher priority", stPod("a", 2, nil), stPod("b", 1, nil), true, true, true, 0},
		{"b has the higher priority", stPod("a", 1, nil), stPod("b", 2, nil), false, false, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tick := &tickingClock{now: time.Now()}
			if got := stPlugin(t, tick).moreImportant(tt.a, tt.b); got != tt.ticking {
				t.Errorf("advancing clock: %v, want %v", got, tt.ticking)
			}
			if tick.reads != tt.reads {
				t.Errorf("advancing clock read %d times, want %d (kube's reads)", tick.reads, tt.reads)
			}
			if got := stPlugin(t, framework.NewFakeClock(time.Now())).moreImportant(tt.a, tt.b); got != tt.stopped {
				t.Errorf("FakeClock: %v, want %v", got, tt.stopped)
			}
			if got := stPlugin(t, framework.RealClock{}).moreImportant(tt.a, tt.b); got != tt.wallClock {
				t.Errorf("RealClock: %v, want %v", got, tt.wallClock)
			}
		})
	}
}

// TestEarliestStartOfHighest: the earliest start time among the victims
// of the highest priority; an injected clock is read for every victim
// kube reads it for, and the RealClock gives a victim without a start
// time a reading taken during the call.
func TestEarliestStartOfHighest(t *testing.T) {
	base := time.Now()
	past, older := base.Add(-time.Hour), base.Add(-2*time.Hour)
	pi := func(p *api.Pod) *framework.PodInfo { return stPodInfo(t, p) }
	for _, tt := range []struct {
		name    string
		victims []*framework.PodInfo
		want    time.Time // under the ticking clock starting at base
		reads   int
	}{
		{"none has a start time: the first read", []*framework.PodInfo{pi(stPod("a", 1, nil)), pi(stPod("b", 1, nil)), pi(stPod("c", 1, nil))}, base.Add(1), 4},
		{"the started one is earlier", []*framework.PodInfo{pi(stPod("a", 1, nil)), pi(stPod("b", 1, &past))}, past, 2},
		{"the earliest of the started ones", []*framework.PodInfo{pi(stPod("a", 1, &past)), pi(stPod("b", 1, &older))}, older, 0},
		{"a higher priority resets the earliest", []*framework.PodInfo{pi(stPod("a", 1, &older)), pi(stPod("b", 2, nil)), pi(stPod("c", 2, &past))}, past, 1},
		{"lower priorities do not count", []*framework.PodInfo{pi(stPod("a", 2, &past)), pi(stPod("b", 1, &older))}, past, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tick := &tickingClock{now: base}
			if got := stPlugin(t, tick).earliestStartOfHighest(tt.victims); !got.Equal(tt.want) {
				t.Errorf("advancing clock: %v, want %v", got, tt.want)
			}
			if tick.reads != tt.reads {
				t.Errorf("advancing clock read %d times, want %d (kube's reads)", tick.reads, tt.reads)
			}
			before := time.Now()
			got := stPlugin(t, framework.RealClock{}).earliestStartOfHighest(tt.victims)
			after := time.Now()
			if tt.want.Before(base) {
				if !got.Equal(tt.want) {
					t.Errorf("RealClock: %v, want %v", got, tt.want)
				}
			} else if got.Before(before) || got.After(after) {
				t.Errorf("RealClock: %v, want a reading between %v and %v", got, before, after)
			}
		})
	}
}

// TestPropWallClockOrdersAsAnAdvancingClock: with the RealClock, the
// victims' order and the candidate chosen by the latest earliest start
// time are those of a clock that advances at each read (kube's outcome
// with its wall clock), for victims of random priorities with start
// times in the past or none.
func TestPropWallClockOrdersAsAnAdvancingClock(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := time.Now()
		// Often no pod has a start time, the case the RealClock answers
		// without reading it.
		someStarted := rapid.Bool().Draw(t, "someStarted")
		gen := func(label string) []*framework.PodInfo {
			n := rapid.IntRange(1, 6).Draw(t, label+"s")
			out := make([]*framework.PodInfo, n)
			for i := range out {
				var start *time.Time
				if someStarted && rapid.Bool().Draw(t, label+"started") {
					s := now.Add(-time.Duration(rapid.IntRange(1, 3).Draw(t, label+"age")) * time.Hour)
					start = &s
				}
				out[i] = stPodInfo(t, stPod(fmt.Sprintf("%s-%d", label, i), int32(rapid.IntRange(0, 2).Draw(t, label+"prio")), start))
			}
			return out
		}
		victims := gen("victim")
		wall, tick := stPlugin(t, framework.RealClock{}), stPlugin(t, &tickingClock{now: now})
		sorted := func(pl *DefaultPreemption) []*framework.PodInfo {
			out := append([]*framework.PodInfo(nil), victims...)
			slices.SortStableFunc(out, pl.importanceOrder)
			return out
		}
		w, k := sorted(wall), sorted(tick)
		for i := range w {
			if w[i] != k[i] {
				t.Fatalf("victim %d: RealClock sorts %s (priority %d), the advancing clock %s (priority %d)", i, w[i].Pod.Name, w[i].PriorityValue(), k[i].Pod.Name, k[i].PriorityValue())
			}
		}
		cands := make([]preemptCandidate, rapid.IntRange(1, 5).Draw(t, "candidates"))
		for i := range cands {
			vs := gen("c")
			slices.SortStableFunc(vs, tick.importanceOrder)
			cands[i] = preemptCandidate{node: string(rune('a' + i)), victims: vs}
		}
		if a, b := wall.pickOne(cands, &dryRunScratch{}).node, tick.pickOne(cands, &dryRunScratch{}).node; a != b {
			t.Fatalf("RealClock picks %s, the advancing clock %s", a, b)
		}
	})
}

// TestPropPodInfoOrderAndSumsAsThePods: with the default MoreImportantPod,
// the order the dry run sorts victims by (defaultImportanceOrder, from
// what the PodInfos keep) is importanceOrder's, which reads the pods,
// whichever clock; and pickOne picks the same candidate whether the dry
// run summed the victims (victimSum) or pickOne sums them itself. Some
// PodInfos are built around the pod alone, keeping nothing.
func TestPropPodInfoOrderAndSumsAsThePods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := time.Now()
		gen := func(label string) []*framework.PodInfo {
			n := rapid.IntRange(1, 6).Draw(t, label+"s")
			out := make([]*framework.PodInfo, n)
			for i := range out {
				var start *time.Time
				if rapid.Bool().Draw(t, label+"started") {
					s := now.Add(-time.Duration(rapid.IntRange(1, 3).Draw(t, label+"age")) * time.Hour)
					start = &s
				}
				p := stPod(fmt.Sprintf("%s-%d", label, i), int32(rapid.IntRange(0, 2).Draw(t, label+"prio")), start)
				if rapid.Bool().Draw(t, label+"kept") {
					out[i] = stPodInfo(t, p)
				} else {
					out[i] = &framework.PodInfo{Pod: p}
				}
			}
			return out
		}
		var clock framework.Clock = framework.RealClock{}
		if rapid.Bool().Draw(t, "ticking") {
			clock = &tickingClock{now: now}
		}
		pl := stPlugin(t, clock)
		victims := gen("victim")
		byPods, byInfos := slices.Clone(victims), slices.Clone(victims)
		slices.SortStableFunc(byPods, pl.importanceOrder)
		h := hooksOf(pl)
		pl.sortVictims(byInfos, h.important == pl.defaultHooks.important)
		for i := range byPods {
			if byPods[i] != byInfos[i] {
				t.Fatalf("victim %d: the pods order %s, the PodInfos %s", i, byPods[i].Pod.Name, byInfos[i].Pod.Name)
			}
		}
		cands := make([]preemptCandidate, rapid.IntRange(1, 5).Draw(t, "candidates"))
		for i := range cands {
			vs := gen("c")
			slices.SortStableFunc(vs, pl.importanceOrder)
			cands[i] = preemptCandidate{node: string(rune('a' + i)), victims: vs}
		}
		summed := slices.Clone(cands)
		for i := range summed {
			summed[i].sum = sumVictims(summed[i].victims)
			// The sums recounted from the pods themselves.
			vs := summed[i].victims
			want := victimSum{known: true, first: vs[0].Pod.PriorityValue()}
			top := want.first
			for _, v := range vs {
				want.sum += int64(v.Pod.PriorityValue()) + 1<<31
				top = max(top, v.Pod.PriorityValue())
			}
			for _, v := range vs {
				want.topStarted = want.topStarted || v.Pod.PriorityValue() == top && v.Pod.Status.StartTime != nil
			}
			if summed[i].sum != want {
				t.Fatalf("candidate %s: sums %+v, the pods' %+v", summed[i].node, summed[i].sum, want)
			}
		}
		// The ticking clock has moved on: a second plugin on a fresh one
		// picks from the summed candidates as the first did.
		pl2 := pl
		if _, ok := clock.(*tickingClock); ok {
			pl, pl2 = stPlugin(t, &tickingClock{now: now}), stPlugin(t, &tickingClock{now: now})
		}
		if a, b := pl.pickOne(cands, &dryRunScratch{}).node, pl2.pickOne(summed, &dryRunScratch{}).node; a != b {
			t.Fatalf("pickOne summing the victims picks %s, with the dry run's sums %s", a, b)
		}
	})
}
