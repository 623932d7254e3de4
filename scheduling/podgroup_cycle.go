package scheduling

import (
	"context"
	"fmt"
	"sort"

	"github.com/schedkit/schedkit/framework"
)

// schedWorkload is the scheduler's state of kube-scheduler v1.36's alpha
// workload features.
type schedWorkload struct {
	features     WorkloadFeatures
	placementCfg map[string]PlacementPlugins
	placements   map[string]*profilePlacement // by profile; nil without TopologyAwareWorkloadScheduling
}

// runsPodGroupCycle reports whether a popped pod goes through the pod group
// cycle: GenericWorkload is on and the pod names a kube PodGroup.
func (s *Scheduler) runsPodGroupCycle(qp *queuedPod) bool {
	return s.workload.features.GenericWorkload && framework.WorkloadPodGroupKey(qp.Pod) != ""
}

// podGroupCycle is kube-scheduler v1.36's pod group scheduling cycle
// (schedule_one_podgroup.go) for the group of the popped pod qp:
//
//  1. The profile's PreEnqueue plugins (GangScheduling) are asked first;
//     schedkit's queue has no PreEnqueue stage, so a pod they refuse goes
//     back to the unschedulable pool here. A pod whose PodGroup does not
//     exist (and that no PreEnqueue plugin refused) is scheduled on its own.
//  2. The group's other queued pods are taken from the queue; the pods are
//     ordered by priority, then first attempt, then name.
//  3. Placements: with TopologyAwareWorkloadScheduling, the profile's
//     placementGenerate plugins, each refining the previous ones' output
//     (starting from all nodes); otherwise all nodes.
//  4. On each placement the pods are scheduled one by one on a copy of the
//     placement's nodes, each seeing the ones before it; the placement is
//     feasible when the group's placed pods plus these reach the gang's
//     minCount (one pod for a basic group), as GangScheduling's Permit
//     would allow.
//  5. No feasible placement: every pod is unschedulable ("0/N placements
//     are available"). Several: the placementScore plugins rank them (sum
//     of weight × normalized score; a tie goes to the first placement).
//  6. The chosen placement's pods are assumed on their proposed nodes and go
//     through Reserve, Permit (GangScheduling holds them until minCount)
//     and binding as in a pod's own cycle; the others are unschedulable
//     with their own failure.
//
// It returns qp's decision.
func (s *Scheduler) podGroupCycle(ctx context.Context, qp *queuedPod) Decision {
	prof, err := s.profileFor(qp.Pod)
	if err != nil { // cannot happen: AddPod checks
		return s.scheduleCycle(ctx, qp)
	}
	ns, name := qp.Pod.Namespace, *qp.Pod.Spec.SchedulingGroup.PodGroupName
	pg, ok := s.cluster.WorkloadPodGroup(ns, name)
	if !ok {
		return s.scheduleCycle(ctx, qp)
	}
	members := s.popGroup(qp, ns, name)
	group := &framework.PodGroupInfo{Namespace: ns, Name: name}
	for _, m := range members {
		group.UnscheduledPods = append(group.UnscheduledPods, m.Pod)
	}
	h := &schedCycleHandle{s: s, prof: prof}
	state := s.newState(h)
	snap := s.cluster.Snapshot()
	state.SetSnapshot(snap)
	parent := &framework.Placement{Nodes: snap.Nodes()}
	placements, st := s.generatePlacements(ctx, prof, state, group, parent)
	if !st.IsSuccess() {
		return s.podGroupFailed(members, prof, fmt.Sprintf("pod group %s/%s: %s", ns, name, st.Message()), true)
	}
	need := 1
	if pg.Spec.SchedulingPolicy.Gang != nil {
		need = pg.MinCount()
	}
	_, scheduled := s.cluster.WorkloadPodGroupCounts(ns, name)
	var feasible []*pgTrial
	var first *pgTrial
	for _, p := range placements {
		tr := s.tryPlacement(ctx, prof, h, p, p == parent, members)
		if first == nil {
			first = tr
		}
		if scheduled+tr.placed >= need {
			feasible = append(feasible, tr)
		}
	}
	if len(feasible) == 0 {
		msg := fmt.Sprintf("0/%d placements are available", len(placements))
		if first != nil {
			msg += ", first placement status: " + first.firstFailure()
		}
		return s.podGroupFailed(members, prof, msg, false)
	}
	best := feasible[0]
	if len(feasible) > 1 {
		if best, st = s.bestPlacement(ctx, prof, state, group, feasible); !st.IsSuccess() {
			return s.podGroupFailed(members, prof, st.Message(), true)
		}
	}
	var out Decision
	for i, m := range members {
		s.cycle++
		d := Decision{Cycle: s.cycle, Time: s.clock.Now(), Pod: m.key, Attempt: m.Attempts, Profile: prof.name}
		if node := best.nodes[i]; node != "" {
			d.Node, d.EvaluatedNodes, d.FeasibleNodes = node, len(best.placement.Nodes), 1
			d = s.assumeAndBind(ctx, m, prof, s.newState(h), m.PodInfo, node, d)
		} else {
			d.Outcome, d.Stage, d.Message = OutcomeUnschedulable, "Filter", best.failures[i]
			s.failed(m, d, nil, nil, &framework.NominatingInfo{Mode: framework.ModeOverride}, false)
		}
		if m == qp {
			out = d
		}
	}
	return out
}

