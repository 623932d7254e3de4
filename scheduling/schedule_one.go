package scheduling

// One pod's way through the scheduler, as kube-scheduler's schedule_one.go
// has it:
//
//   - ScheduleOne pops the next pod from the queue (SchedulePod adds a pod
//     and takes it at once) and runs scheduleCycle, kube's schedulingCycle
//     (podGroupCycle, in podgroup_cycle.go, runs a pod group's instead);
//   - scheduleCycle tries the pod's nominated node first
//     (evaluateNominatedNode), then runs the profile's PreFilter, Filter,
//     PreScore and Score plugins through the framework runner over the
//     sampled nodes (schedule, scheduleIn: numToFind nodes from the
//     round-robin start), which also selects the host (seeded tie-break);
//     a failed cycle runs PostFilter (preemption) and requeues the pod
//     (cycleFailed, failed);
//   - assumeAndBind assumes the pod on its node in the cache, runs Reserve
//     and Permit, and starts the binding cycle (startBinding), at once or
//     when a waiting Permit ends;
//   - runBinding runs PreBind, Bind (DefaultBinder or an extender) and
//     PostBind, and bindingFailed undoes the assumption when a step fails.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// ScheduleOne runs the binding steps that became ready (synchronous mode),
// then pops the next pod and runs its scheduling cycle (and, synchronously,
// its binding cycle). It returns the cycle's decision, or false when no pod
// is ready to be scheduled at the clock's current time, when ctx is already
// done (no pod is popped), on a Scheduler not built by New, or when an
// open Fork stands in the way (see Scheduler; the decision's Outcome is
// then OutcomeError, its Message the reason).
func (s *Scheduler) ScheduleOne(ctx context.Context) (Decision, bool) { return s.scheduleOne(nil, ctx) }

func (s *Scheduler) scheduleOne(f *Fork, ctx context.Context) (Decision, bool) {
	if s.check(f, "ScheduleOne") != nil || (ctx != nil && ctx.Err() != nil) {
		return Decision{}, false
	}
	if err := s.enter(f, "ScheduleOne"); err != nil {
		return Decision{Outcome: OutcomeError, Message: err.Error()}, false
	}
	defer s.mu.Unlock()
	s.runReadyLocked(ctx)
	qp := s.queue.Pop()
	if qp == nil {
		return Decision{}, false
	}
	if s.runsPodGroupCycle(qp) {
		return s.podGroupCycle(ctx, qp), true
	}
	return s.scheduleCycle(ctx, qp), true
}

// SchedulePod adds a copy of pod to the cluster and runs one scheduling
// cycle for it at once, outside the queue, with synchronous binding: the
// what-if primitive (on a Fork: place a pod, look at the decision,
// Revert). When no node fits the pod stays pending (and queued, as AddPod
// would leave it).
func (s *Scheduler) SchedulePod(ctx context.Context, pod *api.Pod) (Decision, error) {
	return s.schedulePod(nil, ctx, pod)
}

func (s *Scheduler) schedulePod(f *Fork, ctx context.Context, pod *api.Pod) (Decision, error) {
	if err := s.check(f, "SchedulePod"); err != nil {
		return Decision{}, err
	}
	if pod == nil {
		return Decision{}, errors.New("scheduling: SchedulePod: nil pod")
	}
	if pod.Spec.NodeName != "" {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s already names node %q", pod.Key(), pod.Spec.NodeName)
	}
	if err := s.enter(f, "SchedulePod"); err != nil {
		return Decision{}, err
	}
	defer s.mu.Unlock()
	if err := s.addPodEvent(pod, false); err != nil {
		return Decision{}, err
	}
	return s.scheduleAddedLocked(ctx, pod.Key())
}

