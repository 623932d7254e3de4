package scheduling

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// The volume plugins' PreFilter and Filter verdicts on edge cases (missing,
// lost and deleted claims, ephemeral claims the pod does not own, claims
// bound to missing volumes, classes missing or without a binding mode,
// several VolumeBinding reasons at once, ReadWriteOncePod and disk
// conflicts, CSI limits) against kube-scheduler v1.36.4's own plugins.
//
// kubeVolumeVerdicts is what kube's volumerestrictions.New,
// nodevolumelimits.NewCSI, volumebinding.New (bindTimeoutSeconds 600) and
// volumezone.New answered for these cases: default feature gates, objects
// served by a fake clientset's informers, PreFilter, then Filter on n1 and
// n2 when PreFilter succeeded. The messages come from volumebinding's
// podHasPVCs, PreFilter and FindPodVolumes (binder.go: ErrReasonNodeConflict,
// ErrReasonBindConflict, ErrReasonNotEnoughSpace, ErrReasonPVNotExist, in
// that order), volumezone's getPVbyPod, volumerestrictions' PreFilter and
// nodevolumelimits' filterAttachableVolumes. To check the table against
// kube again (testdata/kubeoracle is a separate module that imports kube):
//
//	SCHEDKIT_VOLUME_CASES=/tmp/vc go test ./scheduling -run TestVolumeEdgeCasesDump
//	cd scheduling/testdata/kubeoracle && go run . < /tmp/vc/cases.jsonl | diff - /tmp/vc/want.jsonl

type edgeVerdict struct {
	Code    string   `json:"code"`
	Reasons []string `json:"reasons,omitempty"`
}

type edgeOutcome struct {
	PreFilter edgeVerdict            `json:"preFilter"`
	Filter    map[string]edgeVerdict `json:"filter,omitempty"`
}

// edgeWant is one case's outcome per plugin.
type edgeWant struct{ vr, nvl, vb, vz edgeOutcome }

func (w edgeWant) byPlugin() map[string]edgeOutcome {
	return map[string]edgeOutcome{config.VolumeRestrictionsName: w.vr, config.NodeVolumeLimitsName: w.nvl,
		config.VolumeBindingName: w.vb, config.VolumeZoneName: w.vz}
}

type volumeEdgeCase struct {
	name    string
	nodes   []*api.Node
	placed  []*api.Pod
	storage api.StorageObjects
	pod     *api.Pod
}

func edgeOf(s *framework.Status) edgeVerdict {
	if s.IsSuccess() {
		return edgeVerdict{Code: "Success"}
	}
	return edgeVerdict{Code: s.Code().String(), Reasons: slices.Clone(s.Reasons())}
}

