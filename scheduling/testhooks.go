package scheduling

import (
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/scheduling/internal/schedtest"
)

// The views the tests of the subpackages take of a Scheduler
// (internal/schedtest).
func init() {
	schedtest.Inspect = func(v any) schedtest.View {
		s := v.(*Scheduler)
		var out schedtest.View
		if f, ok := s.Framework(DefaultSchedulerName); ok {
			if pl, ok := f.Plugin(config.VolumeBindingName); ok {
				out.AssumedVolumes[0], out.AssumedVolumes[1] = pl.(*volumeBindingPlugin).vb.AssumedCount()
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		out.Nominated = map[string]string{}
		for k, n := range s.nominator.NodeOf {
			out.Nominated[k] = n
		}
		for k, qp := range s.queue.Pods {
			out.Queued = append(out.Queued, fmt.Sprintf("%s@%d", k, qp.Where))
		}
		active, backoff, unschedulable := s.queue.Lens()
		out.Queued = append(out.Queued, fmt.Sprintf("lens %d %d %d", active, backoff, unschedulable))
		slices.Sort(out.Queued)
		return out
	}
	schedtest.Count = func(v any) schedtest.Counters {
		s := v.(*Scheduler)
		return schedtest.Counters{ReplicaCycles: s.replicaCycles, ReplicasReused: s.replicasReused}
	}
	schedtest.SetDecisionHook = func(v any, fn func(any)) {
		s := v.(*Scheduler)
		if fn == nil {
			s.onDecision = nil
			return
		}
		s.onDecision = func(d Decision) { fn(d) }
	}
	schedtest.Wakeups = func(v any) int { return len(v.(*Scheduler).wake) }
	schedtest.DrainWakeups = func(v any) {
		select {
		case <-v.(*Scheduler).wake:
		default:
		}
	}
	schedtest.Activate = func(v any, key string) {
		s := v.(*Scheduler)
		s.mu.Lock()
		defer s.mu.Unlock()
		if qp, ok := s.queue.Get(key); ok {
			s.queue.Activate([]string{qp.Key})
		}
	}
	schedtest.Dequeue = func(v any, key string) { v.(*Scheduler).queue.Delete(key) }
}