// scheduleAddedLocked is SchedulePod after the pod key was added: it runs
// the pod's cycle at once. The scheduler's lock is held.
func (s *Scheduler) scheduleAddedLocked(ctx context.Context, key string) (Decision, error) {
	qp, ok := s.queue.Get(key)
	if ok && qp.Where == queue.Gated {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is gated: %s", key, qp.GateMsg)
	}
	if !ok || qp.Where != queue.Active {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is not queued", key)
	}
	s.queue.Take(qp, s.clock.Now())
	async := s.async
	s.async = false
	defer func() { s.async = async }()
	return s.scheduleCycle(ctx, qp), nil
}

// scheduleCycle is kube-scheduler's schedulingCycle for one popped pod.
func (s *Scheduler) scheduleCycle(ctx context.Context, qp *queue.QueuedPod) Decision {
	s.cycle++
	pi := qp.PodInfo
	d := Decision{Cycle: s.cycle, Time: s.clock.Now(), Pod: qp.Key, Attempt: qp.Attempts}
	prof, err := s.profileFor(pi.Pod)
	if err != nil { // cannot happen: AddPod checks
		s.queue.Done(qp)
		d.Outcome, d.Message = OutcomeError, err.Error()
		s.emit(d)
		return d
	}
	d.Profile = prof.name
	if pi.Pod.DeletionTimestamp != nil {
		s.queue.Done(qp)
		d.Outcome, d.Message = OutcomeSkipped, "pod is being deleted"
		s.setReason(qp.Key, d.Message)
		s.emit(d)
		return d
	}
	snap := s.cluster.Snapshot()
	if snap.NumNodes() == 0 {
		d.Outcome, d.Stage, d.Message = OutcomeUnschedulable, "Filter", "no nodes available to schedule pods"
		s.failed(qp, d, nil, nil, &framework.NominatingInfo{Mode: framework.ModeOverride}, false)
		return d
	}
	h := s.cycleHandle(prof)
	var state *framework.CycleState
	node := ""
	nodeAt := -1 // node's index in snap, when known
	nominatedFailed := false
	if nnn := pi.Pod.Status.NominatedNodeName; nnn != "" {
		state = s.newState(h)
		node, nominatedFailed = s.evaluateNominatedNode(ctx, prof, state, snap, pi, nnn)
		if node != "" {
			d.FastPath, d.EvaluatedNodes, d.FeasibleNodes, d.StartIndex = "nominated", 1, 1, s.nextStart
			d.Top = []runtime.RankedNode{{Name: node}}
		}
	}
	reused := false
	var pre *runtime.PreFilterOutcome // PreFilter already run on state
	if node == "" {
		if state != nil {
			state.Release() // the nominated-node attempt's state is done
			state = nil
		}
		if pi.Pod.Status.NominatedNodeName == "" {
			t := s.reusedNode(ctx, prof, h, qp, snap)
			state, pre = t.state, t.pre
			if t.node != "" {
				node, reused = t.node, true
				d.FastPath, d.ReusedFrom, d.EvaluatedNodes, d.FeasibleNodes, d.StartIndex = FastPathReused, t.b.cycle, 1, 1, s.nextStart
				d.Top, d.Ties = []runtime.RankedNode{{Name: t.node, Total: t.pick.Total}}, t.ties
				if next, ok := t.b.ranked.next(); ok && t.ties == 1 {
					d.Margin = t.pick.Total - next.Total
				}
				if s.keepResults {
					d.Result = t.b.kept
				}
			}
		} else {
			prof.batch = nil
		}
	}
	var scored *runtime.Result
	if node == "" {
		if state == nil {
			state = s.newState(h)
		}
		res, st, err := s.scheduleIncremental(ctx, prof, state, snap, qp, pre)
		state = st
		if s.keepResults {
			d.Result = res
		} else if s.keepFailed && err != nil && res != nil {
			d.Result = res
			s.reuse = nil // the decision keeps it: the next cycle gets its own
		}
		if res != nil {
			if res.PreFilterStatus == nil {
				processed := res.EvaluatedNodes()
				if nominatedFailed && !rejectedIn(res, pi.Pod.Status.NominatedNodeName) {
					processed++ // kube counts the nominated node's failure too
				}
				s.nextStart = (s.nextStart + processed) % snap.NumNodes()
			}
			d.EvaluatedNodes, d.StartIndex = res.EvaluatedNodes(), res.StartIndex
			if err == nil {
				d.FeasibleNodes = res.NumFeasibleNodes()
			}
		}
		if err != nil {
			d = s.cycleFailed(ctx, qp, prof, state, res, err, d)
			state.Release() // PostFilter (preemption) was the cycle's last use
			return d
		}
		node, nodeAt = res.SelectedNode(), res.SelectedIndex()
		scored = res
		d.Top, d.Margin, d.Ties = res.Top, res.Margin, res.Ties
		if !qp.Detached || s.onDecision.Load() != nil {
			// res is recycled by the next cycle. A detached replica's
			// decision, without a decision handler, reaches only its
			// capacity question, which reads no Top.
			d.Top = slices.Clone(res.Top)
		}
		if len(res.Totals) == 0 {
			d.FastPath = "one-feasible"
		}
	}
	d.Node = node
	s.keepRanking(prof, qp, node, scored, reused)
	d = s.assumeAndBind(ctx, qp, prof, state, pi, node, nodeAt, d)
	s.rankingBound(prof, d)
	return d
}

