package volumezone

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

func vzPV(name string, labels ...string) *api.PersistentVolume {
	w := st.MakePV(name, "")
	for i := 0; i+1 < len(labels); i += 2 {
		w = w.Label(labels[i], labels[i+1])
	}
	return w.Obj()
}

func vzNode(labels ...string) *api.Node {
	w := st.MakeNode()
	for i := 0; i+1 < len(labels); i += 2 {
		w = w.Label(labels[i], labels[i+1])
	}
	n := w.Obj()
	n.Name = "host1"
	return n
}

type vzCase struct {
	name       string
	pod        *api.Pod
	node       *api.Node
	wantPre    *fw.Status
	wantFilter *fw.Status
}

func vzRunCases(t *testing.T, objs api.StorageObjects, tests []vzCase) {
	t.Helper()
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := st.VolumeSnapshot(t, []*api.Node{tc.node}, nil, objs)
			pre, filt, _ := st.RunFilter(t, pl, snap, tc.pod)
			if !pre.Equal(tc.wantPre) {
				t.Errorf("PreFilter = %v, want %v", pre, tc.wantPre)
			}
			if pre.IsSuccess() && !filt[0].Equal(tc.wantFilter) {
				t.Errorf("Filter = %v, want %v", filt[0], tc.wantFilter)
			}
		})
	}
}

func vzPod(claim string) *api.Pod { return st.MakePod().Name("pod_1").PVC(claim).Obj() }

// TestVolumeZoneSingleZone is kube-scheduler v1.36
// volumezone/volume_zone_test.go TestSingleZone, case for case.
func TestVolumeZoneSingleZone(t *testing.T) {
	const beZ, beR, gaZ, gaR = api.LabelFailureDomainBetaZone, api.LabelFailureDomainBetaRegion, api.LabelTopologyZone, api.LabelTopologyRegion
	objs := api.StorageObjects{
		PersistentVolumes: []*api.PersistentVolume{
			vzPV("Vol_1", beZ, "us-west1-a"), vzPV("Vol_2", beR, "us-west1", "uselessLabel", "none"), vzPV("Vol_3", beR, "us-west1"),
			vzPV("Vol_Stable_1", gaZ, "us-west1-a"), vzPV("Vol_Stable_2", gaR, "us-west1", "uselessLabel", "none"),
			vzPV("Vol_Stable_3", gaZ, "us-west1-a", gaR, "us-west1-a"),
		},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{
			st.MakePVC("PVC_1", "").VolumeName("Vol_1").Obj(), st.MakePVC("PVC_2", "").VolumeName("Vol_2").Obj(),
			st.MakePVC("PVC_3", "").VolumeName("Vol_3").Obj(), st.MakePVC("PVC_4", "").VolumeName("Vol_not_exist").Obj(),
			st.MakePVC("PVC_Stable_1", "").VolumeName("Vol_Stable_1").Obj(), st.MakePVC("PVC_Stable_2", "").VolumeName("Vol_Stable_2").Obj(),
			st.MakePVC("PVC_Stable_3", "").VolumeName("Vol_Stable_3").Obj(),
		},
	}
	conflict := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonConflict)
	vzRunCases(t, objs, []vzCase{
		{"pod without volume", st.MakePod().Name("pod_1").Obj(), vzNode(beZ, "us-west1-a"), fw.NewStatus(fw.Skip), nil},
		{"node without labels", vzPod("PVC_1"), vzNode(), nil, nil},
		{"beta zone label matched", vzPod("PVC_1"), vzNode(beZ, "us-west1-a", "uselessLabel", "none"), nil, nil},
		{"beta region label matched", vzPod("PVC_2"), vzNode(beR, "us-west1", "uselessLabel", "none"), nil, nil},
		{"beta region label doesn't match", vzPod("PVC_2"), vzNode(beR, "no_us-west1", "uselessLabel", "none"), nil, conflict},
		{"beta zone label doesn't match", vzPod("PVC_1"), vzNode(beZ, "no_us-west1-a", "uselessLabel", "none"), nil, conflict},
		{"zone label matched", vzPod("PVC_Stable_1"), vzNode(gaZ, "us-west1-a", "uselessLabel", "none"), nil, nil},
		{"region label matched", vzPod("PVC_Stable_2"), vzNode(gaR, "us-west1", "uselessLabel", "none"), nil, nil},
		{"region label doesn't match", vzPod("PVC_Stable_2"), vzNode(gaR, "no_us-west1", "uselessLabel", "none"), nil, conflict},
		{"zone label doesn't match", vzPod("PVC_Stable_1"), vzNode(gaZ, "no_us-west1-a", "uselessLabel", "none"), nil, conflict},
		{"pv with zone and region, node with only zone", vzPod("PVC_Stable_3"), vzNode(gaZ, "us-west1-a"), nil, conflict},
		{"pv with zone,node with beta zone", vzPod("PVC_Stable_1"), vzNode(beZ, "us-west1-a"), nil, conflict},
		{"pv with beta label,node with ga label, matched", vzPod("PVC_1"), vzNode(gaZ, "us-west1-a"), nil, nil},
		{"pv with beta label,node with ga label, don't match", vzPod("PVC_1"), vzNode(gaZ, "us-west1-b"), nil, conflict},
		// Hand-derived: a claim bound to a missing volume, a missing claim.
		{"claim bound to a missing volume", vzPod("PVC_4"), vzNode(gaZ, "a"),
			fw.NewStatus(fw.UnschedulableAndUnresolvable, `persistentvolume "Vol_not_exist" not found`), nil},
		{"missing claim", vzPod("PVC_missing"), vzNode(gaZ, "a"),
			fw.NewStatus(fw.UnschedulableAndUnresolvable, `persistentvolumeclaim "PVC_missing" not found`), nil},
	})
}

