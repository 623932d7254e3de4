package scheduling

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// workload is the scheduler's state of kube-scheduler v1.36's alpha
// workload features.
type workload struct {
	features framework.WorkloadFeatures
}

// runsPodGroupCycle reports whether a popped pod goes through the pod group
// cycle: GenericWorkload is on and the pod names a kube PodGroup.
func (s *Scheduler) runsPodGroupCycle(qp *queue.QueuedPod) bool {
	return s.workload.features.GenericWorkload && api.WorkloadPodGroupKey(qp.Pod) != ""
}

// Messages of kube-scheduler v1.36's pod group cycle
// (schedule_one_podgroup.go).
const (
	pgMsgUnschedulable = "pod group is unschedulable" // errPodGroupUnschedulable
	pgMsgWaiting       = "pod group is waiting for preemption to complete"
)

// pgTrial marks the CycleState of a pod tried in a pod group cycle (kube's
// CycleState.SetPodGroupSchedulingCycle) and carries what the trial's
// plugins read there.
type pgTrial struct {
	// scheduled counts the group's pods placed: assumed or bound in the
	// cluster, plus those assumed so far in the trial (kube's snapshot
	// pod group state).
	scheduled int
	// skipPostFilter is set in workload-aware preemption's runs (kube's
	// runWithoutPostFilters).
	skipPostFilter bool
}

// Clone returns the trial itself: it is shared by the trial's states.
func (t *pgTrial) Clone() framework.StateData { return t }

const pgTrialKey framework.StateKey = "schedkit.scheduling/PodGroupTrial"

func pgTrialFrom(state *framework.CycleState) (*pgTrial, bool) {
	if state == nil {
		return nil, false
	}
	d, err := state.Read(pgTrialKey)
	if err != nil {
		return nil, false
	}
	t, ok := d.(*pgTrial)
	return t, ok
}

// pgPodResult is one pod's result in one run of the group algorithm
// (kube's algorithmResult).
type pgPodResult struct {
	// node is the proposed node: the chosen one, or the one preemption
	// nominated; "" when the pod was not assumed.
	node string
	// status is nil when the pod fits; otherwise its failure (a pod that
	// needs preemption keeps its Unschedulable status).
	status *framework.Status
	// permit is Permit's verdict once the pod was assumed in the trial.
	permit  *framework.Status
	preempt bool
	// nominating is what PostFilter asked for (nil: keep).
	nominating *framework.NominatingInfo
	// d holds the pod's explanation: counts, fast path, ranking, stage,
	// plugin, victims.
	d                      Decision
	unschedulable, pending []string
	// state is the pod's CycleState in the trial; a feasible group's pods
	// keep it for their Reserve, Permit and binding, as kube does.
	state *framework.CycleState
}

// pgResult is one run of the group algorithm (kube's
// podGroupAlgorithmResult): nil status when the group is feasible,
// Unschedulable (with waitingOnPreemption when it fits once preemption
// completes) or Error.
type pgResult struct {
	pods                []pgPodResult
	status              *framework.Status
	waitingOnPreemption bool
	placement           *framework.Placement
	// victims are the pods workload-aware preemption evicted.
	victims []string
}

