package replay

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"pgregory.net/rapid"
)

// TestPropTimelineOrderIsHeapOrder: the timeline (a heap of node events,
// gang creations and completions merged with the sorted arrivals) gives
// the events in the order of one heap holding them all, arrivals pushed
// first, with ties at an instant, and with completions pushed between pops
// at or after the instant popped.
func TestPropTimelineOrderIsHeapOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		t0 := time.Unix(0, 0)
		at := func(label string) time.Time {
			return t0.Add(time.Duration(rapid.IntRange(0, 8).Draw(t, label)) * time.Second)
		}
		var tl timeline
		var all eventHeap
		seq := 0
		push := func(e *event, toTimeline bool) {
			seq++
			e.seq = seq
			heap.Push(&all, e)
			if toTimeline {
				c := *e
				heap.Push(&tl.events, &c)
			}
		}
		// Arrivals, sorted by time, take the first sequence numbers.
		nArr := rapid.IntRange(0, 20).Draw(t, "arrivals")
		times := make([]time.Time, nArr)
		for i := range times {
			times[i] = at("arrivalAt")
		}
		slices.SortFunc(times, time.Time.Compare)
		for i, a := range times {
			rp := &pod{outcome: PodOutcome{Pod: fmt.Sprint("a", i)}}
			tl.arrivals = append(tl.arrivals, arrival{at: a, pod: rp})
			push(&event{at: a, class: 2, pod: rp}, false)
		}
		for range rapid.IntRange(0, 20).Draw(t, "events") {
			rp := &pod{outcome: PodOutcome{Pod: fmt.Sprint("e", seq)}}
			push(&event{at: at("eventAt"), class: rapid.IntRange(0, 1).Draw(t, "class"), pod: rp}, true)
		}
		describe := func(e *event) string { return fmt.Sprintf("%v/%d/%s", e.at.Sub(t0), e.class, e.pod.outcome.Pod) }
		for all.Len() > 0 {
			if tl.len() != all.Len() {
				t.Fatalf("timeline holds %d events, heap %d", tl.len(), all.Len())
			}
			if !tl.first().Equal(all[0].at) {
				t.Fatalf("first = %v, heap's %v", tl.first().Sub(t0), all[0].at.Sub(t0))
			}
			want := describe(heap.Pop(&all).(*event))
			e := tl.pop()
			if got := describe(e); got != want {
				t.Fatalf("popped %s, heap popped %s", got, want)
			}
			if rapid.IntRange(0, 3).Draw(t, "pushNow") == 0 {
				rp := &pod{outcome: PodOutcome{Pod: fmt.Sprint("c", seq)}}
				d := time.Duration(rapid.IntRange(0, 3).Draw(t, "after")) * time.Second
				push(&event{at: e.at.Add(d), class: 1, pod: rp}, true)
			}
		}
		if tl.len() != 0 {
			t.Fatalf("timeline holds %d events after the heap emptied", tl.len())
		}
	})
}

// TestPropOnDecisionStreamsTheLog: OnDecision sees every decision of
// Result.Decisions, in order; with DiscardDecisions the result
// holds none, and the log written from OnDecision is WriteLog's, byte for
// byte, on random scenarios with durations, priorities and node events.
func TestPropOnDecisionStreamsTheLog(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawScenario(t, 30, 30, 60)
		seed := rapid.Uint64().Draw(t, "seed")
		resubmit := rapid.Bool().Draw(t, "resubmit")
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		run := func(discard bool) (*Result, []scheduling.Decision, string) {
			var seen []scheduling.Decision
			var log strings.Builder
			res, err := Replay(context.Background(), w, Options{Registry: scPropRegistry(), Profiles: []framework.Profile{scPropProfile()},
				Seed: seed, Resubmit: resubmit, Start: start, DiscardDecisions: discard,
				OnDecision: func(d scheduling.Decision) {
					seen = append(seen, d)
					scheduling.FormatDecision(&log, &d, start)
					log.WriteByte('\n')
				}})
			if err != nil {
				t.Fatal(err)
			}
			return res, seen, log.String()
		}
		kept, seen, streamed := run(false)
		if len(seen) != len(kept.Decisions) {
			t.Fatalf("OnDecision saw %d decisions, the result holds %d", len(seen), len(kept.Decisions))
		}
		var b bytes.Buffer
		if err := kept.WriteLog(&b); err != nil {
			t.Fatal(err)
		}
		if streamed != b.String() {
			t.Fatalf("streamed log differs from WriteLog:\n%s\n---\n%s", streamed, b.String())
		}
		discarded, _, streamed2 := run(true)
		if len(discarded.Decisions) != 0 {
			t.Fatalf("DiscardDecisions kept %d decisions", len(discarded.Decisions))
		}
		if streamed2 != b.String() {
			t.Fatalf("log streamed with DiscardDecisions differs from WriteLog:\n%s\n---\n%s", streamed2, b.String())
		}
		if fmt.Sprint(discarded.Pods) != fmt.Sprint(kept.Pods) || discarded.Cycles != kept.Cycles {
			t.Fatalf("DiscardDecisions changed the outcomes")
		}
	})
}
