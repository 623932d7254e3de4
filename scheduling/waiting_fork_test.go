package scheduling

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestVerdictFromAnotherGoroutineDuringFork: a pod waits at Permit on the
// live scheduler; while another goroutine holds a fork open, an approver
// goroutine allows or rejects it. The verdict belongs to the live
// scheduler: the branch does not see it, and after the fork's Revert or
// Commit it takes effect live.
func TestVerdictFromAnotherGoroutineDuringFork(t *testing.T) {
	for _, tc := range []struct {
		name          string
		allow, revert bool
		async         bool
		want          cluster.PodState
	}{
		{"allow, revert, sync binding", true, true, false, cluster.StateBound},
		{"allow, revert, async binding", true, true, true, cluster.StateBound},
		{"allow, commit, sync binding", true, false, false, cluster.StateBound},
		{"allow, commit, async binding", true, false, true, cluster.StateBound},
		{"reject, revert, sync binding", false, true, false, cluster.StatePending},
		{"reject, revert, async binding", false, true, true, cluster.StatePending},
		{"reject, commit, async binding", false, false, true, cluster.StatePending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var opts []Option
			if tc.async {
				opts = append(opts, WithAsyncBinding())
			}
			e := newScEnv(t, scNodes("4"), nil, opts...)
			e.add(t, scPod("w", "1").Label("wait-A", "1h").Obj())
			if d, _ := e.s.ScheduleOne(ctx); d.Outcome != OutcomeWaiting {
				t.Fatalf("w: %+v", d)
			}
			w, _ := e.s.WaitingPod("default", "w")
			f := mustFork(t, e.s)
			var wg sync.WaitGroup
			wg.Go(func() {
				if tc.allow {
					w.Allow("A")
				} else {
					w.Reject("A", "not now")
				}
			})
			wg.Wait()
			if got := w.PendingPlugins(); len(got) != 1 {
				t.Errorf("inside the fork w waits for %v, want [A]: the approver's verdict reached the branch", got)
			}
			var err error
			if tc.revert {
				err = f.Revert()
			} else {
				err = f.Commit()
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.async {
				e.s.WaitForBindings()
			} else {
				e.s.ProcessBindings(ctx)
			}
			if _, st := e.placement("default", "w"); st != tc.want {
				t.Errorf("w after the fork closed: %v, want %v", st, tc.want)
			}
		})
	}
}

// TestPropVerdictsOutsideForksKept: pods wait at Permit on the live
// scheduler; an approver goroutine allows or rejects each while forker
// goroutines open forks, schedule pods in them and commit or revert. Every
// verdict takes effect: in the end each allowed pod is bound and each
// rejected pod is pending. Run it with -race.
func TestPropVerdictsOutsideForksKept(tt *testing.T) {
	rapid.Check(tt, func(t *rapid.T) {
		ctx := context.Background()
		async := rapid.Bool().Draw(t, "async")
		var opts []Option
		if async {
			opts = append(opts, WithAsyncBinding())
		}
		e := newScEnv(tt, scNodes("8", "8"), nil, opts...)
		allow := rapid.SliceOfN(rapid.Bool(), 1, 5).Draw(t, "allow")
		for i := range allow {
			e.add(tt, scPod(fmt.Sprintf("w%d", i), "1").Label("wait-A", "1h").Obj())
			if d, _ := e.s.ScheduleOne(ctx); d.Outcome != OutcomeWaiting {
				t.Fatalf("w%d: %+v", i, d)
			}
		}
		var waiting []*WaitingPod
		for i := range allow {
			w, ok := e.s.WaitingPod("default", fmt.Sprintf("w%d", i))
			if !ok {
				t.Fatalf("w%d is not waiting", i)
			}
			waiting = append(waiting, w)
		}
		forkers := rapid.IntRange(1, 2).Draw(t, "forkers")
		plans := make([][]bool, forkers) // per fork: revert?
		for i := range plans {
			plans[i] = rapid.SliceOfN(rapid.Bool(), 1, 4).Draw(t, "reverts")
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			for i, w := range waiting {
				if allow[i] {
					w.Allow("A")
				} else {
					w.Reject("A", "no")
				}
			}
		})
		for g, reverts := range plans {
			wg.Go(func() {
				for k, revert := range reverts {
					f, err := e.s.Fork()
					if err != nil {
						t.Errorf("Fork: %v", err)
						return
					}
					if _, err := f.SchedulePod(ctx, scPod(fmt.Sprintf("f%d-%d", g, k), "1").Obj()); err != nil {
						t.Errorf("SchedulePod: %v", err)
					}
					if revert {
						err = f.Revert()
					} else {
						err = f.Commit()
					}
					if err != nil {
						t.Errorf("closing the fork: %v", err)
					}
				}
			})
		}
		wg.Wait()
		if async {
			e.s.WaitForBindings()
		} else {
			e.s.ProcessBindings(ctx)
		}
		for i := range allow {
			want := cluster.StatePending
			if allow[i] {
				want = cluster.StateBound
			}
			if _, st := e.placement("default", fmt.Sprintf("w%d", i)); st != want {
				t.Errorf("w%d (allowed %v): %v, want %v", i, allow[i], st, want)
			}
		}
	})
}
