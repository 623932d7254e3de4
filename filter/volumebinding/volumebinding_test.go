package volumebinding

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/internal/st"
)

// Storage classes and driver of kube-scheduler v1.36
// volumebinding/volume_binding_test.go. kube's test classes have no
// provisioner, which the API (and schedkit's validation) requires: they
// get kubernetes.io/no-provisioner, which means the same (no dynamic
// provisioning).
var (
	vbImmediateSC  = st.MakeSC("immediate-sc", api.NotSupportedProvisioner, api.VolumeBindingImmediate).Obj()
	vbWaitSC       = st.MakeSC("wait-sc", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj()
	vbWaitHDDSC    = st.MakeSC("wait-hdd-sc", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj()
	vbWaitCapSC    = st.MakeSC("wait-sc-with-storage-capacity", "driver-with-storage-capacity", api.VolumeBindingWaitForFirstConsumer).Obj()
	vbCapDriver    = &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "driver-with-storage-capacity"}, Spec: api.CSIDriverSpec{StorageCapacity: vbTrue()}}
	vbDefaultShape = []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}
)

func vbTrue() *bool { t := true; return &t }

const vbNodeKey = "nodeKey"

func vbNode(name string, labels ...string) *api.Node {
	w := st.MakeNode().Name(name)
	for i := 0; i+1 < len(labels); i += 2 {
		w = w.Label(labels[i], labels[i+1])
	}
	return w.Obj()
}

func vbPV(name, class, capacity string, affinity ...string) *api.PersistentVolume {
	w := st.MakePV(name, class).Capacity(capacity)
	if len(affinity) > 0 {
		w = w.NodeAffinity(affinity[0], affinity[1:]...)
	}
	return w.Obj()
}

// vbPVTerm is a volume whose one affinity term requires every key=value
// pair given.
func vbPVTerm(name, class, capacity string, kv ...string) *api.PersistentVolume {
	v := st.MakePV(name, class).Capacity(capacity).Obj()
	var term api.NodeSelectorTerm
	for i := 0; i+1 < len(kv); i += 2 {
		term.MatchExpressions = append(term.MatchExpressions, api.NodeSelectorRequirement{Key: kv[i], Operator: api.NodeSelectorOpIn, Values: []string{kv[i+1]}})
	}
	v.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{term}}}
	return v
}

func vbPod(claims ...string) *api.Pod {
	w := st.MakePod().Name("pod-a")
	for _, c := range claims {
		w = w.PVC(c)
	}
	return w.Obj()
}

type vbCase struct {
	name       string
	pod        *api.Pod
	nodes      []*api.Node
	objs       api.StorageObjects
	args       *VolumeBindingArgs
	wantPre    *framework.Status
	wantFilter []*framework.Status
	wantPreSc  *framework.Status
	wantScores []int64
}

