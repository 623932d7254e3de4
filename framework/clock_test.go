package framework_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
)

func TestFakeClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := fw.NewFakeClock(t0)
	var fired []string
	at := func(name string) func() {
		return func() { fired = append(fired, fmt.Sprintf("%s@%v", name, c.Now().Sub(t0))) }
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	c.AfterFunc(time.Second, at("b")) // same deadline: after a
	stopped := c.AfterFunc(2*time.Second, at("stopped"))
	c.AfterFunc(-time.Second, at("now")) // due at once: fires at the next move
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop: want true, then false")
	}
	if d, ok := c.NextDeadline(); !ok || !d.Equal(t0) || c.PendingTimers() != 4 {
		t.Errorf("NextDeadline = %v, %v; PendingTimers = %d; want t0, true, 4", d, ok, c.PendingTimers())
	}
	if err := c.Advance(0); err != nil {
		t.Fatal(err)
	}
	if err := c.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if want := []string{"now@0s", "a@1s", "b@1s"}; !cmp.Equal(want, fired) {
		t.Errorf("fired %v, want %v", fired, want)
	}
	if got := c.Now(); !got.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("Now = %v, want t0+2s", got)
	}
	if err := c.AdvanceTo(t0.Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if fired[len(fired)-1] != "c@3s" || c.PendingTimers() != 0 {
		t.Errorf("fired %v with %d pending, want c@3s last and none pending", fired, c.PendingTimers())
	}
	if _, ok := c.NextDeadline(); ok {
		t.Error("NextDeadline reports a timer after all fired")
	}
	for _, err := range []error{c.Advance(-time.Second), c.AdvanceTo(t0)} {
		if err == nil || !strings.Contains(err.Error(), "framework: FakeClock.Advance") {
			t.Errorf("moving back: error %v, want a FakeClock error", err)
		}
	}
}

// A FakeClock moves only when told to, firing timers on the way: tests and
// simulations of timeouts and backoff run on virtual time.
func ExampleFakeClock() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := fw.NewFakeClock(start)
	clock.AfterFunc(30*time.Second, func() { fmt.Println("timeout at", clock.Now().Sub(start)) })
	_ = clock.Advance(time.Minute)
	fmt.Println("now", clock.Now().Sub(start))
	// Output:
	// timeout at 30s
	// now 1m0s
}
