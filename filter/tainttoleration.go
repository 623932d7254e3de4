package filter

import (
	"context"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// ReasonUntoleratedTaint is kube-scheduler v1.36 TaintToleration's filter
// reason. Since v1.35 (PR #134740) it no longer names the taint's key and
// value ("node(s) had untolerated taint {key: value}" before).
const ReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// TaintToleration is the filter half of kube-scheduler v1.36's
// TaintToleration: a node with a NoSchedule or NoExecute taint that none of
// the pod's tolerations tolerates is rejected (UnschedulableAndUnresolvable).
// Toleration operators Lt and Gt (feature-gated, off by default in v1.36)
// tolerate nothing.
type TaintToleration struct{ reject *fw.Status }

var (
	_ fw.FilterPlugin      = (*TaintToleration)(nil)
	_ fw.BatchFilterPlugin = (*TaintToleration)(nil)
)

// NewTaintToleration builds the filter (it has no args).
func NewTaintToleration(_ fw.Handle) (fw.Plugin, error) {
	return &TaintToleration{reject: fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonUntoleratedTaint)}, nil
}

// Name returns "TaintToleration".
func (pl *TaintToleration) Name() string { return config.TaintTolerationName }

// Filter rejects node when one of its NoSchedule/NoExecute taints is not
// tolerated.
func (pl *TaintToleration) Filter(_ context.Context, _ *fw.CycleState, pod *fw.PodInfo, node *fw.NodeInfo) *fw.Status {
	return pl.filter(pod.Pod.Spec.Tolerations, node.Node().Spec.Taints)
}

// FilterBatch is Filter over nodes (framework.BatchFilterPlugin); an
// untainted node costs one length check. With the runner's snapshot
// indices, the verdict is decided once per taint class
// (Snapshot.TaintClasses), when there are few, and read by each node of
// the class.
func (pl *TaintToleration) FilterBatch(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, idx []int32, out []*fw.Status) {
	tols := pod.Pod.Spec.Tolerations
	if idx != nil {
		if verdicts, class := pl.classVerdicts(state, tols); verdicts != nil {
			for i, k := range idx {
				if v := verdicts[class[k]]; v != nil {
					out[i] = v
				}
			}
			return
		}
	}
	for i, node := range nodes {
		if taints := node.Node().Spec.Taints; len(taints) > 0 {
			out[i] = pl.filter(tols, taints)
		}
	}
}

// ttMaxClasses bounds the taint classes whose verdicts FilterBatch decides
// up front; with more, it decides node by node.
const ttMaxClasses = 64

// ttClassesKey holds the cycle's verdicts by taint class, decided by the
// first FilterBatch call of the cycle.
const ttClassesKey fw.StateKey = "FilterBatch" + config.TaintTolerationName

type ttClassVerdicts struct {
	classes  *fw.TaintClasses
	verdicts []*fw.Status
}

// Clone returns the verdicts themselves; they are read-only.
func (v *ttClassVerdicts) Clone() fw.StateData { return v }

// classVerdicts returns the verdict of every taint class of the cycle's
// snapshot and the nodes' classes, deciding them on the cycle's first call,
// or nil when there are more than ttMaxClasses classes.
func (pl *TaintToleration) classVerdicts(state *fw.CycleState, tols []fw.Toleration) ([]*fw.Status, []int32) {
	tc := state.Snapshot().TaintClasses()
	if len(tc.Taints) > ttMaxClasses {
		return nil, nil
	}
	if d, err := state.Read(ttClassesKey); err == nil {
		if v, ok := d.(*ttClassVerdicts); ok && v.classes == tc {
			return v.verdicts, tc.Class
		}
	}
	v := &ttClassVerdicts{classes: tc, verdicts: make([]*fw.Status, len(tc.Taints))}
	for c, taints := range tc.Taints {
		v.verdicts[c] = pl.filter(tols, taints)
	}
	// Concurrent first calls may each decide them; the verdicts are equal.
	state.Write(ttClassesKey, v)
	return v.verdicts, tc.Class
}

func (pl *TaintToleration) filter(tols []fw.Toleration, taints []fw.Taint) *fw.Status {
	for i := range taints {
		t := &taints[i]
		if t.Effect != fw.TaintEffectNoSchedule && t.Effect != fw.TaintEffectNoExecute {
			continue
		}
		if !fw.TolerationsTolerateTaint(tols, t) {
			return pl.reject
		}
	}
	return nil
}
