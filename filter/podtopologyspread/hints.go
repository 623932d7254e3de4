package podtopologyspread

import (
	"context"
	"maps"
	"slices"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

var _ framework.EnqueueExtensions = (*PodTopologySpread)(nil)

// EventsToRegister: pods added, deleted, relabelled or given tolerations;
// nodes added, deleted, relabelled or retainted
// (podtopologyspread/plugin.go).
func (pl *PodTopologySpread) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.PodEvent(framework.Add | framework.UpdatePodLabel | framework.UpdatePodToleration | framework.Delete), QueueingHintFn: pl.afterPodChange},
		{Event: filter.NodeEvent(framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
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
	cs, err := buildConstraints(pod.Pod, api.DoNotSchedule, pl.defaults, snap)
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

func honorsTaints(cs []constraint) bool {
	for i := range cs {
		if cs[i].NodeTaintsPolicy == api.NodeInclusionPolicyHonor {
			return true
		}
	}
	return false
}

// nodeHasAllKeys reports whether labels has every constraint's topology key.
func nodeHasAllKeys(labels map[string]string, cs []constraint) bool {
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
	cs, err := buildConstraints(pod.Pod, api.DoNotSchedule, pl.defaults, snap)
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

func topologyValuesChanged(before, after map[string]string, cs []constraint) bool {
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
