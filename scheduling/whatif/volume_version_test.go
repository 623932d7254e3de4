package whatif

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

// wiVersionCluster is svZonedCluster (six 4-cpu nodes n0…n5, two per zone
// zone-a/b/c; class "zonal" of csi.example.com, WaitForFirstConsumer)
// with capacity tracking: csi.example.com reports 40Gi of "zonal" in
// zone-a, 400Gi in zone-b and 100Gi in zone-c. Besides, the driver
// ebs.csi.example.com, whose CSIDriver sets preventPodSchedulingIfMissing,
// is installed (on the CSINode) on n4 and n5 only, and the claim "logs"
// is bound to a volume of that driver. The what-if runs kube-scheduler
// release v.
func wiVersionCluster(t *testing.T, v framework.KubeVersion) *WhatIf {
	t.Helper()
	c := svZonedCluster(t, -1)
	yes := true
	objs := []api.StorageObject{
		&api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}, Spec: api.CSIDriverSpec{StorageCapacity: &yes}},
		st.MakeCapacity("cap-a", "zonal", api.LabelTopologyZone, "zone-a", "40Gi", ""),
		st.MakeCapacity("cap-b", "zonal", api.LabelTopologyZone, "zone-b", "400Gi", ""),
		st.MakeCapacity("cap-c", "zonal", api.LabelTopologyZone, "zone-c", "100Gi", ""),
		&api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "ebs.csi.example.com"}, Spec: api.CSIDriverSpec{PreventPodSchedulingIfMissing: &yes}},
		st.MakeSC("ebs", "ebs.csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj(),
		st.MakePV("pv-logs", "ebs").CSI("ebs.csi.example.com", "vol-logs").ClaimRef("default", "logs", "uid-logs").Phase(api.VolumeBound).Obj(),
		st.MakePVC("logs", "ebs").Bound("pv-logs").Obj(),
		st.MakePVC("data", "zonal").Request("10Gi").Obj(),
	}
	for _, o := range objs {
		if err := c.AddStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"n4", "n5"} {
		if err := c.UpdateStorageObject(st.MakeCSINode(n).Driver("csi.example.com", -1, api.LabelTopologyZone).Driver("ebs.csi.example.com", -1).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfileFor(v)}, scheduling.WithSeed(7), scheduling.WithKubeVersion(v))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPlaceVolumesByKubeVersion: the same question on the same cluster
// under kube-scheduler v1.36 and v1.37. A pod with a 10Gi claim of the
// capacity-tracked class goes, in v1.37, to the zone with the most free
// storage (VolumeBinding scores 100 − 10·100/capacity: zone-a 75, zone-b
// 98, zone-c 90; StorageCapacityScoring on), while v1.36 does not score
// storage and breaks the tie among the six equal nodes with the seed. A
// pod with the claim of ebs.csi.example.com fits, in v1.37, only n4 and
// n5, whose CSINode lists the driver (VolumeLimitScaling on); every node in
// v1.36.
func TestPlaceVolumesByKubeVersion(t *testing.T) {
	ctx := context.Background()
	data := st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1"}).PVC("data").Obj()
	logs := st.MakePod().Name("q").Namespace("default").Req(map[string]string{"cpu": "1"}).PVC("logs").Obj()
	place := func(v framework.KubeVersion, pod *api.Pod) *PlaceAnswer {
		a, err := wiVersionCluster(t, v).Place(ctx, pod)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	zoneOf := map[string]string{"n0": "zone-a", "n1": "zone-a", "n2": "zone-b", "n3": "zone-b", "n4": "zone-c", "n5": "zone-c"}

	a37 := place(framework.KubeV137, data)
	if got := zoneOf[a37.Decision.Node]; got != "zone-b" {
		t.Errorf("v1.37: data pod on %s (%s), want zone-b (most free storage)", a37.Decision.Node, got)
	}
	for _, ns := range a37.Decision.Result.Scores() {
		want := map[string]int64{"zone-a": 75, "zone-b": 98, "zone-c": 90}[zoneOf[ns.Node]]
		for _, ps := range ns.Scores {
			if ps.Plugin == "VolumeBinding" && (ps.Skipped || ps.Raw != want) {
				t.Errorf("v1.37: %s VolumeBinding %+v, want raw %d", ns.Node, ps, want)
			}
		}
	}
	a36 := place(framework.KubeV136, data)
	for _, ns := range a36.Decision.Result.Scores() {
		for _, ps := range ns.Scores {
			if ps.Plugin == "VolumeBinding" && !ps.Skipped {
				t.Errorf("v1.36: %s VolumeBinding scored %+v, want skipped", ns.Node, ps)
			}
		}
	}
	if a36.Decision.Node == "" {
		t.Error("v1.36: data pod not placed")
	}

	l37 := place(framework.KubeV137, logs)
	if n := l37.Decision.Node; n != "n4" && n != "n5" {
		t.Errorf("v1.37: logs pod on %q, want n4 or n5", n)
	}
	if s := l37.Decision.Result.String(); !strings.Contains(s, "ebs.csi.example.com CSI driver is not installed on the node") {
		t.Errorf("v1.37: explanation lacks the missing driver:\n%s", s)
	}
	l36 := place(framework.KubeV136, logs)
	if s := l36.Decision.Result.String(); strings.Contains(s, "CSI driver is not installed") {
		t.Errorf("v1.36: a node rejected for the missing driver:\n%s", s)
	}
}
