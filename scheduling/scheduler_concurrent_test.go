package scheduling

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// ccBranchOp is one step a fork takes on its branch.
type ccBranchOp struct {
	kind string // "schedulePod", "addPod", "deletePod", "scheduleOne", "removeNode", "addNode"
	cpu  string
	pick int
}

// ccForkPlan is one fork a forker opens: steps on it, optionally a nested
// fork with steps of its own (committed or reverted), and its end.
type ccForkPlan struct {
	ops          []ccBranchOp
	nested       []ccBranchOp
	hasNested    bool
	commitNested bool
	commit       bool
}

func ccDrawOps(t *rapid.T, label string) []ccBranchOp {
	n := rapid.IntRange(0, 6).Draw(t, label+".n")
	out := make([]ccBranchOp, n)
	for i := range out {
		out[i] = ccBranchOp{
			kind: rapid.SampledFrom([]string{"schedulePod", "schedulePod", "addPod", "deletePod", "scheduleOne", "removeNode", "addNode"}).Draw(t, label+".kind"),
			cpu:  rapid.SampledFrom([]string{"500m", "1", "3"}).Draw(t, label+".cpu"),
			pick: rapid.IntRange(0, 1000).Draw(t, label+".pick"),
		}
	}
	return out
}

// ccLedger records what the branches did that must outlive them (or
// must not): pods added, and pods deleted or evicted, by committed and by
// reverted branches.
type ccLedger struct {
	mu       sync.Mutex
	errs     []string
	accepted map[string]bool // live AddPod returned nil
	kept     map[string]bool // added by a branch that was committed all the way
	dropped  map[string]bool // added by a branch that was reverted
	gone     map[string]bool // deleted or evicted by a committed branch
}

func (l *ccLedger) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, fmt.Sprintf(format, args...))
}

// ccBranch is what one branch (or nested branch) changed.
type ccBranch struct {
	added, removed []string
}

// ccRun applies ops on f, naming new pods and nodes with prefix.
func ccRun(ctx context.Context, l *ccLedger, f *Fork, prefix string, ops []ccBranchOp) ccBranch {
	var b ccBranch
	for j, o := range ops {
		name := fmt.Sprintf("%s-%d", prefix, j)
		switch o.kind {
		case "schedulePod", "addPod":
			p := scPod(name, o.cpu).Obj()
			var err error
			if o.kind == "addPod" {
				err = f.AddPod(p)
			} else {
				_, err = f.SchedulePod(ctx, p)
			}
			if err != nil {
				l.fail("%s: %s: %v", name, o.kind, err)
				continue
			}
			b.added = append(b.added, p.Key())
		case "deletePod":
			pods := f.Cluster().Pods()
			if len(pods) == 0 {
				continue
			}
			p := pods[o.pick%len(pods)].Pod
			if err := f.DeletePod(p.Namespace, p.Name); err != nil {
				l.fail("%s: delete %s: %v", name, p.Key(), err)
				continue
			}
			b.removed = append(b.removed, p.Key())
		case "scheduleOne":
			f.ScheduleOne(ctx)
		case "removeNode":
			nodes := f.Cluster().Snapshot().Nodes()
			if len(nodes) < 2 {
				continue
			}
			evicted, err := f.RemoveNode(nodes[o.pick%len(nodes)].Name())
			if err != nil {
				l.fail("%s: RemoveNode: %v", name, err)
				continue
			}
			for _, p := range evicted {
				b.removed = append(b.removed, p.Key())
			}
		case "addNode":
			n := scNodes("4")[0]
			n.Name = name
			if err := f.AddNode(n); err != nil {
				l.fail("%s: AddNode: %v", name, err)
			}
		}
	}
	return b
}

