package live_test

import (
	"context"
	"testing"
	"time"

	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// A question that panics inside WhatIf still closes its fork: after the
// panic, another goroutine's reads of the scheduler and the next question
// go on at once.
func TestWhatIfPanicClosesTheFork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, config(testNode("n0", 4)))
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the question's panic did not reach the caller")
			}
		}()
		_ = l.WhatIf(func(*whatif.WhatIf) error { panic("question failed") })
	}()
	done := make(chan error, 1)
	go func() {
		if _, err := l.Scheduler().State(); err != nil {
			done <- err
			return
		}
		done <- l.WhatIf(func(*whatif.WhatIf) error { return nil })
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the scheduler still waits for the panicked question's fork after 5s")
	}
}
