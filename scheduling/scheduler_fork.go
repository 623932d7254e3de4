package scheduling

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/goroutine"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// ErrForkOpen is the error of an event method called on the live
// Scheduler by the goroutine that holds one of its forks open: the live
// scheduler waits for the fork's Commit or Revert, which that goroutine
// would never reach. Use the Fork's methods, or close the fork first.
var ErrForkOpen = errors.New("the calling goroutine holds a Fork of this scheduler open: use the Fork's methods, or Commit or Revert it first")

// Fork is an open what-if branch of a Scheduler, made by Scheduler.Fork
// (or, nested, by Fork.Fork). Its methods act on the branch; Revert puts
// everything the branch changed back, Commit keeps it. While the branch is
// open the live Scheduler is paused: see Scheduler, and close every fork
// with defer f.Revert().
//
// Everything the scheduler holds is part of the branch: the cluster, the
// queue (active, backoff and unschedulable pods with their attempts,
// timestamps and backoffs), the nominations, the pods held at Permit (with
// their timeouts), the bindings waiting to run, the pending reasons, the
// round-robin index, the random source, the cycle counter, and the state
// the profiles' plugins keep across cycles when they implement
// framework.ForkablePlugin (LoadAwareScheduling's usage cache,
// TargetLoadPacking's recent bindings, Coscheduling's group memory,
// VolumeBinding's assume cache; each plugin instance is forked once).
// Revert puts all of it back, so that later decisions are those of a
// scheduler that never forked.
//
// Opening a fork is O(pods held at Permit + plugins), and an outermost
// one also reads the calling goroutine's identity and caller (a walk of
// its stack: microseconds); changes inside the branch journal what they
// change, and Revert costs O(changes). Inside a
// fork binding cycles run synchronously (as with SchedulePod); an
// asynchronous binding started before the fork whose Permit wait ends
// inside it goes on only after the outermost fork's Commit (Revert makes
// it wait again). What the branch does not hold: the clock, decisions
// already handed to WithDecisionHandler, extenders, and the state of a
// plugin that keeps some across cycles without implementing
// framework.ForkablePlugin.
//
// A Fork's methods may be called from any goroutine, one at a time. A
// fork with a nested fork open, or already committed or reverted, refuses
// them with an error (ScheduleOne and RunUntilIdle report that nothing
// ran).
type Fork struct {
	s      *Scheduler
	parent *Fork
	closed bool
}

// forkState is the scheduler state a Fork saves besides the cluster
// and the queue (which journal their own changes).
type forkState struct {
	f         *Fork
	pcg       rand.PCG
	nextStart int
	cycle     int64
	// waiting are the pods held at Permit at the Fork, in creation order,
	// with the plugins each still waited for; ready and deferred are the
	// bindings whose wait had ended (ready a copy, deferred a length).
	waiting  []waitSave
	ready    []*binding
	deferred int
}

type waitSave struct {
	key     string
	w       *WaitingPod
	pending map[string]bool
}

// reason is a pod's PendingReason before a change in a fork.
type reason struct {
	msg string
	had bool
}

// verdict is the Permit verdict of an asynchronous binding, held
// while a fork is open.
type verdict struct {
	b  *binding
	st *framework.Status
}

// DefaultForkWait is how long a live method called from another goroutine
// waits for an open Fork to close before it fails (WithForkWait).
const DefaultForkWait = time.Minute

// ErrForkNotClosed is the error of a live method called from another
// goroutine that waited the fork wait (WithForkWait) for an open Fork to
// close: a fork its goroutine never closes would pause the scheduler for
// good. The error names the goroutine that opened the fork and where.
var ErrForkNotClosed = errors.New("the Fork is still open after the fork wait (WithForkWait): close every Fork with Commit or Revert (defer f.Revert())")

// forkOpener is how Scheduler.Fork is named in a stack trace.
var forkOpener = reflect.TypeFor[Scheduler]().PkgPath() + ".(*Scheduler).Fork"