// podGroupCycle is kube-scheduler v1.36's pod group scheduling cycle
// (schedule_one_podgroup.go) for the group of the popped pod qp:
//
//  1. The group's other pending pods are taken from the queue (a pod the
//     PreEnqueue plugins hold stays), pods being deleted are skipped, and
//     the rest are ordered by priority, then first attempt (then name:
//     kube's sort is not stable). They must share one profile.
//  2. The group algorithm runs on the cluster's snapshot: without
//     TopologyAwareWorkloadScheduling, the pods one by one on every node
//     (podGroupSchedulingDefaultAlgorithm); with it, that on each placement
//     the profile's placementGenerate plugin proposes, a placement
//     restricting the nodes filtered (podGroupSchedulingPlacementAlgorithm).
//     Each pod runs the pod's scheduling algorithm (the nominated node
//     first, then filters and scores, then PostFilter — preemption — when
//     nothing fits: a pod nominated that way counts as placed on its
//     nominated node), is assumed on the trial's copy of the snapshot, and
//     goes through Reserve and Permit (GangScheduling counts the trial's
//     placed pods). The group is feasible once some pod's Permit allows it;
//     a pod that needed preemption makes it wait for preemption instead.
//     Reserve is undone at the end of each trial.
//  3. No feasible placement: "0/N placements are available, first
//     placement status: pod group is unschedulable". Several: the
//     placementScore plugins rank them (weighted sum of normalized
//     scores; ties broken at random from the scheduler's seed).
//  4. With WorkloadAwarePreemption an unschedulable group tries
//     workload-aware preemption (podGroupPreempt).
//  5. Feasible: the pods that fit are assumed on their proposed nodes and go
//     through Reserve, Permit (GangScheduling holds them until minCount) and
//     binding as in a pod's own cycle. Otherwise each pod returns to the
//     queue: a pod that fit with the Permit verdict's message ("waiting for
//     minCount pods from a gang to be scheduled, …"), or with "pod group is
//     waiting for preemption to complete" and nominated to its node, the
//     others with their own failure.
//  6. The PodGroup's PodGroupScheduled condition records the outcome
//     (True "Scheduled", False "Unschedulable" or "SchedulerError"; a True
//     condition is never turned back).
//
// It returns qp's decision.
func (s *Scheduler) podGroupCycle(ctx context.Context, qp *queue.QueuedPod) Decision {
	ns, name := qp.Pod.Namespace, *qp.Pod.Spec.SchedulingGroup.PodGroupName
	members := s.popGroup(qp, ns, name)
	var out Decision
	keep := members[:0]
	for _, m := range members {
		if m.Pod.DeletionTimestamp == nil {
			keep = append(keep, m)
			continue
		}
		s.queue.Done(m)
		s.cycle++
		d := Decision{Cycle: s.cycle, Time: s.clock.Now(), Pod: m.Key, Attempt: m.Attempts, Outcome: OutcomeSkipped, Message: "pod is being deleted"}
		s.setReason(m.Key, d.Message)
		s.emit(d)
		if m == qp {
			out = d
		}
	}
	members = keep
	if len(members) == 0 {
		return out
	}
	prof, err := s.profileForGroup(members)
	if err != nil {
		for _, m := range members {
			d := s.pgFail(m, nil, "PodGroup", framework.AsStatus(err), nil)
			if m == qp {
				out = d
			}
		}
		return out
	}
	group := &framework.PodGroupInfo{Namespace: ns, Name: name}
	for _, m := range members {
		group.UnscheduledPods = append(group.UnscheduledPods, m.Pod)
	}
	res := s.podGroupAlgorithm(ctx, prof, group, members, s.cluster.Snapshot(), false)
	if s.workload.features.WorkloadAwarePreemption && res.status.Code() == framework.Unschedulable {
		st, victims := s.podGroupPreempt(ctx, prof, group, members)
		switch {
		case st.IsSuccess():
			res.waitingOnPreemption = true
			res.victims = victims
		case st.Code() == framework.Error:
			res.status = st
		default:
			res.status = framework.NewStatus(res.status.Code(), append(slices.Clip(res.status.Reasons()), st.Message())...)
		}
	}
	return s.podGroupSubmit(ctx, prof, group, members, res, qp)
}

// profileForGroup is kube's frameworkForPodGroup: every pod of the group
// must name the same profile.
func (s *Scheduler) profileForGroup(members []*queue.QueuedPod) (*profile, error) {
	name := members[0].Pod.Spec.SchedulerName
	for _, m := range members[1:] {
		if n := m.Pod.Spec.SchedulerName; n != name {
			return nil, fmt.Errorf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", n, name)
		}
	}
	return s.profileFor(members[0].Pod)
}

