package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/filter/nodevolumelimits"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/filter/volumerestrictions"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/testplugins"
)

// svZonedCluster is three zones of two 4-cpu nodes with a
// WaitForFirstConsumer CSI class "zonal" (testplugins.ZonedVolumeCluster).
var svZonedCluster = testplugins.ZonedVolumeCluster

func svScheduler(t *testing.T, c *cluster.Cluster) *Scheduler {
	t.Helper()
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()},
		WithClock(framework.NewFakeClock(time.Unix(0, 0))), WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchedulerStatefulSetVolumes: each replica's claim is provisioned in
// the zone of the node chosen for it (the volume's node affinity pins the
// zone), the claim and volume end bound; a replica recreated after its
// pod is deleted returns to its volume's zone.
func TestSchedulerStatefulSetVolumes(t *testing.T) {
	c := svZonedCluster(t, 10)
	s := svScheduler(t, c)
	ctx := context.Background()
	for i := range 3 {
		claim := st.MakePVC(fmt.Sprintf("data-web-%d", i), "zonal").Request("10Gi").Obj()
		if err := s.AddStorageObject(claim); err != nil {
			t.Fatal(err)
		}
		if err := s.AddPod(st.MakePod().Name(fmt.Sprintf("web-%d", i)).Req(map[string]string{"cpu": "1"}).PVC(claim.Name).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	s.RunUntilIdle(ctx)
	zoneOf := map[string]string{}
	for i := range 3 {
		rec, _ := c.Pod("default", fmt.Sprintf("web-%d", i))
		if rec.State != cluster.StateBound {
			t.Fatalf("web-%d is %s", i, rec.State)
		}
		node, _ := c.Node(rec.Pod.Spec.NodeName)
		zone := node.Labels[api.LabelTopologyZone]
		o, _ := c.StorageObject(api.KindPersistentVolumeClaim, "default", fmt.Sprintf("data-web-%d", i))
		claim := o.(*api.PersistentVolumeClaim)
		if !api.IsClaimFullyBound(claim) || claim.Status.Phase != api.ClaimBound || claim.Annotations[api.AnnSelectedNode] != node.Name {
			t.Fatalf("claim %s not bound on %s: %+v", claim.Name, node.Name, claim)
		}
		pv, ok := c.Snapshot().PersistentVolume(claim.Spec.VolumeName)
		if !ok || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != claim.Name || pv.Status.Phase != api.VolumeBound {
			t.Fatalf("volume of %s: %+v", claim.Name, pv)
		}
		req := pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0]
		if req.Key != api.LabelTopologyZone || req.Values[0] != zone || pv.Spec.CSI.Driver != "csi.example.com" {
			t.Fatalf("volume %s affinity %+v driver %s, want zone %s", pv.Name, req, pv.Spec.CSI.Driver, zone)
		}
		zoneOf[claim.Name] = zone
	}
	// Recreate web-1 after filling the other zones' nodes: it must go back
	// to its zone anyway, and when that zone is full it waits.
	if err := s.DeletePod("default", "web-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(st.MakePod().Name("web-1").Req(map[string]string{"cpu": "1"}).PVC("data-web-1").Obj()); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(ctx)
	rec, _ := c.Pod("default", "web-1")
	node, _ := c.Node(rec.Pod.Spec.NodeName)
	if node == nil || node.Labels[api.LabelTopologyZone] != zoneOf["data-web-1"] {
		t.Fatalf("web-1 recreated on %v, want zone %s", rec.Pod.Spec.NodeName, zoneOf["data-web-1"])
	}
	// A replica whose zone has no room stays pending with kube's message.
	for _, n := range []string{"n0", "n1", "n2", "n3", "n4", "n5"} {
		if ni, _ := c.NodeInfo(n); ni.Node().Labels[api.LabelTopologyZone] == zoneOf["data-web-2"] {
			if err := s.AddPod(st.MakePod().Name("hog-" + n).Node(n).Req(map[string]string{"cpu": "4"}).Obj()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.DeletePod("default", "web-2"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(st.MakePod().Name("web-2").Req(map[string]string{"cpu": "1"}).PVC("data-web-2").Obj()); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(ctx)
	if rec, _ := c.Pod("default", "web-2"); rec.State != cluster.StatePending {
		t.Fatalf("web-2 placed on %s", rec.Pod.Spec.NodeName)
	}
	msg := s.PendingReason("default", "web-2")
	if want := "0/6 nodes are available: 2 Insufficient cpu, 4 " + volumebinding.ErrReasonNodeConflict + "."; !strings.HasPrefix(msg, want) {
		t.Errorf("pending reason %q", msg)
	}
}

// TestSchedulerEphemeralVolumes: the cluster creates a pod's ephemeral
// claims; the scheduler provisions them; deleting the pod deletes them.
func TestSchedulerEphemeralVolumes(t *testing.T) {
	c := svZonedCluster(t, 10)
	s := svScheduler(t, c)
	pod := st.MakePod().Name("batch").UID("uid-batch").Req(map[string]string{"cpu": "1"}).Ephemeral("scratch", "zonal", "5Gi").Obj()
	if err := s.AddPod(pod); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	rec, _ := c.Pod("default", "batch")
	if rec.State != cluster.StateBound {
		t.Fatalf("batch %s: %s", rec.State, s.PendingReason("default", "batch"))
	}
	o, ok := c.StorageObject(api.KindPersistentVolumeClaim, "default", "batch-scratch")
	if !ok || !api.IsClaimFullyBound(o.(*api.PersistentVolumeClaim)) {
		t.Fatalf("ephemeral claim: %+v", o)
	}
	if err := s.DeletePod("default", "batch"); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, "default", "batch-scratch"); ok {
		t.Error("the ephemeral claim outlived its pod")
	}
}

// TestSchedulerCSIAttachLimits: with one volume attachable per node, pods
// with a volume each spread one per node and the seventh waits.
func TestSchedulerCSIAttachLimits(t *testing.T) {
	c := svZonedCluster(t, 1)
	s := svScheduler(t, c)
	for i := range 7 {
		claim := st.MakePVC(fmt.Sprintf("c%d", i), "zonal").Obj()
		if err := s.AddStorageObject(claim); err != nil {
			t.Fatal(err)
		}
		if err := s.AddPod(st.MakePod().Name(fmt.Sprintf("p%d", i)).PVC(claim.Name).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	s.RunUntilIdle(context.Background())
	used := map[string]bool{}
	pending := 0
	for _, r := range c.Pods() {
		if r.State == cluster.StatePending {
			pending++
			if msg := s.PendingReason("default", r.Pod.Name); !strings.Contains(msg, "6 "+nodevolumelimits.ReasonMaxVolumeCountExceeded) {
				t.Errorf("pending %s: %q", r.Pod.Name, msg)
			}
			continue
		}
		if used[r.Pod.Spec.NodeName] {
			t.Errorf("two volume pods on %s", r.Pod.Spec.NodeName)
		}
		used[r.Pod.Spec.NodeName] = true
	}
	if pending != 1 || len(used) != 6 {
		t.Errorf("pending %d, nodes used %d", pending, len(used))
	}
}

// TestSchedulerGatedPods: a pod with scheduling gates waits outside the
// active queue (counted as unschedulable, never tried) until UpdatePod
// removes its gates.
func TestSchedulerGatedPods(t *testing.T) {
	c := svZonedCluster(t, 10)
	s := svScheduler(t, c)
	var decisions []Decision
	s.SetDecisionHandler(func(d Decision) { decisions = append(decisions, d) })
	gated := st.MakePod().Name("g").Req(map[string]string{"cpu": "1"}).SchedulingGates("example.com/quota", "example.com/ready").Obj()
	if err := s.AddPod(gated); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if n := s.RunUntilIdle(ctx); n != 0 || len(decisions) != 0 {
		t.Fatalf("a gated pod was tried: %d cycles, %v", n, decisions)
	}
	if a, _, u := s.QueueLengths(); a != 0 || u != 1 {
		t.Fatalf("queue lengths active %d unschedulable %d", a, u)
	}
	if got := s.PendingReason("default", "g"); got != "waiting for scheduling gates: [example.com/quota example.com/ready]" {
		t.Fatalf("reason %q", got)
	}
	if _, err := s.SchedulePod(ctx, st.MakePod().Name("g2").SchedulingGates("x").Obj()); err == nil || !strings.Contains(err.Error(), "is gated: waiting for scheduling gates: [x]") {
		t.Fatalf("SchedulePod of a gated pod: %v", err)
	}
	// A cluster event re-checks the gates: still gated.
	if err := s.AddNode(st.MakeNode().Name("extra").Capacity(map[string]string{"cpu": "4", "pods": "10"}).Obj()); err != nil {
		t.Fatal(err)
	}
	if n := s.RunUntilIdle(ctx); n != 0 {
		t.Fatalf("gated pod tried after a node event")
	}
	one := st.MakePod().Name("g").Req(map[string]string{"cpu": "1"}).SchedulingGates("example.com/ready").Obj()
	if err := s.UpdatePod(one); err != nil {
		t.Fatal(err)
	}
	if got := s.PendingReason("default", "g"); got != "waiting for scheduling gates: [example.com/ready]" {
		t.Fatalf("reason after removing one gate %q", got)
	}
	open := st.MakePod().Name("g").Req(map[string]string{"cpu": "1"}).Obj()
	if err := s.UpdatePod(open); err != nil {
		t.Fatal(err)
	}
	if n := s.RunUntilIdle(ctx); n != 1 {
		t.Fatalf("ungated pod: %d cycles", n)
	}
	if rec, _ := c.Pod("default", "g"); rec.State != cluster.StateBound {
		t.Fatalf("g is %s", rec.State)
	}
	if err := s.UpdatePod(open); err == nil || !strings.Contains(err.Error(), `spec.nodeName="": cannot change`) {
		t.Errorf("UpdatePod of a bound pod without its node: %v", err)
	}
}

// TestClusterStorageBadInput: invalid storage objects and references are
// clear errors naming the object and field; nothing is half-added.
func TestClusterStorageBadInput(t *testing.T) {
	c := svZonedCluster(t, 1)
	negative := st.MakePV("neg", "zonal").Obj()
	negative.Spec.Capacity = st.Storage("-5Gi")
	tests := []struct {
		name string
		obj  api.StorageObject
		want string
	}{
		{"csinode for an unknown node", st.MakeCSINode("ghost").Obj(), `csinode "ghost": node "ghost" not found`},
		{"pv with an invalid capacity", negative, `persistentvolume "neg": spec.capacity["storage"]: -5Gi: must not be negative`},
		{"claim with conflicting access modes", st.MakePVC("c", "zonal").AccessModes(api.ReadWriteOncePod, api.ReadWriteOnce).Obj(),
			`persistentvolumeclaim "default/c": spec.accessModes: ["ReadWriteOncePod" "ReadWriteOnce"]: may not use ReadWriteOncePod with other access modes`},
		{"duplicate class", st.MakeSC("zonal", "p", "").Obj(), `StorageClass "zonal" already exists`},
		{"nil", nil, "nil object"},
	}
	before := c.Storage()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.AddStorageObject(tc.obj)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if err := c.UpdateStorageObject(st.MakePV("none", "zonal").Obj()); err == nil || !strings.Contains(err.Error(), `unknown PersistentVolume "none"`) {
		t.Errorf("update unknown: %v", err)
	}
	if _, err := c.DeleteStorageObject(api.KindPersistentVolumeClaim, "default", "none"); err == nil || !strings.Contains(err.Error(), `PersistentVolumeClaim "default/none" not found`) {
		t.Errorf("delete unknown: %v", err)
	}
	if len(c.Storage().CSINodes) != len(before.CSINodes) || len(c.Storage().PersistentVolumes) != 0 {
		t.Errorf("storage changed by rejected input")
	}
	// A claim naming a missing class or volume is accepted (kube accepts
	// it); its pod gets kube's verdict.
	if err := c.AddStorageObject(st.MakePVC("lost-class", "nope").Obj()); err != nil {
		t.Fatal(err)
	}
	if err := c.AddStorageObject(st.MakePVC("lost-volume", "zonal").VolumeName("nope").Obj()); err != nil {
		t.Fatal(err)
	}
	o, _ := c.StorageObject(api.KindPersistentVolumeClaim, "default", "lost-volume")
	if o.(*api.PersistentVolumeClaim).Status.Phase != api.ClaimPending {
		t.Errorf("a claim naming a missing volume is not bound: %+v", o)
	}
	s := svScheduler(t, c)
	for _, claim := range []string{"lost-class", "lost-volume"} {
		d, err := s.SchedulePod(context.Background(), st.MakePod().Name("p-"+claim).PVC(claim).Obj())
		if err != nil {
			t.Fatal(err)
		}
		if d.Outcome != OutcomeUnschedulable || !strings.Contains(d.Message, volumebinding.ErrReasonUnboundImmediate) || d.Plugin != "VolumeBinding" {
			t.Errorf("%s: %s %s %q", claim, d.Outcome, d.Plugin, d.Message)
		}
	}
}

// TestSchedulerPreemptsReadWriteOncePodHolder: a pod whose ReadWriteOncePod
// claim a lower-priority pod holds is Unschedulable, not
// UnschedulableAndUnresolvable (kube v1.36.4 volumerestrictions.go,
// satisfyReadWriteOncePod), so DefaultPreemption may evict the holder: its
// RemovePod lowers the conflicting claim count and the node fits.
func TestSchedulerPreemptsReadWriteOncePodHolder(t *testing.T) {
	nodes := []*api.Node{st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "16Gi"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "4", "memory": "16Gi"}).Obj()}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := svScheduler(t, c)
	for _, o := range []api.StorageObject{
		st.MakeSC("wffc", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj(),
		st.MakePV("pv", "wffc").AccessModes(api.ReadWriteOncePod).ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).Obj(),
		st.MakePVC("x", "wffc").AccessModes(api.ReadWriteOncePod).Bound("pv").Obj(),
	} {
		if err := s.AddStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPod(st.MakePod().Name("low").Node("n1").Priority(1).PVC("x").Obj()); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(st.MakePod().Name("high").Priority(100).PVC("x").Obj()); err != nil {
		t.Fatal(err)
	}
	d, ok := s.ScheduleOne(context.Background())
	if !ok {
		t.Fatal("no cycle")
	}
	// kube v1.37 preemption.go:(*Evaluator).Preempt reports the placement.
	want := "0/2 nodes are available: 2 " + volumerestrictions.ReasonReadWriteOncePodConflict + ". preemption: found a potential placement for pod on node n1, preempting 1 victims"
	if d.Message != want || d.NominatedNode != "n1" || !slices.Equal(d.Victims, []string{"default/low"}) {
		t.Errorf("message %q nominated %q victims %v; want %q, n1, [default/low]", d.Message, d.NominatedNode, d.Victims, want)
	}
}
