package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// perfCluster is the cluster of kube scheduler_perf's
// SchedulingWithResourceClaimTemplate (test/integration/scheduler_perf/dra,
// v1.37.2) with n nodes: node-with-dra-test-driver.yaml's nodes, one
// resourceslice-basic-devices.yaml slice of 10 devices each (two PCI
// roots), deviceclass.yaml's class, and half of every node's devices
// allocated to claims of their own, as its 2,500 init claims fill half of
// the 500 nodes' 5,000 devices (scheduler_perf puts each on a random
// node; here each node holds its first five). The same cluster as
// kubebench's BenchmarkKubeDRASchedulerPerf.
func perfCluster(n int) ([]*api.Node, []api.StorageObject) {
	var nodes []*api.Node
	objs := []api.StorageObject{st.PerfDRAClass()}
	for i := range n {
		name := fmt.Sprintf("scheduler-perf-dra-%d", i)
		nodes = append(nodes, st.MakeNode().Name(name).Label("node-with-dra", "true").
			Capacity(map[string]string{"pods": "110", "cpu": "4", "memory": "32Gi"}).Obj())
		sl := st.PerfDRASlice(name, i, 10)
		for d := range 5 {
			c := perfClaim(fmt.Sprintf("init-claim-%d-%d", i, d), "init")
			c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
				Request: "req-0", Driver: st.PerfDRADriver, Pool: sl.Name, Device: sl.Spec.Devices[d].Name}}}}
			objs = append(objs, c)
		}
		objs = append(objs, sl)
	}
	return nodes, objs
}

// perfClaim is resourceclaim.yaml's claim (and what
// resourceclaimtemplate.yaml makes for a pod): one device of test-class.
func perfClaim(name, namespace string) *api.ResourceClaim {
	c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: "uid-" + namespace + "-" + name}}
	c.Spec.Devices.Requests = []api.DeviceRequest{{Name: "req-0", Exactly: &api.ExactDeviceRequest{DeviceClassName: "test-class"}}}
	return c
}

// BenchmarkDynamicResourcesSchedulerPerf: a pod of
// SchedulingWithResourceClaimTemplate (its claim of one test-class
// device) through PreFilter and Filter on every node of the case's
// cluster, at its 500 nodes and at 5,000. In the searched cases the pods
// take turns between two claims that ask for the device under different
// request names, so that every node is searched at every cycle; in the
// kept ones every cycle asks what the one before asked, and each node's
// answer is kept (the allocation state does not change in between).
func BenchmarkDynamicResourcesSchedulerPerf(b *testing.B) {
	for _, tc := range []struct {
		n    int
		kept bool
	}{{500, false}, {5000, false}, {500, true}, {5000, true}} {
		name := fmt.Sprintf("nodes=%d/searched", tc.n)
		if tc.kept {
			name = fmt.Sprintf("nodes=%d/kept", tc.n)
		}
		b.Run(name, func(b *testing.B) {
			nodes, objs := perfCluster(tc.n)
			other := perfClaim("pod-1-req", "test")
			other.Spec.Devices.Requests[0].Name = "req-1"
			objs = append(objs, perfClaim("pod-0-req", "test"), other)
			snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
			if err != nil {
				b.Fatal(err)
			}
			pod := func(name, claim string) *api.Pod {
				p := st.MakePod().Namespace("test").Name(name).UID("uid-" + name).Obj()
				p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
				return p
			}
			benchDRACycles(b, newDRAPlugin(b, snap), snap, pod("pod-0", "pod-0-req"), pod("pod-1", "pod-1-req"), tc.kept)
		})
	}
}

// BenchmarkDynamicResourcesSchedulerPerfPlaced: pods of
// SchedulingWithResourceClaimTemplate on its 500 nodes, each placed as
// a scheduler places it: PreFilter and Filter on every node, then
// Reserve and PreBind on a feasible node (its claim allocated and
// written), the nodes taken in turn; the claim placed 100 pods before is
// deleted, so that the cluster stays half full. Every cycle finds the
// allocations changed on two nodes' pools: the kept answers of the others
// still apply.
func BenchmarkDynamicResourcesSchedulerPerfPlaced(b *testing.B) {
	nodes, objs := perfCluster(500)
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		b.Fatal(err)
	}
	pl := newDRAPlugin(b, snap)
	ctx := context.Background()
	var placed []string
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("pod-%d", i)
		if _, err := snap.SetStorageObject(perfClaim(name+"-req", "test")); err != nil {
			b.Fatal(err)
		}
		claim := name + "-req"
		p := st.MakePod().Namespace("test").Name(name).UID("uid-" + name).Obj()
		p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
		pi, _ := framework.NewPodInfo(p)
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		if _, s := pl.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
			b.Fatal(s)
		}
		chosen := ""
		all := snap.Nodes()
		for k := range all {
			ni := all[(k+i*37)%len(all)]
			if pl.Filter(ctx, state, pi, ni).IsSuccess() && chosen == "" {
				chosen = ni.Node().Name
			}
		}
		if chosen == "" {
			b.Fatalf("pod %d: no node fits", i)
		}
		if s := pl.Reserve(ctx, state, pi, chosen); !s.IsSuccess() {
			b.Fatal(s)
		}
		if s := pl.PreBind(ctx, state, pi, chosen); !s.IsSuccess() {
			b.Fatal(s)
		}
		placed = append(placed, claim)
		if len(placed) > 100 {
			if _, err := snap.DeleteStorageObject(api.KindResourceClaim, "test", placed[0]); err != nil {
				b.Fatal(err)
			}
			placed = placed[1:]
		}
		i++
	}
}