// runVolumeEdge runs PreFilter, then Filter on every node when PreFilter
// succeeded, of each volume plugin of the default registry.
func runVolumeEdge(t *testing.T, c *volumeEdgeCase) map[string]edgeOutcome {
	t.Helper()
	ctx := context.Background()
	snap, err := framework.NewSnapshot(c.nodes, c.placed, framework.WithStorage(c.storage.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	reg := NewDefaultRegistry()
	out := map[string]edgeOutcome{}
	for _, name := range []string{config.VolumeRestrictionsName, config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName} {
		f, _ := reg.Lookup(name)
		var args any
		if name == config.VolumeBindingName {
			args = volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600}
		}
		pl, err := f(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		pi := framework.MustPodInfo(c.pod)
		_, s := pl.(framework.PreFilterPlugin).PreFilter(ctx, state, pi, snap.Nodes())
		o := edgeOutcome{PreFilter: edgeOf(s)}
		if s.IsSuccess() {
			o.Filter = map[string]edgeVerdict{}
			for _, n := range snap.Nodes() {
				o.Filter[n.Name()] = edgeOf(pl.(framework.FilterPlugin).Filter(ctx, state, pi, n))
			}
		}
		out[name] = o
	}
	return out
}

func volumeEdgeCases() []volumeEdgeCase {
	node := func(name, zone string) *api.Node {
		return st.MakeNode().Name(name).Label(api.LabelTopologyZone, zone).Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
	}
	nodes := []*api.Node{node("n1", "a"), node("n2", "b")}
	wffc := st.MakeSC("wffc", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()
	wffcNoProv := st.MakeSC("wffc-noprov", "kubernetes.io/no-provisioner", api.VolumeBindingWaitForFirstConsumer).Obj()
	imm := st.MakeSC("imm", "csi.example.com", api.VolumeBindingImmediate).Obj()
	nomode := st.MakeSC("nomode", "csi.example.com", "").Obj()
	pod := st.MakePod().Name("p").UID("uid-p").PVC("x").Obj()
	ephPod := st.MakePod().Name("p").UID("uid-p").Ephemeral("v", "wffc", "1Gi").Obj()
	other := st.MakePod().Name("q").UID("uid-q").Obj()
	yes := true
	pvcs := func(c ...*api.PersistentVolumeClaim) []*api.PersistentVolumeClaim { return c }
	scs := []*api.StorageClass{wffc, wffcNoProv, imm, nomode}
	pvZoneC := st.MakePV("pv", "wffc").ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).NodeAffinity(api.LabelTopologyZone, "c").Label(api.LabelTopologyZone, "c").Obj()
	pvZoneA := st.MakePV("pva", "wffc").ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).NodeAffinity(api.LabelTopologyZone, "a").Obj()
	pvLabelB := st.MakePV("pvb", "wffc").ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).Label(api.LabelTopologyZone, "b").Obj()
	cases := []volumeEdgeCase{
		{name: "missing pvc", storage: api.StorageObjects{StorageClasses: scs}, pod: pod},
		{name: "missing eph", storage: api.StorageObjects{StorageClasses: scs}, pod: ephPod},
		{name: "deleting", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Deleting().Obj()), StorageClasses: scs}, pod: pod},
		{name: "deleting bound", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pv").Deleting().Obj()), PersistentVolumes: []*api.PersistentVolume{pvZoneC}, StorageClasses: scs}, pod: pod},
		{name: "lost", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Phase(api.ClaimLost).VolumeName("pv").Obj()), StorageClasses: scs}, pod: pod},
		{name: "lost and deleting", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Phase(api.ClaimLost).VolumeName("pv").Deleting().Obj()), StorageClasses: scs}, pod: pod},
		{name: "bound to missing pv", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pv").Obj()), StorageClasses: scs}, pod: pod},
		{name: "immediate unbound", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "imm").Obj()), StorageClasses: scs}, pod: pod},
		{name: "no class", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "").Obj()), StorageClasses: scs}, pod: pod},
		{name: "missing class", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "nope").Obj()), StorageClasses: scs}, pod: pod},
		{name: "class without mode", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "nomode").Obj()), StorageClasses: scs}, pod: pod},
		{name: "prebound", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").VolumeName("pv").Obj()), PersistentVolumes: []*api.PersistentVolume{pvZoneC}, StorageClasses: scs}, pod: pod},
		{name: "wffc provision", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Obj()), StorageClasses: scs}, pod: pod},
		{name: "wffc no provisioner", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc-noprov").Obj()), StorageClasses: scs}, pod: pod},
		{name: "selected node n2", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Annotation(api.AnnSelectedNode, "n2").Obj()), StorageClasses: scs}, pod: pod},
		{name: "bound pv zone c", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pv").Obj()), PersistentVolumes: []*api.PersistentVolume{pvZoneC}, StorageClasses: scs}, pod: pod},
		{name: "bound pv affinity a", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pva").Obj()), PersistentVolumes: []*api.PersistentVolume{pvZoneA}, StorageClasses: scs}, pod: pod},
		{name: "bound pv label b", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pvb").Obj()), PersistentVolumes: []*api.PersistentVolume{pvLabelB}, StorageClasses: scs}, pod: pod},
		{name: "affinity conflict and no provisioner", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pv").Obj(), st.MakePVC("y", "wffc-noprov").Obj()), PersistentVolumes: []*api.PersistentVolume{pvZoneC}, StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("x").PVC("y").Obj()},
		{name: "missing pv and no provisioner", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pv").Obj(), st.MakePVC("y", "wffc-noprov").Obj()), StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("y").PVC("x").Obj()},
		{name: "eph not owned", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("p-v", "wffc").Obj()), StorageClasses: scs}, pod: ephPod},
		{name: "eph owned by other", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("p-v", "wffc").OwnedBy(other).Obj()), StorageClasses: scs}, pod: ephPod},
		{name: "eph owned", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("p-v", "wffc").OwnedBy(ephPod).Obj()), StorageClasses: scs}, pod: ephPod},
		{name: "eph owned deleting", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("p-v", "wffc").OwnedBy(ephPod).Deleting().Obj()), StorageClasses: scs}, pod: ephPod},
		{name: "eph not owned lost", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("p-v", "wffc").Phase(api.ClaimLost).Obj()), StorageClasses: scs}, pod: ephPod},
		{name: "missing then deleting", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("y", "wffc").Deleting().Obj()), StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("x").PVC("y").Obj()},
		{name: "deleting then missing", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("y", "wffc").Deleting().Obj()), StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("y").PVC("x").Obj()},
		{name: "eph missing then pvc missing", storage: api.StorageObjects{StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").Ephemeral("v", "wffc", "1Gi").PVC("x").Obj()},
		{name: "pvc missing then eph not owned", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("p-v", "wffc").Obj()), StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("x").Ephemeral("v", "wffc", "1Gi").Obj()},
		{name: "immediate then missing pv", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("y", "imm").Obj(), st.MakePVC("x", "wffc").Bound("pv").Obj()), StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("y").PVC("x").Obj()},
		{name: "nomode then immediate", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("y", "imm").Obj(), st.MakePVC("x", "nomode").Obj()), StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("y").PVC("x").Obj()},
		{name: "rwop in use", placed: []*api.Pod{st.MakePod().Name("q").UID("uid-q").Node("n1").PVC("r").Obj()}, storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("r", "wffc").AccessModes(api.ReadWriteOncePod).Bound("pvr").Obj()), PersistentVolumes: []*api.PersistentVolume{st.MakePV("pvr", "wffc").AccessModes(api.ReadWriteOncePod).ClaimRef("default", "r", "uid-r").Phase(api.VolumeBound).Obj()}, StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("r").Obj()},
		{name: "gce pd conflict", placed: []*api.Pod{st.MakePod().Name("q").UID("uid-q").Node("n1").GCEPD("disk", false).Obj()}, storage: api.StorageObjects{StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").GCEPD("disk", true).Obj()},
		{name: "gce pd both ro", placed: []*api.Pod{st.MakePod().Name("q").UID("uid-q").Node("n1").GCEPD("disk", true).Obj()}, storage: api.StorageObjects{StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").GCEPD("disk", true).Obj()},
		{name: "csi limit", placed: []*api.Pod{st.MakePod().Name("q").UID("uid-q").Node("n1").PVC("c1").Obj()},
			storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("c1", "wffc").Bound("pv1").Obj(), st.MakePVC("c2", "wffc").Bound("pv2").Obj()),
				PersistentVolumes: []*api.PersistentVolume{st.MakePV("pv1", "wffc").CSI("csi.example.com", "h1").ClaimRef("default", "c1", "uid-c1").Phase(api.VolumeBound).Obj(), st.MakePV("pv2", "wffc").CSI("csi.example.com", "h2").ClaimRef("default", "c2", "uid-c2").Phase(api.VolumeBound).Obj()},
				CSINodes:          []*api.CSINode{st.MakeCSINode("n1").Driver("csi.example.com", 1).Obj(), st.MakeCSINode("n2").Driver("csi.example.com", 0).Obj()}, StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("c2").Obj()},
		{name: "existing pod eph not owned", placed: []*api.Pod{st.MakePod().Name("q").UID("uid-q").Node("n1").Ephemeral("v", "wffc", "1Gi").Obj()},
			storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("q-v", "wffc").Bound("pvq").Obj(), st.MakePVC("c2", "wffc").Bound("pv2").Obj()),
				PersistentVolumes: []*api.PersistentVolume{st.MakePV("pvq", "wffc").CSI("csi.example.com", "hq").ClaimRef("default", "q-v", "uid-q-v").Phase(api.VolumeBound).Obj(), st.MakePV("pv2", "wffc").CSI("csi.example.com", "h2").ClaimRef("default", "c2", "uid-c2").Phase(api.VolumeBound).Obj()},
				CSINodes:          []*api.CSINode{st.MakeCSINode("n1").Driver("csi.example.com", 5).Obj()}, StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("c2").Obj()},
		{name: "existing pod missing pvc", placed: []*api.Pod{st.MakePod().Name("q").UID("uid-q").Node("n1").PVC("gone").Obj()},
			storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("c2", "wffc").Bound("pv2").Obj()),
				PersistentVolumes: []*api.PersistentVolume{st.MakePV("pv2", "wffc").CSI("csi.example.com", "h2").ClaimRef("default", "c2", "uid-c2").Phase(api.VolumeBound).Obj()},
				CSINodes:          []*api.CSINode{st.MakeCSINode("n1").Driver("csi.example.com", 1).Obj()}, StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("c2").Obj()},
		{name: "empty claim name", storage: api.StorageObjects{StorageClasses: scs}, pod: st.MakePod().Name("p").UID("uid-p").PVC("").Obj()},
		{name: "beta zone label pv", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pvz").Obj()), PersistentVolumes: []*api.PersistentVolume{st.MakePV("pvz", "wffc").ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).Label(api.LabelFailureDomainBetaZone, "a__b").Obj()}, StorageClasses: scs}, pod: pod},
		{name: "bound pv deleting pv", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pvd").Obj()), PersistentVolumes: []*api.PersistentVolume{st.MakePV("pvd", "wffc").ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).Deleting().Obj()}, StorageClasses: scs}, pod: pod},
		{name: "pvc other namespace", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Namespace("other").Obj()), StorageClasses: scs}, pod: pod},
		{name: "affinity conflict and not enough space", storage: api.StorageObjects{PersistentVolumeClaims: pvcs(st.MakePVC("x", "wffc").Bound("pv").Obj(), st.MakePVC("y", "wffc").Request("10Gi").Obj()),
			PersistentVolumes: []*api.PersistentVolume{pvZoneC}, StorageClasses: scs,
			CSIDrivers:           []*api.CSIDriver{{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}, Spec: api.CSIDriverSpec{StorageCapacity: &yes}}},
			CSIStorageCapacities: []*api.CSIStorageCapacity{st.MakeCapacity("cap-a", "wffc", api.LabelTopologyZone, "a", "5Gi", ""), st.MakeCapacity("cap-b", "wffc", api.LabelTopologyZone, "b", "50Gi", "")}},
			pod: st.MakePod().Name("p").UID("uid-p").PVC("x").PVC("y").Obj()},
	}
	for i := range cases {
		cases[i].nodes = nodes
	}
	return cases
}

