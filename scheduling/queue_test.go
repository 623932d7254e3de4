package scheduling

import (
	"context"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// qEnv: one 1-cpu node; pods asking 2 cpu never fit, and a node update is
// the cluster event that moves them out of the unschedulable pool (without
// queueing hints every event moves every pod: these tests are about
// backoff and flushes; hints_test.go tests the hints).
func qEnv(t *testing.T, opts QueueOptions) *scEnv {
	opts.DisableQueueingHints = true
	return newScEnv(t, scNodes("1"), nil, WithQueueOptions(opts))
}

func (e *scEnv) event(t *testing.T) {
	t.Helper()
	if err := e.s.UpdateNode(st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "1", "memory": "16Gi", "pods": "10"}).Obj()); err != nil {
		t.Fatal(err)
	}
}

func (e *scEnv) tryAt(t *testing.T, at time.Time) (Decision, bool) {
	t.Helper()
	if err := e.clock.AdvanceTo(at); err != nil {
		t.Fatal(err)
	}
	return e.s.ScheduleOne(context.Background())
}

// TestBackoffDoubles: with backoff not aligned (PopFromBackoffQ off, as
// kube-scheduler before v1.33), a pod that fails attempt k waits
// 1 s × 2^(k−1), capped at 10 s, from the failure
// (backend/queue/backoff_queue.go calculateBackoffDuration).
func TestBackoffDoubles(t *testing.T) {
	e := qEnv(t, QueueOptions{DisablePopFromBackoffQ: true})
	e.add(t, scPod("p", "2").Obj())
	now := scT0
	for attempt, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second} {
		d, ok := e.tryAt(t, now)
		if !ok || d.Outcome != OutcomeUnschedulable || d.Attempt != attempt+1 {
			t.Fatalf("attempt %d at %v: %+v %v", attempt+1, now.Sub(scT0), d, ok)
		}
		e.event(t) // moves the pod to the backoff queue
		if _, b, _ := e.s.QueueLengths(); b != 1 {
			t.Fatalf("attempt %d: pod not backing off", attempt+1)
		}
		if wake, ok := e.s.NextWakeup(); !ok || !wake.Equal(now.Add(want)) {
			t.Fatalf("attempt %d: wakeup %v, want %v", attempt+1, wake.Sub(scT0), now.Add(want).Sub(scT0))
		}
		if _, ok := e.tryAt(t, now.Add(want-time.Millisecond)); ok {
			t.Fatalf("attempt %d: popped %v before its backoff of %v ended", attempt+1, want-time.Millisecond, want)
		}
		now = now.Add(want)
	}
}

// TestBackoffAlignedAndPopFromBackoffQ: with SchedulerPopFromBackoffQ (the
// v1.36 default) the expiry is truncated to the second and a pod is done
// once the current second is past it; when the active queue is empty the
// backoff queue's head is scheduled at once.
func TestBackoffAlignedAndPopFromBackoffQ(t *testing.T) {
	e := qEnv(t, QueueOptions{})
	t0 := scT0.Add(300 * time.Millisecond)
	e.add(t, scPod("p", "2").Obj())
	if d, ok := e.tryAt(t, t0); !ok || d.Outcome != OutcomeUnschedulable {
		t.Fatalf("first attempt: %+v", d)
	}
	e.event(t)
	// Expiry: (t0 + 1 s) truncated = scT0 + 1 s; done from scT0 + 2 s.
	if wake, _ := e.s.NextWakeup(); !wake.Equal(scT0.Add(2 * time.Second)) {
		t.Errorf("wakeup at %v, want 2s", wake.Sub(scT0))
	}
	// The active queue is empty: the backoff head is popped right away.
	d, ok := e.tryAt(t, t0.Add(100*time.Millisecond))
	if !ok || d.Attempt != 2 {
		t.Fatalf("pop from backoffQ: %+v %v", d, ok)
	}
	// With an active pod around, the backing-off pod waits: attempt 2
	// failed at t0+100ms → expiry trunc(t0+100ms+2s) = scT0+2s, done at 3 s.
	e.event(t)
	e.add(t, scPod("q", "2").Obj())
	if d, _ := e.tryAt(t, scT0.Add(2*time.Second+900*time.Millisecond)); d.Pod != "default/q" {
		t.Fatalf("popped %s, want the active pod q", d.Pod)
	}
	e.event(t) // q joins the backoff queue too (expiry trunc(2.9+1)=3 s)
	e.add(t, scPod("r", "2").Priority(-1).Obj())
	if d, _ := e.tryAt(t, scT0.Add(2*time.Second+950*time.Millisecond)); d.Pod != "default/r" {
		t.Fatalf("popped %s, want the active pod r", d.Pod)
	}
	// At 3 s p's backoff (done at 3 s) has ended and q's (done at 4 s) has not.
	if d, _ := e.tryAt(t, scT0.Add(3*time.Second)); d.Pod != "default/p" {
		t.Fatalf("popped %s at 3s, want p", d.Pod)
	}
}

// TestUnschedulableLeftoverFlush: without events a pod leaves the
// unschedulable pool on the first 30 s flush tick more than 5 minutes after
// its failure.
func TestUnschedulableLeftoverFlush(t *testing.T) {
	e := qEnv(t, QueueOptions{})
	e.add(t, scPod("p", "2").Obj())
	t0 := scT0.Add(10 * time.Second)
	e.tryAt(t, t0)
	want := scT0.Add(5*time.Minute + 30*time.Second)
	if wake, ok := e.s.NextWakeup(); !ok || !wake.Equal(want) {
		t.Fatalf("wakeup %v, want %v", wake.Sub(scT0), want.Sub(scT0))
	}
	if _, ok := e.tryAt(t, want.Add(-time.Millisecond)); ok {
		t.Fatalf("retried before the flush tick")
	}
	if d, ok := e.tryAt(t, want); !ok || d.Attempt != 2 {
		t.Fatalf("not retried at the flush tick: %+v", d)
	}
}

