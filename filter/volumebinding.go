package filter

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/volumebinding"
	"github.com/schedkit/schedkit/scoring"
)

// VolumeBinding reasons, as kube-scheduler v1.36.
const (
	ReasonVolumeNodeConflict     = volumebinding.ReasonNodeConflict
	ReasonVolumeBindConflict     = volumebinding.ReasonBindConflict
	ReasonVolumeNotEnoughSpace   = volumebinding.ReasonNotEnoughSpace
	ReasonVolumePVNotExist       = volumebinding.ReasonPVNotExist
	ReasonUnboundImmediateClaims = volumebinding.ReasonUnboundImmediate
)

// VolumeBinding is kube-scheduler's VolumeBinding plugin: PreFilter,
// Filter, Reserve, Unreserve and PreBind, and PreScore and Score (which
// score only with the StorageCapacityScoring gate: args'
// StorageCapacityScoring, or unset the default of the handle's release, on
// from v1.37; the score is scoring.VolumeBinding's). It keeps an assume
// cache of the volume bindings Reserve decided, which later cycles see
// until Unreserve reverts them or PreBind binds them (through the handle's
// Binder: a scheduler's cluster) and forgets them.
//
//   - PreFilter returns Skip for a pod without claims (named or ephemeral).
//     A missing claim, a claim in phase Lost or being deleted, an
//     ephemeral claim not owned by the pod, and unbound claims that should
//     already be bound (Immediate class, or pre-bound) are
//     UnschedulableAndUnresolvable with kube's messages.
//   - Filter checks the node affinity of bound volumes (an in-tree volume
//     translated to its CSI driver on nodes whose CSINode lists the plugin
//     as migrated: a GCE PD then needs topology.gke.io/zone), and finds
//     for each WaitForFirstConsumer claim the smallest available volume
//     that fits or, failing that, provisioning within the class's allowed
//     topologies and, for drivers with storageCapacity, a CSIStorageCapacity
//     reachable from the node with room. Rejections are
//     UnschedulableAndUnresolvable with kube's reasons.
//   - Reserve assumes the node's decisions; Unreserve reverts them.
//   - PreBind binds the reserved volumes (nothing when every claim is
//     already bound); without a scheduler it fails.
//
// The assume cache is part of a scheduler's branch (Fork).
type VolumeBinding struct {
	binder *volumebinding.Binder
	args   config.VolumeBindingArgs
	score  *scoring.VolumeBinding
	h      framework.Handle
}

var (
	_ framework.PreFilterPlugin         = (*VolumeBinding)(nil)
	_ framework.FilterPlugin            = (*VolumeBinding)(nil)
	_ framework.BatchFilterPlugin       = (*VolumeBinding)(nil)
	_ framework.PreScorePlugin          = (*VolumeBinding)(nil)
	_ framework.BoundedBatchScorePlugin = (*VolumeBinding)(nil)
	_ framework.ReservePlugin           = (*VolumeBinding)(nil)
	_ framework.PreBindPlugin           = (*VolumeBinding)(nil)
	_ framework.ForkablePlugin          = (*VolumeBinding)(nil)
)

// NewVolumeBinding validates args (an unset StorageCapacityScoring
// follows h's release) and builds the plugin; VolumeBindingFactory is its
// framework.Factory.
func NewVolumeBinding(args config.VolumeBindingArgs, h framework.Handle) (framework.Plugin, error) {
	sc, err := scoring.NewVolumeBinding(args, h)
	if err != nil {
		return nil, err
	}
	args, err = volumebinding.ArgsFor(args, h)
	if err != nil {
		return nil, err
	}
	return &VolumeBinding{binder: volumebinding.NewBinder(), args: args, score: sc.(*scoring.VolumeBinding), h: h}, nil
}

// VolumeBindingFactory is NewVolumeBinding as a framework.Factory: nil args
// mean config.DefaultVolumeBindingArgs(); a config.VolumeBindingArgs or a
// pointer to one is used as given.
func VolumeBindingFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.VolumeBindingName, args, h, config.DefaultVolumeBindingArgs, NewVolumeBinding)
}

// Name returns "VolumeBinding".
func (pl *VolumeBinding) Name() string { return config.VolumeBindingName }

// Args returns the plugin's defaulted args, StorageCapacityScoring set
// as its release decided it.
func (pl *VolumeBinding) Args() config.VolumeBindingArgs { return pl.args }

// AssumedCount returns how many volumes and claims the assume cache holds.
func (pl *VolumeBinding) AssumedCount() (volumes, claims int) { return pl.binder.Cache().Len() }

// Fork opens a branch of the assume cache with a scheduler's fork: Revert
// drops what Reserve assumed in the branch and puts back what Unreserve,
// Forget or a changed object removed there; Commit keeps it.
func (pl *VolumeBinding) Fork() { pl.binder.Cache().Fork() }