// numFeasibleNodesToFind is kube-scheduler's node sampling
// (runtime.NumFeasibleNodesToFind) with the profile's
// percentageOfNodesToScore when set, else the scheduler's.
func numFeasibleNodesToFind(profilePct *int32, globalPct int32, n int) int {
	if profilePct != nil {
		globalPct = *profilePct
	}
	return runtime.NumFeasibleNodesToFind(n, globalPct)
}

func (s *Scheduler) numToFind(p *profile, n int) int {
	if !p.hasExtFilt && !p.hasScoring {
		return min(1, n) // first fit (kubernetes/kubernetes#123384)
	}
	return numFeasibleNodesToFind(p.pct, s.pctToScore, n)
}

// newState returns a new cycle state holding the cycle's handle h: for a
// detached replica's cycle, replicaState emptied (taken once); else the
// spare state a binding released (taken), or a new one.
func (s *Scheduler) newState(h *cycleHandle) *framework.CycleState {
	st := s.replicaState
	switch {
	case st != nil:
		s.replicaState = nil
		*st = framework.CycleState{}
		if s.spareState == st { // a replica's state its binding released
			s.spareState = nil
		}
	case s.spareState != nil:
		st, s.spareState = s.spareState, nil // released: empty
	default:
		st = framework.NewCycleState()
	}
	st.Write(handleKey, h)
	return st
}

// releaseState releases st, whose cycle is over and which nothing holds
// any more, and keeps it as the spare state of the next cycle. The caller
// holds the scheduler's lock.
func (s *Scheduler) releaseState(st *framework.CycleState) {
	st.Release()
	s.spareState = st
}

// schedule runs the framework's cycle with kube's node sampling. The
// sample size depends on the number of candidate nodes after a
// PreFilterResult narrows them, which is known only after PreFilter ran:
// when narrowing changes it, the cycle is run again from the same random
// state with the right size (the framework takes the size up front).
// pre is PreFilter's outcome when it already ran on state (nil when not).
func (s *Scheduler) schedule(ctx context.Context, prof *profile, state *framework.CycleState, snap *framework.Snapshot, pi *framework.PodInfo, pre *runtime.PreFilterOutcome) (*runtime.Result, *framework.CycleState, error) {
	return s.scheduleIn(ctx, prof, state, snap, pi, nil, pre)
}