// vbRun runs the composed VolumeBinding plugin through PreFilter, Filter
// on every node, PreScore and Score on the nodes that passed (kube's test
// calls Score on every node; a node that failed Filter scores 0 there).
// Without args of the case's own the StorageCapacityScoring gate is off,
// as kube's test runs each case with the zero feature.Features.
func vbRun(t *testing.T, tc vbCase) {
	t.Helper()
	args := VolumeBindingArgs{BindTimeoutSeconds: 300, StorageCapacityScoring: new(false)}
	if tc.args != nil {
		args = *tc.args
	}
	pl, err := New(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs := tc.objs
	objs.StorageClasses = append([]*api.StorageClass{vbImmediateSC, vbWaitSC, vbWaitHDDSC, vbWaitCapSC}, objs.StorageClasses...)
	objs.CSIDrivers = append([]*api.CSIDriver{vbCapDriver}, objs.CSIDrivers...)
	snap, err := framework.NewSnapshot(tc.nodes, nil, framework.WithStorage(objs.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	pi := framework.MustPodInfo(tc.pod)
	_, pre := pl.(framework.PreFilterPlugin).PreFilter(ctx, state, pi, snap.Nodes())
	if !pre.Equal(tc.wantPre) {
		t.Fatalf("PreFilter = %v, want %v", pre, tc.wantPre)
	}
	if !pre.IsSuccess() {
		return
	}
	for i, n := range snap.Nodes() {
		if got := pl.(framework.FilterPlugin).Filter(ctx, state, pi, n); !got.Equal(tc.wantFilter[i]) {
			t.Errorf("Filter(%s) = %v, want %v", n.Name(), got, tc.wantFilter[i])
		}
	}
	ps := pl.(framework.PreScorePlugin).PreScore(ctx, state, pi, snap.Nodes())
	if !ps.Equal(tc.wantPreSc) {
		t.Fatalf("PreScore = %v, want %v", ps, tc.wantPreSc)
	}
	if !ps.IsSuccess() {
		return
	}
	var scores []int64
	for _, n := range snap.Nodes() {
		s, st := pl.(framework.ScorePlugin).Score(ctx, state, pi, n)
		if !st.IsSuccess() {
			t.Fatalf("Score(%s): %v", n.Name(), st)
		}
		scores = append(scores, s)
	}
	if d := cmp.Diff(tc.wantScores, scores); d != "" {
		t.Errorf("scores (-want +got):\n%s", d)
	}
}

// TestVolumeBindingKube is kube-scheduler v1.36
// volumebinding/volume_binding_test.go TestVolumeBinding, case for case
// (kube's state assertions become the Filter and Score outcomes they lead
// to). The "fts: EnableStorageCapacityScoring" cases set
// args.StorageCapacityScoring and, as kube's test, the shape {0: 0, 100: 10}
// unless the case gives one.
func TestVolumeBindingKube(t *testing.T) {
	uu := func(r ...string) *framework.Status {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, r...)
	}
	skip := framework.NewStatus(framework.Skip)
	capScoring := func(shape ...config.UtilizationShapePoint) *VolumeBindingArgs {
		if len(shape) == 0 {
			shape = vbDefaultShape
		}
		return &VolumeBindingArgs{BindTimeoutSeconds: 300, Shape: shape, StorageCapacityScoring: new(true)}
	}
	zones := []*api.Node{
		vbNode("zone-a-node-a", api.LabelTopologyRegion, "region-a", api.LabelTopologyZone, "zone-a"),
		vbNode("zone-a-node-b", api.LabelTopologyRegion, "region-a", api.LabelTopologyZone, "zone-a"),
		vbNode("zone-b-node-a", api.LabelTopologyRegion, "region-b", api.LabelTopologyZone, "zone-b"),
		vbNode("zone-b-node-b", api.LabelTopologyRegion, "region-b", api.LabelTopologyZone, "zone-b"),
		vbNode("zone-c-node-a", api.LabelTopologyRegion, "region-c", api.LabelTopologyZone, "zone-c"),
		vbNode("zone-c-node-b", api.LabelTopologyRegion, "region-c", api.LabelTopologyZone, "zone-c"),
	}
	zonalPVs := []*api.PersistentVolume{
		vbPVTerm("pv-a-0", "wait-sc", "200Gi", api.LabelTopologyRegion, "region-a", api.LabelTopologyZone, "zone-a"),
		vbPVTerm("pv-a-1", "wait-sc", "200Gi", api.LabelTopologyRegion, "region-a", api.LabelTopologyZone, "zone-a"),
		vbPVTerm("pv-b-0", "wait-sc", "100Gi", api.LabelTopologyRegion, "region-b", api.LabelTopologyZone, "zone-b"),
		vbPVTerm("pv-b-1", "wait-sc", "100Gi", api.LabelTopologyRegion, "region-b", api.LabelTopologyZone, "zone-b"),
	}
	capNodes := []*api.Node{vbNode("node-a", vbNodeKey, "node-a"), vbNode("node-b", vbNodeKey, "node-b"), vbNode("node-c", vbNodeKey, "node-c")}
	capOf := func(node, capacity string) *api.CSIStorageCapacity {
		return st.MakeCapacity(node, "wait-sc-with-storage-capacity", vbNodeKey, node, capacity, "")
	}
	hostPV := func(name, class, capacity, node string) *api.PersistentVolume {
		return vbPV(name, class, capacity, "kubernetes.io/hostname", node)
	}
	noMatch := uu(ErrReasonBindConflict)
	tests := []vbCase{
		{name: "pod has not pvcs", pod: vbPod(), nodes: []*api.Node{vbNode("node-a")}, wantPre: skip},
		{name: "all bound", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a")},
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Bound("pv-a").Obj()},
				PersistentVolumes:      []*api.PersistentVolume{vbPV("pv-a", "wait-sc", "1Gi")}},
			wantFilter: []*framework.Status{nil}, wantPreSc: skip},
		{name: "PVC does not exist", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a")},
			wantPre: uu(`persistentvolumeclaim "pvc-a" not found`)},
		{name: "Part of PVCs do not exist", pod: vbPod("pvc-a", "pvc-b"), nodes: []*api.Node{vbNode("node-a")},
			objs:    api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Bound("pv-a").Obj()}},
			wantPre: uu(`persistentvolumeclaim "pvc-b" not found`)},
		{name: "immediate claims not bound", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a")},
			objs:    api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "immediate-sc").Obj()}},
			wantPre: uu(ErrReasonUnboundImmediate)},
		{name: "unbound claims no matches", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a")},
			objs:       api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Obj()}},
			wantFilter: []*framework.Status{noMatch}, wantPreSc: skip},
		{name: "bound and unbound unsatisfied", pod: vbPod("pvc-a", "pvc-b"), nodes: []*api.Node{vbNode("node-a", "foo", "barbar")},
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Bound("pv-a").Obj(), st.MakePVC("pvc-b", "wait-sc").Obj()},
				PersistentVolumes:      []*api.PersistentVolume{vbPV("pv-a", "wait-sc", "1Gi", "foo", "bar")}},
			wantFilter: []*framework.Status{uu(ErrReasonNodeConflict, ErrReasonBindConflict)}, wantPreSc: skip},
		{name: "pv not found", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a")},
			objs:       api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Bound("pv-a").Obj()}},
			wantFilter: []*framework.Status{uu(ErrReasonPVNotExist)}, wantPreSc: skip},
		{name: "pv not found claim lost", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a")},
			objs:    api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Bound("pv-a").Phase(api.ClaimLost).Obj()}},
			wantPre: uu(`persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"`)},
		{name: "local volumes with close capacity are preferred", pod: vbPod("pvc-a"),
			nodes: []*api.Node{vbNode("node-a"), vbNode("node-b"), vbNode("node-c")},
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Request("50Gi").Obj()},
				PersistentVolumes: []*api.PersistentVolume{hostPV("pv-a-0", "wait-sc", "200Gi", "node-a"), hostPV("pv-a-1", "wait-sc", "200Gi", "node-a"),
					hostPV("pv-b-0", "wait-sc", "100Gi", "node-b"), hostPV("pv-b-1", "wait-sc", "100Gi", "node-b")}},
			args: capScoring(), wantFilter: []*framework.Status{nil, nil, noMatch}, wantScores: []int64{25, 50, 0}},
		{name: "local volumes with close capacity are preferred (multiple pvcs)", pod: vbPod("pvc-0", "pvc-1"),
			nodes: []*api.Node{vbNode("node-a"), vbNode("node-b"), vbNode("node-c")},
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-0", "wait-sc").Request("50Gi").Obj(), st.MakePVC("pvc-1", "wait-hdd-sc").Request("100Gi").Obj()},
				PersistentVolumes: []*api.PersistentVolume{
					hostPV("pv-a-0", "wait-sc", "200Gi", "node-a"), hostPV("pv-a-1", "wait-sc", "200Gi", "node-a"),
					hostPV("pv-a-2", "wait-hdd-sc", "200Gi", "node-a"), hostPV("pv-a-3", "wait-hdd-sc", "200Gi", "node-a"),
					hostPV("pv-b-0", "wait-sc", "100Gi", "node-b"), hostPV("pv-b-1", "wait-sc", "100Gi", "node-b"),
					hostPV("pv-b-2", "wait-hdd-sc", "100Gi", "node-b"), hostPV("pv-b-3", "wait-hdd-sc", "100Gi", "node-b")}},
			args: capScoring(), wantFilter: []*framework.Status{nil, nil, noMatch}, wantScores: []int64{38, 75, 0}},
		{name: "zonal volumes with close capacity are preferred", pod: vbPod("pvc-a"), nodes: zones,
			objs: api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Request("50Gi").Obj()},
				PersistentVolumes: zonalPVs},
			args: capScoring(), wantFilter: []*framework.Status{nil, nil, nil, nil, noMatch, noMatch}, wantScores: []int64{25, 25, 50, 50, 0, 0}},
		{name: "zonal volumes with close capacity are preferred (custom shape)", pod: vbPod("pvc-a"), nodes: zones,
			objs: api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Request("50Gi").Obj()},
				PersistentVolumes: zonalPVs},
			args:       capScoring(config.UtilizationShapePoint{Utilization: 0, Score: 0}, config.UtilizationShapePoint{Utilization: 50, Score: 3}, config.UtilizationShapePoint{Utilization: 100, Score: 5}),
			wantFilter: []*framework.Status{nil, nil, nil, nil, noMatch, noMatch}, wantScores: []int64{15, 15, 30, 30, 0, 0}},
		{name: "storage capacity score", pod: vbPod("pvc-dynamic"), nodes: capNodes,
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-dynamic", "wait-sc-with-storage-capacity").Request("10Gi").Obj()},
				CSIStorageCapacities:   []*api.CSIStorageCapacity{capOf("node-a", "100Gi"), capOf("node-b", "50Gi"), capOf("node-c", "10Gi")}},
			args: capScoring(), wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{10, 20, 100}},
		{name: "storage capacity score with static binds", pod: vbPod("pvc-dynamic", "pvc-static"), nodes: capNodes,
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-dynamic", "wait-sc-with-storage-capacity").Request("10Gi").Obj(),
					st.MakePVC("pvc-static", "wait-sc").Request("50Gi").Obj()},
				PersistentVolumes: []*api.PersistentVolume{hostPV("pv-static-a", "wait-sc", "100Gi", "node-a"), hostPV("pv-static-b", "wait-sc", "100Gi", "node-b"),
					hostPV("pv-static-c", "wait-sc", "100Gi", "node-c")},
				CSIStorageCapacities: []*api.CSIStorageCapacity{capOf("node-a", "100Gi"), capOf("node-b", "50Gi"), capOf("node-c", "10Gi")}},
			args: capScoring(), wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{50, 50, 50}},
		{name: "dynamic provisioning with multiple PVCs of the same StorageClass", pod: vbPod("pvc-dynamic-0", "pvc-dynamic-1"), nodes: capNodes[:1],
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-dynamic-0", "wait-sc-with-storage-capacity").Request("50Gi").Obj(),
					st.MakePVC("pvc-dynamic-1", "wait-sc-with-storage-capacity").Request("50Gi").Obj()},
				CSIStorageCapacities: []*api.CSIStorageCapacity{capOf("node-a", "100Gi")}},
			args: capScoring(), wantFilter: []*framework.Status{nil}, wantScores: []int64{100}},
		{name: "prefer node with least allocatable", pod: vbPod("pvc-dynamic"), nodes: capNodes,
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-dynamic", "wait-sc-with-storage-capacity").Request("10Gi").Obj()},
				CSIStorageCapacities:   []*api.CSIStorageCapacity{capOf("node-a", "100Gi"), capOf("node-b", "20Gi"), capOf("node-c", "10Gi")}},
			args: capScoring(), wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{10, 50, 100}},
		{name: "prefer node with maximum allocatable", pod: vbPod("pvc-dynamic"), nodes: capNodes,
			objs: api.StorageObjects{
				PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-dynamic", "wait-sc-with-storage-capacity").Request("10Gi").Obj()},
				CSIStorageCapacities:   []*api.CSIStorageCapacity{capOf("node-a", "100Gi"), capOf("node-b", "20Gi"), capOf("node-c", "10Gi")}},
			args:       capScoring(config.UtilizationShapePoint{Utilization: 0, Score: 10}, config.UtilizationShapePoint{Utilization: 100, Score: 0}),
			wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{90, 50, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { vbRun(t, tc) })
	}
}

