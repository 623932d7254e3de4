package scheduling

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// wcReleaser writes, in PreFilter, a state value that counts its releases;
// its Permit makes pods labelled wait=yes wait.
type wcReleaser struct{ released *int }

type wcReleasable struct{ released *int }

func (d wcReleasable) Clone() framework.StateData { return d }
func (d wcReleasable) Release()                   { *d.released++ }

func (wcReleaser) Name() string { return "WcReleaser" }

func (p wcReleaser) PreFilter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write("WcReleaser", wcReleasable(p))
	return nil, nil
}

func (wcReleaser) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func (wcReleaser) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) (*framework.Status, time.Duration) {
	if pod.Pod.Labels["wait"] == "yes" {
		return framework.NewStatus(framework.Wait), time.Minute
	}
	return nil, 0
}

// TestForkReleasesStateOfBindingThatDidNotWait: inside a fork, a pod bound
// straight after its cycle releases its cycle state (what-if questions
// then recycle the plugins' buffers), while a pod held at Permit keeps
// it: Revert may make it wait again with that state.
func TestForkReleasesStateOfBindingThatDidNotWait(t *testing.T) {
	released := 0
	reg := NewDefaultRegistry()
	if err := reg.Register("WcReleaser", func(any, framework.Handle) (framework.Plugin, error) { return wcReleaser{&released}, nil }); err != nil {
		t.Fatal(err)
	}
	prof := DefaultProfile()
	prof.PreFilter = append(prof.PreFilter, "WcReleaser")
	prof.Permit = append(prof.Permit, "WcReleaser")
	c, err := cluster.NewFrom([]*api.Node{st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, reg, []framework.Profile{prof}, WithClock(framework.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held := st.MakePod().Name("held").Namespace("default").Label("wait", "yes").Req(map[string]string{"cpu": "1"}).Obj()
	if d, err := s.SchedulePod(ctx, held); err != nil || d.Outcome != OutcomeWaiting {
		t.Fatalf("held: %v %+v", err, d)
	}
	f := mustFork(t, s)
	w, _ := s.WaitingPod("default", "held")
	w.Allow("WcReleaser")
	if n := f.ProcessBindings(ctx); n != 1 || released != 0 {
		t.Fatalf("held bound in the fork: %d bindings, %d releases; want 1, 0", n, released)
	}
	p := st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1"}).Obj()
	if d, err := f.SchedulePod(ctx, p); err != nil || d.Outcome != OutcomeScheduled {
		t.Fatalf("p: %v %+v", err, d)
	}
	if released != 1 {
		t.Fatalf("%d releases after a binding that did not wait, want 1", released)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.WaitingPod("default", "held"); !ok {
		t.Fatal("held no longer waits after the Revert")
	}
}

// TestReplicaCycleMemory: a detached replica's cycle takes the question's
// handle and state (Scheduler.replicaHandle, replicaState) once each, as
// new — the previous replica's values, snapshot and preemption victims
// gone — and without allocating; the next cycle gets its own.
func TestReplicaCycleMemory(t *testing.T) {
	s, _, _ := reuseEnv(t, nodesOf("4"), reuseProfile(noderesources.LeastAllocated))
	prof := s.profiles[DefaultSchedulerName]
	var a replicaAdder
	a.h = cycleHandle{s: s, victims: []string{"default/old"}, bindingLocked: true}
	a.state.SetSnapshot(s.cluster.Snapshot())
	a.state.Write("x", wcReleasable{released: new(int)})
	a.state.Release()
	var h *cycleHandle
	var st *framework.CycleState
	s.replicaHandle, s.replicaState = &a.h, &a.state
	h = s.cycleHandle(prof)
	st = s.newState(h)
	if h != &a.h || st != &a.state || s.replicaHandle != nil || s.replicaState != nil {
		t.Fatal("the replica's memory was not taken (once)")
	}
	if want := (cycleHandle{s: s, prof: prof}); !cmp.Equal(*h, want, cmp.AllowUnexported(cycleHandle{}), cmpopts.IgnoreFields(cycleHandle{}, "s", "prof")) || h.s != s || h.prof != prof {
		t.Errorf("handle not reset: %+v", *h)
	}
	if got, ok := handleFrom(st); !ok || got != h {
		t.Error("state does not hold the handle")
	}
	if _, err := st.Read("x"); err == nil || st.Snapshot() != nil {
		t.Error("state keeps the previous replica's value or snapshot")
	}
	if h2 := s.cycleHandle(prof); h2 == h {
		t.Error("the handle was handed out twice")
	}
	if st2 := s.newState(h); st2 == st {
		t.Error("the state was handed out twice")
	}
	st.Release() // as a replica's binding does
	if n := testing.AllocsPerRun(10, func() {
		s.replicaHandle, s.replicaState = &a.h, &a.state
		s.newState(s.cycleHandle(prof)).Release()
	}); n != 0 {
		t.Errorf("a replica's handle and state: %v allocations, want 0", n)
	}
}

// TestReplicaNamerSkipsTakenNames: replica names are <template>-1,
// <template>-2, ... without the names the cluster has, across the batches
// the namer builds its keys in (8, then 16, 32 ...), a name taken after
// its batch was built included, and each key is the namespace and the
// name.
func TestReplicaNamerSkipsTakenNames(t *testing.T) {
	taken := map[int]bool{3: true, 8: true, 9: true, 25: true, 60: true}
	var pods []*api.Pod
	for n := range taken {
		pods = append(pods, st.MakePod().Name(fmt.Sprintf("web-%d", n)).Namespace("shop").Obj())
	}
	c, err := cluster.NewFrom(nil, pods)
	if err != nil {
		t.Fatal(err)
	}
	r := newReplicaNamer(c, st.MakePod().Name("web").Namespace("shop").Obj())
	n := 0
	for i := range 100 {
		if i == 1 { // the first batch (web-1 to web-8) is built
			if err := c.AddPod(st.MakePod().Name("web-5").Namespace("shop").Obj()); err != nil {
				t.Fatal(err)
			}
			taken[5] = true
		}
		n++
		for taken[n] {
			n++
		}
		name, key := r.next()
		if want := fmt.Sprintf("web-%d", n); name != want || key != "shop/"+want {
			t.Fatalf("next() = %q, %q, want %q, %q", name, key, want, "shop/"+want)
		}
	}
}

// TestDefaultStorageClass: the newest class annotated as default (then the
// first by name; the beta annotation counts) is the one the admission
// plugin gives claims that name none, and only those.
func TestDefaultStorageClass(t *testing.T) {
	c, err := cluster.NewFrom(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.DefaultStorageClass(); got != "" {
		t.Errorf("no classes: %q", got)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, sc := range []struct {
		name, ann string
		day       int
	}{{"old", testAnnDefaultClass, 1}, {"plain", "", 9}, {"b-new", testAnnBetaDefaultClass, 5}, {"a-new", testAnnDefaultClass, 5}, {"off", "", 7}} {
		o := st.MakeSC(sc.name, "p", "").Obj()
		o.CreationTimestamp = base.AddDate(0, 0, sc.day)
		if sc.ann != "" {
			o.Annotations = map[string]string{sc.ann: "true"}
		} else {
			o.Annotations = map[string]string{testAnnDefaultClass: "false"}
		}
		if err := c.AddStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.DefaultStorageClass(); got != "a-new" {
		t.Errorf("default class %q, want a-new (newest, then by name)", got)
	}
	pod := st.MakePod().Name("web-1").Namespace("shop").Obj()
	empty := ""
	for _, tc := range []struct {
		name  string
		claim *api.PersistentVolumeClaim
		want  string
	}{
		{"no class", &api.PersistentVolumeClaim{}, "a-new"},
		{"a class", &api.PersistentVolumeClaim{Spec: api.PersistentVolumeClaimSpec{StorageClassName: &empty}}, ""},
		{"beta annotation", &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{api.AnnBetaStorageClass: "fast"}}}, "fast"},
	} {
		tc.claim.Name = "data"
		got := claimFromTemplate(pod, tc.claim, c.DefaultStorageClass())
		if api.ClaimClass(got) != tc.want || got.Key() != "shop/data-web-1" {
			t.Errorf("%s: claim %s of class %q, want %q", tc.name, got.Key(), api.ClaimClass(got), tc.want)
		}
	}
}

// TestReplicasLeaveWakeupsAsSchedulePod: a capacity question's replicas,
// scheduled by Replicas.Schedule or each by the fork's SchedulePod, leave
// the scheduling loop the same pending wakeup once the fork is reverted,
// with a pod waiting in the queue's unschedulable pool or none: the
// replica path reports no event the plain one does not.
func TestReplicasLeaveWakeupsAsSchedulePod(t *testing.T) {
	for _, waiting := range []bool{false, true} {
		t.Run(fmt.Sprintf("waiting=%v", waiting), func(t *testing.T) {
			s, _, _ := reuseEnv(t, nodesOf("4", "2", "3"), reuseProfile(noderesources.LeastAllocated))
			if waiting {
				big := st.MakePod().Name("big").Req(map[string]string{"cpu": "8"}).Obj()
				if err := s.AddPod(big); err != nil {
					t.Fatal(err)
				}
				if d, _ := s.ScheduleOne(context.Background()); d.Outcome != OutcomeUnschedulable {
					t.Fatalf("big: %s, want unschedulable", d.Outcome)
				}
			}
			run := func(plain bool) (placed, wakeups int) {
				select {
				case <-s.wake: // the wakeup the setup or the last run left
				default:
				}
				f, err := s.Fork()
				if err != nil {
					t.Fatal(err)
				}
				err = s.InMode(FreeRoomOnly, func() error {
					reps, err := f.Replicas(replica("web"), nil)
					if err != nil {
						return err
					}
					defer reps.Close()
					for {
						p, _, err := reps.Next()
						if err != nil {
							return err
						}
						var d Decision
						if plain {
							d, err = f.SchedulePod(context.Background(), p)
						} else {
							d, err = reps.Schedule(context.Background())
						}
						if err != nil || d.Outcome != OutcomeScheduled {
							return err
						}
						placed++
					}
				})
				if rerr := f.Revert(); err == nil {
					err = rerr
				}
				if err != nil {
					t.Fatal(err)
				}
				return placed, len(s.wake)
			}
			wantPlaced, want := run(true)
			gotPlaced, got := run(false)
			if wantPlaced != 9 || gotPlaced != wantPlaced || got != want {
				t.Errorf("replicas placed %d, wakeups pending %d; plain: %d, %d (want 9 placed)", gotPlaced, got, wantPlaced, want)
			}
		})
	}
}