// holdsBranch reports whether the calling goroutine opened the open
// outermost fork. The caller holds s.mu.
func (s *Scheduler) holdsBranch() bool {
	return s.branch != nil && s.branchG == goroutine.ID()
}

// lockLive takes the scheduler's lock for the live event method op: at
// once when no fork is open, else after the outermost fork closes; an
// error (ErrForkOpen) for the goroutine that holds the fork, and
// (ErrForkNotClosed) when the fork outlasts the fork wait.
func (s *Scheduler) lockLive(op string) error {
	s.mu.Lock()
	if s.branch == nil {
		return nil
	}
	if s.holdsBranch() {
		s.mu.Unlock()
		return fmt.Errorf("scheduling: %s: %w", op, ErrForkOpen)
	}
	return s.waitBranch(op)
}

// lockRead takes the scheduler's lock for the live read op: for the
// goroutine that holds an open fork at once (it reads the branch), for any
// other after the outermost fork closes (ErrForkNotClosed when it outlasts
// the fork wait).
func (s *Scheduler) lockRead(op string) error {
	s.mu.Lock()
	if s.branch == nil || s.holdsBranch() {
		return nil
	}
	return s.waitBranch(op)
}

// waitBranch waits, holding s.mu, until no fork is open, for at most the
// fork wait on the wall clock; past it, it releases s.mu and returns an
// error naming the fork's opener.
func (s *Scheduler) waitBranch(op string) error {
	expired := false
	t := s.wallClock.AfterFunc(s.forkWait, func() {
		s.mu.Lock()
		expired = true
		s.branchEnd.Broadcast()
		s.mu.Unlock()
	})
	for s.branch != nil && !expired {
		s.branchEnd.Wait()
	}
	t.Stop()
	if s.branch == nil {
		return nil
	}
	s.waitExpired = true
	err := fmt.Errorf("scheduling: %s: waited %v for the Fork goroutine %d opened at %s: %w", op, s.forkWait, s.branchG, s.branchAt.CallersOf(forkOpener, 2), ErrForkNotClosed)
	s.mu.Unlock()
	return err
}

// lockBinding takes the scheduler's lock for an asynchronous binding
// goroutine, after any open fork closes: what the binding changes is
// live, not the branch's.
func (s *Scheduler) lockBinding() {
	s.mu.Lock()
	for s.branch != nil {
		s.branchEnd.Wait()
	}
}

// enter takes the scheduler's lock for event method op, on the fork f
// (nil: on the live scheduler). On success the caller unlocks s.mu.
func (s *Scheduler) enter(f *Fork, op string) error {
	if f == nil {
		return s.lockLive(op)
	}
	return f.lock(op)
}

// lock takes the scheduler's lock for op on the branch: f must be the
// innermost open fork.
func (f *Fork) lock(op string) error {
	if f == nil || f.s == nil {
		return fmt.Errorf("scheduling: Fork.%s: not a fork made by Scheduler.Fork", op)
	}
	f.s.mu.Lock()
	switch {
	case f.closed:
		f.s.mu.Unlock()
		return fmt.Errorf("scheduling: Fork.%s: the fork is already committed or reverted", op)
	case f.s.forks[len(f.s.forks)-1].f != f:
		f.s.mu.Unlock()
		return fmt.Errorf("scheduling: Fork.%s: a nested fork of this fork is open: commit or revert it first", op)
	}
	return nil
}

// Fork opens a what-if branch and returns its handle: see Fork. Until the
// branch's Commit or Revert, the live scheduler's methods wait, at most
// the fork wait (and return ErrForkOpen to the calling goroutine): see
// Scheduler. Close it with defer f.Revert().
func (s *Scheduler) Fork() (*Fork, error) {
	// The caller's stack is read first, before the lock: the walk costs
	// less the nearer its call is to the start of the function.
	at := s.spareTrace.Swap(nil)
	if at == nil {
		at = new(goroutine.Trace)
	}
	g := at.Read()
	if err := s.built(); err != nil {
		return nil, err
	}
	if err := s.lockLive("Fork"); err != nil {
		s.spareTrace.Store(at)
		return nil, err
	}
	defer s.mu.Unlock()
	s.waiting.verdicts.opened(g)
	f := s.openFork(nil)
	s.branch, s.branchG, s.branchAt = f, g, at
	return f, nil
}