// scheduleIn is schedule restricted to a placement's nodes (nil: every
// node of snap), which must be snap's (runtime.CycleOptions.Nodes).
func (s *Scheduler) scheduleIn(ctx context.Context, prof *profile, state *framework.CycleState, snap *framework.Snapshot, pi *framework.PodInfo, nodes []*framework.NodeInfo, pre *runtime.PreFilterOutcome) (*runtime.Result, *framework.CycleState, error) {
	n := snap.NumNodes()
	inPlacement := func(string) bool { return true }
	if nodes != nil {
		n = len(nodes)
		set := make(map[string]bool, len(nodes))
		for _, ni := range nodes {
			set[ni.Name()] = true
		}
		inPlacement = func(name string) bool { return set[name] }
	}
	opts := s.cycleOptions(prof, pi, n, nodes, pre)
	k := opts.NumFeasibleToFind
	saved := *s.pcg
	res, err := prof.fw.Schedule(ctx, state, snap, pi, opts)
	if res == nil || res.PreFilterStatus != nil || res.PreFilterResult.AllNodes() {
		return res, state, err
	}
	cand := 0
	for name := range res.PreFilterResult.NodeNames {
		if _, ok := snap.Get(name); ok && inPlacement(name) {
			cand++
		}
	}
	k2 := s.numToFind(prof, cand)
	if min(k, cand) == min(k2, cand) {
		return res, state, err
	}
	*s.pcg = saved
	h, _ := handleFrom(state)
	state.Release()
	state = s.newState(h)
	opts.NumFeasibleToFind, opts.PreFiltered = k2, nil
	res, err = prof.fw.Schedule(ctx, state, snap, pi, opts)
	return res, state, err
}

// cycleOptions are the options of pi's cycle over n candidate nodes
// (nodes, nil for every node of the snapshot), pre as for schedule. A
// cycle whose result is not kept keeps its rejections only when the pod
// does not fit, unless the pod was nominated to a node: whether that node
// was rejected decides how many nodes the cycle counts as processed.
func (s *Scheduler) cycleOptions(prof *profile, pi *framework.PodInfo, n int, nodes []*framework.NodeInfo, pre *runtime.PreFilterOutcome) runtime.CycleOptions {
	unexplained := !s.keepResults && !s.keepFailed
	opts := runtime.CycleOptions{Rand: s.rng, StartIndex: s.nextStart, NumFeasibleToFind: s.numToFind(prof, n),
		SkipExplanation: unexplained, TotalsOnly: unexplained, ExplainRejections: s.keepResults, Nodes: nodes, PreFiltered: pre,
		RejectionsOnFailure: unexplained && pi.Pod.Status.NominatedNodeName == ""}
	if !s.keepResults {
		if s.reuse == nil {
			s.reuse = &runtime.Result{}
		}
		opts.Reuse = s.reuse
	}
	if !s.nominator.Empty() {
		opts.NominatedPods = s.nominator.ForNode
	}
	return opts
}

// scheduleIncremental is schedule for a pod whose cycle an incremental
// evaluator computes when it can (runtime.Incremental decides exactly as
// schedule would, or hands the cycle back): a capacity question's replica
// (the question's evaluator) or a pod of a class of pods that the
// profile's node-local plugins treat alike (classeval.go). The cycle state
// stays the scheduler's own: Reserve, Permit and binding get it as without
// the evaluator (evalAllowed checks they read nothing PreFilter wrote).
func (s *Scheduler) scheduleIncremental(ctx context.Context, prof *profile, state *framework.CycleState, snap *framework.Snapshot, qp *queue.QueuedPod, pre *runtime.PreFilterOutcome) (*runtime.Result, *framework.CycleState, error) {
	pi := qp.PodInfo
	if e := s.replicas; e != nil {
		if e.fw == prof.fw {
			if res, ok := e.inc.Schedule(ctx, snap, pi, s.cycleOptions(prof, pi, snap.NumNodes(), nil, nil)); ok {
				s.replicaCycles++
				return res, state, nil
			}
		}
	} else if e := s.classEvalFor(ctx, prof, qp, snap.NumNodes()); e != nil {
		e.eval.inc.Refresh()
		if res, ok := e.eval.inc.Schedule(ctx, snap, pi, s.cycleOptions(prof, pi, snap.NumNodes(), nil, nil)); ok {
			e.handled()
			s.classCycles++
			return res, state, nil
		}
		e.handedBack()
	}
	return s.schedule(ctx, prof, state, snap, pi, pre)
}

