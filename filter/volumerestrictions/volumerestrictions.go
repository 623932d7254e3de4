// Package volumerestrictions is kube-scheduler's VolumeRestrictions plugin:
// in-tree disks that cannot be shared between pods on one node, and
// ReadWriteOncePod claims already in use, reject the pod. v1.37 (the
// default release) and v1.36 behave alike.
package volumerestrictions

import (
	"context"
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// VolumeRestrictions' filter reasons.
const (
	ReasonDiskConflict             = "node(s) had no available disk"
	ReasonReadWriteOncePodConflict = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

const vrPreFilterKey framework.StateKey = "PreFilter" + config.VolumeRestrictionsName

// vrState is kube's preFilterState: the pod's ReadWriteOncePod claim names
// (sorted) and how many references of placed pods use them.
type vrState struct {
	rwop      []string
	conflicts int
}

// Clone copies the count; the claim names are shared (read-only).
func (s *vrState) Clone() framework.StateData { c := *s; return &c }

// claimRefs counts pod's claim volumes whose claim name is one of the
// pod-to-schedule's ReadWriteOncePod claims (by name only: kube's
// conflictingPVCRefCountForPod does not compare namespaces).
func (s *vrState) claimRefs(pod *api.Pod) int {
	n := 0
	for i := range pod.Spec.Volumes {
		if c := pod.Spec.Volumes[i].PersistentVolumeClaim; c != nil {
			if _, ok := slices.BinarySearch(s.rwop, c.ClaimName); ok {
				n++
			}
		}
	}
	return n
}

// VolumeRestrictions is kube-scheduler's VolumeRestrictions filter:
// in-tree disks that cannot be shared (the same GCE PD unless every mount
// is read-only, the same AWS EBS volume, the same iSCSI IQN or RBD image
// unless read-only everywhere) already used by a pod on the node are a
// disk conflict, and a ReadWriteOncePod claim already used by a placed pod
// anywhere is a conflict on every node (Unschedulable both: preemption can
// help). PreFilter returns Skip when the pod has no such disk and no
// conflicting claim; a claim that does not exist is
// UnschedulableAndUnresolvable. AddPod and RemovePod keep the claim count
// for nominated pods and preemption.
type VolumeRestrictions struct {
	disk, rwop, skip *framework.Status
}

var (
	_ framework.PreFilterPlugin     = (*VolumeRestrictions)(nil)
	_ framework.FilterPlugin        = (*VolumeRestrictions)(nil)
	_ framework.PreFilterExtensions = (*VolumeRestrictions)(nil)
)

// New builds the filter (it has no args).
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.VolumeRestrictionsName, args); err != nil {
		return nil, err
	}
	return &VolumeRestrictions{
		disk: framework.NewStatus(framework.Unschedulable, ReasonDiskConflict),
		rwop: framework.NewStatus(framework.Unschedulable, ReasonReadWriteOncePodConflict),
		skip: framework.NewStatus(framework.Skip),
	}, nil
}

// Name returns "VolumeRestrictions".
func (pl *VolumeRestrictions) Name() string { return config.VolumeRestrictionsName }

func vrNeedsCheck(v *api.Volume) bool {
	return v.GCEPersistentDisk != nil || v.AWSElasticBlockStore != nil || v.RBD != nil || v.ISCSI != nil
}

// PreFilter finds the pod's ReadWriteOncePod claims and counts their users.
func (pl *VolumeRestrictions) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	p := pod.Pod
	if len(p.Spec.Volumes) == 0 {
		return nil, pl.skip
	}
	needsCheck := false
	for i := range p.Spec.Volumes {
		if vrNeedsCheck(&p.Spec.Volumes[i]) {
			needsCheck = true
			break
		}
	}
	snap := state.Snapshot()
	s := &vrState{}
	for i := range p.Spec.Volumes {
		src := p.Spec.Volumes[i].PersistentVolumeClaim
		if src == nil {
			continue
		}
		pvc, ok := snap.PersistentVolumeClaim(p.Namespace, src.ClaimName)
		if !ok {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, filter.NotFound(api.KindPersistentVolumeClaim, src.ClaimName))
		}
		if slices.Contains(pvc.Spec.AccessModes, api.ReadWriteOncePod) {
			s.rwop = append(s.rwop, pvc.Name)
		}
	}
	slices.Sort(s.rwop)
	s.rwop = slices.Compact(s.rwop)
	for _, name := range s.rwop {
		if snap.IsPVCUsedByPods(p.Namespace, name) {
			s.conflicts++
		}
	}
	if !needsCheck && s.conflicts == 0 {
		return nil, pl.skip
	}
	state.Write(vrPreFilterKey, s)
	return nil, nil
}