// TestVolumePluginsKubeEdgeCases: every verdict of VolumeRestrictions,
// NodeVolumeLimits, VolumeBinding and VolumeZone on the edge cases is
// kube-scheduler v1.36.4's.
func TestVolumePluginsKubeEdgeCases(t *testing.T) {
	cases := volumeEdgeCases()
	if len(cases) != len(kubeVolumeVerdicts) {
		t.Fatalf("%d cases, %d verdicts", len(cases), len(kubeVolumeVerdicts))
	}
	for i := range cases {
		c := &cases[i]
		t.Run(c.name, func(t *testing.T) {
			want, ok := kubeVolumeVerdicts[c.name]
			if !ok {
				t.Fatalf("no kube verdict for %q", c.name)
			}
			if d := cmp.Diff(want.byPlugin(), runVolumeEdge(t, c), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("-kube +schedkit\n%s", d)
			}
		})
	}
}

// TestVolumeEdgeCasesDefaultProfile: through the default profile the first
// volume PreFilter (v1.36's order: VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone) to reject a case ends the cycle with its
// message and as the unschedulable plugin, and an Error is wrapped with the
// plugin's name (kube v1.36.4 framework/runtime/framework.go,
// RunPreFilterPlugins; schedule_one.go, findNodesThatFitPod).
func TestVolumeEdgeCasesDefaultProfile(t *testing.T) {
	tests := []struct {
		name, plugin, msg string
		err               bool
	}{
		{name: "missing pvc", plugin: config.VolumeRestrictionsName, msg: `0/2 nodes are available: persistentvolumeclaim "x" not found.`},
		{name: "missing eph", plugin: config.VolumeBindingName, msg: `0/2 nodes are available: waiting for ephemeral volume controller to create the persistentvolumeclaim "p-v".`},
		{name: "deleting", plugin: config.VolumeBindingName, msg: `0/2 nodes are available: persistentvolumeclaim "x" is being deleted.`},
		{name: "eph not owned", plugin: config.VolumeBindingName, msg: `0/2 nodes are available: PVC default/p-v was not created for pod default/p (pod is not owner).`},
		{name: "bound to missing pv", plugin: config.VolumeZoneName, msg: `0/2 nodes are available: persistentvolume "pv" not found.`},
		{name: "empty claim name", plugin: config.VolumeRestrictionsName, msg: `0/2 nodes are available: persistentvolumeclaim "" not found.`},
		{name: "class without mode", err: true, msg: `running PreFilter plugin "VolumeBinding": VolumeBindingMode not set for StorageClass "nomode"`},
	}
	cases := map[string]*volumeEdgeCase{}
	all := volumeEdgeCases()
	for i := range all {
		cases[all[i].name] = &all[i]
	}
	fwk, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cases[tt.name]
			snap, err := framework.NewSnapshot(c.nodes, c.placed, framework.WithStorage(c.storage.Each()...))
			if err != nil {
				t.Fatal(err)
			}
			_, err = fwk.Schedule(context.Background(), nil, snap, framework.MustPodInfo(c.pod), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
			var fe *runtime.FitError
			switch {
			case err == nil:
				t.Fatal("scheduled")
			case tt.err:
				if errors.As(err, &fe) || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %v, want an Error containing %q", err, tt.msg)
				}
			case !errors.As(err, &fe):
				t.Fatalf("error %v, want a FitError", err)
			default:
				if fe.Error() != tt.msg || !slices.Equal(fe.Diagnosis.UnschedulablePlugins, []string{tt.plugin}) {
					t.Errorf("%q by %v, want %q by [%s]", fe.Error(), fe.Diagnosis.UnschedulablePlugins, tt.msg, tt.plugin)
				}
			}
		})
	}
}