// TestVolumeBindingReasons derives, by hand from kube-scheduler v1.36's
// volume_binding.go and binder.go, a case for every verdict and message.
func TestVolumeBindingReasons(t *testing.T) {
	uu := func(r ...string) *framework.Status {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, r...)
	}
	one := []*api.Node{vbNode("node-a", api.LabelTopologyZone, "zone-a")}
	claims := func(c ...*api.PersistentVolumeClaim) api.StorageObjects {
		return api.StorageObjects{PersistentVolumeClaims: c}
	}
	ephemeralPod := st.MakePod().Name("web-0").UID("uid-web-0").Ephemeral("data", "wait-provision", "1Gi").Obj()
	provision := st.MakeSC("wait-provision", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).AllowedTopology(api.LabelTopologyZone, "zone-b").Obj()
	noModeClass := st.MakeSC("no-mode", "p", "").Obj()
	tests := []vbCase{
		{name: "ephemeral claim not created yet", pod: ephemeralPod, nodes: one,
			wantPre: uu(`waiting for ephemeral volume controller to create the persistentvolumeclaim "web-0-data"`)},
		{name: "ephemeral claim not owned by the pod", pod: ephemeralPod, nodes: one,
			objs:    api.StorageObjects{StorageClasses: []*api.StorageClass{provision}, PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("web-0-data", "wait-provision").Obj()}},
			wantPre: uu("PVC default/web-0-data was not created for pod default/web-0 (pod is not owner)")},
		{name: "claim being deleted", pod: vbPod("pvc-a"), nodes: one, objs: claims(st.MakePVC("pvc-a", "wait-sc").Deleting().Obj()),
			wantPre: uu(`persistentvolumeclaim "pvc-a" is being deleted`)},
		{name: "claim of a missing class binds immediately", pod: vbPod("pvc-a"), nodes: one, objs: claims(st.MakePVC("pvc-a", "no-such-class").Obj()),
			wantPre: uu(ErrReasonUnboundImmediate)},
		{name: "claim without class binds immediately", pod: vbPod("pvc-a"), nodes: one, objs: claims(st.MakePVC("pvc-a", "").Obj()),
			wantPre: uu(ErrReasonUnboundImmediate)},
		{name: "pre-bound claim not bound yet", pod: vbPod("pvc-a"), nodes: one, objs: claims(st.MakePVC("pvc-a", "wait-sc").VolumeName("pv-a").Obj()),
			wantPre: uu(ErrReasonUnboundImmediate)},
		{name: "class without volumeBindingMode", pod: vbPod("pvc-a"), nodes: one,
			objs:    api.StorageObjects{StorageClasses: []*api.StorageClass{noModeClass}, PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "no-mode").Obj()}},
			wantPre: framework.AsStatus(fmt.Errorf(`VolumeBindingMode not set for StorageClass "no-mode"`))},
		{name: "provisioning outside the allowed topologies", pod: vbPod("pvc-a"), nodes: one,
			objs:       api.StorageObjects{StorageClasses: []*api.StorageClass{provision}, PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-provision").Obj()}},
			wantFilter: []*framework.Status{uu(ErrReasonBindConflict)}, wantPreSc: framework.NewStatus(framework.Skip)},
		{name: "not enough storage", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a", vbNodeKey, "node-a")},
			objs: api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc-with-storage-capacity").Request("20Gi").Obj()},
				CSIStorageCapacities: []*api.CSIStorageCapacity{st.MakeCapacity("c", "wait-sc-with-storage-capacity", vbNodeKey, "node-a", "100Gi", "10Gi")}},
			wantFilter: []*framework.Status{uu(ErrReasonNotEnoughSpace)}, wantPreSc: framework.NewStatus(framework.Skip)},
		{name: "capacity of another segment", pod: vbPod("pvc-a"), nodes: []*api.Node{vbNode("node-a", vbNodeKey, "node-a")},
			objs: api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc-with-storage-capacity").Request("1Gi").Obj()},
				CSIStorageCapacities: []*api.CSIStorageCapacity{st.MakeCapacity("c", "wait-sc-with-storage-capacity", vbNodeKey, "node-b", "100Gi", "")}},
			wantFilter: []*framework.Status{uu(ErrReasonNotEnoughSpace)}, wantPreSc: framework.NewStatus(framework.Skip)},
		{name: "selected node elsewhere", pod: vbPod("pvc-a"), nodes: one,
			objs:       claims(st.MakePVC("pvc-a", "wait-sc").Annotation(api.AnnSelectedNode, "node-b").Obj()),
			wantFilter: []*framework.Status{uu(ErrReasonBindConflict)}, wantPreSc: framework.NewStatus(framework.Skip)},
		{name: "pre-bound volume whose affinity fails hides the others", pod: vbPod("pvc-a"), nodes: one,
			objs: api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Obj()},
				PersistentVolumes: []*api.PersistentVolume{
					st.MakePV("pv-pre", "wait-sc").ClaimRef("default", "pvc-a", "").NodeAffinity(api.LabelTopologyZone, "zone-b").Obj(),
					vbPV("pv-free", "wait-sc", "1Gi")}},
			wantFilter: []*framework.Status{uu(ErrReasonBindConflict)}, wantPreSc: framework.NewStatus(framework.Skip)},
		{name: "volume bound to another claim, one released, one block mode, one ReadWriteMany only", pod: vbPod("pvc-a"), nodes: one,
			objs: api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("pvc-a", "wait-sc").Obj()},
				PersistentVolumes: []*api.PersistentVolume{
					st.MakePV("pv-other", "wait-sc").ClaimRef("default", "other", "").Obj(),
					st.MakePV("pv-released", "wait-sc").Phase(api.VolumeReleased).Obj(),
					st.MakePV("pv-block", "wait-sc").VolumeMode(api.PersistentVolumeBlock).Obj(),
					st.MakePV("pv-rwx", "wait-sc").AccessModes(api.ReadWriteMany).Obj()}},
			wantFilter: []*framework.Status{uu(ErrReasonBindConflict)}, wantPreSc: framework.NewStatus(framework.Skip)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { vbRun(t, tc) })
	}
}

