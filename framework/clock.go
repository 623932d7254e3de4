package framework

import (
	"container/heap"
	"fmt"
	"sync"
	"time"
)

// Clock is the one time source of schedkit: a Framework hands it to its
// plugins (Handle.Clock), and a scheduling.Scheduler uses it for backoff
// and Permit timeouts and passes it to its frameworks. Inject a FakeClock to
// run tests and simulations on virtual time; RealClock is the wall clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f once d has elapsed (on a goroutine of the clock's
	// choosing) and returns a Timer that can cancel it.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop cancels the call; it reports whether the call was still pending.
	Stop() bool
}

// RealClock is the wall clock, with time.AfterFunc timers.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

var (
	_ Clock = RealClock{}
	_ Clock = (*FakeClock)(nil)
)

// FakeClock is a virtual clock: time moves only when Advance or AdvanceTo is
// called, and timers fire on the goroutine that moves it, in deadline order
// (ties in the order the timers were created). It makes tests of timeouts
// and backoff exact and lets a simulation skip idle time. It is safe for
// concurrent use; timer callbacks run without the clock's lock held, so they
// may create or stop timers.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers fcTimerHeap
}

// NewFakeClock returns a virtual clock reading start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// Now returns the virtual time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f at Now()+d. A d ≤ 0 fires at the next Advance or
// AdvanceTo (even Advance(0)).
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fcTimer{clock: c, at: c.now.Add(max(d, 0)), seq: c.seq, f: f, index: -1}
	heap.Push(&c.timers, t)
	return t
}

// Advance moves the clock forward by d, firing every timer due by the new
// time in deadline order; while a timer fires, Now() reads its deadline. A
// negative d is an error.
func (c *FakeClock) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("framework: FakeClock.Advance(%v): negative duration", d)
	}
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	return c.AdvanceTo(target)
}

// AdvanceTo moves the clock to t, firing the timers due by t in deadline
// order. Moving backwards is an error naming both times.
func (c *FakeClock) AdvanceTo(t time.Time) error {
	c.mu.Lock()
	if t.Before(c.now) {
		now := c.now
		c.mu.Unlock()
		return fmt.Errorf("framework: FakeClock.AdvanceTo(%v): before the current time %v", t, now)
	}
	for {
		if len(c.timers) == 0 || c.timers[0].at.After(t) {
			break
		}
		tm := heap.Pop(&c.timers).(*fcTimer)
		if tm.at.After(c.now) {
			c.now = tm.at
		}
		c.mu.Unlock()
		tm.f()
		c.mu.Lock()
	}
	c.now = t
	c.mu.Unlock()
	return nil
}

// NextDeadline returns the deadline of the earliest pending timer.
func (c *FakeClock) NextDeadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].at, true
}

// PendingTimers returns the number of timers not yet fired or stopped.
func (c *FakeClock) PendingTimers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

type fcTimer struct {
	clock *FakeClock
	at    time.Time
	seq   uint64
	f     func()
	index int
}

// Stop cancels the timer.
func (t *fcTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	return true
}

type fcTimerHeap []*fcTimer

func (h fcTimerHeap) Len() int { return len(h) }
func (h fcTimerHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h fcTimerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *fcTimerHeap) Push(x any) {
	t := x.(*fcTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *fcTimerHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}
