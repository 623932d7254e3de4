package scheduling

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
)

// fwCall runs call on a goroutine of its own, as another goroutine's live
// call while a fork is open, and returns its result once the call waits on
// the wall clock's timer (the fork wait armed) and the clock has been
// moved by advance.
func fwCall(t *testing.T, wall *framework.FakeClock, advance time.Duration, call func() string) string {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- call() }()
	deadline := time.Now().Add(10 * time.Second)
	for wall.PendingTimers() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the live call never started waiting for the fork")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case r := <-done:
		t.Fatalf("the live call returned %q before the fork wait ran out", r)
	default:
	}
	if err := wall.Advance(advance); err != nil {
		t.Fatal(err)
	}
	return <-done
}

// TestForkLeftOpenBoundsOtherCallers: a fork its goroutine never closes
// does not freeze the scheduler. Another goroutine's live calls wait for
// it at most the fork wait (WithForkWait, on the wall clock, not the
// scheduler's), then fail with an error naming the call, the wait and
// where the fork was opened (ErrForkNotClosed); ScheduleOne reports that
// nothing ran, with that error as its decision's message.
func TestForkLeftOpenBoundsOtherCallers(t *testing.T) {
	ctx := context.Background()
	wall := framework.NewFakeClock(scT0)
	e := newScEnv(t, scNodes("4"), nil, WithForkWait(30*time.Second), WithWallClock(wall))
	e.add(t, scPod("queued", "1").Obj())
	f, err := e.s.Fork()
	_, file, line, _ := runtime.Caller(0)
	if err != nil {
		t.Fatal(err)
	}
	opened := fmt.Sprintf("%s:%d", file, line-1)
	want := func(op string) []string {
		return []string{"scheduling: " + op + ": ", "waited 30s", opened, "TestForkLeftOpenBoundsOtherCallers", "defer f.Revert()", "WithForkWait"}
	}
	check := func(name, msg string, wants []string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q, want it to contain %q", name, msg, w)
			}
		}
	}
	for _, tc := range []struct {
		op   string
		call func() error
	}{
		{"AddPod", func() error { return e.s.AddPod(scPod("x", "1").Obj()) }},
		{"State", func() error { _, err := e.s.State(); return err }},
		{"Fork", func() error { _, err := e.s.Fork(); return err }},
	} {
		var err error
		fwCall(t, wall, 30*time.Second, func() string { err = tc.call(); return "" })
		if !errors.Is(err, ErrForkNotClosed) {
			t.Errorf("%s: %v, want ErrForkNotClosed", tc.op, err)
			continue
		}
		check(tc.op, err.Error(), want(tc.op))
	}
	var d Decision
	var ran bool
	fwCall(t, wall, 30*time.Second, func() string { d, ran = e.s.ScheduleOne(ctx); return "" })
	if ran || d.Outcome != OutcomeError {
		t.Errorf("ScheduleOne: %+v ran=%v, want nothing run and an Error decision", d, ran)
	}
	check("ScheduleOne", d.Message, want("ScheduleOne"))
	if r := fwCall(t, wall, 30*time.Second, func() string { return e.s.PendingReason("default", "queued") }); r != "" {
		t.Errorf("PendingReason: %q, want \"\"", r)
	}
	// Closed within the wait, the fork lets the waiting call go on.
	done := make(chan error, 1)
	go func() { done <- e.s.AddPod(scPod("late", "1").Obj()) }()
	for wall.PendingTimers() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("AddPod waiting for a fork that closed in time: %v", err)
	}
	if n := wall.PendingTimers(); n != 0 {
		t.Errorf("%d fork-wait timers left running", n)
	}
	if d, ok := e.s.ScheduleOne(ctx); !ok || d.Pod != "default/queued" {
		t.Errorf("ScheduleOne after the Revert: %+v %v", d, ok)
	}
}

// TestForkWaitOptions: New refuses a fork wait that is not positive and a
// nil wall clock, naming the option and the value.
func TestForkWaitOptions(t *testing.T) {
	for _, tc := range []struct {
		opt  Option
		want string
	}{
		{WithForkWait(0), "scheduling: New: WithForkWait(0s): must be positive"},
		{WithForkWait(-time.Second), "scheduling: New: WithForkWait(-1s): must be positive"},
		{WithWallClock(nil), "scheduling: New: WithWallClock(nil): a clock is required"},
	} {
		c := newScEnv(t, scNodes("4"), nil).s.cluster
		_, err := New(c, NewDefaultRegistry(), []framework.Profile{scResourceProfile()}, tc.opt)
		if err == nil || err.Error() != tc.want {
			t.Errorf("New: %v, want %q", err, tc.want)
		}
	}
}