// popGroup takes the group's queued pods out of the queue (in flight, as
// kube's PopSpecificPod) and orders them with qp: priority, first attempt,
// name.
func (s *Scheduler) popGroup(qp *queue.QueuedPod, ns, name string) []*queue.QueuedPod {
	members := []*queue.QueuedPod{qp}
	for _, r := range s.cluster.WorkloadPodGroupMembers(ns, name) {
		if r.State != cluster.StatePending || r.Pod.Key() == qp.Key {
			continue
		}
		if m, ok := s.queue.Get(r.Pod.Key()); ok && s.queue.TakeSpecific(m) {
			members = append(members, m)
		}
	}
	sort.SliceStable(members, func(i, j int) bool {
		a, b := members[i], members[j]
		if pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue(); pa != pb {
			return pa > pb
		}
		if !a.InitialAttemptTimestamp.Equal(*b.InitialAttemptTimestamp) {
			return a.InitialAttemptTimestamp.Before(*b.InitialAttemptTimestamp)
		}
		return a.Key < b.Key
	})
	return members
}

// podGroupAlgorithm is kube's podGroupSchedulingAlgorithm over base (which
// it does not change): the placement algorithm with
// TopologyAwareWorkloadScheduling, the default algorithm on every node
// otherwise.
func (s *Scheduler) podGroupAlgorithm(ctx context.Context, prof *profile, group *framework.PodGroupInfo, members []*queue.QueuedPod, base *framework.Snapshot, skipPostFilter bool) *pgResult {
	_, scheduled := s.cluster.WorkloadPodGroupCounts(group.Namespace, group.Name)
	if !s.workload.features.TopologyAwareWorkloadScheduling {
		return s.podGroupTrial(ctx, prof, members, base.Clone(), nil, scheduled, skipPostFilter)
	}
	state := s.newState(&cycleHandle{s: s, prof: prof})
	state.SetSnapshot(base)
	placements, st := prof.fw.RunPlacementGeneratePlugins(ctx, state, group, base.Nodes())
	if !st.IsSuccess() {
		return &pgResult{status: st}
	}
	var first *pgResult
	var feasible []*pgResult
	for _, p := range placements {
		nodes := p.Nodes
		if len(nodes) == base.NumNodes() { // kube's AssumePlacement: all nodes is no placement
			nodes = nil
		}
		r := s.podGroupTrial(ctx, prof, members, base.Clone(), nodes, scheduled, skipPostFilter)
		r.placement = p
		if r.status.Code() == framework.Error {
			return r
		}
		if first == nil {
			first = r
		}
		if r.status.IsSuccess() || r.waitingOnPreemption {
			feasible = append(feasible, r)
		}
	}
	switch len(feasible) {
	case 0:
		first.status = framework.NewStatus(framework.Unschedulable,
			fmt.Sprintf("0/%d placements are available, first placement status: %v", len(placements), first.status.AsError()))
		return first
	case 1:
		return feasible[0]
	}
	best, st := s.bestPlacement(ctx, prof, state, group, members, feasible)
	if !st.IsSuccess() {
		return &pgResult{status: st}
	}
	return best
}