// Fork opens a branch nested in f: until its Commit or Revert, f's
// methods are refused. Committing it keeps its changes in f.
func (f *Fork) Fork() (*Fork, error) {
	if err := f.lock("Fork"); err != nil {
		return nil, err
	}
	defer f.s.mu.Unlock()
	return f.s.openFork(f), nil
}

// openFork saves the state a Revert restores and opens the branch of
// every part that journals its own changes. The caller holds s.mu.
func (s *Scheduler) openFork(parent *Fork) *Fork {
	f := &Fork{s: s, parent: parent}
	st := forkState{f: f, pcg: *s.pcg, nextStart: s.nextStart, cycle: s.cycle}
	for _, w := range s.waiting.list() {
		st.waiting = append(st.waiting, waitSave{key: w.pod.Key(), w: w, pending: w.pendingSet()})
	}
	slices.SortFunc(st.waiting, func(a, b waitSave) int { return cmp.Compare(a.w.ord, b.w.ord) })
	s.readyMu.Lock()
	st.ready = slices.Clone(s.ready)
	st.deferred = len(s.deferred)
	s.forkDepth++
	s.readyMu.Unlock()
	s.forks = append(s.forks, st)
	s.forkReuse()
	s.cluster.Fork()
	s.queue.Fork()
	s.nominator.Fork()
	s.reasonsSaved.Open()
	for _, p := range s.forkables {
		p.Fork()
	}
	return f
}

// closeFork marks f closed; closing the outermost fork resumes the live
// scheduler. The caller holds s.mu.
func (s *Scheduler) closeFork(f *Fork) {
	f.closed = true
	if f.parent == nil {
		s.spareTrace.Store(s.branchAt)
		s.branch, s.branchG, s.branchAt = nil, 0, nil
		s.waiting.verdicts.closed()
		s.branchEnd.Broadcast()
		if s.waitExpired {
			// A live call gave up waiting: Run may sleep until told.
			s.waitExpired = false
			s.signal()
		}
	}
}

// Commit keeps the branch's changes: in the enclosing fork for a nested
// fork, live for the outermost one. After the outermost Commit, the
// Permit verdicts held for asynchronous bindings go on and the live
// scheduler resumes.
func (f *Fork) Commit() error {
	if err := f.lock("Commit"); err != nil {
		return err
	}
	s := f.s
	defer s.mu.Unlock()
	s.forks = s.forks[:len(s.forks)-1]
	s.commitReuse()
	s.queue.Commit()
	s.nominator.Commit()
	s.reasonsSaved.Commit()
	for _, p := range s.forkables {
		p.Commit()
	}
	s.readyMu.Lock()
	s.forkDepth--
	var held []verdict
	if s.forkDepth == 0 {
		held, s.deferred = s.deferred, nil
	}
	s.readyMu.Unlock()
	for _, v := range held {
		v.b.permit <- v.st
	}
	err := s.cluster.Commit()
	s.closeFork(f)
	return err
}

