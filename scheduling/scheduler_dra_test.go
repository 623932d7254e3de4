package scheduling

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"pgregory.net/rapid"
)

// draTestCluster is two nodes with one GPU each, the class "gpu" and
// claims c0..c(claims-1) of one GPU each.
func draTestCluster(t interface {
	Helper()
	Fatal(...any)
}, claims int) *cluster.Cluster {
	t.Helper()
	var nodes []*api.Node
	for i := range 2 {
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110"}).Obj())
	}
	c, err := cluster.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if err := c.AddNode(n); err != nil {
			t.Fatal(err)
		}
	}
	add := func(o api.StorageObject) {
		if err := c.AddStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	add(&api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{
		{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}}})
	for _, n := range nodes {
		name := n.Name
		sl := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: name}}
		sl.Spec.Driver, sl.Spec.NodeName = "gpu.example.com", &name
		sl.Spec.Pool = api.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}
		sl.Spec.Devices = []api.Device{{Name: "gpu0"}}
		add(sl)
	}
	for i := range claims {
		cl := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "default", UID: fmt.Sprintf("claim-%d", i)}}
		cl.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu"}}}
		add(cl)
	}
	return c
}

func draTestPod(name, claim string) *api.Pod {
	p := st.MakePod().Namespace("default").Name(name).UID("uid-" + name).Req(map[string]string{"cpu": "1"}).Obj()
	p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
	return p
}

func draClaimsOf(c *cluster.Cluster) []api.ResourceClaim {
	var out []api.ResourceClaim
	for _, cl := range c.Snapshot().DRA().ResourceClaims() {
		out = append(out, *cl)
	}
	return out
}

// TestSchedulerDynamicResources: with the default profile, pods whose
// claims each want one of the two GPUs land on different nodes, their
// claims end allocated to the node and reserved for the pod, and a third
// pod waits: no node can allocate its claim. A Fork's Revert undoes the
// allocations exactly.
func TestSchedulerDynamicResources(t *testing.T) {
	c := draTestCluster(t, 3)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()},
		WithClock(framework.NewFakeClock(time.Unix(0, 0))), WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	before := draClaimsOf(c)
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := f.AddPod(draTestPod(fmt.Sprintf("p%d", i), fmt.Sprintf("c%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	f.RunUntilIdle(context.Background())
	used := map[string]bool{}
	for i := range 2 {
		rec, _ := c.Pod("default", fmt.Sprintf("p%d", i))
		if rec.State != cluster.StateBound {
			t.Fatalf("p%d is %s: %s", i, rec.State, s.PendingReason("default", fmt.Sprintf("p%d", i)))
		}
		cl, _ := c.Snapshot().DRA().ResourceClaim("default", fmt.Sprintf("c%d", i))
		a := cl.Status.Allocation
		if a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Pool != rec.Pod.Spec.NodeName {
			t.Fatalf("claim c%d allocation %+v, pod on %s", i, a, rec.Pod.Spec.NodeName)
		}
		if len(cl.Status.ReservedFor) != 1 || cl.Status.ReservedFor[0].UID != rec.Pod.UID {
			t.Fatalf("claim c%d reserved for %+v", i, cl.Status.ReservedFor)
		}
		used[rec.Pod.Spec.NodeName] = true
	}
	if len(used) != 2 {
		t.Fatalf("both pods on %v", used)
	}
	if got := s.PendingReason("default", "p2"); !strings.Contains(got, "cannot allocate all claims") {
		t.Fatalf("p2 pending reason %q", got)
	}
	if n := len(c.Snapshot().DRA().InFlightClaims()); n != 0 {
		t.Fatalf("%d allocations still in flight", n)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if after := draClaimsOf(c); !reflect.DeepEqual(before, after) {
		t.Fatalf("claims after Revert differ:\n%+v\n%+v", before, after)
	}
	if n := c.Snapshot().DRA().NumAllocatedDevices(); n != 0 {
		t.Fatalf("%d devices allocated after Revert", n)
	}
}

// TestSchedulerDynamicResourcesWaitsForClaim: a pod whose claim does not
// exist waits in PreEnqueue with kube's message and is scheduled once the
// claim is added (a ResourceClaim add event).
func TestSchedulerDynamicResourcesWaitsForClaim(t *testing.T) {
	c := draTestCluster(t, 0)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()},
		WithClock(framework.NewFakeClock(time.Unix(0, 0))), WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(draTestPod("p", "late")); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if got, want := s.PendingReason("default", "p"), `could not find ResourceClaim "default/late"`; !strings.Contains(got, want) {
		t.Fatalf("pending reason %q, want %q", got, want)
	}
	cl := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "late", Namespace: "default", UID: "late"}}
	cl.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu"}}}
	if err := s.AddStorageObject(cl); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if rec, _ := c.Pod("default", "p"); rec.State != cluster.StateBound {
		t.Fatalf("p is %s: %s", rec.State, s.PendingReason("default", "p"))
	}
}