// bestPlacement is kube's findBestPlacement: the placementScore plugins'
// weighted totals, the highest winning; a tie goes to the placement with
// the highest random draw (kube: rand.Int per placement; here the
// scheduler's seeded source).
func (s *Scheduler) bestPlacement(ctx context.Context, prof *profile, state *framework.CycleState, group *framework.PodGroupInfo, members []*queue.QueuedPod, feasible []*pgResult) (*pgResult, *framework.Status) {
	assignments := make([]*framework.PodGroupAssignments, len(feasible))
	for i, r := range feasible {
		a := &framework.PodGroupAssignments{Placement: r.placement}
		for j, pr := range r.pods {
			if pr.node != "" {
				a.ProposedAssignments = append(a.ProposedAssignments, framework.ProposedAssignment{Pod: members[j].PodInfo, NodeName: pr.node})
			}
		}
		assignments[i] = a
	}
	totals, st := prof.fw.RunPlacementScorePlugins(ctx, state, group, assignments)
	if !st.IsSuccess() {
		return nil, st
	}
	draws := make([]int64, len(totals))
	for i := range draws {
		draws[i] = s.rng.Int64()
	}
	best := 0
	for i := 1; i < len(totals); i++ {
		if totals[i] > totals[best] || (totals[i] == totals[best] && draws[i] > draws[best]) {
			best = i
		}
	}
	return feasible[best], nil
}

// podGroupTrial is kube's podGroupSchedulingDefaultAlgorithm on snap (a
// copy the trial may change), restricted to nodes when not nil: each pod
// in order through podGroupTrialPod; a pod that fails with an error stops
// the trial (the group's status is then that error), a rejected one is
// skipped. Every pod assumed in the trial is unreserved at the end.
func (s *Scheduler) podGroupTrial(ctx context.Context, prof *profile, members []*queue.QueuedPod, snap *framework.Snapshot, nodes []*framework.NodeInfo, scheduled int, skipPostFilter bool) *pgResult {
	res := &pgResult{status: framework.NewStatus(framework.Unschedulable, pgMsgUnschedulable)}
	trial := &pgTrial{scheduled: scheduled, skipPostFilter: skipPostFilter}
	var undo []func()
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	preempting := false
	for _, m := range members {
		r, revert := s.podGroupTrialPod(ctx, prof, m, snap, nodes, trial)
		res.pods = append(res.pods, r)
		if !r.status.IsSuccess() && !r.preempt {
			if r.status.IsRejected() {
				continue
			}
			res.status = framework.AsStatus(fmt.Errorf("failed to schedule other pod from a pod group: %w", r.status.AsError()))
			res.waitingOnPreemption = false
			break
		}
		undo = append(undo, revert)
		preempting = preempting || r.preempt
		if r.permit.IsSuccess() {
			if preempting {
				res.status = framework.NewStatus(framework.Unschedulable, pgMsgWaiting)
				res.waitingOnPreemption = true
			} else {
				res.status = nil
			}
		}
	}
	return res
}

