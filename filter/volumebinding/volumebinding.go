// Package volumebinding is kube-scheduler's VolumeBinding plugin: a node
// where the pod's claims cannot be bound (bound volumes out of reach,
// no volume to bind, no room to provision) rejects the pod, the volumes
// chosen are assumed on Reserve and bound on PreBind, and, with storage
// capacity scoring (on by default from v1.37), nodes whose storage is
// emptier score higher. It reproduces v1.37 (the default release) and
// v1.36, with its args (VolumeBindingArgs).
package volumebinding

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

// VolumeBinding is kube-scheduler's VolumeBinding plugin: PreFilter,
// Filter, Reserve, Unreserve and PreBind, and PreScore and Score. It keeps
// an assume cache of the volume bindings Reserve decided, which later
// cycles see until Unreserve reverts them or PreBind binds them (through
// the handle's Binder: a scheduler's cluster) and forgets them.
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
//   - The score exists behind kube's StorageCapacityScoring feature gate
//     (args' StorageCapacityScoring; unset, the default of the handle's
//     release: on from v1.37, where the gate is beta, and off in v1.36,
//     where it is alpha). With the gate off, PreScore always returns Skip
//     and the plugin never scores. With it on, PreScore runs for every pod
//     (volume_binding.go PreScore: hasStaticBindings ||
//     EnableStorageCapacityScoring), so a pod without claims scores 0 on
//     every node, and each node scores the mean over storage classes of
//     shape(utilization), where a class's utilization is the requested
//     bytes over the capacity (100 when the capacity is 0 or smaller) of
//     the volumes Filter matched there (static bindings), or, without any,
//     of the volumes to provision and the CSIStorageCapacity found for
//     them; the mean is rounded, and a node without classes scores 0. The
//     shape's scores (0–10) are scaled by 10. The default shape
//     {0: 10, 100: 0} prefers emptier storage.
//
// The assume cache is part of a scheduler's branch (Fork).
type VolumeBinding struct {
	binder *volumeBinder
	args   VolumeBindingArgs
	h      framework.Handle
	// enabled says whether the plugin scores (StorageCapacityScoring);
	// shape is its scaled utilization shape and skip PreScore's Skip.
	enabled bool
	shape   []scoring.ShapePoint
	skip    *framework.Status
}

var (
	_ framework.PreFilterPlugin  = (*VolumeBinding)(nil)
	_ framework.FilterPlugin     = (*VolumeBinding)(nil)
	_ fastpath.BatchFilterPlugin = (*VolumeBinding)(nil)
	_ framework.ReservePlugin    = (*VolumeBinding)(nil)
	_ framework.PreBindPlugin    = (*VolumeBinding)(nil)
	_ framework.ForkablePlugin   = (*VolumeBinding)(nil)
)

// New builds VolumeBinding from args, a VolumeBindingArgs or a pointer to
// one (nil: DefaultVolumeBindingArgs()): an unset StorageCapacityScoring
// follows h's release, then the args are defaulted and validated
// (VolumeBindingArgs.Validate). It is the plugin's framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.VolumeBindingName, args, h, DefaultVolumeBindingArgs, newVolumeBindingPlugin)
}

func newVolumeBindingPlugin(args VolumeBindingArgs, h framework.Handle) (framework.Plugin, error) {
	args, err := argsFor(args, h)
	if err != nil {
		return nil, err
	}
	return &VolumeBinding{binder: newVolumeBinder(), args: args, h: h,
		enabled: args.CapacityScoring(), shape: scoring.ScaleShape(args.Shape), skip: framework.NewStatus(framework.Skip)}, nil
}

// Name returns "VolumeBinding".
func (pl *VolumeBinding) Name() string { return config.VolumeBindingName }

// Args returns the plugin's defaulted args, StorageCapacityScoring set
// as its release decided it.
func (pl *VolumeBinding) Args() VolumeBindingArgs { return pl.args }

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
	state.Write(stateKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil.
func (pl *VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func vbState(state *framework.CycleState) (*stateData, error) {
	d, err := state.Read(stateKey)
	if err != nil {
		return nil, err
	}
	s, ok := d.(*stateData)
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

// FilterBatch is Filter over nodes, reading the state once. Where every
// node gets one verdict (the pod's claims all bound, none with node
// affinity) and idx gives the nodes' snapshot indices, it records the
// nodes that pass by index, without finding each node.
func (pl *VolumeBinding) FilterBatch(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	s, err := vbState(state)
	if err == nil && s.uniform && idx != nil {
		if s.uniformStatus == nil {
			s.markDoneAt(idx[:len(nodes)])
			return // out is left nil: every node passes
		}
		for i := range nodes {
			out[i] = s.uniformStatus
		}
		return
	}
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
	pv, ok := s.reservedOn(nodeName)
	if !ok {
		return nil, false, fmt.Errorf("no pod volume found for node %q", nodeName)
	}
	return pv, false, nil
}

// Forget drops the assumed copies of pv once its bindings were applied
// (the cluster's new objects then supersede them).
func (pl *VolumeBinding) Forget(pv *api.PodVolumes) { pl.binder.Forget(pv) }

var _ fastpath.NodeLocalPlugin = (*VolumeBinding)(nil)

// NodeLocal is true only for a pod without volumes: its claims' bindings
// live in an assume cache that Reserve changes, and storage capacity
// scoring reads claims and volumes that bindings change.
func (pl *VolumeBinding) NodeLocal(pod *framework.PodInfo) bool { return filter.PodHasNoVolumes(pod) }

var _ framework.SignPlugin = (*VolumeBinding)(nil)

// SignPod signs the pod's volumes (volumebinding/volume_binding.go).
func (pl *VolumeBinding) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return filter.SignVolumes(pod)
}