// TestSchedulerDynamicResourcesTemplatesAndRelease: the cluster creates a
// pod's claims from its templates (named in the pod's status, owned by the
// pod); when pods are deleted their claims are released (a shared claim
// left reserved for nobody is deallocated, an owned claim deleted) and a
// pod waiting for a device is scheduled.
func TestSchedulerDynamicResourcesTemplatesAndRelease(t *testing.T) {
	c := draTestCluster(t, 1)
	tmpl := &api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: "one-gpu", Namespace: "default"}}
	tmpl.Spec.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu"}}}
	if err := c.AddStorageObject(tmpl); err != nil {
		t.Fatal(err)
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()},
		WithClock(framework.NewFakeClock(time.Unix(0, 0))), WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	withTemplate := func(name string) *api.Pod {
		p := st.MakePod().Namespace("default").Name(name).UID("uid-" + name).Req(map[string]string{"cpu": "1"}).Obj()
		tn := "one-gpu"
		p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tn}}
		return p
	}
	for _, p := range []*api.Pod{draTestPod("shared", "c0"), withTemplate("t1"), withTemplate("t2")} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	s.RunUntilIdle(ctx)
	rec, _ := c.Pod("default", "t1")
	st1 := rec.Pod.Status.ResourceClaimStatuses
	if len(st1) != 1 || st1[0].ResourceClaimName == nil {
		t.Fatalf("t1 claim statuses %+v", st1)
	}
	generated := *st1[0].ResourceClaimName
	if cl, ok := c.Snapshot().DRA().ResourceClaim("default", generated); !ok || cl.ControllerRef() == nil || cl.ControllerRef().UID != "uid-t1" {
		t.Fatalf("generated claim %q: %+v", generated, cl)
	}
	bound := 0
	for _, n := range []string{"shared", "t1", "t2"} {
		if r, _ := c.Pod("default", n); r.State == cluster.StateBound {
			bound++
		}
	}
	if bound != 2 {
		t.Fatalf("%d pods bound, want 2 (two GPUs)", bound)
	}
	waiting := "t2"
	if r, _ := c.Pod("default", "t1"); r.State != cluster.StateBound {
		waiting = "t1"
	}
	if r, _ := c.Pod("default", "shared"); r.State == cluster.StateBound {
		if err := s.DeletePod("default", "shared"); err != nil {
			t.Fatal(err)
		}
		if cl, _ := c.Snapshot().DRA().ResourceClaim("default", "c0"); cl.Status.Allocation != nil || len(cl.Status.ReservedFor) != 0 {
			t.Fatalf("c0 after its pod's deletion: %+v", cl.Status)
		}
	} else {
		other := "t1"
		if waiting == "t1" {
			other = "t2"
		}
		if err := s.DeletePod("default", other); err != nil {
			t.Fatal(err)
		}
		if other == "t1" {
			if _, ok := c.Snapshot().DRA().ResourceClaim("default", generated); ok {
				t.Fatal("t1's generated claim outlived it")
			}
		}
		waiting = "shared"
	}
	s.RunUntilIdle(ctx)
	if r, _ := c.Pod("default", waiting); r.State != cluster.StateBound {
		t.Fatalf("%s is %s after a device was freed: %s", waiting, r.State, s.PendingReason("default", waiting))
	}
}

// draSnapshotState is what scheduling changes of a cluster's DRA objects.
func draSnapshotState(c *cluster.Cluster) string {
	v := c.Snapshot().DRA()
	var b strings.Builder
	for _, cl := range v.ResourceClaims() {
		fmt.Fprintf(&b, "claim %s %+v %+v\n", cl.Key(), cl.Status.Allocation, cl.Status.ReservedFor)
	}
	for _, cl := range v.InFlightClaims() {
		fmt.Fprintf(&b, "in flight %s\n", cl.Key())
	}
	fmt.Fprintf(&b, "allocated devices %d\n", v.NumAllocatedDevices())
	return b.String()
}

// TestPropSchedulerDynamicResourcesForkRevert: pods with claims (some
// shared, some from templates) scheduled, and pods deleted, inside a Fork
// leave the cluster's claims, in-flight allocations, allocated devices and
// pods exactly as before once the Fork is reverted.
func TestPropSchedulerDynamicResourcesForkRevert(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := draTestCluster(rt, 3)
		tmpl := &api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: "one-gpu", Namespace: "default"}}
		tmpl.Spec.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu"}}}
		if err := c.AddStorageObject(tmpl); err != nil {
			rt.Fatal(err)
		}
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()},
			WithClock(framework.NewFakeClock(time.Unix(0, 0))), WithSeed(7))
		if err != nil {
			rt.Fatal(err)
		}
		ctx := context.Background()
		pod := func(i int) *api.Pod {
			name := fmt.Sprintf("p%d", i)
			if k := rapid.IntRange(0, 3).Draw(rt, "claim"); k < 3 {
				return draTestPod(name, fmt.Sprintf("c%d", k))
			}
			p := st.MakePod().Namespace("default").Name(name).UID("uid-" + name).Req(map[string]string{"cpu": "1"}).Obj()
			tn := "one-gpu"
			p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tn}}
			return p
		}
		live := rapid.IntRange(0, 3).Draw(rt, "live")
		for i := range live {
			if err := s.AddPod(pod(i)); err != nil {
				rt.Fatal(err)
			}
		}
		s.RunUntilIdle(ctx)
		before := draSnapshotState(c)
		states := map[string]cluster.PodState{}
		for i := range live {
			rec, _ := c.Pod("default", fmt.Sprintf("p%d", i))
			states[rec.Pod.Name] = rec.State
		}
		f, err := s.Fork()
		if err != nil {
			rt.Fatal(err)
		}
		for i := live; i < live+rapid.IntRange(1, 4).Draw(rt, "forked"); i++ {
			if err := f.AddPod(pod(i)); err != nil {
				rt.Fatal(err)
			}
		}
		if live > 0 && rapid.Bool().Draw(rt, "delete") {
			if err := f.DeletePod("default", "p0"); err != nil {
				rt.Fatal(err)
			}
		}
		f.RunUntilIdle(ctx)
		if err := f.Revert(); err != nil {
			rt.Fatal(err)
		}
		if after := draSnapshotState(c); after != before {
			rt.Fatalf("DRA state after Revert:\n%s\nbefore:\n%s", after, before)
		}
		for name, st := range states {
			if rec, ok := c.Pod("default", name); !ok || rec.State != st {
				rt.Fatalf("pod %s after Revert: %v (was %s)", name, rec.State, st)
			}
		}
	})
}