// Revert undoes everything the branch changed (see Fork); reverting the
// outermost fork resumes the live scheduler where it was at the Fork.
func (f *Fork) Revert() error {
	if err := f.lock("Revert"); err != nil {
		return err
	}
	s := f.s
	defer s.mu.Unlock()
	st := s.forks[len(s.forks)-1]
	s.forks = s.forks[:len(s.forks)-1]
	s.nextStart, s.cycle = st.nextStart, st.cycle
	*s.pcg = st.pcg
	// Pods that began waiting inside the branch stop waiting; the others
	// wait again for the plugins they waited for at the Fork.
	keep := make(map[*WaitingPod]bool, len(st.waiting))
	for _, ws := range st.waiting {
		keep[ws.w] = true
	}
	for _, w := range s.waiting.list() {
		if !keep[w] {
			w.abandon()
			s.waiting.remove(w.pod.Key(), w)
		}
	}
	for _, ws := range st.waiting {
		ws.w.restore(s.clock, ws.pending)
		s.waiting.add(ws.key, ws.w)
	}
	s.readyMu.Lock()
	s.ready = st.ready
	clear(s.deferred[st.deferred:])
	s.deferred = s.deferred[:st.deferred]
	s.forkDepth--
	s.readyMu.Unlock()
	for key, r := range s.reasonsSaved.Revert() {
		if r.had {
			s.reasons[key] = r.msg
		} else {
			delete(s.reasons, key)
		}
	}
	for i := len(s.forkables) - 1; i >= 0; i-- {
		s.forkables[i].Revert()
	}
	s.nominator.Revert()
	s.queue.Revert()
	s.revertReuse()
	err := s.cluster.Revert()
	s.closeFork(f)
	return err
}

// Cluster returns the scheduler's cluster, which, while f is open, holds
// the branch. Read it only from the goroutine that uses f, between calls
// of f's methods, and change it only through them.
func (f *Fork) Cluster() *cluster.Cluster {
	if f == nil || f.s == nil {
		return nil
	}
	return f.s.cluster
}

// State returns a copy of the branch's state (see Scheduler.State).
func (f *Fork) State() (State, error) {
	if err := f.lock("State"); err != nil {
		return State{}, err
	}
	defer f.s.mu.Unlock()
	return f.s.stateLocked(), nil
}

// QueueLengths is Scheduler.QueueLengths on the branch (zeros when f is
// not the innermost open fork).
func (f *Fork) QueueLengths() (active, backoff, unschedulable int) {
	if f.lock("QueueLengths") != nil {
		return 0, 0, 0
	}
	defer f.s.mu.Unlock()
	return f.s.queue.Lens()
}

// PendingReason is Scheduler.PendingReason on the branch ("" when f is
// not the innermost open fork).
func (f *Fork) PendingReason(namespace, name string) string {
	if f.lock("PendingReason") != nil {
		return ""
	}
	defer f.s.mu.Unlock()
	return f.s.reasons[cluster.PodKey(namespace, name)]
}

// NextWakeup is Scheduler.NextWakeup on the branch.
func (f *Fork) NextWakeup() (time.Time, bool) {
	if f.lock("NextWakeup") != nil {
		return time.Time{}, false
	}
	defer f.s.mu.Unlock()
	return f.s.queue.NextWakeup()
}

// AddPod is Scheduler.AddPod on the branch.
func (f *Fork) AddPod(pod *api.Pod) error {
	s, f := f.on()
	return s.addPod(f, pod, false)
}

// DeletePod is Scheduler.DeletePod on the branch.
func (f *Fork) DeletePod(namespace, name string) error {
	s, f := f.on()
	return s.deletePod(f, namespace, name)
}

// UpdatePod is Scheduler.UpdatePod on the branch.
func (f *Fork) UpdatePod(pod *api.Pod) error {
	s, f := f.on()
	return s.updatePod(f, pod)
}

// AddNode is Scheduler.AddNode on the branch.
func (f *Fork) AddNode(n *api.Node) error {
	s, f := f.on()
	return s.addNode(f, n)
}

// UpdateNode is Scheduler.UpdateNode on the branch.
func (f *Fork) UpdateNode(n *api.Node) error {
	s, f := f.on()
	return s.updateNode(f, n)
}

// RemoveNode is Scheduler.RemoveNode on the branch.
func (f *Fork) RemoveNode(name string) ([]*api.Pod, error) {
	s, f := f.on()
	return s.removeNode(f, name)
}

// UpdateNodeMetric is Scheduler.UpdateNodeMetric on the branch.
func (f *Fork) UpdateNodeMetric(m *api.NodeMetric) error {
	s, f := f.on()
	return s.updateNodeMetric(f, m)
}