// TestPendingSkipsBackoff: a Pending rejection goes to the unschedulable
// pool and, on an event, straight to the active queue.
func TestQueuePendingAndErrors(t *testing.T) {
	clock := framework.NewFakeClock(scT0)
	q := queue.New(clock, nil, QueueOptions{}.config())
	p := q.Add(framework.MustPodInfo(scPod("p", "1").Obj()))
	if got := q.Pop(); got != p {
		t.Fatal("pop")
	}
	q.RequeueFailed(p, []string{"X"}, []string{"X"}, false)
	q.MoveAll()
	if a, b, u := q.Lens(); a != 1 || b != 0 || u != 0 {
		t.Errorf("pending pod: queues %d/%d/%d, want active", a, b, u)
	}
	got := q.Pop()
	q.RequeueFailed(got, nil, nil, true)
	if a, b, u := q.Lens(); a != 0 || b != 1 || u != 0 {
		t.Errorf("error: queues %d/%d/%d, want error backoff", a, b, u)
	}
	// The error backoff is not popped early even with an empty active queue.
	if q.Pop() != nil {
		t.Errorf("error-backoff pod popped before its backoff ended")
	}
	_ = clock.Advance(3 * time.Second)
	if q.Pop() != p {
		t.Errorf("error-backoff pod not popped after its backoff")
	}
	q.Done(p)
	if _, ok := q.Get("default/p"); ok {
		t.Errorf("done pod still known")
	}
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	p30 := int32(30)
	p0 := int32(0)
	for _, tc := range []struct {
		profile *int32
		global  int32
		n, want int
	}{
		// Examples of kube-scheduler.md §2.2 and schedule_one_test.go.
		{nil, 0, 0, 0},
		{nil, 0, 50, 50},
		{nil, 0, 99, 99},
		{nil, 0, 100, 100},
		{nil, 0, 200, 100},   // 48% of 200 = 96 → at least 100
		{nil, 0, 1000, 420},  // 50 − 8 = 42%
		{nil, 0, 5000, 500},  // 50 − 40 = 10%
		{nil, 0, 6000, 300},  // 50 − 48 = 2% → 5%
		{nil, 0, 15000, 750}, // 5%
		{nil, 40, 1000, 400},
		{&p30, 40, 1000, 300}, // the profile wins
		{&p0, 40, 1000, 420},  // profile 0 is adaptive
		{nil, 1, 1000, 100},
		{nil, 100, 1000, 1000},
	} {
		if got := numFeasibleNodesToFind(tc.profile, tc.global, tc.n); got != tc.want {
			t.Errorf("numFeasibleNodesToFind(%v, %d, %d) = %d, want %d", tc.profile, tc.global, tc.n, got, tc.want)
		}
	}
}

// TestQueueLeftoverFlushEachTick: the leftover flush moves each pod once it
// has waited MaxInUnschedulablePods at a 30 s tick; looking again within
// the same tick moves nothing new, and a pod put back by Revert is moved
// again at that tick.
func TestQueueLeftoverFlushEachTick(t *testing.T) {
	clock := framework.NewFakeClock(scT0)
	q := queue.New(clock, nil, QueueOptions{}.config())
	fail := func(name string) *queue.QueuedPod {
		t.Helper()
		p := q.Add(framework.MustPodInfo(scPod(name, "1").Obj()))
		if got := q.Pop(); got != p {
			t.Fatalf("pop %s", name)
		}
		q.RequeueFailed(p, []string{"X"}, nil, false)
		return p
	}
	a := fail("a")
	_ = clock.Advance(time.Minute)
	b := fail("b")
	steps := []struct {
		at         time.Duration // after scT0
		fork, undo bool
		want       []*queue.QueuedPod // left in the unschedulable pool
	}{
		{at: 5 * time.Minute, want: []*queue.QueuedPod{a, b}},
		{at: 5*time.Minute + 30*time.Second, want: []*queue.QueuedPod{b}},
		{at: 5*time.Minute + 50*time.Second, want: []*queue.QueuedPod{b}},
		{at: 6 * time.Minute, fork: true, want: []*queue.QueuedPod{b}},
		{at: 6*time.Minute + 30*time.Second, want: nil},
		{at: 6*time.Minute + 40*time.Second, undo: true, want: nil},
	}
	for _, s := range steps {
		if s.fork {
			q.Fork()
		}
		if err := clock.AdvanceTo(scT0.Add(s.at)); err != nil {
			t.Fatal(err)
		}
		q.Flush(clock.Now())
		if s.undo {
			q.Revert() // b is back in the pool, a is still out
			if _, ok := q.UnschedulableQ[b.Key]; !ok {
				t.Fatalf("at %v: Revert did not put b back", s.at)
			}
			q.Flush(clock.Now())
		}
		var left []*queue.QueuedPod
		for _, p := range []*queue.QueuedPod{a, b} {
			if cur, ok := q.UnschedulableQ[p.Key]; ok {
				left = append(left, cur)
			}
		}
		if len(left) != len(s.want) {
			t.Fatalf("at %v: %d pods left in the pool, want %d", s.at, len(left), len(s.want))
		}
		for i := range left {
			if left[i].Key != s.want[i].Key {
				t.Fatalf("at %v: %s left in the pool, want %s", s.at, left[i].Key, s.want[i].Key)
			}
		}
	}
}