// popGroup takes the group's queued pods out of the queue (in flight, as
// kube's PopSpecificPod) and orders them with qp: priority, first attempt,
// name.
func (s *Scheduler) popGroup(qp *queuedPod, ns, name string) []*queuedPod {
	members := []*queuedPod{qp}
	for _, r := range s.cluster.WorkloadPodGroupMembers(ns, name) {
		if r.State != StatePending || r.Pod.Key() == qp.key {
			continue
		}
		if m, ok := s.queue.get(r.Pod.Key()); ok && s.queue.takeSpecific(m) {
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
		return a.key < b.key
	})
	return members
}

// generatePlacements runs the profile's placementGenerate plugins, each on
// every placement the previous ones produced; without them (or without
// TopologyAwareWorkloadScheduling) the parent is the only placement.
func (s *Scheduler) generatePlacements(ctx context.Context, prof *schedProfile, state *framework.CycleState, group *framework.PodGroupInfo, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	placements := []*framework.Placement{parent}
	pp := s.workload.placements[prof.name]
	if pp == nil {
		return placements, nil
	}
	for _, g := range pp.generate {
		var next []*framework.Placement
		for _, p := range placements {
			out, st := g.GeneratePlacements(ctx, state, group, p)
			if !st.IsSuccess() {
				return nil, st.WithPlugin(g.Name())
			}
			next = append(next, out...)
		}
		placements = next
	}
	return placements, nil
}

// pgTrial is one placement tried for a group: each pod's proposed node
// ("" when none) or failure.
type pgTrial struct {
	placement *framework.Placement
	nodes     []string
	failures  []string
	placed    int
}

func (t *pgTrial) firstFailure() string {
	for _, f := range t.failures {
		if f != "" {
			return f
		}
	}
	return "no pod of the group fits"
}