// Commit keeps the assume cache's innermost branch (see Fork).
func (pl *VolumeBinding) Commit() { pl.binder.Cache().Commit() }

// Revert undoes the assume cache's innermost branch (see Fork).
func (pl *VolumeBinding) Revert() { pl.binder.Cache().Revert() }

// PreFilter sorts the pod's claims out; see the type's documentation.
func (pl *VolumeBinding) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	s, st := pl.binder.PreFilter(state.Snapshot(), pod.Pod)
	if st != nil {
		return nil, st
	}
	state.Write(volumebinding.StateKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil.
func (pl *VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func vbState(state *framework.CycleState) (*volumebinding.State, error) {
	d, err := state.Read(volumebinding.StateKey)
	if err != nil {
		return nil, err
	}
	s, ok := d.(*volumebinding.State)
	if !ok {
		return nil, fmt.Errorf("unable to convert state into stateData")
	}
	return s, nil
}

// Filter decides whether the pod's volumes can be used on node.
func (pl *VolumeBinding) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, err := vbState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	return pl.binder.Filter(s, node)
}

// FilterBatch is Filter over nodes, reading the state once.
func (pl *VolumeBinding) FilterBatch(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	s, err := vbState(state)
	for i, n := range nodes {
		if err != nil {
			out[i] = framework.AsStatus(err)
			continue
		}
		out[i] = pl.binder.Filter(s, n)
	}
}

// Reserve assumes the volume decisions for nodeName. A pod whose PreFilter
// skipped (no claims) has nothing to reserve.
func (pl *VolumeBinding) Reserve(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	s, err := vbState(state)
	if err != nil {
		return nil
	}
	if err := pl.binder.Reserve(s, pod.Pod, nodeName); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}

// Unreserve reverts what Reserve assumed for nodeName.
func (pl *VolumeBinding) Unreserve(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodeName string) {
	if s, err := vbState(state); err == nil {
		pl.binder.Unreserve(s, nodeName)
	}
}

// PreScore returns Skip unless capacity scoring is on.
func (pl *VolumeBinding) PreScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	return pl.score.PreScore(ctx, state, pod, nodes)
}

// Score is the node's storage score (0 for a pod without claims).
func (pl *VolumeBinding) Score(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	return pl.score.Score(ctx, state, pod, node)
}

// ScoreBatch is Score over nodes, reading the cycle state once.
func (pl *VolumeBinding) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	return pl.score.ScoreBatch(ctx, state, pod, nodes, idx, out)
}

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score of the batch.
func (pl *VolumeBinding) ScoreBatchBounds(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	return pl.score.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
}

// ScoreExtensions returns nil.
func (pl *VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }

// PreBind binds the pod's volumes through the handle's Binder (nothing
// when every claim is already bound) and then lets the assume cache forget
// them.
func (pl *VolumeBinding) PreBind(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	pv, allBound, err := pl.PodVolumes(state, node)
	if err != nil {
		return framework.AsStatus(err)
	}
	if allBound {
		return nil
	}
	if pl.h == nil {
		return framework.AsStatus(fmt.Errorf("volumebinding: pod %s: no handle to bind its volumes", pod.Pod.Key()))
	}
	err = pl.h.Binder().BindPodVolumes(state, node, pv)
	pl.Forget(pv)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("binding volumes: %w", err))
	}
	return nil
}

// PodVolumes returns what PreBind must bind for the pod on nodeName after
// Reserve: allBound is true when nothing needs binding (no claims, or all
// fully bound). A node without decisions is kube's error "no pod volume
// found for node".
func (pl *VolumeBinding) PodVolumes(state *framework.CycleState, nodeName string) (pv *api.PodVolumes, allBound bool, err error) {
	s, rerr := vbState(state)
	if rerr != nil || s.AllBound {
		return nil, true, nil
	}
	pv, ok := s.Reserved(nodeName)
	if !ok {
		return nil, false, fmt.Errorf("no pod volume found for node %q", nodeName)
	}
	return pv, false, nil
}

// Forget drops the assumed copies of pv once its bindings were applied
// (the cluster's new objects then supersede them).
func (pl *VolumeBinding) Forget(pv *api.PodVolumes) { pl.binder.Forget(pv) }

var _ framework.NodeLocalPlugin = (*VolumeBinding)(nil)

// NodeLocal is true only for a pod without volumes: its claims' bindings
// live in an assume cache that Reserve changes, and storage capacity
// scoring reads claims and volumes that bindings change.
func (pl *VolumeBinding) NodeLocal(pod *framework.PodInfo) bool { return PodHasNoVolumes(pod) }

var _ framework.SignPlugin = (*VolumeBinding)(nil)

// SignPod signs the pod's volumes (volumebinding/volume_binding.go).
func (pl *VolumeBinding) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return SignVolumes(pod)
}