// evaluateNominatedNode is kube-scheduler's nominated-node fast path: after
// PreFilter, the node the pod was nominated to (by an earlier preemption)
// is filtered alone; if it passes it is chosen without scoring. failed
// reports that the node was evaluated and rejected.
func (s *Scheduler) evaluateNominatedNode(ctx context.Context, prof *profile, state *framework.CycleState, snap *framework.Snapshot, pi *framework.PodInfo, nnn string) (node string, failed bool) {
	ni, ok := snap.Get(nnn)
	if !ok {
		return "", false
	}
	state.SetSnapshot(snap)
	if _, st, _ := prof.fw.RunPreFilterPlugins(ctx, state, pi); !st.IsSuccess() {
		return "", false // the full cycle reports the PreFilter failure
	}
	var nominated []*framework.PodInfo
	if !s.nominator.Empty() {
		nominated = s.nominator.ForNode(nnn)
	}
	if st := prof.fw.RunFilterPluginsWithNominatedPods(ctx, state, pi, ni, nominated); !st.IsSuccess() {
		return "", true
	}
	for _, ext := range prof.fw.Extenders() {
		if !ext.IsInterested(pi) {
			continue
		}
		passed, _, _, err := ext.Filter(pi, []*framework.NodeInfo{ni})
		if err != nil {
			if ext.IsIgnorable() {
				continue
			}
			return "", false
		}
		if len(passed) == 0 {
			return "", true
		}
	}
	return nnn, false
}

// rejectedIn reports whether the cycle rejected node explicitly.
func rejectedIn(res *runtime.Result, node string) bool {
	if node == "" {
		return false
	}
	m := res.NodeToStatus()
	before := m.Len()
	m.Set(node, nil)
	return m.Len() == before
}

// cycleFailed handles a cycle that found no node (running PostFilter,
// i.e. preemption) or failed with an error.
func (s *Scheduler) cycleFailed(ctx context.Context, qp *queue.QueuedPod, prof *profile, state *framework.CycleState, res *runtime.Result, err error, d Decision) Decision {
	var fe *runtime.FitError
	if res != nil {
		fe = res.FitError()
	}
	clear := &framework.NominatingInfo{Mode: framework.ModeOverride}
	if fe == nil {
		d.Outcome, d.Message = OutcomeError, err.Error()
		d.Stage = "Filter"
		if res != nil && len(res.Totals) > 0 {
			d.Stage = "Score"
		}
		if res != nil && res.PreFilterStatus != nil {
			d.Stage, d.Plugin = "PreFilter", res.PreFilterStatus.Plugin()
		}
		s.failed(qp, d, nil, nil, clear, true)
		return d
	}
	d.Outcome, d.Stage = OutcomeUnschedulable, "Filter"
	if res.PreFilterStatus != nil {
		d.Stage, d.Plugin = "PreFilter", res.PreFilterStatus.Plugin()
	}
	nominating := clear
	if prof.fw.HasPostFilterPlugins() && !s.noPostFilter {
		r, st := prof.fw.RunPostFilterPlugins(ctx, state, qp.PodInfo, res.NodeToStatus())
		fe.Diagnosis.PostFilterMsg = st.Message()
		nominating = nil
		if r != nil {
			nominating = r.NominatingInfo
		}
		if h, ok := handleFrom(state); ok {
			d.Victims = h.victims
		}
	}
	d.Message = fe.Error()
	if nominating != nil && nominating.Mode == framework.ModeOverride {
		d.NominatedNode = nominating.NominatedNodeName
	}
	s.failed(qp, d, fe.Diagnosis.UnschedulablePlugins, fe.Diagnosis.PendingPlugins, nominating, false)
	return d
}

// failed records a failed cycle: the reason, the nomination, the requeue.
func (s *Scheduler) failed(qp *queue.QueuedPod, d Decision, unschedulable, pending []string, nominating *framework.NominatingInfo, isError bool) {
	s.setReason(qp.Key, d.Message)
	s.applyNomination(qp, nominating)
	s.queue.RequeueFailed(qp, unschedulable, pending, isError)
	s.emit(d)
}