// TestVolumeZoneMultiZone is volume_zone_test.go TestMultiZone: a label
// value may list zones separated by "__".
func TestVolumeZoneMultiZone(t *testing.T) {
	const beZ, gaZ = api.LabelFailureDomainBetaZone, api.LabelTopologyZone
	objs := api.StorageObjects{
		PersistentVolumes: []*api.PersistentVolume{
			vzPV("Vol_1", beZ, "us-west1-a"), vzPV("Vol_2", beZ, "us-west1-b", "uselessLabel", "none"), vzPV("Vol_3", beZ, "us-west1-c__us-west1-a"),
			vzPV("Vol_Stable_1", gaZ, "us-west1-a"), vzPV("Vol_Stable_2", gaZ, "us-west1-c__us-west1-a"),
			// Hand-derived: an empty zone in the list makes the label unparsable; it is ignored.
			vzPV("Vol_Bad", gaZ, "us-west1-c____us-west1-a"),
		},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{
			st.MakePVC("PVC_1", "").VolumeName("Vol_1").Obj(), st.MakePVC("PVC_2", "").VolumeName("Vol_2").Obj(),
			st.MakePVC("PVC_3", "").VolumeName("Vol_3").Obj(), st.MakePVC("PVC_Stable_1", "").VolumeName("Vol_Stable_1").Obj(),
			st.MakePVC("PVC_Stable_2", "").VolumeName("Vol_Stable_2").Obj(), st.MakePVC("PVC_Bad", "").VolumeName("Vol_Bad").Obj(),
		},
	}
	conflict := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonConflict)
	vzRunCases(t, objs, []vzCase{
		{"node without labels", vzPod("PVC_3"), vzNode(), nil, nil},
		{"beta zone label matched", vzPod("PVC_3"), vzNode(beZ, "us-west1-a", "uselessLabel", "none"), nil, nil},
		{"beta zone label doesn't match", vzPod("PVC_1"), vzNode(beZ, "us-west1-b", "uselessLabel", "none"), nil, conflict},
		{"zone label matched", vzPod("PVC_Stable_2"), vzNode(gaZ, "us-west1-a", "uselessLabel", "none"), nil, nil},
		{"zone label doesn't match", vzPod("PVC_Stable_1"), vzNode(gaZ, "us-west1-b", "uselessLabel", "none"), nil, conflict},
		{"unparsable label ignored", vzPod("PVC_Bad"), vzNode(gaZ, "us-west1-b"), fw.NewStatus(fw.Skip), nil},
	})
}