// TestVolumeEdgeCasesDump writes the cases and kubeVolumeVerdicts as JSON
// lines for testdata/kubeoracle (see kubeVolumeVerdicts); skipped unless
// SCHEDKIT_VOLUME_CASES names a directory.
func TestVolumeEdgeCasesDump(t *testing.T) {
	dir := os.Getenv("SCHEDKIT_VOLUME_CASES")
	if dir == "" {
		t.Skip("SCHEDKIT_VOLUME_CASES not set")
	}
	type scenario struct {
		Name    string             `json:"name"`
		Nodes   []*api.Node        `json:"nodes"`
		Placed  []*api.Pod         `json:"placed,omitempty"`
		Storage api.StorageObjects `json:"storage"`
		Pod     *api.Pod           `json:"pod"`
	}
	type verdicts struct {
		Name string                 `json:"name"`
		Kube map[string]edgeOutcome `json:"kube"`
	}
	var cs, ws []byte
	for _, c := range volumeEdgeCases() {
		b, err := json.Marshal(scenario{c.name, c.nodes, c.placed, c.storage, c.pod})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(append(cs, b...), '\n')
		if b, err = json.Marshal(verdicts{c.name, kubeVolumeVerdicts[c.name].byPlugin()}); err != nil {
			t.Fatal(err)
		}
		ws = append(append(ws, b...), '\n')
	}
	if err := errors.Join(os.WriteFile(filepath.Join(dir, "cases.jsonl"), cs, 0o644),
		os.WriteFile(filepath.Join(dir, "want.jsonl"), ws, 0o644)); err != nil {
		t.Fatal(err)
	}
}

