package scoring

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// ttPreScoreKey is kube's "PreScore"+TaintToleration state key.
const ttPreScoreKey fw.StateKey = "PreScore" + config.TaintTolerationName

type ttPreScoreState struct{ tolerations []fw.Toleration }

// Clone returns the state itself; it is read-only.
func (s *ttPreScoreState) Clone() fw.StateData { return s }

// TaintToleration is the score half of kube-scheduler v1.36's
// TaintToleration: the raw score is the number of the node's
// PreferNoSchedule taints that none of the pod's tolerations with effect
// PreferNoSchedule or empty tolerates; NormalizeScore reverses it with
// DefaultNormalizeScore(100, reverse=true), so nodes with the fewest such
// taints score 100 (all 100 when no node has any).
type TaintToleration struct{}

var (
	_ fw.PreScorePlugin       = (*TaintToleration)(nil)
	_ fw.ScorePlugin          = (*TaintToleration)(nil)
	_ fw.BatchScorePlugin     = (*TaintToleration)(nil)
	_ fw.ScoreExtensions      = (*TaintToleration)(nil)
	_ fw.BatchScoreExtensions = (*TaintToleration)(nil)
)

// NewTaintToleration builds the score half (it has no args).
func NewTaintToleration(_ fw.Handle) (fw.Plugin, error) { return &TaintToleration{}, nil }

// Name returns "TaintToleration".
func (pl *TaintToleration) Name() string { return config.TaintTolerationName }

// PreScore keeps the pod's tolerations whose effect is empty or
// PreferNoSchedule.
func (pl *TaintToleration) PreScore(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, _ []*fw.NodeInfo) *fw.Status {
	var tols []fw.Toleration
	for _, t := range pod.Pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == fw.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	state.Write(ttPreScoreKey, &ttPreScoreState{tolerations: tols})
	return nil
}

// Score counts the intolerable PreferNoSchedule taints of node. Without
// PreScore state it returns an Error, as kube does.
func (pl *TaintToleration) Score(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, node *fw.NodeInfo) (int64, *fw.Status) {
	s, st := ttReadPreScoreState(state)
	if st != nil {
		return 0, st
	}
	return ttIntolerable(s.tolerations, node.Node().Spec.Taints), nil
}

func ttReadPreScoreState(state *fw.CycleState) (*ttPreScoreState, *fw.Status) {
	d, err := state.Read(ttPreScoreKey)
	if err != nil {
		return nil, fw.AsStatus(fmt.Errorf("failed to read %q from cycleState: %w", ttPreScoreKey, err))
	}
	s, ok := d.(*ttPreScoreState)
	if !ok {
		return nil, fw.AsStatus(fmt.Errorf("%+v convert to tainttoleration.preScoreState error", d))
	}
	return s, nil
}

// ttMaxClasses bounds the taint classes whose counts ScoreBatch takes up
// front; with more, it counts node by node.
const ttMaxClasses = 64

// ttIntolerable counts the PreferNoSchedule taints that tols do not
// tolerate.
func ttIntolerable(tols []fw.Toleration, taints []fw.Taint) int64 {
	var n int64
	for i := range taints {
		if taints[i].Effect == fw.TaintEffectPreferNoSchedule && !fw.TolerationsTolerateTaint(tols, &taints[i]) {
			n++
		}
	}
	return n
}

// ScoreBatch is Score over nodes (framework.BatchScorePlugin), reading the
// PreScore state once; an untainted node costs one length check. With the
// runner's snapshot indices, the count is taken once per taint class
// (Snapshot.TaintClasses), when there are few, and read by each node of
// the class.
func (pl *TaintToleration) ScoreBatch(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo, idx []int32, out []int64) *fw.Status {
	s, st := ttReadPreScoreState(state)
	if st != nil {
		return st
	}
	if idx != nil {
		if tc := state.Snapshot().TaintClasses(); len(tc.Taints) <= ttMaxClasses {
			var buf [ttMaxClasses]int64
			counts := buf[:len(tc.Taints)]
			for c, taints := range tc.Taints {
				counts[c] = ttIntolerable(s.tolerations, taints)
			}
			class := tc.Class
			for i, k := range idx {
				out[i] = counts[class[k]]
			}
			return nil
		}
	}
	for i, node := range nodes {
		var n int64
		if taints := node.Node().Spec.Taints; len(taints) > 0 {
			n = ttIntolerable(s.tolerations, taints)
		}
		out[i] = n
	}
	return nil
}

// ScoreExtensions returns the plugin itself (NormalizeScore).
func (pl *TaintToleration) ScoreExtensions() fw.ScoreExtensions { return pl }

// NormalizeScoreBatch is NormalizeScore over a row of scores
// (framework.BatchScoreExtensions).
func (pl *TaintToleration) NormalizeScoreBatch(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, _ []*fw.NodeInfo, scores []int64) *fw.Status {
	batchDefaultNormalize(fw.MaxNodeScore, true, scores)
	return nil
}

// NormalizeScore applies DefaultNormalizeScore(100, reverse=true).
func (pl *TaintToleration) NormalizeScore(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, scores fw.NodeScoreList) *fw.Status {
	return fw.DefaultNormalizeScore(fw.MaxNodeScore, true, scores)
}
