package whatif

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/filter/nodevolumelimits"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

// wiVolumeCluster is svZonedCluster (six 4-cpu nodes n0…n5, two per zone
// zone-a/b/c, each with a CSINode allowing limit volumes of
// csi.example.com, the WaitForFirstConsumer class "zonal" of that
// driver, marked as the cluster's default class) behind a WhatIf, with
// extra storage objects.
func wiVolumeCluster(t testing.TB, limit int32, objs ...api.StorageObject) *WhatIf {
	t.Helper()
	c := svZonedCluster(t, limit)
	sc := st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()
	sc.Annotations = map[string]string{annDefaultClass: "true"}
	if err := c.UpdateStorageObject(sc); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := c.AddStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// wiDBTemplate is a StatefulSet-like replica: 1 cpu, app=db.
func wiDBTemplate() *api.Pod {
	return st.MakePod().Name("db").Namespace("default").Label("app", "db").Owner("apps/v1", "StatefulSet", "db").
		Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
}

// wiDataClaim is the volumeClaimTemplate "data": 10Gi, no class (the
// default class applies).
func wiDataClaim() *api.PersistentVolumeClaim {
	c := st.MakePVC("data", "").Request("10Gi").Obj()
	c.UID, c.Namespace = "", ""
	return c
}

func wiZoneOf(node string) string {
	var i int
	fmt.Sscanf(node, "n%d", &i)
	return fmt.Sprintf("zone-%c", 'a'+i/2)
}

// TestWhatIfCapacityClaimTemplates: a StatefulSet-like template with a
// WaitForFirstConsumer claim template: each replica gets its own claim,
// provisioned by VolumeBinding in the zone of its node, so the volume
// limits and the drivers' storage capacity bound the answer; the cluster
// (claims, volumes, capacities, assume cache) is as before afterwards.
func TestWhatIfCapacityClaimTemplates(t *testing.T) {
	ctx := context.Background()
	t.Run("attach limits", func(t *testing.T) {
		// cpu alone would take 4 replicas per node (24); each node
		// attaches 2 volumes: 12, and the 13th exceeds every node.
		w := wiVolumeCluster(t, 2)
		before := wiCapture(w)
		ans, err := w.Capacity(ctx, wiDBTemplate(), CapacityOptions{ClaimTemplates: []*api.PersistentVolumeClaim{wiDataClaim()}})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		if ans.Replicas != 12 {
			t.Fatalf("replicas %d, want 12: %v", ans.Replicas, ans.Placements)
		}
		for _, nc := range ans.PerNode() {
			if nc.Count != 2 {
				t.Errorf("%s holds %d replicas, want 2", nc.Node, nc.Count)
			}
		}
		if want := "0/6 nodes are available: 6 " + nodevolumelimits.ReasonMaxVolumeCountExceeded + "."; ans.Stop == nil || !strings.HasPrefix(ans.Stop.Message, want) {
			t.Errorf("stop %v, want %q", ans.Stop, want)
		}
		if s := ans.Summary(); !strings.Contains(s, "12 more replica(s) of default/db (cpu 1, memory 1Gi; claim data: storage 10Gi, class zonal each) fit") {
			t.Errorf("summary %q", s)
		}
		// Without the claim templates the volume limits do not apply.
		ans, err = w.Capacity(ctx, wiDBTemplate(), CapacityOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		if ans.Replicas != 24 {
			t.Errorf("replicas without claims %d, want 24", ans.Replicas)
		}
	})
	t.Run("storage capacity and an existing claim", func(t *testing.T) {
		// The driver tracks capacity: zone-a has 25Gi (two 10Gi claims),
		// zone-b 10Gi (one), zone-c none. data-db-1 exists, bound to a
		// volume in zone-c: replica db-1 goes there. db-2…db-4 take
		// zone-a twice and zone-b once; db-5 finds no room.
		pv := st.MakePV("pv-c", "zonal").Capacity("10Gi").NodeAffinity(api.LabelTopologyZone, "zone-c").ClaimRef("default", "data-db-1", "").Phase(api.VolumeBound).Obj()
		w := wiVolumeCluster(t, 10,
			builder.MakeCSIDriver("csi.example.com").StorageCapacity(true).Obj(),
			st.MakeCapacity("cap-a", "zonal", api.LabelTopologyZone, "zone-a", "25Gi", ""),
			st.MakeCapacity("cap-b", "zonal", api.LabelTopologyZone, "zone-b", "10Gi", ""),
			st.MakeCapacity("cap-c", "zonal", api.LabelTopologyZone, "zone-c", "0", ""),
			pv, st.MakePVC("data-db-1", "zonal").Request("10Gi").Bound("pv-c").Obj())
		before := wiCapture(w)
		ans, err := w.Capacity(ctx, wiDBTemplate(), CapacityOptions{ClaimTemplates: []*api.PersistentVolumeClaim{wiDataClaim()}})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		zones := map[string]int{}
		for _, p := range ans.Placements {
			zones[wiZoneOf(p.Node)]++
		}
		if ans.Replicas != 4 || ans.Placements[0].Pod != "default/db-1" || wiZoneOf(ans.Placements[0].Node) != "zone-c" ||
			!cmp.Equal(zones, map[string]int{"zone-a": 2, "zone-b": 1, "zone-c": 1}) {
			t.Fatalf("replicas %d on %v (zones %v)", ans.Replicas, ans.Placements, zones)
		}
		if ans.Stop == nil || !strings.Contains(ans.Stop.Message, volumebinding.ErrReasonNotEnoughSpace) {
			t.Errorf("stop %v, want %q", ans.Stop, volumebinding.ErrReasonNotEnoughSpace)
		}
	})
	t.Run("bad templates", func(t *testing.T) {
		w := wiVolumeCluster(t, 2)
		for _, tc := range []struct {
			claims []*api.PersistentVolumeClaim
			want   string
		}{
			{[]*api.PersistentVolumeClaim{nil}, "ClaimTemplates[0]: nil"},
			{[]*api.PersistentVolumeClaim{{}}, "ClaimTemplates[0].metadata.name: empty"},
			{[]*api.PersistentVolumeClaim{wiDataClaim(), wiDataClaim()}, `ClaimTemplates[1].metadata.name="data": duplicate`},
			{[]*api.PersistentVolumeClaim{st.MakePVC("data", "").Request("0").Obj()},
				`whatif: Capacity: replica default/db-1: claim default/data-db-1 from template "data": cluster: AddStorageObject: framework: persistentvolumeclaim "default/data-db-1": spec.resources.requests["storage"]: 0: must be greater than zero`},
		} {
			before := wiCapture(w)
			_, err := w.Capacity(ctx, wiDBTemplate(), CapacityOptions{ClaimTemplates: tc.claims})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			wiUnchanged(t, w, before)
		}
	})
}

// TestWhatIfPlaceZonalVolume: a pod whose claim is bound to a volume in
// zone-b goes to a zone-b node, the other nodes rejected by VolumeBinding;
// with zone-b full it fits nowhere, and the FitError says why.
func TestWhatIfPlaceZonalVolume(t *testing.T) {
	ctx := context.Background()
	pv := st.MakePV("pv-b", "zonal").Capacity("10Gi").NodeAffinity(api.LabelTopologyZone, "zone-b").ClaimRef("default", "data", "").Phase(api.VolumeBound).Obj()
	w := wiVolumeCluster(t, 10, pv, st.MakePVC("data", "zonal").Request("10Gi").Bound("pv-b").Obj(),
		st.MakePVC("fresh", "zonal").Request("5Gi").Obj())
	before := wiCapture(w)
	pod := st.MakePod().Name("db-0").Namespace("default").Req(map[string]string{"cpu": "1"}).PVC("data").Obj()
	ans, err := w.Place(ctx, pod)
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if !ans.Placed() || wiZoneOf(ans.Decision.Node) != "zone-b" {
		t.Fatalf("placed %v on %q, want a zone-b node", ans.Placed(), ans.Decision.Node)
	}
	rejected := 0
	for _, v := range ans.Decision.Result.NodeVerdicts() {
		if v.Verdict == runtime.VerdictRejected {
			rejected++
			if v.Plugin != "VolumeBinding" || len(v.Reasons) != 1 || v.Reasons[0] != volumebinding.ErrReasonNodeConflict || wiZoneOf(v.Node) == "zone-b" {
				t.Errorf("%s rejected by %s for %v", v.Node, v.Plugin, v.Reasons)
			}
		}
	}
	if rejected != 4 {
		t.Errorf("%d nodes rejected by VolumeBinding, want the 4 outside zone-b", rejected)
	}

	// A WaitForFirstConsumer claim is provisioned on the fork only.
	ans, err = w.Place(ctx, st.MakePod().Name("new").Namespace("default").PVC("fresh").Obj())
	if err != nil || !ans.Placed() {
		t.Fatalf("fresh: %v %+v", err, ans)
	}
	wiUnchanged(t, w, before)
	if o, _ := w.Cluster().StorageObject(api.KindPersistentVolumeClaim, "default", "fresh"); o.(*api.PersistentVolumeClaim).Spec.VolumeName != "" {
		t.Error("claim fresh left bound by the question")
	}

	// Zone-b full: no node for the pod.
	for _, n := range []string{"n2", "n3"} {
		if err := w.Scheduler().AddPod(st.MakePod().Name("big-" + n).Namespace("default").Node(n).Req(map[string]string{"cpu": "4"}).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	before = wiCapture(w)
	ans, err = w.Place(ctx, pod)
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if ans.Placed() || ans.FitError == nil {
		t.Fatalf("placed on %q with zone-b full", ans.Decision.Node)
	}
	if msg := ans.FitError.Error(); !strings.Contains(msg, "2 Insufficient cpu") || !strings.Contains(msg, "4 "+volumebinding.ErrReasonNodeConflict) {
		t.Errorf("FitError %q", msg)
	}
}

// TestWhatIfDrainVolumes: a pod on a zonal volume can only move within its
// zone; drained with the other node of the zone full, it has nowhere to
// go.
func TestWhatIfDrainVolumes(t *testing.T) {
	ctx := context.Background()
	pv := st.MakePV("pv-a", "zonal").Capacity("10Gi").NodeAffinity(api.LabelTopologyZone, "zone-a").ClaimRef("default", "data-db-0", "").Phase(api.VolumeBound).Obj()
	w := wiVolumeCluster(t, 10, pv, st.MakePVC("data-db-0", "zonal").Request("10Gi").Bound("pv-a").Obj())
	db := st.MakePod().Name("db-0").Namespace("default").Node("n0").Owner("apps/v1", "StatefulSet", "db").Req(map[string]string{"cpu": "1"}).PVC("data-db-0").Obj()
	if err := w.Scheduler().AddPod(db); err != nil {
		t.Fatal(err)
	}
	before := wiCapture(w)
	ans, err := w.Drain(ctx, []string{"n0"}, DrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if len(ans.Pods) != 1 || ans.Pods[0].Outcome != DrainMoved || ans.Pods[0].To != "n1" {
		t.Fatalf("drain %+v, want db-0 moved to n1 (zone-a)", ans.Pods)
	}
	if err := w.Scheduler().AddPod(st.MakePod().Name("big").Namespace("default").Node("n1").Req(map[string]string{"cpu": "4"}).Obj()); err != nil {
		t.Fatal(err)
	}
	before = wiCapture(w)
	ans, err = w.Drain(ctx, []string{"n0"}, DrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if ans.Drainable || len(ans.Pods) != 1 || ans.Pods[0].Outcome != DrainUnschedulable || !strings.Contains(ans.Pods[0].Reason, "4 "+volumebinding.ErrReasonNodeConflict) {
		t.Fatalf("drain %+v", ans.Pods)
	}
}

// TestWhatIfScaleUpGated: pods held by scheduling gates are not scale-up
// targets (SchedulePod refuses them): they are listed, with the gate
// message, whether the question names them or not.
func TestWhatIfScaleUpGated(t *testing.T) {
	ctx := context.Background()
	w := wiCluster(t, []*api.Node{wiNode("n1", "1").Obj()}, nil)
	for _, p := range []*api.Pod{
		wiPod("wide", "2").Obj(),
		wiPod("gated", "2").SchedulingGates("example.com/quota").Obj(),
	} {
		if err := w.Scheduler().AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	tmpl := wiNode("big", "4").Obj()
	for _, pods := range [][]string{nil, {"default/gated", "default/wide"}} {
		before := wiCapture(w)
		ans, err := w.ScaleUp(ctx, tmpl, ScaleUpOptions{Pods: pods})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		want := []PodFailure{{Pod: "default/gated", Reason: "waiting for scheduling gates: [example.com/quota]"}}
		if diff := cmp.Diff(want, ans.Gated); diff != "" {
			t.Errorf("pods %v: gated (-want +got):\n%s", pods, diff)
		}
		if !ans.Feasible || ans.Nodes != 1 || ans.Pods != 1 || len(ans.Answer.Placements) != 1 || ans.Answer.Placements[0].Pod != "default/wide" {
			t.Errorf("pods %v: answer %+v", pods, ans)
		}
		var b strings.Builder
		if err := ans.Write(&b, ExplainOptions{}); err != nil {
			t.Fatal(err)
		}
		if s := b.String(); !strings.Contains(s, "1 gated pod(s) wait for their scheduling gates, not for nodes (left out):\n  default/gated: waiting for scheduling gates") {
			t.Errorf("answer text:\n%s", s)
		}
		if s := ans.Summary(); !strings.Contains(s, "1 gated pod(s) wait for their scheduling gates (e.g. default/gated).") {
			t.Errorf("summary %q", s)
		}
	}
}

// TestPropWhatIfVolumesUnchanged: on a cluster with zonal storage after
// random volume events (claims, static volumes, pods binding and
// provisioning, deletions, attach limits, removed nodes, gated pods),
// every question — placing a pod with a claim or an ephemeral volume,
// the capacity of a template with a claim template, draining a node,
// scaling up with zoned nodes — leaves the cluster as it was: nodes,
// pods, storage objects and which claims pods use (compared with
// go-cmp), the queue, nominations, and an empty VolumeBinding assume
// cache.
func TestPropWhatIfVolumesUnchanged(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := svZonedCluster(t, int32(rapid.IntRange(1, 4).Draw(t, "limit")))
		w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(rapid.Uint64().Draw(t, "seed")))
		if err != nil {
			t.Fatal(err)
		}
		for i := rapid.IntRange(0, 14).Draw(t, "setup"); i > 0; i-- {
			vpStep(t, w.s, 100+i)
		}
		ctx := context.Background()
		for q := range rapid.IntRange(1, 3).Draw(t, "questions") {
			before := wiCapture(w)
			if before.Assumed != [2]int{} {
				t.Fatalf("assume cache holds %v before question %d", before.Assumed, q)
			}
			claim := fmt.Sprintf("c%d", rapid.IntRange(0, 5).Draw(t, "claim"))
			var err error
			switch kind := rapid.IntRange(0, 3).Draw(t, "question"); kind {
			case 0:
				p := st.MakePod().Name(fmt.Sprintf("q%d", q)).UID(fmt.Sprintf("uid-q%d", q)).Req(map[string]string{"cpu": "500m"})
				if rapid.Bool().Draw(t, "ephemeral") {
					p.Ephemeral("v", "zonal", "1Gi")
				} else {
					p.PVC(claim)
				}
				_, err = w.Place(ctx, p.Obj())
			case 1:
				tmpl := wiDataClaim()
				tmpl.Spec.Resources.Requests = st.MakePVC("x", "").Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 20).Draw(t, "size"))).Obj().Spec.Resources.Requests
				class := "zonal"
				tmpl.Spec.StorageClassName = &class
				_, err = w.Capacity(ctx, wiDBTemplate(), CapacityOptions{Max: rapid.IntRange(1, 10).Draw(t, "max"), ClaimTemplates: []*api.PersistentVolumeClaim{tmpl}})
			case 2:
				nodes := w.Cluster().Snapshot().Nodes()
				if len(nodes) == 0 {
					continue
				}
				_, err = w.Drain(ctx, []string{nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "drain")].Name()}, DrainOptions{AtOnce: rapid.Bool().Draw(t, "atOnce")})
			case 3:
				zone := fmt.Sprintf("zone-%c", 'a'+rapid.IntRange(0, 2).Draw(t, "zone"))
				tmpl := st.MakeNode().Name("new").Label(api.LabelTopologyZone, zone).Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
				_, err = w.ScaleUp(ctx, tmpl, ScaleUpOptions{MaxNodes: 3})
			}
			if err != nil {
				t.Fatal(err)
			}
			wiUnchanged(t, w, before)
		}
	})
}

