package cluster

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// draBenchCluster is nodes nodes of 8 GPUs each (a ResourceSlice per
// node, the class "gpu") with half the GPUs allocated: four bound pods per
// node, each with a claim of one GPU, allocated and reserved for it.
func draBenchCluster(b *testing.B, nodes int) *Cluster {
	b.Helper()
	c, err := New()
	if err != nil {
		b.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(c.AddStorageObject(&api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{
		{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}}}))
	for i := range nodes {
		n, sl := draBenchNode(i)
		must(c.AddNode(n))
		must(c.AddStorageObject(sl))
		for d := range 4 {
			p, cl := draBenchPod(i, d)
			must(c.AddStorageObject(cl))
			must(c.AddPod(p))
		}
	}
	return c
}

// draBenchNode is node i with its slice of 8 GPUs.
func draBenchNode(i int) (*api.Node, *api.ResourceSlice) {
	name := fmt.Sprintf("node-%05d", i)
	n := st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "64", "memory": "256Gi", "pods": "110"}).Obj()
	sl := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: name + "-gpus"}}
	sl.Spec.Driver, sl.Spec.NodeName = "gpu.example.com", &name
	sl.Spec.Pool = api.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}
	for d := range 8 {
		sl.Spec.Devices = append(sl.Spec.Devices, api.Device{Name: fmt.Sprintf("gpu%d", d)})
	}
	return n, sl
}

// draBenchPod is a pod bound to node i using GPU d through its own claim,
// allocated and reserved for it.
func draBenchPod(i, d int) (*api.Pod, *api.ResourceClaim) {
	node := fmt.Sprintf("node-%05d", i)
	name := fmt.Sprintf("p-%05d-%d", i, d)
	claim := name + "-gpu"
	p := st.MakePod().Namespace("default").Name(name).UID("uid-" + name).Req(map[string]string{"cpu": "1"}).Node(node).Obj()
	p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
	cl := draBenchClaim(claim)
	cl.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{
		{Request: "r", Driver: "gpu.example.com", Pool: node, Device: fmt.Sprintf("gpu%d", d)}}}}
	cl.Status.ReservedFor = []api.ResourceClaimConsumerReference{{Resource: "pods", Name: name, UID: p.UID}}
	return p, cl
}

func draBenchClaim(name string) *api.ResourceClaim {
	cl := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name}}
	cl.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu"}}}
	return cl
}

// BenchmarkForkRevertWithClaims: Fork and Revert of a cluster of 1,000
// nodes of 8 GPUs with 4,000 allocated claims: alone; with one claim
// allocated in the fork, through UpdateStorageObject (a copy, defaulted)
// and through WriteResourceClaim (DynamicResources' PreBind's write); and with
// a node added in the fork with its slice and a bound pod whose claim is
// allocated there (cluster-autoscaler's fork-add-revert with DRA).
func BenchmarkForkRevertWithClaims(b *testing.B) {
	c := draBenchCluster(b, 1000)
	free := draBenchClaim("free")
	if err := c.AddStorageObject(free); err != nil {
		b.Fatal(err)
	}
	allocated := draBenchClaim("free")
	allocated.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{
		{Request: "r", Driver: "gpu.example.com", Pool: "node-00007", Device: "gpu7"}}}}
	b.Run("empty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Fork()
			if err := c.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("allocate-claim", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Fork()
			if err := c.UpdateStorageObject(allocated); err != nil {
				b.Fatal(err)
			}
			if err := c.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write-claim", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Fork()
			if _, err := c.WriteResourceClaim(allocated, false); err != nil {
				b.Fatal(err)
			}
			if err := c.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
	n, sl := draBenchNode(1000)
	p, cl := draBenchPod(1000, 0)
	b.Run("add-node-slice-pod-claim", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Fork()
			if err := c.AddNode(n); err != nil {
				b.Fatal(err)
			}
			if err := c.AddStorageObject(sl); err != nil {
				b.Fatal(err)
			}
			if err := c.AddStorageObject(cl); err != nil {
				b.Fatal(err)
			}
			if err := c.AddPod(p); err != nil {
				b.Fatal(err)
			}
			if err := c.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