// applyNomination sets or clears the pod's nominated node (ModeOverride);
// nil or ModeNoop keeps the current one, as kube-scheduler's
// AddNominatedPod.
func (s *Scheduler) applyNomination(qp *queue.QueuedPod, ni *framework.NominatingInfo) {
	node := qp.Pod.Status.NominatedNodeName
	if ni != nil && ni.Mode == framework.ModeOverride {
		node = ni.NominatedNodeName
	}
	if _, st, ok := s.cluster.PodInfo(qp.Key); !ok || st != cluster.StatePending {
		return
	}
	s.cluster.SetNominated(qp.Key, node)
	pi, _, _ := s.cluster.PodInfo(qp.Key)
	s.queue.SetPodInfo(qp, pi)
	s.nominator.Add(qp.Key, pi, node)
}

// oneNodeFitMessage renders a rejection after the node was chosen
// (Reserve, Permit, WaitOnPermit) as kube-scheduler's one-node FitError.
func oneNodeFitMessage(st *framework.Status) string {
	reasons := append([]string(nil), st.Reasons()...)
	for i, r := range reasons {
		reasons[i] = "1 " + r
	}
	sort.Strings(reasons)
	msg := "0/1 nodes are available:"
	if len(reasons) > 0 {
		msg += " " + strings.Join(reasons, ", ") + "."
	}
	return msg
}

// binding is one assumed pod on its way through Permit and binding.
type binding struct {
	qp       *queue.QueuedPod
	prof     *profile
	state    *framework.CycleState
	pi       *framework.PodInfo // the assumed pod
	node     string
	decision Decision
	wp       *WaitingPod
	deferred bool // the scheduling decision was already emitted
	// async: the binding cycle runs on its own goroutine, which receives
	// the Permit verdict on permit; otherwise the verdict is kept in
	// status and the binding queued in the scheduler's ready list.
	async  bool
	permit chan *framework.Status
	status *framework.Status
}

// assumeAndBind assumes the pod on node (at index at of the snapshot,
// -1 when not known), runs Reserve and Permit, and starts (or,
// synchronously, runs) the binding cycle.
func (s *Scheduler) assumeAndBind(ctx context.Context, qp *queue.QueuedPod, prof *profile, state *framework.CycleState, pi *framework.PodInfo, node string, at int, d Decision) Decision {
	clear := &framework.NominatingInfo{Mode: framework.ModeOverride}
	var slab *cluster.AssumedSlab
	if qp.Detached {
		slab = s.replicaSlab
	}
	assumed, err := s.cluster.AssumeKey(qp.Key, node, at, slab)
	if err != nil {
		d.Outcome, d.Stage, d.Message = OutcomeError, "Assume", err.Error()
		s.failed(qp, d, nil, nil, clear, true)
		state.Release()
		return d
	}
	s.nominator.Remove(qp.Key)
	fw := prof.fw
	if st := fw.RunReservePluginsReserve(ctx, state, assumed, node); !st.IsSuccess() {
		fw.RunReservePluginsUnreserve(ctx, state, assumed, node)
		_ = s.cluster.Forget(pi.Pod.Namespace, pi.Pod.Name)
		state.Release()
		return s.afterAssumeFailed(qp, d, "Reserve", st)
	}
	pst, waits := fw.RunPermitPlugins(ctx, state, assumed, node)
	if !pst.IsSuccess() && !pst.IsWait() {
		fw.RunReservePluginsUnreserve(ctx, state, assumed, node)
		_ = s.cluster.Forget(pi.Pod.Namespace, pi.Pod.Name)
		state.Release()
		return s.afterAssumeFailed(qp, d, "Permit", pst)
	}
	// Inside a fork bindings run synchronously, so that Revert can undo them.
	async := s.async && len(s.forks) == 0
	if !pst.IsWait() && !async {
		// The binding runs now and nothing keeps it: no allocation.
		b := binding{qp: qp, prof: prof, state: state, pi: assumed, node: node, decision: d}
		return s.runBinding(ctx, &b, nil, true)
	}
	b := &binding{qp: qp, prof: prof, state: state, pi: assumed, node: node, decision: d, async: async}
	if pst.IsWait() {
		b.permit = make(chan *framework.Status, 1)
		key := qp.Key
		b.wp = newWaitingPod(assumed.Pod, node, waits, s.clock, func(w *WaitingPod, st *framework.Status) {
			s.waiting.remove(key, w)
			s.readyMu.Lock()
			switch {
			case b.async && s.forkDepth > 0:
				s.deferred = append(s.deferred, verdict{b: b, st: st})
			case b.async:
				b.permit <- st
			default:
				b.status = st
				s.ready = append(s.ready, b)
			}
			s.readyMu.Unlock()
			s.signal()
		})
		s.waitSeq++
		b.wp.ord = s.waitSeq
		s.waiting.add(key, b.wp)
		d.Outcome = OutcomeWaiting
		d.Message = fmt.Sprintf("waiting at Permit for %v", b.wp.PendingPlugins())
		b.deferred = true
		s.emit(d)
		if b.async {
			s.startBinding(ctx, b)
		}
		return d
	}
	d.Outcome = OutcomeAssumed
	b.deferred = true
	s.emit(d)
	s.startBinding(ctx, b)
	return d
}

