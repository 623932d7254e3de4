package noderesources

import (
	"context"
	"sync"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/allocator"
	"github.com/schedkit/schedkit/internal/dra/cel"
)

// nrfDRA is what the resource scores (NodeResourcesFit's strategies,
// BalancedAllocation) read of the cluster's DRA objects in a cycle whose
// configured resources include one a DeviceClass backs (kube's
// draPreScoreState, DRAExtendedResource being on in v1.36 and v1.37): per
// configured resource the class that backs it (nil: none), and the
// counter of the classes' devices per node. A node that does not
// advertise such a resource (allocatable 0) takes the number of its
// class's devices it reaches as allocatable and the number of those
// allocated as requested (allocator.ClassCounter).
type nrfDRA struct {
	classes []*api.DeviceClass
	counter *allocator.ClassCounter
}

// draCEL is a plugin's CEL cache for DeviceClass selectors, made on
// first use.
type draCEL struct {
	once  sync.Once
	cache *cel.Cache
}

func (c *draCEL) get() *cel.Cache {
	c.once.Do(func() {
		if comp, err := cel.NewCompiler(); err == nil {
			c.cache = cel.NewCache(comp)
		}
	})
	return c.cache
}

// newNRFDRA returns the cycle's nrfDRA for resources, or nil when the
// state has no snapshot or no class backs a configured resource with a
// DRA extended name (kube's getDRAPreScoredParams).
func newNRFDRA(state *framework.CycleState, resources []nrfResource, cc *draCEL) *nrfDRA {
	snap := state.Snapshot()
	if snap == nil {
		return nil
	}
	view := snap.DRA()
	backed := false
	for i := range resources {
		if n := resources[i].name; n.IsDRAExtended() && view.ExtendedResourceClass(n) != nil {
			backed = true
			break
		}
	}
	if !backed {
		return nil
	}
	d := &nrfDRA{classes: make([]*api.DeviceClass, len(resources))}
	for i := range resources {
		if resources[i].kind == nrfScalar {
			d.classes[i] = view.ExtendedResourceClass(resources[i].name)
		}
	}
	allocated := make(map[allocator.DeviceID]struct{}, view.NumAllocatedDevices())
	view.AllocatedDevices(func(id api.DeviceID) { allocated[allocator.DeviceID(id)] = struct{}{} })
	for _, list := range [][]*api.ResourceClaim{view.SharedAllocations(), view.InFlightClaims()} {
		for _, c := range list {
			if a := c.Status.Allocation; a != nil {
				for _, r := range a.Devices.Results {
					if r.AdminAccess == nil || !*r.AdminAccess {
						allocated[allocator.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}] = struct{}{}
					}
				}
			}
		}
	}
	var err error
	if d.counter, err = allocator.NewClassCounter(view.ResourceSlices(), allocated, cc.get()); err != nil {
		return nil
	}
	return d
}

// allocRequest is nrfAllocRequest for configured resource i, with the
// devices of its class when the node does not advertise it: a count
// that fails leaves the resource out (kube logs the error and scores the
// resource as absent).
func (d *nrfDRA) allocRequest(node *framework.NodeInfo, r *nrfResource, i int, podReq int64, useReal bool) (alloc, req int64) {
	if d != nil && r.kind == nrfScalar && podReq != 0 && d.classes[i] != nil && node.Allocatable.Get(r.name) == 0 {
		capacity, used, err := d.counter.Count(context.Background(), node.Node(), d.classes[i])
		if err == nil && capacity > 0 {
			return capacity, used + podReq
		}
	}
	return nrfAllocRequest(node, r, podReq, useReal)
}

// requestsDRA reports whether pod requests one of resources that a
// DeviceClass may back: its scores then read the cluster's DRA objects.
func requestsDRA(pod *framework.PodInfo, resources []nrfResource) bool {
	for i := range resources {
		r := &resources[i]
		if r.kind == nrfScalar && r.name.IsDRAExtended() && nrfPodRequest(pod, r) != 0 {
			return true
		}
	}
	return false
}