// TestVolumeZoneWithBinding is volume_zone_test.go TestWithBinding, with
// the messages of kube-scheduler's real (informer) listers: kube's test
// uses fake listers whose not-found messages name the plural resource
// ("storageclasses.storage.k8s.io"); the scheduler's generated listers
// name the singular one.
func TestVolumeZoneWithBinding(t *testing.T) {
	objs := api.StorageObjects{
		StorageClasses: []*api.StorageClass{
			st.MakeSC("Class_Immediate", "p", "").Obj(), st.MakeSC("Class_Wait", "p", api.VolumeBindingWaitForFirstConsumer).Obj(),
			st.MakeSC("Class_Really_Immediate", "p", api.VolumeBindingImmediate).Obj(),
		},
		PersistentVolumes: []*api.PersistentVolume{vzPV("Vol_1", api.LabelFailureDomainBetaZone, "us-west1-a")},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{
			st.MakePVC("PVC_1", "").VolumeName("Vol_1").Obj(), st.MakePVC("PVC_NoSC", "Class_0").Obj(), st.MakePVC("PVC_EmptySC", "").Obj(),
			st.MakePVC("PVC_WaitSC", "Class_Wait").Obj(), st.MakePVC("PVC_ImmediateSC", "Class_Immediate").Obj(),
			st.MakePVC("PVC_ReallyImmediateSC", "Class_Really_Immediate").Obj(),
		},
	}
	node := vzNode(api.LabelFailureDomainBetaZone, "us-west1-a", "uselessLabel", "none")
	uu := func(msg string) *fw.Status { return fw.NewStatus(fw.UnschedulableAndUnresolvable, msg) }
	vzRunCases(t, objs, []vzCase{
		{"label zone failure domain matched", vzPod("PVC_1"), node, nil, nil},
		{"unbound volume empty storage class", vzPod("PVC_EmptySC"), node, uu("PersistentVolumeClaim had no pv name and storageClass name"), nil},
		{"unbound volume no storage class", vzPod("PVC_NoSC"), node, uu(`storageclass.storage.k8s.io "Class_0" not found`), nil},
		{"unbound volume immediate binding mode", vzPod("PVC_ImmediateSC"), node, uu(`VolumeBindingMode not set for StorageClass "Class_Immediate"`), nil},
		{"unbound volume wait binding mode", vzPod("PVC_WaitSC"), node, fw.NewStatus(fw.Skip), nil},
		// Hand-derived: an unbound claim of an Immediate class.
		{"unbound volume with Immediate mode set", vzPod("PVC_ReallyImmediateSC"), node, uu("PersistentVolume had no name"), nil},
	})
}

// TestConformance holds VolumeZone's fast forms to its PreFilter and Filter
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

// TestPropTablesEqualLabels: FilterBatch given the nodes' snapshot
// positions, which reads PreFilter's tables, rejects exactly the nodes
// Filter rejects from their labels: beta and GA zone and region labels on
// nodes and volumes, either missing, zone lists joined with "__" (an
// empty zone in a list makes the volume's label ignored), several volumes.
func TestPropTablesEqualLabels(t *testing.T) {
	keys := []string{api.LabelFailureDomainBetaZone, api.LabelFailureDomainBetaRegion, api.LabelTopologyZone, api.LabelTopologyRegion}
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range rapid.IntRange(1, 12).Draw(t, "nodes") {
			w := st.MakeNode().Name(fmt.Sprintf("n%d", i))
			for _, k := range keys {
				if v := rapid.SampledFrom([]string{"", "a", "b", "c"}).Draw(t, "nodeValue"); v != "" {
					w = w.Label(k, v)
				}
			}
			nodes = append(nodes, w.Obj())
		}
		var objs api.StorageObjects
		pod := st.MakePod().Name("p")
		for i := range rapid.IntRange(1, 3).Draw(t, "volumes") {
			w := st.MakePV(fmt.Sprintf("pv%d", i), "")
			for _, k := range keys {
				if v := rapid.SampledFrom([]string{"", "a", "b", "a__c", "b__ c", "a____b"}).Draw(t, "volumeValue"); v != "" {
					w = w.Label(k, v)
				}
			}
			objs.PersistentVolumes = append(objs.PersistentVolumes, w.Obj())
			claim := fmt.Sprintf("c%d", i)
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "").VolumeName(fmt.Sprintf("pv%d", i)).Obj())
			pod = pod.PVC(claim)
		}
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		pl, pi, ctx := p.(*VolumeZone), fw.MustPodInfo(pod.Obj()), context.Background()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if _, pre := pl.PreFilter(ctx, state, pi, snap.Nodes()); !pre.IsSuccess() {
			return // no topology label on any volume: PreFilter skips
		}
		if s, _ := vzReadState(state, pi); s.indexed == nil {
			t.Fatal("PreFilter resolved no tables")
		}
		all := snap.Nodes()
		idx := st.SnapshotIndices(state, all)
		got := make([]*fw.Status, len(all))
		pl.FilterBatch(ctx, state, pi, all, idx, got)
		for k, ni := range all {
			if want := pl.Filter(ctx, state, pi, ni); !got[k].Equal(want) {
				t.Fatalf("node %v: tables %v, labels %v", ni.Node().Labels, got[k], want)
			}
		}
	})
}
