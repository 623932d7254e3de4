package st

import (
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// PtsConstraint builds a topology spread constraint; the arguments follow
// kube-scheduler's testing SpreadConstraint (nil pointers leave a field
// unset).
func PtsConstraint(maxSkew int32, key string, when api.UnsatisfiableConstraintAction, sel *api.LabelSelector, minDomains *int32, affinityPolicy, taintsPolicy *api.NodeInclusionPolicy, matchLabelKeys []string) api.TopologySpreadConstraint {
	return api.TopologySpreadConstraint{
		MaxSkew:            maxSkew,
		TopologyKey:        key,
		WhenUnsatisfiable:  when,
		LabelSelector:      sel,
		MinDomains:         minDomains,
		NodeAffinityPolicy: affinityPolicy,
		NodeTaintsPolicy:   taintsPolicy,
		MatchLabelKeys:     matchLabelKeys,
	}
}

// PtsDeletionTime is the deletion time PTS tests mark terminating pods
// with (any time does).
func PtsDeletionTime() time.Time { return time.Unix(0, 0).UTC() }

// PtsNodeTerm returns a node selector term of one expression key op values.
func PtsNodeTerm(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

// PtsExists returns a label selector requiring that each key exists.
func PtsExists(keys ...string) *api.LabelSelector {
	s := &api.LabelSelector{}
	for _, k := range keys {
		s.MatchExpressions = append(s.MatchExpressions, api.LabelSelectorRequirement{Key: k, Operator: api.LabelSelectorOpExists})
	}
	return s
}

// PtsMatchLabels returns a label selector with matchLabels from key/value
// pairs (an odd trailing key is ignored).
func PtsMatchLabels(kv ...string) *api.LabelSelector {
	s := &api.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

// PtsSpreadCluster builds n nodes named node-<i> with hostname labels and
// topology.kubernetes.io/zone labels zone-<i mod zones>, and two pods per
// node: one labeled app=web and one app=db (for topology spread
// benchmarks).
func PtsSpreadCluster(n, zones int) ([]*api.Node, []*api.Pod) {
	nodes := make([]*api.Node, 0, n)
	pods := make([]*api.Pod, 0, 2*n)
	for i := range n {
		name := "node-" + itoa(i)
		nodes = append(nodes, MakeNode().Name(name).Label("topology.kubernetes.io/zone", "zone-"+itoa(i%zones)).Obj())
		pods = append(pods,
			MakePod().Name("web-"+itoa(i)).Label("app", "web").Node(name).Obj(),
			MakePod().Name("db-"+itoa(i)).Label("app", "db").Node(name).Obj())
	}
	return nodes, pods
}