// ccDigest describes a State: pods with their states and nodes, each
// node's use, the queue.
func ccDigest(st State) string {
	var b strings.Builder
	for _, r := range st.Pods {
		fmt.Fprintf(&b, "P %s %s %s\n", r.Pod.Key(), r.State, r.Pod.Spec.NodeName)
	}
	for _, n := range st.Nodes {
		fmt.Fprintf(&b, "N %s %d %d\n", n.Node.Name, n.Requested.MilliCPU, n.Pods)
	}
	fmt.Fprintf(&b, "Q %d %d %d %v\n", st.Active, st.Backoff, st.Unschedulable, st.Waiting)
	return b.String()
}

// ccFork runs one fork of plan p on s (named by prefix) and records its
// outcome in l. Inside the branch it checks that no live event shows up
// and that a reverted nested fork leaves the branch as it was.
func ccFork(ctx context.Context, l *ccLedger, s *Scheduler, prefix string, p ccForkPlan) {
	f, err := s.Fork()
	if err != nil {
		l.fail("%s: Fork: %v", prefix, err)
		return
	}
	st0, err := f.State()
	if err != nil {
		l.fail("%s: State: %v", prefix, err)
	}
	b := ccRun(ctx, l, f, prefix, p.ops)
	var nb ccBranch
	if p.hasNested {
		before, _ := f.State()
		g, err := f.Fork()
		if err != nil {
			l.fail("%s: nested Fork: %v", prefix, err)
			return
		}
		if _, err := f.State(); err == nil {
			l.fail("%s: the outer fork answered while its nested fork was open", prefix)
		}
		nb = ccRun(ctx, l, g, prefix+"-in", p.nested)
		if p.commitNested {
			if err := g.Commit(); err != nil {
				l.fail("%s: nested Commit: %v", prefix, err)
			}
		} else {
			if err := g.Revert(); err != nil {
				l.fail("%s: nested Revert: %v", prefix, err)
			}
			if after, _ := f.State(); ccDigest(after) != ccDigest(before) {
				l.fail("%s: a reverted nested fork changed the branch:\n%s---\n%s", prefix, ccDigest(before), ccDigest(after))
			}
		}
	}
	// No live pod appeared in the branch: live AddPod waits for it.
	had := map[string]bool{}
	for _, r := range st0.Pods {
		had[r.Pod.Key()] = true
	}
	if end, err := f.State(); err == nil {
		for _, r := range end.Pods {
			if k := r.Pod.Key(); strings.HasPrefix(r.Pod.Name, "live-") && !had[k] {
				l.fail("%s: live pod %s appeared inside the branch", prefix, k)
			}
		}
	}
	if p.commit {
		err = f.Commit()
	} else {
		err = f.Revert()
	}
	if err != nil {
		l.fail("%s: end: %v", prefix, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	record := func(br ccBranch, kept bool) {
		for _, k := range br.added {
			if kept {
				l.kept[k] = true
			} else {
				l.dropped[k] = true
			}
		}
		if kept {
			for _, k := range br.removed {
				l.gone[k] = true
			}
		}
	}
	record(b, p.commit)
	record(nb, p.commit && p.commitNested)
}

// TestPropForkKeepsLiveEvents: goroutines adding pods to the live
// scheduler, a live scheduling loop, a watcher reading State, and
// goroutines opening forks (with nested forks) that place, add, delete
// pods, remove and add nodes, then commit or revert — run at once. After
// all of them: every pod whose live AddPod returned nil is in the cluster
// (and, if Pending, in the queue) unless a committed branch deleted it;
// every pod a committed branch added is there unless a committed branch
// deleted it; no pod a reverted branch added is; no other pod exists; no
// pod is left Assumed (asynchronous bindings finish live, not in a
// branch). Inside a branch no live pod appears, a reverted nested fork
// leaves the branch as it was, and the watcher never sees a pod of a
// reverted branch. Run it with -race.
func TestPropForkKeepsLiveEvents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.SliceOfN(rapid.SampledFrom([]string{"2", "4", "8"}), 1, 3).Draw(t, "nodes")
		adders := rapid.IntRange(1, 3).Draw(t, "adders")
		perAdder := rapid.IntRange(1, 15).Draw(t, "perAdder")
		forkers := rapid.IntRange(1, 3).Draw(t, "forkers")
		plans := make([][]ccForkPlan, forkers)
		for i := range plans {
			plans[i] = make([]ccForkPlan, rapid.IntRange(1, 4).Draw(t, "forks"))
			for k := range plans[i] {
				p := &plans[i][k]
				p.ops = ccDrawOps(t, "ops")
				p.hasNested = rapid.Bool().Draw(t, "hasNested")
				if p.hasNested {
					p.nested = ccDrawOps(t, "nested")
					p.commitNested = rapid.Bool().Draw(t, "commitNested")
				}
				p.commit = rapid.IntRange(0, 3).Draw(t, "commit") == 0
			}
		}
		cycles := rapid.IntRange(0, 20).Draw(t, "cycles")
		opts := []Option{WithClock(framework.NewFakeClock(scT0))}
		if rapid.Bool().Draw(t, "async") {
			opts = append(opts, WithAsyncBinding())
		}

		c, err := cluster.NewFrom(scNodes(nodes...), nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{scResourceProfile()}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		l := &ccLedger{accepted: map[string]bool{}, kept: map[string]bool{}, dropped: map[string]bool{}, gone: map[string]bool{}}
		ctx := context.Background()
		var wg sync.WaitGroup
		for a := range adders {
			wg.Go(func() {
				for i := range perAdder {
					p := scPod(fmt.Sprintf("live-%d-%d", a, i), "1").Obj()
					if err := s.AddPod(p); err != nil {
						l.fail("live AddPod %s: %v", p.Key(), err)
						continue
					}
					l.mu.Lock()
					l.accepted[p.Key()] = true
					l.mu.Unlock()
				}
			})
		}
		for i, forks := range plans {
			wg.Go(func() {
				for k, p := range forks {
					ccFork(ctx, l, s, fmt.Sprintf("fork-%d-%d", i, k), p)
				}
			})
		}
		wg.Go(func() {
			for range cycles {
				s.ScheduleOne(ctx)
			}
		})
		done := make(chan struct{})
		watched := make(chan error, 1)
		seen := map[string]bool{} // every pod the watcher saw
		go func() {
			defer close(watched)
			for {
				select {
				case <-done:
					return
				default:
				}
				st, err := s.State()
				if err == nil {
					err = ccConsistent(st)
				}
				if err != nil {
					watched <- err
					return
				}
				for _, r := range st.Pods {
					seen[r.Pod.Key()] = true
				}
				runtime.Gosched()
			}
		}()
		wg.Wait()
		s.WaitForBindings()
		close(done)
		if err := <-watched; err != nil {
			t.Fatalf("watcher: %v", err)
		}
		for k := range seen {
			if l.dropped[k] {
				t.Fatalf("the watcher saw %s, a pod of a reverted branch", k)
			}
		}
		if len(l.errs) > 0 {
			t.Fatalf("%d errors, first: %s", len(l.errs), l.errs[0])
		}

		st, err := s.State()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for k := range l.accepted {
			want[k] = true
		}
		for k := range l.kept {
			want[k] = true
		}
		for k := range l.gone {
			delete(want, k)
		}
		got := map[string]bool{}
		for _, r := range st.Pods {
			got[r.Pod.Key()] = true
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if !got[k] {
				t.Fatalf("pod %s is lost (accepted live: %v, added by a committed branch: %v)", k, l.accepted[k], l.kept[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if !want[k] {
				t.Fatalf("pod %s is in the cluster but should not be (added by a reverted branch: %v, removed by a committed one: %v)", k, l.dropped[k], l.gone[k])
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, r := range s.cluster.Pods() {
			if q, ok := s.queue.Get(r.Pod.Key()); r.State == cluster.StatePending && (!ok || q.Where == queue.Nowhere) {
				t.Fatalf("pod %s is Pending but not queued", r.Pod.Key())
			}
			if r.State == cluster.StateAssumed {
				t.Fatalf("pod %s is still Assumed after every binding finished", r.Pod.Key())
			}
		}
		for key := range s.queue.Pods {
			if _, _, ok := s.cluster.PodInfo(key); !ok {
				t.Fatalf("the queue holds %s, which the cluster does not have", key)
			}
		}
	})
}

// ccConsistent checks that a State is one instant's: each node's pod count
// and requested CPU are those of the pods placed on it, and the queue
// holds as many pods as are pending (no cycle is half done).
func ccConsistent(st State) error {
	count, cpu := map[string]int{}, map[string]int64{}
	pending := 0
	for _, r := range st.Pods {
		if r.State == cluster.StatePending {
			pending++
			continue
		}
		count[r.Pod.Spec.NodeName]++
		pi, err := framework.NewPodInfo(r.Pod)
		if err != nil {
			return err
		}
		cpu[r.Pod.Spec.NodeName] += pi.Requests.MilliCPU
	}
	for _, n := range st.Nodes {
		if n.Pods != count[n.Node.Name] || n.Requested.MilliCPU != cpu[n.Node.Name] {
			return fmt.Errorf("node %s: %d pods, %dm cpu in State; its pods: %d, %dm", n.Node.Name, n.Pods, n.Requested.MilliCPU, count[n.Node.Name], cpu[n.Node.Name])
		}
	}
	if q := st.Active + st.Backoff + st.Unschedulable; q != pending {
		return fmt.Errorf("%d pending pods, %d queued", pending, q)
	}
	return nil
}

// TestSchedulerStateWhileScheduling: State read by one goroutine while
// another adds pods and schedules them is always one instant's (run with
// -race: Cluster().Pods() in its place is a data race).
func TestSchedulerStateWhileScheduling(t *testing.T) {
	c, err := cluster.NewFrom(scNodes("8", "8", "8"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{scResourceProfile()}, WithClock(framework.NewFakeClock(scT0)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const pods = 60
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range pods {
			if err := s.AddPod(scPod(fmt.Sprintf("p%d", i), "500m").Obj()); err != nil {
				t.Error(err)
				return
			}
			s.ScheduleOne(ctx)
		}
	})
	reads := 0
	for {
		st, err := s.State()
		if err != nil {
			t.Fatal(err)
		}
		if err := ccConsistent(st); err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		reads++
		if len(st.Pods) == pods && st.Active == 0 {
			break
		}
		runtime.Gosched()
	}
	wg.Wait()
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, n := range st.Nodes {
		placed += n.Pods
	}
	// 3 nodes of 8 cpu and 10 pods take 30 pods of 500m (the pod count
	// binds first); the others stay pending.
	if placed != 30 || st.Unschedulable+st.Backoff != pods-30 || st.Cycle != pods {
		t.Errorf("final state: %d placed, %d unschedulable, %d backoff, %d cycles; want 30, %d in all, %d cycles", placed, st.Unschedulable, st.Backoff, st.Cycle, pods-30, pods)
	}
	if _, err := (&Scheduler{}).State(); err == nil {
		t.Error("State of a Scheduler not built by New: no error")
	}
}

// TestForkHolderCannotWaitOnItself: the goroutine that holds a fork open
// gets ErrForkOpen from the live scheduler's event methods (instead of
// waiting forever for its own Revert), nothing from ScheduleOne,
// ProcessBindings and RunUntilIdle, and the branch from the live reads;
// after the Revert the same calls act on the live scheduler.
func TestForkHolderCannotWaitOnItself(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("4", "4"), nil)
	e.add(t, scPod("queued", "1").Obj())
	f := mustFork(t, e.s)
	if _, err := f.SchedulePod(ctx, scPod("what-if", "5").Obj()); err != nil {
		t.Fatal(err)
	}
	node := scNodes("4")[0]
	node.Name = "n9"
	refused := []struct {
		name string
		call func() error
	}{
		{"AddPod", func() error { return e.s.AddPod(scPod("x", "1").Obj()) }},
		{"DeletePod", func() error { return e.s.DeletePod("default", "queued") }},
		{"UpdatePod", func() error { return e.s.UpdatePod(scPod("queued", "2").Obj()) }},
		{"AddNode", func() error { return e.s.AddNode(node) }},
		{"UpdateNode", func() error { return e.s.UpdateNode(scNodes("2")[0]) }},
		{"RemoveNode", func() error { _, err := e.s.RemoveNode("n1"); return err }},
		{"UpdateNodeMetric", func() error {
			return e.s.UpdateNodeMetric(&api.NodeMetric{ObjectMeta: api.ObjectMeta{Name: "n1"}})
		}},
		{"SchedulePod", func() error { _, err := e.s.SchedulePod(ctx, scPod("y", "1").Obj()); return err }},
		{"Preempt", func() error { _, err := e.s.Preempt("default/queued", "n1"); return err }},
		{"Fork", func() error { _, err := e.s.Fork(); return err }},
		{"DeleteWorkload", func() error { return e.s.DeleteWorkload("default", "w") }},
	}
	for _, tc := range refused {
		if err := tc.call(); !errors.Is(err, ErrForkOpen) {
			t.Errorf("live %s from the fork's goroutine: %v, want ErrForkOpen", tc.name, err)
		}
	}
	if d, ok := e.s.ScheduleOne(ctx); ok {
		t.Errorf("live ScheduleOne from the fork's goroutine ran: %+v", d)
	}
	if n := e.s.ProcessBindings(ctx) + e.s.RunUntilIdle(ctx); n != 0 {
		t.Errorf("live ProcessBindings/RunUntilIdle from the fork's goroutine ran %d", n)
	}
	// The live reads of the fork's goroutine see the branch: the what-if
	// pod waits, unschedulable, beside the queued one.
	if a, _, u := e.s.QueueLengths(); a != 1 || u != 1 {
		t.Errorf("QueueLengths in the branch: active %d, unschedulable %d; want 1, 1", a, u)
	}
	if r := e.s.PendingReason("default", "what-if"); r == "" {
		t.Error("PendingReason of the branch's pod is empty")
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if a, _, u := e.s.QueueLengths(); a != 1 || u != 0 {
		t.Errorf("QueueLengths after Revert: active %d, unschedulable %d; want 1, 0", a, u)
	}
	if err := e.s.AddPod(scPod("x", "1").Obj()); err != nil {
		t.Errorf("live AddPod after Revert: %v", err)
	}
	if d, ok := e.s.ScheduleOne(ctx); !ok || d.Pod != "default/queued" {
		t.Errorf("live ScheduleOne after Revert: %+v %v", d, ok)
	}
}

// TestForkHandleMisuse: a fork refuses its methods while a nested fork is
// open and once committed or reverted; a zero or nil Fork refuses them;
// errors name the method.
func TestForkHandleMisuse(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("4"), nil)
	outer := mustFork(t, e.s)
	inner, err := outer.Fork()
	if err != nil {
		t.Fatal(err)
	}
	pod := scPod("p", "1").Obj()
	var zero Fork
	var nilFork *Fork
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"outer AddPod while nested open", outer.AddPod(pod), "scheduling: Fork.AddPod: a nested fork of this fork is open: commit or revert it first"},
		{"outer Revert while nested open", outer.Revert(), "scheduling: Fork.Revert: a nested fork of this fork is open: commit or revert it first"},
		{"zero Fork", zero.AddPod(pod), "scheduling: Fork.AddPod: not a fork made by Scheduler.Fork"},
		{"nil Fork", nilFork.Revert(), "scheduling: Fork.Revert: not a fork made by Scheduler.Fork"},
		{"zero Fork SchedulePod", func() error { _, err := zero.SchedulePod(ctx, pod); return err }(), "scheduling: Fork.SchedulePod: not a fork made by Scheduler.Fork"},
	}
	if err := inner.Revert(); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name string
		err  error
		want string
	}{"reverted fork", inner.AddPod(pod), "scheduling: Fork.AddPod: the fork is already committed or reverted"})
	if err := outer.Commit(); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name string
		err  error
		want string
	}{"committed fork", outer.Commit(), "scheduling: Fork.Commit: the fork is already committed or reverted"})
	for _, tc := range tests {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if _, ok := zero.ScheduleOne(ctx); ok {
		t.Error("zero Fork ScheduleOne ran")
	}
	if _, err := inner.State(); err == nil {
		t.Error("State of a reverted fork: no error")
	}
	if _, err := (&Scheduler{}).Fork(); err == nil {
		t.Error("Fork of a Scheduler not built by New: no error")
	}
	if err := e.s.AddPod(pod); err != nil {
		t.Errorf("live AddPod after the forks closed: %v", err)
	}
}

