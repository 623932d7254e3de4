package scoring

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/nodeaffinity"
)

// naPreScoreKey is kube's "PreScore"+NodeAffinity state key.
const naPreScoreKey framework.StateKey = "PreScore" + config.NodeAffinityName

type naPreScoreState struct {
	preferred *nodeaffinity.Preferred
	// indexed is the added and the pod's preferred terms resolved against
	// snap, the cycle's snapshot.
	added, indexed *nodeaffinity.IndexedPreferred
	snap           *framework.Snapshot
}

// Clone returns the state itself; it is read-only.
func (s *naPreScoreState) Clone() framework.StateData { return s }

// NodeAffinity is the score half of kube-scheduler v1.36's NodeAffinity:
// the raw score is the sum of the weights of the pod's preferred node
// affinity terms and of the args' added preferred terms that the node
// matches (terms with weight 0 or no expressions and fields are ignored);
// NormalizeScore is DefaultNormalizeScore(100, reverse=false). PreScore
// returns Skip when the pod has no preferred terms (nil) and no terms were
// added, and an Error when one of the pod's preferred terms fails to parse.
type NodeAffinity struct {
	added *nodeaffinity.Preferred
}

var (
	_ framework.PreScorePlugin       = (*NodeAffinity)(nil)
	_ framework.ScorePlugin          = (*NodeAffinity)(nil)
	_ framework.BatchScorePlugin     = (*NodeAffinity)(nil)
	_ framework.ScoreExtensions      = (*NodeAffinity)(nil)
	_ framework.BatchScoreExtensions = (*NodeAffinity)(nil)
)

// NewNodeAffinity builds the score half from args (validated as
// config.NodeAffinityArgs.Validate).
func NewNodeAffinity(args config.NodeAffinityArgs, _ framework.Handle) (framework.Plugin, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	pl := &NodeAffinity{}
	if a := args.AddedAffinity; a != nil && len(a.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
		p, err := nodeaffinity.NewPreferred(a.PreferredDuringSchedulingIgnoredDuringExecution, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution")
		if err != nil {
			return nil, fmt.Errorf("nodeaffinity: %w", err)
		}
		pl.added = p
	}
	return pl, nil
}

// NodeAffinityFactory is NewNodeAffinity as a framework.Factory: nil args mean
// config.DefaultNodeAffinityArgs(); a config.NodeAffinityArgs or a pointer to one is used as given.
func NodeAffinityFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.NodeAffinityName, args, h, config.DefaultNodeAffinityArgs, NewNodeAffinity)
}

// Name returns "NodeAffinity".
func (pl *NodeAffinity) Name() string { return config.NodeAffinityName }

func naPodPreferred(pod *api.Pod) (*nodeaffinity.Preferred, error) {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		return nodeaffinity.NewPreferred(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution")
	}
	return nil, nil
}

// PreScore compiles the pod's preferred terms.
func (pl *NodeAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	pref, err := naPodPreferred(pod.Pod)
	if err != nil {
		return framework.AsStatus(err)
	}
	if pref == nil && pl.added == nil {
		return framework.NewStatus(framework.Skip)
	}
	ps := &naPreScoreState{preferred: pref, snap: state.Snapshot()}
	if ps.snap != nil {
		ps.added, ps.indexed = pl.added.Indexed(ps.snap), pref.Indexed(ps.snap)
	}
	state.Write(naPreScoreKey, ps)
	return nil
}

// Score sums the weights of the matching preferred terms. Without PreScore
// state it compiles the pod's terms itself, as kube does.
func (pl *NodeAffinity) Score(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	n := node.Node()
	count := pl.added.Score(n)
	pref, st := naReadPreferred(state, pod)
	if st != nil {
		return 0, st
	}
	return count + pref.Score(n), nil
}

// naReadPreferred returns the PreScore state's preferred terms, or the
// pod's compiled afresh when PreScore did not run.
func naReadPreferred(state *framework.CycleState, pod *framework.PodInfo) (*nodeaffinity.Preferred, *framework.Status) {
	if d, err := state.Read(naPreScoreKey); err == nil {
		s, ok := d.(*naPreScoreState)
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("invalid PreScore state, got type %T", d))
		}
		return s.preferred, nil
	}
	pref, err := naPodPreferred(pod.Pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return pref, nil
}

// ScoreBatch is Score over nodes (framework.BatchScorePlugin), reading (or
// compiling) the preferred terms once. With the runner's snapshot
// indices, a node is scored by the terms PreScore resolved against the
// snapshot's label values.
func (pl *NodeAffinity) ScoreBatch(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	if idx != nil {
		if d, err := state.Read(naPreScoreKey); err == nil {
			if s, ok := d.(*naPreScoreState); ok && s.indexed != nil && s.snap == state.Snapshot() {
				out = out[:len(idx)]
				clear(out)
				s.added.AddScores(idx, out)
				s.indexed.AddScores(idx, out)
				return nil
			}
		}
	}
	pref, st := naReadPreferred(state, pod)
	if st != nil {
		return st
	}
	for i, node := range nodes {
		n := node.Node()
		out[i] = pl.added.Score(n) + pref.Score(n)
	}
	return nil
}

// ScoreExtensions returns the plugin itself (NormalizeScore).
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScoreBatch is NormalizeScore over a row of scores
// (framework.BatchScoreExtensions).
func (pl *NodeAffinity) NormalizeScoreBatch(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	DefaultNormalizeRow(framework.MaxNodeScore, false, scores)
	return nil
}

// NormalizeScore applies DefaultNormalizeScore(100, reverse=false).
func (pl *NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

var _ framework.NodeLocalPlugin = (*NodeAffinity)(nil)

// NodeLocal is true: the score matches preferred terms against the node.
func (pl *NodeAffinity) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*NodeAffinity)(nil)

// SignPod signs the pod's node affinity and nodeSelector
// (nodeaffinity/node_affinity.go).
func (pl *NodeAffinity) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return nodeaffinity.SignFragments(pod.Pod), nil
}

var _ framework.RangeNormalizer = (*NodeAffinity)(nil)

// NormalizeRange is NormalizeScore's table (framework.RangeNormalizer):
// DefaultNormalizeScore(100, reverse=false).
func (pl *NodeAffinity) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, false, lo, out)
	return true
}