// podGroupTrialPod is kube's podGroupPodSchedulingAlgorithm for one pod:
// the scheduling algorithm (nominated node, filters and scores within
// nodes, PostFilter), then, when the pod fits or preemption nominated a
// node, assume on snap, Reserve and Permit. It returns the pod's result and,
// when it stays assumed, the function that unreserves it.
func (s *Scheduler) podGroupTrialPod(ctx context.Context, prof *profile, m *queue.QueuedPod, snap *framework.Snapshot, nodes []*framework.NodeInfo, trial *pgTrial) (pgPodResult, func()) {
	pi := m.PodInfo
	h := &cycleHandle{s: s, prof: prof}
	newState := func() *framework.CycleState {
		st := s.newState(h)
		st.Write(pgTrialKey, trial)
		return st
	}
	r := pgPodResult{}
	total := snap.NumNodes()
	if nodes != nil {
		total = len(nodes)
	}
	if total == 0 {
		r.status = framework.NewStatus(framework.UnschedulableAndUnresolvable, "no nodes available to schedule pods")
		r.d.Stage, r.d.Message = "Filter", r.status.Message()
		return r, nil
	}
	var state *framework.CycleState
	node, nominatedFailed := "", false
	if nnn := pi.Pod.Status.NominatedNodeName; nnn != "" && pgInPlacement(nodes, nnn) {
		state = newState()
		if node, nominatedFailed = s.evaluateNominatedNode(ctx, prof, state, snap, pi, nnn); node != "" {
			r.d.FastPath, r.d.EvaluatedNodes, r.d.FeasibleNodes, r.d.StartIndex = "nominated", 1, 1, s.nextStart
			r.d.Top = []runtime.RankedNode{{Name: node}}
		}
	}
	if node == "" {
		state = newState()
		res, st, err := s.scheduleIn(ctx, prof, state, snap, pi, nodes, nil)
		state = st
		if res != nil {
			if res.PreFilterStatus == nil {
				processed := res.EvaluatedNodes()
				if nominatedFailed && !rejectedIn(res, pi.Pod.Status.NominatedNodeName) {
					processed++
				}
				s.nextStart = (s.nextStart + processed) % total
			}
			r.d.EvaluatedNodes, r.d.StartIndex = res.EvaluatedNodes(), res.StartIndex
			if s.keepResults {
				r.d.Result = res
			}
		}
		if err != nil {
			if !s.podGroupPostFilter(ctx, prof, state, m, res, err, trial, &r) {
				return r, nil
			}
			node = r.node
		} else {
			node = res.SelectedNode()
			r.d.FeasibleNodes = res.NumFeasibleNodes()
			r.d.Top, r.d.Margin, r.d.Ties = append([]runtime.RankedNode(nil), res.Top...), res.Margin, res.Ties
			if len(res.Totals) == 0 {
				r.d.FastPath = "one-feasible"
			}
		}
	}
	// Assume on the trial's snapshot, then Reserve and Permit.
	pod := *pi.Pod
	pod.Spec.NodeName = node
	assumed := *pi
	assumed.Pod = &pod
	if _, err := snap.AddPodInfo(&assumed, framework.PodAdd{}); err != nil {
		r.node, r.preempt, r.status = "", false, framework.AsStatus(err)
		r.d.Stage = "Assume"
		return r, nil
	}
	trial.scheduled++
	// An assumed pod is no longer nominated (kube's assume), and is again
	// once forgotten (unreserveAndForget in the pod group cycle).
	nnn := pi.Pod.Status.NominatedNodeName
	if nnn != "" {
		s.nominator.Remove(m.Key)
	}
	fw := prof.fw
	forget := func() {
		fw.RunReservePluginsUnreserve(ctx, state, &assumed, node)
		_ = snap.RemovePod(&pod)
		trial.scheduled--
		if nnn != "" {
			s.nominator.Add(m.Key, pi, nnn)
		}
	}
	if st := fw.RunReservePluginsReserve(ctx, state, &assumed, node); !st.IsSuccess() {
		forget()
		return pgAfterAssume(r, "Reserve", st), nil
	}
	pst, _ := fw.RunPermitPlugins(ctx, state, &assumed, node)
	if !pst.IsWait() && !pst.IsSuccess() {
		forget()
		return pgAfterAssume(r, "Permit", pst), nil
	}
	r.node, r.permit, r.state = node, pst, state
	return r, forget
}

