package filter

import (
	"context"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// ReasonUntoleratedTaint is kube-scheduler v1.36 TaintToleration's filter
// reason. Since v1.35 (kubernetes/kubernetes#134740) it no longer names the
// taint's key and value ("node(s) had untolerated taint {key: value}"
// before).
const ReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// TaintToleration is the filter half of kube-scheduler v1.36's
// TaintToleration: a node with a NoSchedule or NoExecute taint that none of
// the pod's tolerations tolerates is rejected (UnschedulableAndUnresolvable).
// Toleration operators Lt and Gt (feature-gated, off by default in v1.36)
// tolerate nothing.
type TaintToleration struct{ reject *framework.Status }

var (
	_ framework.FilterPlugin                 = (*TaintToleration)(nil)
	_ framework.BatchFilterPlugin            = (*TaintToleration)(nil)
	_ framework.TrustedRejectingFilterPlugin = (*TaintToleration)(nil)
)

// NewTaintToleration builds the filter half of TaintToleration of the
// handle's release (with v1.37's no-op PreFilter from v1.37; a nil handle
// means DefaultKubeVersion).
// It takes no args (args must be nil), so it is itself a framework.Factory.
func NewTaintToleration(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.TaintTolerationName, args); err != nil {
		return nil, err
	}
	pl := &TaintToleration{reject: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUntoleratedTaint)}
	if Release(h).AtLeast(framework.KubeV137) {
		return taintTolerationPreFilter{pl}, nil
	}
	return pl, nil
}

// Name returns "TaintToleration".
func (pl *TaintToleration) Name() string { return config.TaintTolerationName }

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's taints alone;
// runtime.VictimRemovalFilter).
func (pl *TaintToleration) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return true, true
}

// Filter rejects node when one of its NoSchedule/NoExecute taints is not
// tolerated.
func (pl *TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return pl.filter(pod.Pod.Spec.Tolerations, node.Node().Spec.Taints)
}

// FilterBatch is Filter over nodes (framework.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *TaintToleration) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	framework.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (framework.RejectingFilterPlugin); an untainted node costs one length
// check. With the runner's snapshot indices, the verdict is decided once
// per taint class (Snapshot.TaintClasses), when there are few, and read by
// each node of the class.
func (pl *TaintToleration) FilterRejects(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []framework.NodeRejection) []framework.NodeRejection {
	tols := pod.Pod.Spec.Tolerations
	if idx != nil {
		if verdicts, class := pl.classVerdicts(state, tols); verdicts != nil {
			var rej uint64 // the rejected classes (ttMaxClasses ≤ 64)
			for c, v := range verdicts {
				if v != nil {
					rej |= 1 << c
				}
			}
			if rej == 0 {
				return rejected
			}
			rejected, added := MarkRejections(rejected, len(idx), func(room []framework.NodeRejection) int { return ttRejectedNodes(room, class, idx, rej) })
			for j := range added {
				added[j].Status = verdicts[class[idx[added[j].Node]]]
			}
			return rejected
		}
	}
	for i, node := range nodes {
		if taints := node.Node().Spec.Taints; len(taints) > 0 {
			if st := pl.filter(tols, taints); st != nil {
				rejected = append(rejected, framework.NodeRejection{Node: int32(i), Status: st})
			}
		}
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (framework.TrustedRejectingFilterPlugin).
func (pl *TaintToleration) RejectionsTrusted() {}

// ttRejectedNodes sets the Node of out[0:n] to the positions i (in
// increasing order) of the nodes idx[i] whose taint class has its bit set
// in rej, and returns n; the statuses are left to the caller. out has room
// for every node. It is not inlined, so that its loop, which calls
// nothing, keeps every value in a register.
//
//go:noinline
func ttRejectedNodes(out []framework.NodeRejection, class, idx []int32, rej uint64) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		if rej>>(class[k]&63)&1 != 0 {
			out[n].Node = int32(i)
			n++
		}
	}
	return n
}

var _ = [1]struct{}{}[ttMaxClasses-64] // a class's bit in ttRejectedNodes' mask

// ttMaxClasses bounds the taint classes whose verdicts FilterBatch decides
// up front; with more, it decides node by node.
const ttMaxClasses = 64

// ttClassesKey holds the cycle's verdicts by taint class, decided by the
// first FilterBatch call of the cycle.
const ttClassesKey framework.StateKey = "FilterBatch" + config.TaintTolerationName

type ttClassVerdicts struct {
	classes  *framework.TaintClasses
	verdicts []*framework.Status
}

// Clone returns the verdicts themselves; they are read-only.
func (v *ttClassVerdicts) Clone() framework.StateData { return v }

// classVerdicts returns the verdict of every taint class of the cycle's
// snapshot and the nodes' classes, deciding them on the cycle's first call,
// or nil when there are more than ttMaxClasses classes.
func (pl *TaintToleration) classVerdicts(state *framework.CycleState, tols []api.Toleration) ([]*framework.Status, []int32) {
	tc := state.Snapshot().TaintClasses()
	if len(tc.Taints) > ttMaxClasses {
		return nil, nil
	}
	if d, err := state.Read(ttClassesKey); err == nil {
		if v, ok := d.(*ttClassVerdicts); ok && v.classes == tc {
			return v.verdicts, tc.Class
		}
	}
	v := &ttClassVerdicts{classes: tc, verdicts: make([]*framework.Status, len(tc.Taints))}
	for c, taints := range tc.Taints {
		v.verdicts[c] = pl.filter(tols, taints)
	}
	// Concurrent first calls may each decide them; the verdicts are equal.
	state.Write(ttClassesKey, v)
	return v.verdicts, tc.Class
}

func (pl *TaintToleration) filter(tols []api.Toleration, taints []api.Taint) *framework.Status {
	for i := range taints {
		t := &taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !api.TolerationsTolerateTaint(tols, t) {
			return pl.reject
		}
	}
	return nil
}

var _ framework.EnqueueExtensions = (*TaintToleration)(nil)

// EventsToRegister: a node added or its taints changed, or a new toleration
// of the pod (tainttoleration/taint_toleration.go).
func (pl *TaintToleration) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: NodeEvent(framework.Add | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
		{Event: PodEvent(framework.UpdatePodToleration), QueueingHintFn: pl.afterPodTolerationChange},
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

var _ framework.NodeLocalPlugin = (*TaintToleration)(nil)

// NodeLocal is true: the verdict reads the node's taints.
func (pl *TaintToleration) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*TaintToleration)(nil)

// SignPod signs the pod's tolerations (tainttoleration/taint_toleration.go).
func (pl *TaintToleration) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerTolerations, Value: framework.SignTolerations(pod.Pod)}}, nil
}

// taintTolerationPreFilter is TaintToleration with kube-scheduler v1.37's PreFilter
// (tainttoleration/taint_toleration.go:PreFilter), which does nothing with kube's default feature
// gates: it skips only a pod whose resize is deferred, under the alpha
// InPlacePodVerticalScalingSchedulerPreemption gate, which schedkit does
// not model. It makes the plugin a PreFilter plugin of the default
// profile, as in kube.
type taintTolerationPreFilter struct{ *TaintToleration }

var _ framework.PreFilterPlugin = taintTolerationPreFilter{}

// PreFilter returns no result and no status: every node is filtered.
func (taintTolerationPreFilter) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}

// PreFilterExtensions returns nil: nothing to update per pod.
func (taintTolerationPreFilter) PreFilterExtensions() framework.PreFilterExtensions { return nil }
