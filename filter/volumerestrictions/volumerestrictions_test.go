package volumerestrictions

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// vrRun runs VolumeRestrictions for pod against one node "n" holding
// existing (placed there) and the given claims.
func vrRun(t *testing.T, pod *api.Pod, existing []*api.Pod, pvcs []*api.PersistentVolumeClaim) (*fw.Status, *fw.Status) {
	t.Helper()
	for i, p := range existing {
		p.Name, p.UID, p.Spec.NodeName = "e"+string(rune('0'+i)), "e"+string(rune('0'+i)), "n"
	}
	snap := st.VolumeSnapshot(t, []*api.Node{st.MakeNode().Name("n").Obj()}, existing, api.StorageObjects{PersistentVolumeClaims: pvcs})
	pl, _ := New(nil, nil)
	pre, filt, _ := st.RunFilter(t, pl, snap, pod)
	if !pre.IsSuccess() {
		return pre, nil
	}
	return pre, filt[0]
}

// TestVolumeRestrictionsDiskConflicts is kube-scheduler v1.36
// volumerestrictions/volume_restrictions_test.go TestGCEDiskConflicts,
// TestAWSDiskConflicts, TestRBDDiskConflicts and TestISCSIDiskConflicts,
// plus the read-only rules of isVolumeConflict (hand-derived).
func TestVolumeRestrictionsDiskConflicts(t *testing.T) {
	conflict := fw.NewStatus(fw.Unschedulable, ReasonDiskConflict)
	skip := fw.NewStatus(fw.Skip)
	mk := func() *st.PodWrapper { return st.MakePod().Name("p") }
	iqn1, iqn2 := "iqn.2016-12.server:storage.target01", "iqn.2017-12.server:storage.target01"
	tests := []struct {
		name      string
		pod       *api.Pod
		existing  *api.Pod
		pre, want *fw.Status
	}{
		{"gce nothing", mk().Obj(), nil, skip, nil},
		{"gce one state", mk().Obj(), mk().GCEPD("foo", false).Obj(), skip, nil},
		{"gce same state", mk().GCEPD("foo", false).Obj(), mk().GCEPD("foo", false).Obj(), nil, conflict},
		{"gce different state", mk().GCEPD("bar", false).Obj(), mk().GCEPD("foo", false).Obj(), nil, nil},
		{"gce volume without restrictions", mk().EmptyDir().Obj(), nil, skip, nil},
		{"gce both read-only", mk().GCEPD("foo", true).Obj(), mk().GCEPD("foo", true).Obj(), nil, nil},
		{"gce one read-only", mk().GCEPD("foo", true).Obj(), mk().GCEPD("foo", false).Obj(), nil, conflict},
		{"aws nothing", mk().Obj(), nil, skip, nil},
		{"aws one state", mk().Obj(), mk().EBS("foo").Obj(), skip, nil},
		{"aws same state", mk().EBS("foo").Obj(), mk().EBS("foo").Obj(), nil, conflict},
		{"aws different state", mk().EBS("bar").Obj(), mk().EBS("foo").Obj(), nil, nil},
		{"rbd nothing", mk().Obj(), nil, skip, nil},
		{"rbd one state", mk().Obj(), mk().RBD([]string{"a", "b"}, "foo", "bar", false).Obj(), skip, nil},
		{"rbd same state", mk().RBD([]string{"a", "b"}, "foo", "bar", false).Obj(), mk().RBD([]string{"a", "b"}, "foo", "bar", false).Obj(), nil, conflict},
		{"rbd different state", mk().RBD([]string{"c", "d"}, "foo", "bar", false).Obj(), mk().RBD([]string{"a", "b"}, "foo", "bar", false).Obj(), nil, nil},
		{"rbd overlapping monitors", mk().RBD([]string{"b", "c"}, "foo", "bar", false).Obj(), mk().RBD([]string{"a", "b"}, "foo", "bar", false).Obj(), nil, conflict},
		{"rbd both read-only", mk().RBD([]string{"a"}, "foo", "bar", true).Obj(), mk().RBD([]string{"a"}, "foo", "bar", true).Obj(), nil, nil},
		{"iscsi nothing", mk().Obj(), nil, skip, nil},
		{"iscsi one state", mk().Obj(), mk().ISCSI(iqn1, false).Obj(), skip, nil},
		{"iscsi same state", mk().ISCSI(iqn1, false).Obj(), mk().ISCSI(iqn1, false).Obj(), nil, conflict},
		{"iscsi different state", mk().ISCSI(iqn2, false).Obj(), mk().ISCSI(iqn1, false).Obj(), nil, nil},
		{"iscsi both read-only", mk().ISCSI(iqn1, true).Obj(), mk().ISCSI(iqn1, true).Obj(), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var existing []*api.Pod
			if tc.existing != nil {
				existing = append(existing, tc.existing)
			}
			pre, got := vrRun(t, tc.pod, existing, nil)
			if !pre.Equal(tc.pre) {
				t.Fatalf("PreFilter = %v, want %v", pre, tc.pre)
			}
			if pre.IsSuccess() && !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestVolumeRestrictionsAccessModeConflicts is volume_restrictions_test.go
// TestAccessModeConflicts.
func TestVolumeRestrictionsAccessModeConflicts(t *testing.T) {
	rwop1 := st.MakePVC("claim-with-rwop-1", "").AccessModes(api.ReadWriteOncePod).Obj()
	rwop2 := st.MakePVC("claim-with-rwop-2", "").AccessModes(api.ReadWriteOncePod).Obj()
	rwx := st.MakePVC("claim-with-rwx", "").AccessModes(api.ReadWriteMany).Obj()
	onePVC := func() *api.Pod { return st.MakePod().Name("pod-with-one-pvc").PVC("claim-with-rwop-1").Obj() }
	twoPVCs := func() *api.Pod {
		return st.MakePod().Name("pod-with-two-pvcs").PVC("claim-with-rwop-1").PVC("claim-with-rwop-2").Obj()
	}
	withRWX := func() *api.Pod { return st.MakePod().Name("pod-with-rwx").PVC("claim-with-rwx").Obj() }
	rwopConflict := fw.NewStatus(fw.Unschedulable, ReasonReadWriteOncePodConflict)
	tests := []struct {
		name      string
		pod       *api.Pod
		existing  []*api.Pod
		pvcs      []*api.PersistentVolumeClaim
		pre, want *fw.Status
	}{
		{"nothing", st.MakePod().Name("p").Obj(), nil, nil, fw.NewStatus(fw.Skip), nil},
		{"failed to get PVC", onePVC(), nil, nil, fw.NewStatus(fw.UnschedulableAndUnresolvable, `persistentvolumeclaim "claim-with-rwop-1" not found`), nil},
		{"no access mode conflict", onePVC(), []*api.Pod{withRWX()}, []*api.PersistentVolumeClaim{rwop1, rwx}, fw.NewStatus(fw.Skip), nil},
		{"access mode conflict, unschedulable", st.MakePod().Name("pod-with-one-conflict").PVC("claim-with-rwop-1").Obj(),
			[]*api.Pod{onePVC(), withRWX()}, []*api.PersistentVolumeClaim{rwop1, rwx}, nil, rwopConflict},
		{"two conflicts, unschedulable", st.MakePod().Name("pod-with-two-conflicts").PVC("claim-with-rwop-1").PVC("claim-with-rwop-2").Obj(),
			[]*api.Pod{twoPVCs(), withRWX()}, []*api.PersistentVolumeClaim{rwop1, rwop2, rwx}, nil, rwopConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pre, got := vrRun(t, tc.pod, tc.existing, tc.pvcs)
			if !pre.Equal(tc.pre) {
				t.Fatalf("PreFilter = %v, want %v", pre, tc.pre)
			}
			if pre.IsSuccess() && !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestVolumeRestrictionsAddRemovePod: the ReadWriteOncePod count follows
// AddPod and RemovePod (nominated pods, preemption), matching claim names
// only, as kube's conflictingPVCRefCountForPod.
func TestVolumeRestrictionsAddRemovePod(t *testing.T) {
	rwop := st.MakePVC("c", "").AccessModes(api.ReadWriteOncePod).Obj()
	user := st.MakePod().Name("user").Node("n").PVC("c").Obj()
	snap := st.VolumeSnapshot(t, []*api.Node{st.MakeNode().Name("n").Obj()}, []*api.Pod{user}, api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{rwop}})
	plug, _ := New(nil, nil)
	pl := plug.(*VolumeRestrictions)
	pod := fw.MustPodInfo(st.MakePod().Name("p").PVC("c").Obj())
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	if _, st := pl.PreFilter(context.Background(), state, pod, snap.Nodes()); !st.IsSuccess() {
		t.Fatal(st)
	}
	ni := snap.Nodes()[0]
	if got := pl.Filter(context.Background(), state, pod, ni); got.Code() != fw.Unschedulable {
		t.Fatalf("with the user placed: %v", got)
	}
	ctx := context.Background()
	if s := pl.RemovePod(ctx, state, pod, fw.MustPodInfo(user), ni); !s.IsSuccess() {
		t.Fatal(s)
	}
	if got := pl.Filter(ctx, state, pod, ni); got != nil {
		t.Errorf("after RemovePod of the user: %v, want nil", got)
	}
	other := fw.MustPodInfo(st.MakePod().Name("o").Namespace("elsewhere").PVC("c").Obj())
	clone := state.Clone()
	if s := pl.AddPod(ctx, clone, pod, other, ni); !s.IsSuccess() {
		t.Fatal(s)
	}
	if got := pl.Filter(ctx, clone, pod, ni); got.Code() != fw.Unschedulable {
		t.Errorf("AddPod of a pod naming the claim (any namespace, as kube): %v", got)
	}
	if got := pl.Filter(ctx, state, pod, ni); got != nil {
		t.Errorf("the original state is unchanged by the clone's AddPod: %v", got)
	}
}

// TestConformance holds VolumeRestrictions's fast forms to its PreFilter and Filter
// on random clusters of zonal nodes with CSINodes, bound and unbound
// claims, zonal and local volumes and in-tree disks (st.VolumeCluster).
func TestConformance(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		nodes, pods, pod, objs := st.VolumeCluster(t)
		pl, err := New(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return frameworktest.Case{Plugin: pl, Nodes: nodes, Pods: pods, Incoming: pod, SnapshotOptions: []fw.SnapshotOption{fw.WithStorage(objs.Each()...)}}
	})
}
