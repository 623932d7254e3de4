package runtime

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/parallel"
)

// PluginVerdict is one Filter plugin's verdict on one node
// (CycleOptions.ExplainFilters).
type PluginVerdict struct {
	Plugin string
	// Code is Success when the plugin accepts the node.
	Code    framework.Code
	Reasons []string
	// Skipped says the plugin's PreFilter returned Skip: its Filter did
	// not run this cycle.
	Skipped bool
}

// explainFilters runs every Filter plugin on every candidate node and
// keeps each status in res.filterVerdicts (candidate k, plugin j at
// k·len(f.filter)+j; nil is Success). A node with nominated pods of higher
// or equal priority is checked as RunFilterPluginsWithNominatedPods checks
// it, plugin by plugin: with those pods added first, then, if the plugin
// accepts, without them.
func (f *Framework) explainFilters(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, candidates []*framework.NodeInfo, nominated func(string) []*framework.PodInfo, res *Result) {
	np := len(f.filter)
	out := make([]*framework.Status, len(candidates)*np)
	pool, chunk := f.loop(len(candidates))
	pool.Ordered(len(candidates), chunk, parallel.Func(func(_, lo, hi int) bool {
		for k := lo; k < hi; k++ {
			ni := candidates[k]
			withState, withNode := state, ni
			if nominated != nil {
				withState, withNode = f.withNominated(ctx, state, pod, ni, nominated(ni.Name()))
			}
			for j, pl := range f.filter {
				if state.SkipFilter(pl.Name()) {
					continue
				}
				s := pl.Filter(ctx, withState, pod, withNode)
				if s.IsSuccess() && withNode != ni {
					s = pl.Filter(ctx, state, pod, ni)
				}
				if !s.IsSuccess() {
					out[k*np+j] = s
				}
			}
		}
		return false
	}))
	res.filterVerdicts = out
}

// withNominated returns state and node with the nominated pods that
// RunFilterPluginsWithNominatedPods would add (priority at least the
// pod's, not the pod itself) added, or state and node themselves when
// there are none or adding one fails.
func (f *Framework) withNominated(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo, nominated []*framework.PodInfo) (*framework.CycleState, *framework.NodeInfo) {
	var st *framework.CycleState
	var ni *framework.NodeInfo
	for _, np := range nominated {
		if np.Pod.PriorityValue() < pod.Pod.PriorityValue() || framework.SamePod(np.Pod, pod.Pod) {
			continue
		}
		if st == nil {
			st, ni = state.Clone(), node.Clone()
		}
		ni.AddPodInfo(np)
		if s := f.RunPreFilterExtensionAddPod(ctx, st, pod, np, ni); !s.IsSuccess() {
			return state, node
		}
	}
	if st == nil {
		return state, node
	}
	return st, ni
}

// filterVerdictsOf returns every Filter plugin's verdict on candidate k,
// or nil when the cycle did not explain its filters.
func (r *Result) filterVerdictsOf(k int) []PluginVerdict {
	if r.filterVerdicts == nil || r.fw == nil {
		return nil
	}
	np := len(r.fw.filter)
	out := make([]PluginVerdict, np)
	for j, pl := range r.fw.filter {
		v := PluginVerdict{Plugin: pl.Name()}
		if s := r.filterVerdicts[k*np+j]; s != nil {
			v.Code, v.Reasons = s.Code(), s.Reasons()
		}
		for _, name := range r.SkippedFilter {
			v.Skipped = v.Skipped || name == v.Plugin
		}
		out[j] = v
	}
	return out
}

// explainRejections asks the plugin behind each rejection made by a Filter
// plugin that implements framework.FilterExplainer for its details, kept
// in res.rejectionDetails by rejection.
func (f *Framework) explainRejections(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, res *Result) {
	var out [][]string
	for i, x := range res.rejections {
		if x.by < 0 || x.status == nil {
			continue
		}
		pl := f.filter[x.by]
		ex, ok := pl.(framework.FilterExplainer)
		if !ok {
			continue
		}
		d := ex.ExplainRejection(ctx, state, pod, res.nodeAt(x.pos), x.status)
		if len(d) == 0 {
			continue
		}
		if out == nil {
			out = make([][]string, len(res.rejections))
		}
		out[i] = d
	}
	res.rejectionDetails = out
}
