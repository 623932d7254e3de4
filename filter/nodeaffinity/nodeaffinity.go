// Package nodeaffinity is kube-scheduler's NodeAffinity plugin: a node that
// fails the pod's nodeSelector or required node affinity (or the args'
// added affinity) rejects the pod, and nodes matching more of the pod's
// (and the args') preferred terms score higher. Its verdicts and scores
// are those of v1.37 (the default release) and v1.36 alike. Node
// selector terms compile with internal/nodeselector, which the DRA
// allocator shares.
package nodeaffinity

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/nodeselector"
)

// NodeAffinity's filter reasons.
const (
	// ReasonPod: the node fails the pod's nodeSelector or
	// required node affinity.
	ReasonPod = "node(s) didn't match Pod's node affinity/selector"
	// ReasonEnforced: the node fails the plugin's addedAffinity.
	ReasonEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ReasonConflict: the pod's required terms name no node at
	// all through metadata.name (PreFilter).
	ReasonConflict = "pod affinity terms conflict"
)

// NodeAffinity is kube-scheduler's NodeAffinity plugin.
//
// PreFilter returns Skip when the pod has no required node affinity, no
// nodeSelector (nil) and the plugin has no added required affinity. When
// every required term names nodes through "metadata.name In", it returns a
// PreFilterResult with those nodes (intersected within a term, united
// across terms), or UnschedulableAndUnresolvable "pod affinity terms
// conflict" when that set is empty.
//
// Filter rejects (UnschedulableAndUnresolvable) a node that fails the
// added affinity ("node(s) didn't match scheduler-enforced node affinity")
// or the pod's nodeSelector and required terms ("node(s) didn't match
// Pod's node affinity/selector"). A term that fails to parse matches no
// node.
//
// The raw score is the sum of the weights of the pod's preferred node
// affinity terms and of the args' added preferred terms that the node
// matches (terms with weight 0 or no expressions and fields are ignored);
// NormalizeScore is DefaultNormalizeScore(100, reverse=false). PreScore
// returns Skip when the pod has no preferred terms (nil) and no terms were
// added, and an Error when one of the pod's preferred terms fails to parse.
type NodeAffinity struct {
	addedRequired  *nodeselector.Selector // the args' required terms (nil: none)
	addedPreferred *preferredTerms        // the args' preferred terms (nil: none)
	rejectPod      *framework.Status
	rejectEnforced *framework.Status
	conflict       *framework.Status
	// lastNames is the PreFilter outcome of the last pod whose
	// constraints only name nodes (namedTerms), shared by the next pod
	// naming the same ones (a DaemonSet's pods on one node).
	lastNames atomic.Pointer[naNamed]
}

var (
	_ framework.PreFilterPlugin             = (*NodeAffinity)(nil)
	_ framework.FilterPlugin                = (*NodeAffinity)(nil)
	_ fastpath.BatchFilterPlugin            = (*NodeAffinity)(nil)
	_ fastpath.TrustedRejectingFilterPlugin = (*NodeAffinity)(nil)
	_ framework.PreScorePlugin              = (*NodeAffinity)(nil)
	_ framework.ScorePlugin                 = (*NodeAffinity)(nil)
	_ fastpath.BatchScorePlugin             = (*NodeAffinity)(nil)
	_ framework.ScoreExtensions             = (*NodeAffinity)(nil)
	_ fastpath.BatchScoreExtensions         = (*NodeAffinity)(nil)
)

// New builds NodeAffinity from args, a NodeAffinityArgs or a pointer to
// one (nil: DefaultNodeAffinityArgs()), validated by
// NodeAffinityArgs.Validate. It is the plugin's framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.NodeAffinityName, args, h, DefaultNodeAffinityArgs, newNodeAffinity)
}

func newNodeAffinity(args NodeAffinityArgs, _ framework.Handle) (framework.Plugin, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	pl := &NodeAffinity{
		rejectPod:      framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonPod),
		rejectEnforced: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonEnforced),
		conflict:       framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonConflict),
	}
	if a := args.AddedAffinity; a != nil {
		if a.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			pl.addedRequired = nodeselector.NewSelector(a.RequiredDuringSchedulingIgnoredDuringExecution, "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution")
		}
		if len(a.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
			p, err := newPreferred(a.PreferredDuringSchedulingIgnoredDuringExecution, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution")
			if err != nil {
				return nil, fmt.Errorf("nodeaffinity: %w", err)
			}
			pl.addedPreferred = p
		}
	}
	return pl, nil
}

// Name returns "NodeAffinity".
func (pl *NodeAffinity) Name() string { return config.NodeAffinityName }

var _ fastpath.NodeLocalPlugin = (*NodeAffinity)(nil)

// NodeLocal is true: the verdict matches the pod's (and the args') node
// selectors, and the score its preferred terms, against the node's labels
// and fields.
func (pl *NodeAffinity) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*NodeAffinity)(nil)

// SignPod signs the pod's node affinity and nodeSelector
// (nodeaffinity/node_affinity.go).
func (pl *NodeAffinity) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return signFragments(pod.Pod), nil
}
