package runtime

import (
	"context"
	"errors"

	"github.com/schedkit/schedkit/framework"
)

// ScoreNodes runs the scoring half of a cycle over nodes that the caller
// already filtered: PreScore, Score, NormalizeScore, the [0,100] check and
// the weights — kube-scheduler's prioritizeNodes without the extenders —
// and returns each node's weighted total, in the order of nodes. With no
// Score plugin every total is 1 (as kube-scheduler's prioritizeNodes).
//
// state must carry the snapshot the plugins read (CycleState.SetSnapshot);
// nodes are usually that snapshot's own NodeInfos (the plugins' fast paths),
// but any NodeInfo works. An extender server scores a prioritize request
// with it.
func (f *Framework) ScoreNodes(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) ([]int64, error) {
	if pod == nil || pod.Pod == nil {
		return nil, errors.New("framework: ScoreNodes: nil pod")
	}
	if state == nil {
		return nil, errors.New("framework: ScoreNodes: nil CycleState")
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	snap := state.Snapshot()
	res := &Result{Pod: pod, snap: snap, order: nodes, candidates: nodes, selected: -1}
	res.feasible = make([]int32, len(nodes))
	for i := range res.feasible {
		res.feasible[i] = int32(i)
	}
	for _, ni := range nodes {
		if ni == nil || ni.Node() == nil {
			return nil, errors.New("framework: ScoreNodes: a node without a Node object")
		}
		if k := ni.Index(); snap == nil || k < 0 || k >= len(snap.Nodes()) || snap.Nodes()[k] != ni {
			res.extNodes = nodes // not all the snapshot's own: no indices
		}
	}
	if err := f.scoreNodes(ctx, state, pod, CycleOptions{SkipExplanation: true, TotalsOnly: true, noExtenders: true}, res, nil); err != nil {
		return nil, err
	}
	return res.Totals, nil
}