// TestVolumeBindingGCEPDTranslation: a bound GCE PD volume labelled with its
// zone (and no node affinity) fits every node while its node keeps the
// in-tree plugin; on a node whose CSINode lists kubernetes.io/gce-pd as
// migrated, kube translates it to pd.csi.storage.gke.io and its zone
// becomes topology.gke.io/zone, which a node labelled only with
// topology.kubernetes.io/zone lacks (binder.go tryTranslatePVToCSI and
// csi-translation-lib's translateTopologyFromInTreeToCSI).
func TestVolumeBindingGCEPDTranslation(t *testing.T) {
	pd := st.MakePV("pd", "standard").Source(api.PersistentVolumeSource{GCEPersistentDisk: &api.GCEPersistentDiskVolumeSource{PDName: "disk-1"}}).
		Label(api.LabelTopologyZone, "us-east1-b").Obj()
	objs := api.StorageObjects{
		PersistentVolumes:      []*api.PersistentVolume{pd},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("data", "standard").Bound("pd").Obj()},
		CSINodes: []*api.CSINode{
			st.MakeCSINode("migrated").Driver(csitranslation.GCEPDDriverName, 127).Migrated(csitranslation.GCEPDInTreePluginName).Obj(),
			st.MakeCSINode("migrated-gke").Driver(csitranslation.GCEPDDriverName, 127).Migrated(csitranslation.GCEPDInTreePluginName).Obj(),
		},
	}
	nodes := []*api.Node{
		vbNode("in-tree", api.LabelTopologyZone, "us-east1-b"),
		vbNode("migrated", api.LabelTopologyZone, "us-east1-b"),
		vbNode("migrated-gke", api.LabelTopologyZone, "us-east1-b", csitranslation.GCEPDTopologyKey, "us-east1-b"),
	}
	vbRun(t, vbCase{pod: vbPod("data"), nodes: nodes, objs: objs,
		wantFilter: []*framework.Status{nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeConflict), nil},
		wantPreSc:  framework.NewStatus(framework.Skip)})
}