// afterAssumeFailed requeues a pod rejected (or failed) at Reserve or
// Permit; the pod is already unreserved and forgotten.
func (s *Scheduler) afterAssumeFailed(qp *queue.QueuedPod, d Decision, stage string, st *framework.Status) Decision {
	d.Stage, d.Plugin = stage, st.Plugin()
	clear := &framework.NominatingInfo{Mode: framework.ModeOverride}
	if st.IsRejected() {
		d.Outcome, d.Message = OutcomeUnschedulable, oneNodeFitMessage(st)
		var pending []string
		if st.Code() == framework.Pending {
			pending = []string{st.Plugin()}
		}
		s.failed(qp, d, []string{st.Plugin()}, pending, clear, false)
		return d
	}
	d.Outcome, d.Message = OutcomeError, st.Message()
	s.failed(qp, d, nil, nil, clear, true)
	return d
}

func (s *Scheduler) startBinding(ctx context.Context, b *binding) {
	s.bindWG.Add(1)
	go func() {
		defer s.bindWG.Done()
		var st *framework.Status
		if b.wp != nil {
			select {
			case st = <-b.permit:
			case <-ctx.Done():
				b.wp.Reject("", "scheduler stopped: "+ctx.Err().Error())
				st = <-b.permit
			}
		}
		s.runBinding(ctx, b, st, false)
	}()
}

// runReadyLocked runs the binding cycles whose Permit wait ended.
func (s *Scheduler) runReadyLocked(ctx context.Context) int {
	n := 0
	for {
		s.readyMu.Lock()
		ready := s.ready
		s.ready = nil
		s.readyMu.Unlock()
		if len(ready) == 0 {
			return n
		}
		for _, b := range ready {
			s.runBinding(ctx, b, b.status, true)
			n++
		}
	}
}