var (
	okV   = edgeVerdict{Code: "Success"}
	skipV = edgeVerdict{Code: "Skip"}
)

func uuV(r ...string) edgeVerdict {
	return edgeVerdict{Code: "UnschedulableAndUnresolvable", Reasons: r}
}
func unsV(r ...string) edgeVerdict { return edgeVerdict{Code: "Unschedulable", Reasons: r} }
func errV(r ...string) edgeVerdict { return edgeVerdict{Code: "Error", Reasons: r} }

// pre is a PreFilter verdict other than Success (Filter does not run).
func pre(v edgeVerdict) edgeOutcome { return edgeOutcome{PreFilter: v} }

// filt is PreFilter Success, then Filter's verdicts on n1 and n2.
func filt(n1, n2 edgeVerdict) edgeOutcome {
	return edgeOutcome{PreFilter: okV, Filter: map[string]edgeVerdict{"n1": n1, "n2": n2}}
}

var kubeVolumeVerdicts = map[string]edgeWant{
	"missing pvc": {
		vr:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		nvl: filt(uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`), uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`)),
		vb:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		vz:  pre(uuV(`persistentvolumeclaim "x" not found`))},
	"missing eph": {
		vr:  pre(skipV),
		nvl: filt(uuV(`looking up PVC default/p-v: persistentvolumeclaim "p-v" not found`), uuV(`looking up PVC default/p-v: persistentvolumeclaim "p-v" not found`)),
		vb:  pre(uuV(`waiting for ephemeral volume controller to create the persistentvolumeclaim "p-v"`)),
		vz:  pre(skipV)},
	"deleting": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV(`persistentvolumeclaim "x" is being deleted`)),
		vz:  pre(skipV)},
	"deleting bound": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV(`persistentvolumeclaim "x" is being deleted`)),
		vz:  filt(uuV("node(s) had no available volume zone"), uuV("node(s) had no available volume zone"))},
	"lost": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV(`persistentvolumeclaim "x" bound to non-existent persistentvolume "pv"`)),
		vz:  pre(uuV(`persistentvolume "pv" not found`))},
	"lost and deleting": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV(`persistentvolumeclaim "x" bound to non-existent persistentvolume "pv"`)),
		vz:  pre(uuV(`persistentvolume "pv" not found`))},
	"bound to missing pv": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"), uuV("node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)")),
		vz:  pre(uuV(`persistentvolume "pv" not found`))},
	"immediate unbound": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV("pod has unbound immediate PersistentVolumeClaims")),
		vz:  pre(uuV("PersistentVolume had no name"))},
	"no class": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV("pod has unbound immediate PersistentVolumeClaims")),
		vz:  pre(uuV("PersistentVolumeClaim had no pv name and storageClass name"))},
	"missing class": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV("pod has unbound immediate PersistentVolumeClaims")),
		vz:  pre(uuV(`storageclass.storage.k8s.io "nope" not found`))},
	"class without mode": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(errV(`VolumeBindingMode not set for StorageClass "nomode"`)),
		vz:  pre(uuV(`VolumeBindingMode not set for StorageClass "nomode"`))},
	"prebound": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV("pod has unbound immediate PersistentVolumeClaims")),
		vz:  filt(uuV("node(s) had no available volume zone"), uuV("node(s) had no available volume zone"))},
	"wffc provision": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"wffc no provisioner": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) didn't find available persistent volumes to bind"), uuV("node(s) didn't find available persistent volumes to bind")),
		vz:  pre(skipV)},
	"selected node n2": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) didn't find available persistent volumes to bind"), okV),
		vz:  pre(skipV)},
	"bound pv zone c": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) didn't match PersistentVolume's node affinity"), uuV("node(s) didn't match PersistentVolume's node affinity")),
		vz:  filt(uuV("node(s) had no available volume zone"), uuV("node(s) had no available volume zone"))},
	"bound pv affinity a": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, uuV("node(s) didn't match PersistentVolume's node affinity")),
		vz:  pre(skipV)},
	"bound pv label b": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  filt(uuV("node(s) had no available volume zone"), okV)},
	"affinity conflict and no provisioner": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) didn't match PersistentVolume's node affinity", "node(s) didn't find available persistent volumes to bind"), uuV("node(s) didn't match PersistentVolume's node affinity", "node(s) didn't find available persistent volumes to bind")),
		vz:  filt(uuV("node(s) had no available volume zone"), uuV("node(s) had no available volume zone"))},
	"missing pv and no provisioner": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) didn't find available persistent volumes to bind", "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"), uuV("node(s) didn't find available persistent volumes to bind", "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)")),
		vz:  pre(uuV(`persistentvolume "pv" not found`))},
	"eph not owned": {
		vr:  pre(skipV),
		nvl: filt(errV("PVC default/p-v was not created for pod default/p (pod is not owner)"), errV("PVC default/p-v was not created for pod default/p (pod is not owner)")),
		vb:  pre(uuV("PVC default/p-v was not created for pod default/p (pod is not owner)")),
		vz:  pre(skipV)},
	"eph owned by other": {
		vr:  pre(skipV),
		nvl: filt(errV("PVC default/p-v was not created for pod default/p (pod is not owner)"), errV("PVC default/p-v was not created for pod default/p (pod is not owner)")),
		vb:  pre(uuV("PVC default/p-v was not created for pod default/p (pod is not owner)")),
		vz:  pre(skipV)},
	"eph owned": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"eph owned deleting": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV(`persistentvolumeclaim "p-v" is being deleted`)),
		vz:  pre(skipV)},
	"eph not owned lost": {
		vr:  pre(skipV),
		nvl: filt(errV("PVC default/p-v was not created for pod default/p (pod is not owner)"), errV("PVC default/p-v was not created for pod default/p (pod is not owner)")),
		vb:  pre(uuV(`persistentvolumeclaim "p-v" bound to non-existent persistentvolume ""`)),
		vz:  pre(skipV)},
	"missing then deleting": {
		vr:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		nvl: filt(uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`), uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`)),
		vb:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		vz:  pre(uuV(`persistentvolumeclaim "x" not found`))},
	"deleting then missing": {
		vr:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		nvl: filt(uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`), uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`)),
		vb:  pre(uuV(`persistentvolumeclaim "y" is being deleted`)),
		vz:  pre(uuV(`persistentvolumeclaim "x" not found`))},
	"eph missing then pvc missing": {
		vr:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		nvl: filt(uuV(`looking up PVC default/p-v: persistentvolumeclaim "p-v" not found`), uuV(`looking up PVC default/p-v: persistentvolumeclaim "p-v" not found`)),
		vb:  pre(uuV(`waiting for ephemeral volume controller to create the persistentvolumeclaim "p-v"`)),
		vz:  pre(uuV(`persistentvolumeclaim "x" not found`))},
	"pvc missing then eph not owned": {
		vr:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		nvl: filt(uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`), uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`)),
		vb:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		vz:  pre(uuV(`persistentvolumeclaim "x" not found`))},
	"immediate then missing pv": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(uuV("pod has unbound immediate PersistentVolumeClaims")),
		vz:  pre(uuV("PersistentVolume had no name"))},
	"nomode then immediate": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  pre(errV(`VolumeBindingMode not set for StorageClass "nomode"`)),
		vz:  pre(uuV("PersistentVolume had no name"))},
	"rwop in use": {
		vr:  filt(unsV("node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"), unsV("node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod")),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"gce pd conflict": {
		vr:  filt(unsV("node(s) had no available disk"), okV),
		nvl: filt(okV, okV),
		vb:  pre(skipV),
		vz:  pre(skipV)},
	"gce pd both ro": {
		vr:  filt(okV, okV),
		nvl: filt(okV, okV),
		vb:  pre(skipV),
		vz:  pre(skipV)},
	"csi limit": {
		vr:  pre(skipV),
		nvl: filt(unsV("node(s) exceed max volume count"), unsV("node(s) exceed max volume count")),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"existing pod eph not owned": {
		vr:  pre(skipV),
		nvl: filt(errV("PVC default/q-v was not created for pod default/q (pod is not owner)"), okV),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"existing pod missing pvc": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"empty claim name": {
		vr:  pre(uuV(`persistentvolumeclaim "" not found`)),
		nvl: filt(errV("PersistentVolumeClaim had no name"), errV("PersistentVolumeClaim had no name")),
		vb:  pre(uuV(`persistentvolumeclaim "" not found`)),
		vz:  pre(uuV("PersistentVolumeClaim had no name"))},
	"beta zone label pv": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  filt(okV, okV)},
	"bound pv deleting pv": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(okV, okV),
		vz:  pre(skipV)},
	"pvc other namespace": {
		vr:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		nvl: filt(uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`), uuV(`looking up PVC default/x: persistentvolumeclaim "x" not found`)),
		vb:  pre(uuV(`persistentvolumeclaim "x" not found`)),
		vz:  pre(uuV(`persistentvolumeclaim "x" not found`))},
	"affinity conflict and not enough space": {
		vr:  pre(skipV),
		nvl: filt(okV, okV),
		vb:  filt(uuV("node(s) didn't match PersistentVolume's node affinity", "node(s) did not have enough free storage"), uuV("node(s) didn't match PersistentVolume's node affinity")),
		vz:  filt(uuV("node(s) had no available volume zone"), uuV("node(s) had no available volume zone"))},
}
