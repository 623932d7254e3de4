package filter

import (
	"context"
	"maps"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/topologyspread"
	"github.com/schedkit/schedkit/resource"
)

// Queueing hints: the cluster events each filter registers and the hint
// functions that tell whether an event may undo its rejection, as
// kube-scheduler v1.36's plugins with SchedulerQueueingHints on (GA), and
// Koordinator's LoadAwareScheduling. Each function cites its anchor.

var (
	_ framework.EnqueueExtensions = (*NodeUnschedulable)(nil)
	_ framework.EnqueueExtensions = (*NodeName)(nil)
	_ framework.EnqueueExtensions = (*TaintToleration)(nil)
	_ framework.EnqueueExtensions = (*NodeAffinity)(nil)
	_ framework.EnqueueExtensions = (*NodePorts)(nil)
	_ framework.EnqueueExtensions = (*NodeResourcesFit)(nil)
	_ framework.EnqueueExtensions = (*PodTopologySpread)(nil)
	_ framework.EnqueueExtensions = (*InterPodAffinity)(nil)
	_ framework.EnqueueExtensions = (*LoadAware)(nil)
)

func nodeEvent(a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: a}
}

func podEvent(a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: a}
}

// EventsToRegister: a node added or updated that is not cordoned, or a new
// toleration of the pod (nodeunschedulable/node_unschedulable.go).
func (pl *NodeUnschedulable) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: nodeEvent(framework.Add | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
		{Event: podEvent(framework.UpdatePodToleration), QueueingHintFn: pl.afterPodTolerationChange},
	}, nil
}

// afterNodeChange: Queue when the node was added schedulable or was
// uncordoned.
func (pl *NodeUnschedulable) afterNodeChange(_ *framework.Snapshot, _ *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (oldNode != nil && oldNode.Spec.Unschedulable && !newNode.Spec.Unschedulable) || (oldNode == nil && !newNode.Spec.Unschedulable) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterPodTolerationChange: Queue when the rejected pod itself now
// tolerates the unschedulable taint.
func (pl *NodeUnschedulable) afterPodTolerationChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if framework.SamePod(modified.Pod, pod.Pod) && api.TolerationsTolerateTaint(modified.Pod.Spec.Tolerations, &pl.taint) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// EventsToRegister: a node added, without a hint (nodename/node_name.go).
func (pl *NodeName) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{Event: nodeEvent(framework.Add)}}, nil
}

// EventsToRegister: a node added or its taints changed, or a new toleration
// of the pod (tainttoleration/taint_toleration.go).
func (pl *TaintToleration) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: nodeEvent(framework.Add | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
		{Event: podEvent(framework.UpdatePodToleration), QueueingHintFn: pl.afterPodTolerationChange},
	}, nil
}

// afterNodeChange: Queue when the node had (or, added, is taken to have
// had) an untolerated NoSchedule/NoExecute taint and now has none.
func (pl *TaintToleration) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	tols := pod.Pod.Spec.Tolerations
	wasUntolerated := oldNode == nil || pl.filter(tols, oldNode.Spec.Taints) != nil
	if wasUntolerated && pl.filter(tols, newNode.Spec.Taints) == nil {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterPodTolerationChange: Queue when the updated pod is the rejected one.
func (pl *TaintToleration) afterPodTolerationChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if framework.SamePod(modified.Pod, pod.Pod) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// EventsToRegister: a node added or its labels changed
// (nodeaffinity/node_affinity.go).
func (pl *NodeAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: nodeEvent(framework.Add | framework.UpdateNodeLabel), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// afterNodeChange: Queue when the node matches the added affinity and the
// pod's nodeSelector and required affinity now, and did not before (or
// was added).
func (pl *NodeAffinity) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if pl.added != nil && !pl.added.Match(newNode) {
		return framework.QueueSkip, nil
	}
	req := api.GetRequiredNodeAffinity(pod.Pod)
	if !req.Match(newNode) {
		return framework.QueueSkip, nil
	}
	if oldNode == nil || !req.Match(oldNode) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// EventsToRegister: a placed pod deleted, or a node added (without a hint)
// (nodeports/node_ports.go).
func (pl *NodePorts) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: podEvent(framework.Delete), QueueingHintFn: pl.afterPodDeleted},
		{Event: nodeEvent(framework.Add)},
	}, nil
}