// podGroupPostFilter handles a trial pod that found no node (kube's
// schedulingAlgorithm after SchedulePod failed): an error fails the pod;
// otherwise PostFilter (unless the trial skips it) may nominate a node, on
// which the pod is then assumed as needing preemption. It reports whether
// the pod goes on to be assumed (r.node set).
func (s *Scheduler) podGroupPostFilter(ctx context.Context, prof *profile, state *framework.CycleState, m *queue.QueuedPod, res *runtime.Result, err error, trial *pgTrial, r *pgPodResult) bool {
	clear := &framework.NominatingInfo{Mode: framework.ModeOverride}
	var fe *runtime.FitError
	if res != nil {
		fe = res.FitError()
	}
	if fe == nil {
		r.status, r.nominating = framework.AsStatus(err), clear
		r.d.Stage = "Filter"
		if res != nil && res.PreFilterStatus != nil {
			r.d.Stage, r.d.Plugin = "PreFilter", res.PreFilterStatus.Plugin()
		}
		return false
	}
	r.d.Stage = "Filter"
	if res.PreFilterStatus != nil {
		r.d.Stage, r.d.Plugin = "PreFilter", res.PreFilterStatus.Plugin()
	}
	r.nominating = clear
	if prof.fw.HasPostFilterPlugins() && !trial.skipPostFilter {
		pr, st := prof.fw.RunPostFilterPlugins(ctx, state, m.PodInfo, res.NodeToStatus())
		fe.Diagnosis.PostFilterMsg = st.Message()
		r.nominating = nil
		if pr != nil {
			r.nominating = pr.NominatingInfo
		}
		if h, ok := handleFrom(state); ok {
			r.d.Victims = h.victims
		}
	}
	// The scheduler's reused Result backs the diagnosis: copy what outlives
	// the next trial pod.
	r.unschedulable, r.pending = slices.Clone(fe.Diagnosis.UnschedulablePlugins), slices.Clone(fe.Diagnosis.PendingPlugins)
	r.status = framework.NewStatus(framework.Unschedulable, fe.Error())
	if n := r.nominating; n != nil && n.NominatedNodeName != "" {
		r.node, r.preempt = n.NominatedNodeName, true
		r.d.NominatedNode = n.NominatedNodeName
		return true
	}
	return false
}

// pgAfterAssume is a trial pod refused at Reserve or Permit (already
// unreserved): a rejection reads as kube's one-node FitError.
func pgAfterAssume(r pgPodResult, stage string, st *framework.Status) pgPodResult {
	r.node, r.preempt = "", false
	r.nominating = &framework.NominatingInfo{Mode: framework.ModeOverride}
	r.d.Stage, r.d.Plugin, r.d.NominatedNode = stage, st.Plugin(), ""
	r.unschedulable, r.pending = nil, nil
	if st.IsRejected() {
		r.status = framework.NewStatus(st.Code(), oneNodeFitMessage(st))
		r.unschedulable = []string{st.Plugin()}
		if st.Code() == framework.Pending {
			r.pending = []string{st.Plugin()}
		}
		return r
	}
	r.status = st
	return r
}

// pgInPlacement reports whether node is among nodes (nil: every node).
func pgInPlacement(nodes []*framework.NodeInfo, node string) bool {
	if nodes == nil {
		return true
	}
	for _, ni := range nodes {
		if ni.Name() == node {
			return true
		}
	}
	return false
}

// podGroupSubmit is kube's submitPodGroupAlgorithmResult: the feasible
// group's pods that fit go on to Reserve, Permit and binding; every other
// pod returns to the queue with the status kube gives it; the PodGroup's
// condition records the outcome. It returns qp's decision.
func (s *Scheduler) podGroupSubmit(ctx context.Context, prof *profile, group *framework.PodGroupInfo, members []*queue.QueuedPod, res *pgResult, qp *queue.QueuedPod) Decision {
	clear := &framework.NominatingInfo{Mode: framework.ModeOverride}
	var out Decision
	for i, m := range members {
		pr := pgPodResult{status: res.status}
		if i < len(res.pods) {
			pr = res.pods[i]
		}
		if i == 0 && len(res.victims) > 0 { // the replay reads a preemption's victims off one decision
			pr.d.Victims = append(slices.Clip(pr.d.Victims), res.victims...)
		}
		var d Decision
		switch {
		case res.status.Code() == framework.Error:
			if pr.status.Code() == framework.Error {
				d = s.pgFail(m, &pr, pr.d.Stage, pr.status, clear)
			} else {
				d = s.pgFail(m, &pr, "PodGroup", res.status, clear)
			}
		case pr.status.IsSuccess():
			switch {
			case res.status.IsSuccess():
				s.cycle++
				d = pgDecision(s, m, prof, &pr)
				d.Node = pr.node
				pr.state.Delete(pgTrialKey) // kube: SetPodGroupSchedulingCycle(nil)
				d = s.assumeAndBind(ctx, m, prof, pr.state, m.PodInfo, pr.node, -1, d)
			case res.status.IsRejected() && res.waitingOnPreemption:
				d = s.pgFail(m, &pr, "PodGroup", res.status, &framework.NominatingInfo{Mode: framework.ModeOverride, NominatedNodeName: pr.node})
			case res.status.IsRejected():
				d = s.pgFail(m, &pr, "PodGroup", framework.NewStatus(framework.Unschedulable, pr.permit.Message()), clear)
			default:
				d = s.pgFail(m, &pr, "PodGroup", framework.AsStatus(fmt.Errorf("received unexpected pod group scheduling algorithm status code: %s", res.status.Code())), clear)
			}
		case pr.preempt && !res.waitingOnPreemption:
			d = s.pgFail(m, &pr, "PodGroup", framework.NewStatus(framework.Unschedulable, pr.permit.Message()), clear)
		default:
			d = s.pgFail(m, &pr, pr.d.Stage, pr.status, pr.nominating)
		}
		if m == qp {
			out = d
		}
	}
	s.setPodGroupCondition(group.Namespace, group.Name, res.status)
	return out
}

