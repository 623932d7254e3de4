package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// perfDRAPause is the image of the DRA case's pods, an older pause than
// the other cases' (perfPause).
const perfDRAPause = "registry.k8s.io/pause:3.10.1"

// perfDRA is the device side of dra/performance-config.yaml's
// SchedulingWithResourceClaimTemplate (its 5000pods_500nodes workload):
// every node of the case gets resourceslice-basic-devices.yaml's slice of
// 10 devices, deviceclass.yaml's class test-class selects them, initClaims
// of resourceclaim.yaml's claims are allocated in namespace init
// (allocResourceClaims: each on the first node of a random order where a
// device is free, its first free device), and every measured pod uses a
// claim of its own for one test-class device. scheduler_perf's pods name
// resourceclaimtemplate.yaml, from which the resource claim controller
// makes each pod's claim; here the claim is made with the pod, under the
// name the pod refers to (pod-with-claim-template.yaml's pod otherwise).
type perfDRA struct {
	devices    int
	initClaims int
}

// perfDRANode is node-with-dra-test-driver.yaml's index-th node, named
// as the template names it (its slice names the node so): perfNode
// without a zone, labelled node-with-dra.
func perfDRANode(_ string, index int) *api.Node {
	n := perfNode(fmt.Sprintf("scheduler-perf-dra-%d", index), "")
	n.Labels["node-with-dra"] = "true"
	return n
}

// perfDRAClaimSpec is resourceclaim.yaml's (and, with one request and
// neither selectors nor constraints, resourceclaimtemplate.yaml's)
// spec, defaulted as the API server defaults it.
func perfDRAClaimSpec() api.ResourceClaimSpec {
	return api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{{Name: "req-0", Exactly: &api.ExactDeviceRequest{
		DeviceClassName: "test-class", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1}}}}}
}

// podWithClaim is pod-with-claim-template.yaml's pod, its claim named
// <pod>-resource.
func podWithClaim(name, namespace string, _ int) *api.Pod {
	claim := name + "-resource"
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec: api.PodSpec{
			Containers: []api.Container{{Name: "pause", Image: perfDRAPause,
				Resources: api.ResourceRequirements{Claims: []api.ContainerResourceClaim{{Name: "resource"}}}}},
			ResourceClaims: []api.PodResourceClaim{{Name: "resource", ResourceClaimName: &claim}},
		},
	}
}

// slice is resourceslice-basic-devices.yaml's index-th slice, on node.
func (d *perfDRA) slice(node string, index int) *api.ResourceSlice {
	return st.PerfDRASlice(node, index, d.devices)
}

// objects returns the case's DRA objects on nodes: the slices, the class
// and the init claims, allocated as allocResourceClaims allocates them
// (each on the first node of a random order drawn from seed where a
// device is free, its first free device, for the node alone).
func (d *perfDRA) objects(nodes []*api.Node, seed uint64) api.DRAObjects {
	out := api.DRAObjects{DeviceClasses: []*api.DeviceClass{st.PerfDRAClass()}}
	used := make([]int, len(nodes)) // devices allocated on each node, the first ones
	for i, n := range nodes {
		out.ResourceSlices = append(out.ResourceSlices, d.slice(n.Name, i))
	}
	r := rand.New(rand.NewPCG(seed, 0xd7a))
	for c := range min(d.initClaims, d.devices*len(nodes)) {
		order := r.Perm(len(nodes))
		for _, i := range order {
			if used[i] == d.devices {
				continue
			}
			claim := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("test-claim-%d", c), Namespace: "init",
				UID: fmt.Sprintf("init.test-claim-%d", c)}, Spec: perfDRAClaimSpec()}
			s := out.ResourceSlices[i]
			claim.Status.Allocation = &api.AllocationResult{
				Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
					Request: "req-0", Driver: st.PerfDRADriver, Pool: s.Spec.Pool.Name, Device: s.Spec.Devices[used[i]].Name}}},
				NodeSelector: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{
					Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{nodes[i].Name}}}}}},
			}
			used[i]++
			out.ResourceClaims = append(out.ResourceClaims, claim)
			break
		}
	}
	return out
}

// claim is the claim of a measured pod p (podWithClaim).
func (d *perfDRA) claim(p *api.Pod) *api.ResourceClaim {
	name := *p.Spec.ResourceClaims[0].ResourceClaimName
	return &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: p.Namespace, UID: p.Namespace + "." + name},
		Spec: perfDRAClaimSpec()}
}