// UpdateNodeLoad is Scheduler.UpdateNodeLoad on the branch.
func (f *Fork) UpdateNodeLoad(l *api.NodeLoad) error {
	s, f := f.on()
	return s.updateNodeLoad(f, l)
}

// AddPodGroup is Scheduler.AddPodGroup on the branch.
func (f *Fork) AddPodGroup(g *api.PodGroup) error {
	s, f := f.on()
	return s.addPodGroup(f, g)
}

// UpdatePodGroup is Scheduler.UpdatePodGroup on the branch.
func (f *Fork) UpdatePodGroup(g *api.PodGroup) error {
	s, f := f.on()
	return s.updatePodGroup(f, g)
}

// DeletePodGroup is Scheduler.DeletePodGroup on the branch.
func (f *Fork) DeletePodGroup(namespace, name string) error {
	s, f := f.on()
	return s.deletePodGroup(f, namespace, name)
}

// AddStorageObject is Scheduler.AddStorageObject on the branch.
func (f *Fork) AddStorageObject(o api.StorageObject) error {
	s, f := f.on()
	return s.addStorageObject(f, o)
}

// UpdateStorageObject is Scheduler.UpdateStorageObject on the branch.
func (f *Fork) UpdateStorageObject(o api.StorageObject) error {
	s, f := f.on()
	return s.updateStorageObject(f, o)
}

// DeleteStorageObject is Scheduler.DeleteStorageObject on the branch.
func (f *Fork) DeleteStorageObject(k api.StorageKind, ns, name string) error {
	s, f := f.on()
	return s.deleteStorageObject(f, k, ns, name)
}

// AddWorkloadPodGroup is Scheduler.AddWorkloadPodGroup on the branch.
func (f *Fork) AddWorkloadPodGroup(g *api.WorkloadPodGroup) error {
	s, f := f.on()
	return s.addWorkloadPodGroup(f, g)
}

// UpdateWorkloadPodGroup is Scheduler.UpdateWorkloadPodGroup on the
// branch.
func (f *Fork) UpdateWorkloadPodGroup(g *api.WorkloadPodGroup) error {
	s, f := f.on()
	return s.updateWorkloadPodGroup(f, g)
}

// DeleteWorkloadPodGroup is Scheduler.DeleteWorkloadPodGroup on the
// branch.
func (f *Fork) DeleteWorkloadPodGroup(namespace, name string) error {
	s, f := f.on()
	return s.deleteWorkloadPodGroup(f, namespace, name)
}

// AddWorkload is Scheduler.AddWorkload on the branch.
func (f *Fork) AddWorkload(w *api.Workload) error {
	s, f := f.on()
	return s.addWorkload(f, w)
}

// UpdateWorkload is Scheduler.UpdateWorkload on the branch.
func (f *Fork) UpdateWorkload(w *api.Workload) error {
	s, f := f.on()
	return s.updateWorkload(f, w)
}

// DeleteWorkload is Scheduler.DeleteWorkload on the branch.
func (f *Fork) DeleteWorkload(namespace, name string) error {
	s, f := f.on()
	return s.deleteWorkload(f, namespace, name)
}

// Preempt is Scheduler.Preempt on the branch: the what-if primitive for
// preemption (Revert puts every victim back on its node exactly).
func (f *Fork) Preempt(preemptor, node string, victims ...string) ([]string, error) {
	s, f := f.on()
	return s.preempt(f, preemptor, node, victims...)
}

// SchedulePod is Scheduler.SchedulePod on the branch: place a pod, look at
// the decision, Revert.
func (f *Fork) SchedulePod(ctx context.Context, pod *api.Pod) (Decision, error) {
	s, f := f.on()
	return s.schedulePod(f, ctx, pod)
}

// ScheduleOne is Scheduler.ScheduleOne on the branch; false also when f is
// not the innermost open fork.
func (f *Fork) ScheduleOne(ctx context.Context) (Decision, bool) {
	s, f := f.on()
	return s.scheduleOne(f, ctx)
}