// TestVolumeBindingSmallestAndExclusive: each claim gets the smallest
// volume that fits (claims matched in increasing size), and a volume chosen
// for one claim is not offered to the next (binder.go findMatchingVolumes).
func TestVolumeBindingSmallestAndExclusive(t *testing.T) {
	pl, _ := New(nil, nil)
	objs := api.StorageObjects{
		StorageClasses: []*api.StorageClass{vbWaitSC},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("big", "wait-sc").Request("5Gi").Obj(),
			st.MakePVC("small", "wait-sc").Request("1Gi").Obj()},
		PersistentVolumes: []*api.PersistentVolume{vbPV("pv-10", "wait-sc", "10Gi"), vbPV("pv-2", "wait-sc", "2Gi"), vbPV("pv-6", "wait-sc", "6Gi"), vbPV("pv-1b", "wait-sc", "1Gi"), vbPV("pv-1a", "wait-sc", "1Gi")},
	}
	snap := framework.MustSnapshot([]*api.Node{vbNode("n")}, nil, framework.WithStorage(objs.Each()...))
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	pod := framework.MustPodInfo(vbPod("big", "small"))
	ctx := context.Background()
	if _, st := pl.(framework.PreFilterPlugin).PreFilter(ctx, state, pod, snap.Nodes()); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.(framework.FilterPlugin).Filter(ctx, state, pod, snap.Nodes()[0]); !st.IsSuccess() {
		t.Fatal(st)
	}
	vb := pl.(*VolumeBinding)
	if st := vb.Reserve(ctx, state, pod, "n"); !st.IsSuccess() {
		t.Fatal(st)
	}
	pv, allBound, err := vb.PodVolumes(state, "n")
	if err != nil || allBound {
		t.Fatalf("PodVolumes: %v, allBound %v", err, allBound)
	}
	got := map[string]string{}
	for _, b := range pv.StaticBindings {
		got[b.PVC.Name] = b.PV.Name
		if b.PV.Spec.ClaimRef == nil || b.PV.Spec.ClaimRef.Name != b.PVC.Name || b.PV.Annotations[api.AnnBoundByController] != "yes" {
			t.Errorf("assumed %s not bound to %s: %+v", b.PV.Name, b.PVC.Name, b.PV.Spec.ClaimRef)
		}
	}
	// The list is by name: pv-1a precedes pv-1b among the equal 1Gi volumes.
	if d := cmp.Diff(map[string]string{"small": "pv-1a", "big": "pv-6"}, got); d != "" {
		t.Errorf("bindings (-want +got):\n%s", d)
	}
	if v, c := vb.AssumedCount(); v != 2 || c != 0 {
		t.Errorf("assumed %d volumes, %d claims; want 2, 0", v, c)
	}
	vb.Unreserve(ctx, state, pod, "n")
	if v, c := vb.AssumedCount(); v != 0 || c != 0 {
		t.Errorf("after Unreserve: assumed %d volumes, %d claims", v, c)
	}
}