// TestEphemeralClaimDefaultClass: a generic ephemeral volume whose
// template names no class gets the cluster's default class, as the API
// server's DefaultStorageClass admission plugin sets it on the claim the
// ephemeral volume controller creates (k8s.io/kubernetes
// plugin/pkg/admission/storage/storageclass/setdefault Admit;
// pkg/controller/volume/ephemeral handleVolume): the pod's claim is
// provisioned, not left an unbound claim of no class ("pod has unbound
// immediate PersistentVolumeClaims"). A template naming a class, even "",
// keeps it.
func TestEphemeralClaimDefaultClass(t *testing.T) {
	w := wiVolumeCluster(t, 10)
	empty := ""
	for _, tc := range []struct {
		name    string
		class   *string
		outcome scheduling.Outcome
		want    string
	}{
		{"no class", nil, scheduling.OutcomeScheduled, "zonal"},
		{"empty class", &empty, scheduling.OutcomeUnschedulable, ""},
	} {
		p := st.MakePod().Name("e-" + strings.ReplaceAll(tc.name, " ", "-")).UID("uid-" + tc.name).Obj()
		spec := st.MakePVC("x", "").Obj().Spec
		spec.StorageClassName = tc.class
		p.Spec.Volumes = []api.Volume{{Name: "v", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{
			VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{Spec: spec}}}}}
		d, err := w.Scheduler().SchedulePod(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := w.Cluster().StorageObject(api.KindPersistentVolumeClaim, "default", p.Name+"-v")
		if got := api.ClaimClass(o.(*api.PersistentVolumeClaim)); d.Outcome != tc.outcome || got != tc.want {
			t.Errorf("%s: %s (%s), claim of class %q; want %s, %q", tc.name, d.Outcome, d.Message, got, tc.outcome, tc.want)
		}
	}
}
