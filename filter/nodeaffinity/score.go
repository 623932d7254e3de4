package nodeaffinity

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

// naPreScoreKey is kube's "PreScore"+NodeAffinity state key.
const naPreScoreKey framework.StateKey = "PreScore" + config.NodeAffinityName

type naPreScoreState struct {
	preferred *preferredTerms
	// indexed is the added and the pod's preferred terms resolved against
	// snap, the cycle's snapshot.
	added, indexed *indexedPreferred
	snap           *framework.Snapshot
}

// Clone returns the state itself; it is read-only.
func (s *naPreScoreState) Clone() framework.StateData { return s }

func naPodPreferred(pod *api.Pod) (*preferredTerms, error) {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		return newPreferred(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution")
	}
	return nil, nil
}

var _ fastpath.NodeBlindPreScorePlugin = (*NodeAffinity)(nil)

// PreScoreIgnoresNodes marks the plugin as one whose PreScore compiles the
// pod's preferred terms against the snapshot, whatever the filters kept.
func (pl *NodeAffinity) PreScoreIgnoresNodes() {}

var _ fastpath.CycleScopedPreScorePlugin = (*NodeAffinity)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *NodeAffinity) PreScoreNodesInCycle() {}

// PreScore compiles the pod's preferred terms.
func (pl *NodeAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	snap := state.Snapshot()
	if snap == nil {
		pref, err := naPodPreferred(pod.Pod)
		if err != nil {
			return framework.AsStatus(err)
		}
		if pref == nil && pl.addedPreferred == nil {
			return framework.NewStatus(framework.Skip)
		}
		state.Write(naPreScoreKey, &naPreScoreState{preferred: pref})
		return nil
	}
	// Pods whose preferred terms are written alike share them compiled
	// and resolved against the snapshot's nodes.
	var buf [256]byte
	key := appendPreferredKey(append(buf[:0], naPrefMemoPrefix...), &pod.Pod.Spec)
	c := snap.NodesMemo(key, func() any {
		pref, err := naPodPreferred(pod.Pod)
		c := &naPrefCompiled{preferred: pref, err: err, snap: snap}
		if err == nil {
			c.indexed = pref.Indexed(snap)
		}
		return c
	}).(*naPrefCompiled)
	if c.err != nil {
		return framework.AsStatus(c.err)
	}
	if c.preferred == nil && pl.addedPreferred == nil {
		return framework.NewStatus(framework.Skip)
	}
	ps := &naPreScoreState{preferred: c.preferred, snap: snap}
	ps.added, ps.indexed = pl.addedPreferred.Indexed(snap), c.indexed
	if c.snap != snap { // a clone of the snapshot that resolved them
		ps.indexed = c.indexed.On(snap)
	}
	state.Write(naPreScoreKey, ps)
	return nil
}

// naPrefMemoPrefix starts the keys of the pods' preferred terms in the
// snapshot's NodesMemo.
const naPrefMemoPrefix = "NodeAffinity/preferred:"

// naPrefCompiled is a pod's preferred terms compiled (or the error
// compiling them) and resolved against a snapshot's nodes, kept in the
// snapshot's NodesMemo under naPrefMemoPrefix and appendPreferredKey's
// key; read-only.
type naPrefCompiled struct {
	preferred *preferredTerms
	indexed   *indexedPreferred
	err       error
	snap      *framework.Snapshot // the snapshot indexed was resolved against
}

// appendPreferredKey appends to b a key of the pod's preferred node
// affinity terms as written (each term's weight, then its requirements
// in order): pods whose terms are written alike get equal keys, and
// terms written differently get different keys.
func appendPreferredKey(b []byte, spec *api.PodSpec) []byte {
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution == nil {
		return append(b, '-')
	}
	terms := a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	b = appendLen(append(b, 'P'), len(terms))
	for i := range terms {
		t := &terms[i]
		b = appendLen(b, int(t.Weight))
		b = appendRequirementsKey(appendRequirementsKey(b, t.Preference.MatchExpressions), t.Preference.MatchFields)
	}
	return b
}

// Score sums the weights of the matching preferred terms. Without PreScore
// state it compiles the pod's terms itself, as kube does.
func (pl *NodeAffinity) Score(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	n := node.Node()
	count := pl.addedPreferred.Score(n)
	pref, st := naReadPreferred(state, pod)
	if st != nil {
		return 0, st
	}
	return count + pref.Score(n), nil
}

// naReadPreferred returns the PreScore state's preferred terms, or the
// pod's compiled afresh when PreScore did not run.
func naReadPreferred(state *framework.CycleState, pod *framework.PodInfo) (*preferredTerms, *framework.Status) {
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

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin), reading (or
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
		out[i] = pl.addedPreferred.Score(n) + pref.Score(n)
	}
	return nil
}

// ScoreExtensions returns the plugin itself (NormalizeScore).
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScoreBatch is NormalizeScore over a row of scores
// (fastpath.BatchScoreExtensions).
func (pl *NodeAffinity) NormalizeScoreBatch(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	scoring.DefaultNormalizeRow(framework.MaxNodeScore, false, scores)
	return nil
}

// NormalizeScore applies DefaultNormalizeScore(100, reverse=false).
func (pl *NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

var _ fastpath.RangeNormalizer = (*NodeAffinity)(nil)

// NormalizeRange is NormalizeScore's table (fastpath.RangeNormalizer):
// DefaultNormalizeScore(100, reverse=false).
func (pl *NodeAffinity) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, false, lo, out)
	return true
}