// runBinding is kube-scheduler's bindingCycle after WaitOnPermit returned
// permit (nil: allowed): PreBind, Bind (first non-Skip wins), the cluster
// confirms the pod on its node, PostBind. With locked false (asynchronous
// binding) the plugins run without the scheduler's lock.
func (s *Scheduler) runBinding(ctx context.Context, b *binding, permit *framework.Status, locked bool) Decision {
	// The binding cycle is the state's last use: release its buffers, but
	// not inside a fork when the pod waited at Permit: the fork's Revert
	// may make it wait again with this state. A binding that did not wait
	// runs under the lock its assume took, so no fork can hold it.
	switch {
	case locked && (len(s.forks) == 0 || b.wp == nil):
		defer s.releaseState(b.state)
	case !locked:
		defer b.state.Release()
	}
	d := b.decision
	d.Time = s.clock.Now()
	if h, ok := handleFrom(b.state); ok {
		h.bindingLocked, h.binding = locked, true
	}
	if !permit.IsSuccess() {
		return s.bindingFailed(ctx, b, d, "WaitOnPermit", permit, locked)
	}
	fw := b.prof.fw
	if st := fw.RunPreBindPlugins(ctx, b.state, b.pi, b.node); !st.IsSuccess() {
		return s.bindingFailed(ctx, b, d, "PreBind", st, locked)
	}
	bound, st := bindWithExtenders(fw.Extenders(), b.pi, b.node)
	if !bound {
		st = fw.RunBindPlugins(ctx, b.state, b.pi, b.node)
	}
	if !st.IsSuccess() {
		if st.IsSkip() {
			st = framework.AsStatus(fmt.Errorf("no Bind plugin bound pod %s (all returned Skip)", b.qp.Key))
		}
		return s.bindingFailed(ctx, b, d, "Bind", st, locked)
	}
	if !locked {
		s.lockBinding()
	}
	err := s.cluster.BindKey(b.qp.Key, b.node)
	s.queue.Done(b.qp)
	s.setReason(b.qp.Key, "")
	// A detached replica's event is not reported: it would only move
	// queued pods that nothing pops before the fork's Revert puts them back
	// (queue.detached).
	if err == nil && !b.qp.Detached {
		if bound, _, ok := s.cluster.PodInfo(b.qp.Key); ok {
			s.reportEvent(framework.EventAssignedPodAdd, nil, bound, nil, false)
		}
	}
	if !locked {
		s.mu.Unlock()
	}
	if err != nil { // deleted while binding
		d.Outcome, d.Stage, d.Message = OutcomeError, "Bind", err.Error()
		s.emit(d)
		return d
	}
	fw.RunPostBindPlugins(ctx, b.state, b.pi, b.node)
	d.Outcome = OutcomeScheduled
	if b.deferred {
		d.Outcome = OutcomeBound
	}
	s.emit(d)
	return d
}

// bindingFailed is kube-scheduler's handleBindingCycleError: Unreserve in
// reverse order, forget the pod (an assigned-pod-delete event for the
// others), and requeue it: a rejection goes to the unschedulable pool,
// anything else backs off as an error.
func (s *Scheduler) bindingFailed(ctx context.Context, b *binding, d Decision, stage string, st *framework.Status, locked bool) Decision {
	b.prof.fw.RunReservePluginsUnreserve(ctx, b.state, b.pi, b.node)
	if !locked {
		s.lockBinding()
		defer s.mu.Unlock()
	}
	d.Stage, d.Plugin = stage, st.Plugin()
	if rec, ok := s.cluster.Pod(b.pi.Pod.Namespace, b.pi.Pod.Name); ok && rec.State == cluster.StateAssumed {
		_ = s.cluster.Forget(b.pi.Pod.Namespace, b.pi.Pod.Name)
	}
	clear := &framework.NominatingInfo{Mode: framework.ModeOverride}
	// Forgetting the assumed pod frees its node: a pod-delete event for
	// the others (after the pod itself is requeued, which it must not move).
	if st.IsRejected() {
		d.Outcome, d.Message = OutcomeUnschedulable, oneNodeFitMessage(st)
		s.failed(b.qp, d, []string{st.Plugin()}, nil, clear, false)
		key := b.qp.Key
		s.reportEvent(framework.EventAssignedPodDelete, b.pi, nil, func(p *queue.QueuedPod) bool { return p.Key != key }, true)
		return d
	}
	d.Outcome, d.Message = OutcomeError, st.Message()
	s.reportEvent(framework.EventAssignedPodDelete, b.pi, nil, nil, true)
	s.failed(b.qp, d, nil, nil, clear, true)
	return d
}