// TestLiveEventWaitsForTheBranch: a pod another goroutine adds while a
// fork is open is not in the branch and is in the cluster after the
// Revert.
func TestLiveEventWaitsForTheBranch(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("4"), nil)
	f := mustFork(t, e.s)
	if _, err := f.SchedulePod(ctx, scPod("what-if", "1").Obj()); err != nil {
		t.Fatal(err)
	}
	calling := make(chan struct{})
	added := make(chan error, 1)
	go func() {
		close(calling)
		added <- e.s.AddPod(scPod("live", "1").Obj())
	}()
	<-calling
	for range 100 {
		runtime.Gosched()
	}
	select {
	case err := <-added:
		t.Fatalf("live AddPod returned (%v) while the fork was open", err)
	default:
	}
	if _, ok := f.Cluster().Pod("default", "live"); ok {
		t.Fatal("the live pod is in the branch")
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	st, err := e.s.State()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range st.Pods {
		keys = append(keys, r.Pod.Key())
	}
	if !slices.Equal(keys, []string{"default/live"}) {
		t.Errorf("pods after Revert: %v, want [default/live]", keys)
	}
}

// TestForkKeepsConcurrentAddPods: 300 AddPod calls on the live scheduler
// racing 50 forks that each place a what-if pod and revert: every pod
// whose AddPod returned nil is in the cluster afterwards, pending and
// queued, and no what-if pod is.
func TestForkKeepsConcurrentAddPods(t *testing.T) {
	c, err := cluster.NewFrom(scNodes("1000", "1000"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{scResourceProfile()}, WithClock(framework.NewFakeClock(scT0)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	addErrs := make(chan error, 300)
	wg.Go(func() {
		for i := range 300 {
			addErrs <- s.AddPod(scPod(fmt.Sprintf("live-%d", i), "1").Obj())
		}
	})
	forkErrs := make(chan error, 50)
	wg.Go(func() {
		for i := range 50 {
			f, err := s.Fork()
			if err != nil {
				forkErrs <- err
				return
			}
			if _, err := f.SchedulePod(ctx, scPod(fmt.Sprintf("what-if-%d", i), "1").Obj()); err != nil {
				forkErrs <- err
			}
			if err := f.Revert(); err != nil {
				forkErrs <- err
			}
		}
	})
	wg.Wait()
	close(addErrs)
	close(forkErrs)
	for err := range addErrs {
		if err != nil {
			t.Fatalf("AddPod: %v", err)
		}
	}
	for err := range forkErrs {
		t.Fatalf("fork: %v", err)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, r := range st.Pods {
		if !strings.HasPrefix(r.Pod.Name, "live-") || r.State != cluster.StatePending {
			t.Errorf("pod %s %s after the forks", r.Pod.Key(), r.State)
		}
		pending++
	}
	if pending != 300 || st.Active != 300 {
		t.Errorf("%d pods, %d queued after the forks; want 300, 300", pending, st.Active)
	}
}