// afterPodDeleted: Queue when the deleted pod was placed (or nominated) and
// held a host port the rejected pod wants.
func (pl *NodePorts) afterPodDeleted(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, _, err := framework.EventObjects[framework.PodInfo](oldObj, nil)
	if err != nil {
		return framework.Queue, err
	}
	if deleted.Pod.Spec.NodeName == "" && deleted.Pod.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	ports := framework.HostPorts(deleted.Pod)
	if len(ports) == 0 {
		return framework.QueueSkip, nil
	}
	inUse := framework.HostPortInfo{}
	for _, p := range ports {
		inUse.Add(p.HostIP, p.Protocol, p.HostPort)
	}
	for _, p := range framework.HostPorts(pod.Pod) {
		if inUse.CheckConflict(p.HostIP, p.Protocol, p.HostPort) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// EventsToRegister: a placed pod deleted or scaled down, a node added or
// its allocatable changed (noderesources/fit.go; InPlacePodVerticalScaling
// is GA, so scale-downs count).
func (pl *NodeResourcesFit) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: podEvent(framework.Delete | framework.UpdatePodScaleDown), QueueingHintFn: pl.afterPodEvent},
		{Event: nodeEvent(framework.Add | framework.UpdateNodeAllocatable), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// afterPodEvent: Queue when a placed (or nominated) pod was deleted, or
// when the rejected pod itself, or a placed pod, lowered a request the
// rejected pod makes (isSchedulableAfterPodEvent).
func (pl *NodeResourcesFit) afterPodEvent(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		if original.Pod.Spec.NodeName == "" && original.Pod.Status.NominatedNodeName == "" {
			return framework.QueueSkip, nil
		}
		return framework.Queue, nil
	}
	if framework.SamePod(modified.Pod, pod.Pod) {
		return framework.Queue, nil
	}
	if modified.Pod.Spec.NodeName == "" || original == nil {
		return framework.QueueSkip, nil
	}
	if scaledDownFor(&pod.Requests, &original.Requests, &modified.Requests) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// scaledDownFor reports whether some resource want requests went down from
// before to after (isSchedulableAfterPodScaleDown).
func scaledDownFor(want, before, after *resource.Vector) bool {
	if want.MilliCPU != 0 && before.MilliCPU > after.MilliCPU ||
		want.Memory != 0 && before.Memory > after.Memory ||
		want.EphemeralStorage != 0 && before.EphemeralStorage > after.EphemeralStorage {
		return true
	}
	for _, sc := range want.Scalars {
		if sc.Value != 0 && before.Get(sc.Name) > after.Get(sc.Name) {
			return true
		}
	}
	return false
}

// afterNodeChange: Queue when the pod fits the node's allocatable on its
// own, and the node was added or a resource the pod needs (or its pod
// count) went up (isSchedulableAfterNodeChange). Ignored resources are not
// ignored here, as in kube's isFit.
func (pl *NodeResourcesFit) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	alloc := resource.VectorFrom(newNode.Status.Allocatable)
	req := pod.SpecRequests() // isFit: computePodResourceRequest, the spec alone
	if !fitsAlone(req, &alloc) {
		return framework.QueueSkip, nil
	}
	if oldNode == nil {
		return framework.Queue, nil
	}
	before := resource.VectorFrom(oldNode.Status.Allocatable)
	if requestedIncreased(req, &before, &alloc) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// fitsAlone reports whether a pod with requests req fits an empty node of
// allocatable alloc (kube's isFit: one pod, every positive request).
func fitsAlone(req, alloc *resource.Vector) bool {
	if 1 > alloc.Pods {
		return false
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU || req.Memory > 0 && req.Memory > alloc.Memory ||
		req.EphemeralStorage > 0 && req.EphemeralStorage > alloc.EphemeralStorage {
		return false
	}
	for _, sc := range req.Scalars {
		if sc.Value > 0 && sc.Value > alloc.Get(sc.Name) {
			return false
		}
	}
	return true
}

// requestedIncreased is kube's haveAnyRequestedResourcesIncreased: the pod
// count went up, or a resource the pod requests did.
func requestedIncreased(req, before, after *resource.Vector) bool {
	if after.Pods > before.Pods {
		return true
	}
	if req.MilliCPU > 0 && after.MilliCPU > before.MilliCPU || req.Memory > 0 && after.Memory > before.Memory ||
		req.EphemeralStorage > 0 && after.EphemeralStorage > before.EphemeralStorage {
		return true
	}
	for _, sc := range req.Scalars {
		if sc.Value != 0 && after.Get(sc.Name) > before.Get(sc.Name) {
			return true
		}
	}
	return false
}

// EventsToRegister: pods added, deleted, relabelled or given tolerations;
// nodes added, deleted, relabelled or retainted
// (podtopologyspread/plugin.go).
func (pl *PodTopologySpread) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: podEvent(framework.Add | framework.UpdatePodLabel | framework.UpdatePodToleration | framework.Delete), QueueingHintFn: pl.afterPodChange},
		{Event: nodeEvent(framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// involvedInSpreading: the event's pod is the rejected pod, or a placed
// (or nominated) pod of its namespace.
func involvedInSpreading(incoming, spreading *api.Pod) bool {
	if framework.SamePod(incoming, spreading) {
		return true
	}
	if incoming.Spec.NodeName == "" && incoming.Status.NominatedNodeName == "" {
		return false
	}
	return incoming.Namespace == spreading.Namespace
}

// afterPodChange is kube's isSchedulableAfterPodChange: Queue when a pod
// of the namespace that matches one of the pod's DoNotSchedule constraints
// (its own, or the defaults) was added or deleted, when a placed pod's
// label change flips a constraint's match, or when the rejected pod got a
// toleration and a constraint honours taints.
func (pl *PodTopologySpread) afterPodChange(snap *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (modified != nil && !involvedInSpreading(modified.Pod, pod.Pod)) || (original != nil && !involvedInSpreading(original.Pod, pod.Pod)) {
		return framework.QueueSkip, nil
	}
	cs, err := topologyspread.Build(pod.Pod, api.DoNotSchedule, pl.defaults, snap)
	if err != nil {
		return framework.Queue, err
	}
	if modified != nil && original != nil {
		if framework.SamePod(pod.Pod, modified.Pod) && !slices.EqualFunc(modified.Pod.Spec.Tolerations, original.Pod.Spec.Tolerations, sameToleration) && honorsTaints(cs) {
			return framework.Queue, nil
		}
		if maps.Equal(modified.Pod.Labels, original.Pod.Labels) {
			return framework.QueueSkip, nil
		}
		for i := range cs {
			if cs[i].Selector.Matches(original.Pod.Labels) != cs[i].Selector.Matches(modified.Pod.Labels) {
				return framework.Queue, nil
			}
		}
		return framework.QueueSkip, nil
	}
	p := original
	if modified != nil {
		p = modified
	}
	for i := range cs {
		if cs[i].Selector.Matches(p.Pod.Labels) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

func honorsTaints(cs []topologyspread.Constraint) bool {
	for i := range cs {
		if cs[i].NodeTaintsPolicy == api.NodeInclusionPolicyHonor {
			return true
		}
	}
	return false
}

// nodeHasAllKeys reports whether labels has every constraint's topology key.
func nodeHasAllKeys(labels map[string]string, cs []topologyspread.Constraint) bool {
	for i := range cs {
		if _, ok := labels[cs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// afterNodeChange is kube's isSchedulableAfterNodeChange: Queue when a
// node with every topology key was added or deleted, when an update
// changed whether the node has them all, or, for a node that has them,
// changed a topology value or its taints.
func (pl *PodTopologySpread) afterNodeChange(snap *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	cs, err := topologyspread.Build(pod.Pod, api.DoNotSchedule, pl.defaults, snap)
	if err != nil {
		return framework.Queue, err
	}
	var oldMatch, newMatch bool
	if oldNode != nil {
		oldMatch = nodeHasAllKeys(oldNode.Labels, cs)
	}
	if newNode != nil {
		newMatch = nodeHasAllKeys(newNode.Labels, cs)
	}
	switch {
	case oldNode != nil && newNode != nil:
		if oldMatch != newMatch {
			return framework.Queue, nil
		}
		if newMatch && (topologyValuesChanged(oldNode.Labels, newNode.Labels, cs) || !slices.EqualFunc(oldNode.Spec.Taints, newNode.Spec.Taints, sameTaint)) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case newNode != nil:
		if newMatch {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	if oldMatch {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func topologyValuesChanged(before, after map[string]string, cs []topologyspread.Constraint) bool {
	for i := range cs {
		if before[cs[i].TopologyKey] != after[cs[i].TopologyKey] {
			return true
		}
	}
	return false
}

// sameToleration compares tolerations by value (TolerationSeconds by
// number).
func sameToleration(a, b api.Toleration) bool {
	if a.Key != b.Key || a.Operator != b.Operator || a.Value != b.Value || a.Effect != b.Effect ||
		(a.TolerationSeconds == nil) != (b.TolerationSeconds == nil) {
		return false
	}
	return a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds
}

// sameTaint compares taints by value (TimeAdded by time).
func sameTaint(a, b api.Taint) bool {
	if a.Key != b.Key || a.Value != b.Value || a.Effect != b.Effect || (a.TimeAdded == nil) != (b.TimeAdded == nil) {
		return false
	}
	return a.TimeAdded == nil || a.TimeAdded.Equal(*b.TimeAdded)
}

// EventsToRegister: placed pods added, relabelled or deleted; nodes added
// or relabelled (interpodaffinity/plugin.go).
func (pl *InterPodAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: podEvent(framework.Add | framework.UpdatePodLabel | framework.Delete), QueueingHintFn: pl.afterPodChange},
		{Event: nodeEvent(framework.Add | framework.UpdateNodeLabel), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// matchesAllTerms reports whether pod matches every term (false without
// terms); namespace selectors see no namespace labels, as kube's
// podMatchesAllAffinityTerms.
func matchesAllTerms(terms []framework.AffinityTerm, pod *api.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

// afterPodChange is kube's isSchedulableAfterPodChange: Queue when the
// rejected pod's own labels changed; a placed pod added that matches all
// its affinity terms; a placed pod updated to match all its affinity terms
// or to stop matching all its anti-affinity terms; a placed pod deleted
// that matched all its anti-affinity terms, or whose own anti-affinity the
// rejected pod matched.
func (pl *InterPodAffinity) afterPodChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified != nil && original != nil && framework.SamePod(modified.Pod, pod.Pod) {
		return framework.Queue, nil
	}
	unplaced := func(p *framework.PodInfo) bool {
		return p != nil && p.Pod.Spec.NodeName == "" && p.Pod.Status.NominatedNodeName == ""
	}
	if unplaced(modified) || unplaced(original) {
		return framework.QueueSkip, nil
	}
	terms, anti := pod.RequiredAffinityTerms, pod.RequiredAntiAffinityTerms
	switch {
	case modified != nil && original != nil:
		if !matchesAllTerms(terms, original.Pod) && matchesAllTerms(terms, modified.Pod) {
			return framework.Queue, nil
		}
		if matchesAllTerms(anti, original.Pod) && !matchesAllTerms(anti, modified.Pod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case modified != nil:
		if matchesAllTerms(terms, modified.Pod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	if matchesAllTerms(anti, original.Pod) || matchesAllTerms(original.RequiredAntiAffinityTerms, pod.Pod) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterNodeChange is kube's isSchedulableAfterNodeChange: Queue when a node
// with an affinity term's topology key was added, got the key, or moved to
// another domain of it; for anti-affinity, when any node was added, or a
// node lost an anti-affinity term's key or moved to another domain of it.
func (pl *InterPodAffinity) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	for i := range pod.RequiredAffinityTerms {
		key := pod.RequiredAffinityTerms[i].TopologyKey
		if oldNode == nil {
			if _, ok := newNode.Labels[key]; ok {
				return framework.Queue, nil
			}
			continue
		}
		ov, oh := oldNode.Labels[key]
		nv, nh := newNode.Labels[key]
		if !oh && nh || oh && nh && ov != nv {
			return framework.Queue, nil
		}
	}
	for i := range pod.RequiredAntiAffinityTerms {
		if oldNode == nil {
			return framework.Queue, nil
		}
		key := pod.RequiredAntiAffinityTerms[i].TopologyKey
		ov, oh := oldNode.Labels[key]
		nv, nh := newNode.Labels[key]
		if oh && !nh || oh && nh && ov != nv {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// EventsToRegister is Koordinator's LoadAwareScheduling's
// (pkg/scheduler/plugins/loadaware/load_aware.go): a pod deleted, a
// NodeMetric added, updated or deleted, each without a hint (always Queue).
func (pl *LoadAware) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: podEvent(framework.Delete)},
		{Event: framework.ClusterEvent{Resource: framework.ResourceNodeMetric, ActionType: framework.Add | framework.Update | framework.Delete}},
	}, nil
}

var _ framework.EnqueueExtensions = SchedulingGates{}

// EventsToRegister: the pod's own update removing its last gate
// (schedulinggates/scheduling_gates.go).
func (SchedulingGates) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: podEvent(framework.UpdatePodSchedulingGatesEliminated), QueueingHintFn: gatesEliminated},
	}, nil
}

// gatesEliminated: Queue when the updated pod is the gated one.
func gatesEliminated(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil || !framework.SamePod(modified.Pod, pod.Pod) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