// vbBinder is a handle whose Binder records the volumes PreBind binds and
// fails with err.
type vbBinder struct {
	framework.Handle
	err   error
	bound []*api.PodVolumes
}

func (h *vbBinder) Binder() framework.Binder { return h }

func (h *vbBinder) Bind(*framework.CycleState, *framework.PodInfo, string) error { return nil }

func (h *vbBinder) BindPodVolumes(_ *framework.CycleState, _ string, pv *api.PodVolumes) error {
	h.bound = append(h.bound, pv)
	return h.err
}

func (h *vbBinder) Forked() bool { return false }

// TestVolumeBindingPreBind: PreBind hands the reserved decisions to the
// handle's Binder and forgets them from the assume cache whether the
// binding succeeds or fails (kube's "binding volumes: " error then); a pod
// whose claims are all bound binds nothing, and without a scheduler the
// default Binder's error names the node.
func TestVolumeBindingPreBind(t *testing.T) {
	objs := api.StorageObjects{
		StorageClasses:         []*api.StorageClass{vbWaitSC},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("data", "wait-sc").Request("1Gi").Obj()},
		PersistentVolumes:      []*api.PersistentVolume{vbPV("pv-1", "wait-sc", "1Gi")},
	}
	boom := fmt.Errorf("boom")
	for _, tc := range []struct {
		name  string
		h     *vbBinder
		pod   *api.Pod
		want  string
		binds int
	}{
		{name: "binds", h: &vbBinder{}, pod: vbPod("data"), binds: 1},
		{name: "binder fails", h: &vbBinder{err: boom}, pod: vbPod("data"), binds: 1, want: "binding volumes: boom"},
		{name: "no claims", h: &vbBinder{}, pod: vbPod()},
		{name: "no scheduler", pod: vbPod("data"), want: `binding volumes: framework: BindPodVolumes on node "n": no scheduler runs the framework`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h framework.Handle = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
			if tc.h != nil {
				tc.h.Handle = h
				h = tc.h
			}
			p, err := New(nil, h)
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*VolumeBinding)
			snap := framework.MustSnapshot([]*api.Node{vbNode("n")}, nil, framework.WithStorage(objs.Each()...))
			state := framework.NewCycleState()
			state.SetSnapshot(snap)
			pod := framework.MustPodInfo(tc.pod)
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, state, pod, snap.Nodes()); st.IsSuccess() {
				if st := pl.Filter(ctx, state, pod, snap.Nodes()[0]); !st.IsSuccess() {
					t.Fatal(st)
				}
			} else if !st.IsSkip() {
				t.Fatal(st)
			}
			if st := pl.Reserve(ctx, state, pod, "n"); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := pl.PreBind(ctx, state, pod, "n")
			if got := st.Message(); got != tc.want || st.IsSuccess() != (tc.want == "") {
				t.Errorf("PreBind = %v, want %q", st, tc.want)
			}
			if tc.h != nil && len(tc.h.bound) != tc.binds {
				t.Errorf("bound %d times, want %d", len(tc.h.bound), tc.binds)
			}
			if v, c := pl.AssumedCount(); v != 0 || c != 0 {
				t.Errorf("after PreBind: assumed %d volumes, %d claims; want none", v, c)
			}
		})
	}
}