// ProcessBindings is Scheduler.ProcessBindings on the branch (0 when f is
// not the innermost open fork).
func (f *Fork) ProcessBindings(ctx context.Context) int {
	s, f := f.on()
	return s.processBindings(f, ctx)
}

// RunUntilIdle is Scheduler.RunUntilIdle on the branch (0 when f is not
// the innermost open fork).
func (f *Fork) RunUntilIdle(ctx context.Context) int {
	s, f := f.on()
	return s.runUntilIdle(f, ctx)
}

// on returns the scheduler behind f and f, or, for a nil or zero Fork, a
// nil Scheduler with a zero Fork, which the event methods refuse (check).
func (f *Fork) on() (*Scheduler, *Fork) {
	if f == nil || f.s == nil {
		return nil, &Fork{}
	}
	return f.s, f
}

// check refuses an event method op of a Scheduler not built by New, or on
// a fork not made by Scheduler.Fork (f nil: the live scheduler).
func (s *Scheduler) check(f *Fork, op string) error {
	if f != nil && f.s == nil {
		return fmt.Errorf("scheduling: Fork.%s: not a fork made by Scheduler.Fork", op)
	}
	return s.built()
}

// ScheduleQueued takes the pending pod key (namespace/name) out of the
// fork's queue and runs its scheduling cycle at once, as ScheduleOne does
// for the pod it pops (its own queue record, with its attempts and
// nominated node, wherever it waits: active, backoff or unschedulable),
// with synchronous binding. A pod in a scheduling or binding cycle, or
// held by its scheduling gates, is an error saying so.
func (f *Fork) ScheduleQueued(ctx context.Context, key string) (Decision, error) {
	if err := f.lock("ScheduleQueued"); err != nil {
		return Decision{}, err
	}
	s := f.s
	defer s.mu.Unlock()
	qp, ok := s.queue.Get(key)
	if !ok || qp.Where == queue.InFlight || qp.Where == queue.Nowhere {
		return Decision{}, fmt.Errorf("pod %s is in a scheduling or binding cycle, not waiting in the queue", key)
	}
	if !s.queue.TakeSpecific(qp) {
		return Decision{}, fmt.Errorf("pod %s is gated (kube-scheduler does not try it until its gates are removed): %s", key, qp.GateMsg)
	}
	async := s.async
	s.async = false
	defer func() { s.async = async }()
	if s.runsPodGroupCycle(qp) {
		return s.podGroupCycle(ctx, qp), nil
	}
	return s.scheduleCycle(ctx, qp), nil
}

// FitsNode runs pod's PreFilter and its Filter on one node of the fork
// (with the pods nominated there), as the nominated-node fast path of a
// cycle does, and returns the Filter verdict (or PreFilter's, when it
// fails or leaves the node out). The fork is unchanged.
func (f *Fork) FitsNode(ctx context.Context, pod *api.Pod, node string) (*framework.Status, error) {
	if err := f.lock("FitsNode"); err != nil {
		return nil, err
	}
	s := f.s
	defer s.mu.Unlock()
	prof, err := s.profileFor(pod)
	if err != nil {
		return nil, err
	}
	pi, err := s.kubeVersion.NewPodInfo(pod)
	if err != nil {
		return nil, fmt.Errorf("scheduling: pod %s: %w", pod.Key(), err)
	}
	snap := s.cluster.Snapshot()
	ni, ok := snap.Get(node)
	if !ok {
		return nil, fmt.Errorf("scheduling: node %q not found", node)
	}
	state := s.newState(&cycleHandle{s: s, prof: prof})
	defer state.Release()
	state.SetSnapshot(snap)
	res, st, _ := prof.fw.RunPreFilterPlugins(ctx, state, pi)
	if !st.IsSuccess() {
		return st, nil
	}
	if !res.AllNodes() {
		if _, in := res.NodeNames[node]; !in {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) PreFilter result"), nil
		}
	}
	return prof.fw.RunFilterPluginsWithNominatedPods(ctx, state, pi, ni, s.nominator.ForNode(node)), nil
}