// PreFilterExtensions returns the plugin itself.
func (pl *VolumeRestrictions) PreFilterExtensions() framework.PreFilterExtensions { return pl }

func vrReadState(state *framework.CycleState) (*vrState, error) {
	d, err := state.Read(vrPreFilterKey)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q from cycleState", vrPreFilterKey)
	}
	s, ok := d.(*vrState)
	if !ok {
		return nil, fmt.Errorf("%+v convert to volumerestrictions.state error", d)
	}
	return s, nil
}

// AddPod counts the added pod's references to the ReadWriteOncePod claims.
func (pl *VolumeRestrictions) AddPod(_ context.Context, state *framework.CycleState, _, add *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, err := vrReadState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.conflicts += s.claimRefs(add.Pod)
	return nil
}

// RemovePod uncounts the removed pod's references.
func (pl *VolumeRestrictions) RemovePod(_ context.Context, state *framework.CycleState, _, remove *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, err := vrReadState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.conflicts -= s.claimRefs(remove.Pod)
	return nil
}

// Filter rejects a disk conflict on node, then a ReadWriteOncePod
// conflict.
func (pl *VolumeRestrictions) Filter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if !vrNoDiskConflict(pod.Pod, node) {
		return pl.disk
	}
	s, err := vrReadState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.conflicts > 0 {
		return pl.rwop
	}
	return nil
}

// vrNoDiskConflict is kube's satisfyVolumeConflicts.
func vrNoDiskConflict(pod *api.Pod, node *framework.NodeInfo) bool {
	if node.PodsWithVolumes() == 0 {
		return true // a conflict needs a volume of another pod
	}
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if !vrNeedsCheck(v) {
			continue
		}
		for _, ep := range node.Pods {
			if vrConflict(v, ep.Pod) {
				return false
			}
		}
	}
	return true
}

// vrConflict is kube's isVolumeConflict.
func vrConflict(v *api.Volume, pod *api.Pod) bool {
	for i := range pod.Spec.Volumes {
		e := &pod.Spec.Volumes[i]
		if d, ed := v.GCEPersistentDisk, e.GCEPersistentDisk; d != nil && ed != nil {
			if d.PDName == ed.PDName && !(d.ReadOnly && ed.ReadOnly) {
				return true
			}
		}
		if d, ed := v.AWSElasticBlockStore, e.AWSElasticBlockStore; d != nil && ed != nil && d.VolumeID == ed.VolumeID {
			return true
		}
		if d, ed := v.ISCSI, e.ISCSI; d != nil && ed != nil {
			if d.IQN == ed.IQN && !(d.ReadOnly && ed.ReadOnly) {
				return true
			}
		}
		if d, ed := v.RBD, e.RBD; d != nil && ed != nil {
			if vrOverlap(d.CephMonitors, ed.CephMonitors) && d.RBDPool == ed.RBDPool && d.RBDImage == ed.RBDImage && !(d.ReadOnly && ed.ReadOnly) {
				return true
			}
		}
	}
	return false
}

func vrOverlap(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

var _ fastpath.NodeLocalPlugin = (*VolumeRestrictions)(nil)

// NodeLocal is true only for a pod without volumes, whose PreFilter skips:
// a pod's volumes can conflict with claims used anywhere in the cluster.
func (pl *VolumeRestrictions) NodeLocal(pod *framework.PodInfo) bool {
	return filter.PodHasNoVolumes(pod)
}

var _ framework.SignPlugin = (*VolumeRestrictions)(nil)

// SignPod signs the pod's volumes (volumerestrictions/volume_restrictions.go).
func (pl *VolumeRestrictions) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return filter.SignVolumes(pod)
}