// pgDecision starts a member's decision from its trial explanation.
func pgDecision(s *Scheduler, m *queue.QueuedPod, prof *profile, pr *pgPodResult) Decision {
	d := Decision{Cycle: s.cycle, Time: s.clock.Now(), Pod: m.Key, Attempt: m.Attempts, Profile: prof.name}
	if pr != nil {
		t := pr.d
		d.FastPath, d.EvaluatedNodes, d.FeasibleNodes, d.StartIndex = t.FastPath, t.EvaluatedNodes, t.FeasibleNodes, t.StartIndex
		d.Top, d.Margin, d.Ties, d.Victims, d.Result = t.Top, t.Margin, t.Ties, t.Victims, t.Result
	}
	return d
}

// pgFail returns a member to the queue with st (an Error backs off as an
// error) and the nomination, and emits its decision.
func (s *Scheduler) pgFail(m *queue.QueuedPod, pr *pgPodResult, stage string, st *framework.Status, nominating *framework.NominatingInfo) Decision {
	s.cycle++
	prof, _ := s.profileFor(m.Pod)
	d := pgDecision(s, m, prof, pr)
	d.Outcome, d.Stage, d.Message = OutcomeUnschedulable, stage, st.Message()
	isError := st.Code() == framework.Error
	if isError {
		d.Outcome = OutcomeError
	}
	var unschedulable, pending []string
	if pr != nil && stage == pr.d.Stage {
		d.Plugin = pr.d.Plugin
		unschedulable, pending = pr.unschedulable, pr.pending
	}
	if nominating != nil && nominating.Mode == framework.ModeOverride {
		d.NominatedNode = nominating.NominatedNodeName
	}
	s.failed(m, d, unschedulable, pending, nominating, isError)
	return d
}

// setPodGroupCondition is kube's updatePodGroupCondition after a cycle
// whose group status was st: PodGroupScheduled True "Scheduled" (nil st),
// False "Unschedulable" (a rejection) or False "SchedulerError"; a True
// condition is not turned back, and a missing PodGroup is left alone.
func (s *Scheduler) setPodGroupCondition(ns, name string, st *framework.Status) {
	c := api.Condition{Type: api.PodGroupScheduled, Status: api.ConditionTrue, Reason: api.PodGroupReasonScheduled, Message: st.Message()}
	switch {
	case st.IsSuccess():
	case st.IsRejected():
		c.Status, c.Reason = api.ConditionFalse, api.PodGroupReasonUnschedulable
	default:
		c.Status, c.Reason, c.Message = api.ConditionFalse, api.PodGroupReasonSchedulerError, st.AsError().Error()
	}
	s.cluster.SetWorkloadPodGroupCondition(ns, name, c, s.clock.Now())
}