// tryPlacement schedules the group's pods one by one on a copy of the
// placement's nodes (all nodes: a copy-on-write clone of the cluster's
// snapshot; a subset: a new snapshot of those nodes and their pods), each
// pod added to the copy once placed. The cluster is not changed.
func (s *Scheduler) tryPlacement(ctx context.Context, prof *schedProfile, h *schedCycleHandle, p *framework.Placement, all bool, members []*queuedPod) *pgTrial {
	tr := &pgTrial{placement: p, nodes: make([]string, len(members)), failures: make([]string, len(members))}
	var snap *framework.Snapshot
	if all {
		snap = s.cluster.Snapshot().Clone()
	} else {
		base := s.cluster.Snapshot()
		var nodes []*framework.Node
		var pods []*framework.Pod
		for _, ni := range p.Nodes {
			nodes = append(nodes, ni.Node())
			for _, pi := range ni.Pods {
				pods = append(pods, pi.Pod)
			}
		}
		var err error
		snap, err = framework.NewSnapshot(nodes, pods, framework.WithServices(base.Services...), framework.WithControllers(base.Controllers...),
			framework.WithDisruptionBudgets(base.DisruptionBudgets...))
		if err != nil {
			for i := range tr.failures {
				tr.failures[i] = err.Error()
			}
			return tr
		}
	}
	for i, m := range members {
		state := s.newState(h)
		opts := framework.CycleOptions{Rand: s.rng, NumFeasibleToFind: s.numToFind(prof, snap.NumNodes()), SkipExplanation: true}
		res, err := prof.fw.Schedule(ctx, state, snap, m.PodInfo, opts)
		state.Release()
		if err != nil {
			tr.failures[i] = err.Error()
			continue
		}
		node := res.SelectedNode()
		placed := *m.Pod
		placed.Spec.NodeName = node
		if err := snap.AddPod(&placed); err != nil {
			tr.failures[i] = err.Error()
			continue
		}
		tr.nodes[i] = node
		tr.placed++
	}
	return tr
}

// bestPlacement ranks feasible placements with the profile's placementScore
// plugins: each plugin's scores normalized, weighted and summed; the first
// of the best wins.
func (s *Scheduler) bestPlacement(ctx context.Context, prof *schedProfile, state *framework.CycleState, group *framework.PodGroupInfo, trials []*pgTrial) (*pgTrial, *framework.Status) {
	pp := s.workload.placements[prof.name]
	if pp == nil || len(pp.score) == 0 {
		return trials[0], nil
	}
	totals := make([]int64, len(trials))
	for k, pl := range pp.score {
		scores := make([]framework.PlacementScore, len(trials))
		for i, tr := range trials {
			a := &framework.PodGroupAssignments{Placement: tr.placement}
			for j, n := range tr.nodes {
				if n != "" {
					a.ProposedAssignments = append(a.ProposedAssignments, framework.ProposedAssignment{Pod: group.UnscheduledPods[j], NodeName: n})
				}
			}
			v, st := pl.ScorePlacement(ctx, state, group, a)
			if !st.IsSuccess() {
				return nil, st.WithPlugin(pl.Name())
			}
			scores[i] = framework.PlacementScore{Placement: tr.placement, Score: v}
		}
		if ext := pl.PlacementScoreExtensions(); ext != nil {
			if st := ext.NormalizePlacementScore(ctx, state, group, scores); !st.IsSuccess() {
				return nil, st.WithPlugin(pl.Name())
			}
		}
		for i := range scores {
			totals[i] += scores[i].Score * pp.weights[k]
		}
	}
	best := 0
	for i := range totals {
		if totals[i] > totals[best] {
			best = i
		}
	}
	return trials[best], nil
}

// podGroupFailed requeues every pod of the group with msg (an error backs
// off) and returns the first pod's decision.
func (s *Scheduler) podGroupFailed(members []*queuedPod, prof *schedProfile, msg string, isError bool) Decision {
	var first Decision
	for i, m := range members {
		s.cycle++
		d := Decision{Cycle: s.cycle, Time: s.clock.Now(), Pod: m.key, Attempt: m.Attempts, Profile: prof.name,
			Outcome: OutcomeUnschedulable, Stage: "PodGroup", Message: msg}
		if isError {
			d.Outcome = OutcomeError
		}
		s.failed(m, d, nil, nil, &framework.NominatingInfo{Mode: framework.ModeOverride}, isError)
		if i == 0 {
			first = d
		}
	}
	return first
}
