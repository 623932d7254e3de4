package allocator

import (
	"context"
	"fmt"
	"sync"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/cel"
	"github.com/schedkit/schedkit/internal/nodeselector"
)

// ClassCounter counts, per node, the devices of a DeviceClass a node
// reaches and how many of them are allocated: what kube-scheduler's
// resource scores (NodeResourcesFit's strategies, BalancedAllocation)
// take as the node's allocatable and allocated amounts of an extended
// resource that a DeviceClass backs (noderesources/resource_allocation.go,
// calculateDRAResourceTotals). It counts over every slice, whatever its
// pool's generation or completeness and its devices' taints, as kube
// does. It is safe for concurrent use; the slices, the allocated set and
// the classes must not change while it is in use.
type ClassCounter struct {
	cache     *cel.Cache
	onNode    map[string][]*api.ResourceSlice
	shared    []*api.ResourceSlice
	allocated map[DeviceID]struct{}

	selectors sync.Map // *api.NodeSelector → *nodeselector.Selector
	inputs    sync.Map // *api.Device → *lazyInput
}

// NewClassCounter returns a counter over the cluster's slices, with the
// devices allocated to claims or in flight (allocated), evaluating class
// selectors through cache, which must not be nil.
func NewClassCounter(slices []*api.ResourceSlice, allocated map[DeviceID]struct{}, cache *cel.Cache) (*ClassCounter, error) {
	if cache == nil {
		return nil, fmt.Errorf("allocator: the CEL cache is nil")
	}
	c := &ClassCounter{cache: cache, onNode: make(map[string][]*api.ResourceSlice), allocated: allocated}
	for _, s := range slices {
		if n := deref(s.Spec.NodeName); n != "" && !deref(s.Spec.PerDeviceNodeSelection) {
			c.onNode[n] = append(c.onNode[n], s)
		} else {
			c.shared = append(c.shared, s)
		}
	}
	return c, nil
}

// Count returns how many devices of class node reaches and how many of
// those are allocated. A slice reaches the node by its nodeName,
// allNodes or node selector (a slice naming none reaches every node); a
// slice with per-device node selection, by each device's. A device
// belongs to the class when every CEL selector of the class accepts it
// (the selectors see the device's driver, attributes and capacities;
// allowMultipleAllocations reads false). A node selector that does not
// parse, a selector that does not compile or fails on a device make the
// count an error (kube then scores the resource as absent from the node).
func (c *ClassCounter) Count(ctx context.Context, node *api.Node, class *api.DeviceClass) (capacity, allocated int64, err error) {
	for _, list := range [2][]*api.ResourceSlice{c.onNode[node.Name], c.shared} {
		for _, s := range list {
			if deref(s.Spec.PerDeviceNodeSelection) {
				for i := range s.Spec.Devices {
					d := &s.Spec.Devices[i]
					ok := deref(d.AllNodes) || deref(d.NodeName) == node.Name
					if !ok && d.NodeSelector != nil && deref(d.NodeName) == "" {
						if ok, err = c.matchNode(node, d.NodeSelector); err != nil {
							return 0, 0, err
						}
					}
					if !ok {
						continue
					}
					if err := c.add(ctx, s, d, class, &capacity, &allocated); err != nil {
						return 0, 0, err
					}
				}
				continue
			}
			nodeName, all := deref(s.Spec.NodeName), deref(s.Spec.AllNodes)
			switch {
			case all || nodeName == node.Name:
			case nodeName != "":
				continue
			case s.Spec.NodeSelector != nil:
				ok, err := c.matchNode(node, s.Spec.NodeSelector)
				if err != nil {
					return 0, 0, err
				}
				if !ok {
					continue
				}
			}
			for i := range s.Spec.Devices {
				if err := c.add(ctx, s, &s.Spec.Devices[i], class, &capacity, &allocated); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	return capacity, allocated, nil
}

// add counts device d of slice s when class selects it.
func (c *ClassCounter) add(ctx context.Context, s *api.ResourceSlice, d *api.Device, class *api.DeviceClass, capacity, allocated *int64) error {
	for _, sel := range class.Spec.Selectors {
		if sel.CEL == nil {
			continue
		}
		prog, err := c.cache.Get(sel.CEL.Expression)
		if err != nil {
			return err
		}
		m, _, err := prog.Match(ctx, c.input(s.Spec.Driver, d))
		if err != nil {
			return err
		}
		if !m {
			return nil
		}
	}
	*capacity++
	if _, ok := c.allocated[DeviceID{s.Spec.Driver, s.Spec.Pool.Name, d.Name}]; ok {
		*allocated++
	}
	return nil
}

// matchNode reports whether sel selects node.
func (c *ClassCounter) matchNode(node *api.Node, sel *api.NodeSelector) (bool, error) {
	v, ok := c.selectors.Load(sel)
	if !ok {
		v, _ = c.selectors.LoadOrStore(sel, nodeselector.NewSelector(sel, "nodeSelector"))
	}
	s := v.(*nodeselector.Selector)
	if err := s.Err(); err != nil {
		return false, fmt.Errorf("failed to parse node selector %s: %w", nodeSelectorString(sel), err)
	}
	return s.Match(node), nil
}

// input returns what the class selectors see of d: allowMultipleAllocations
// reads false, as kube's scores build the device without it.
func (c *ClassCounter) input(driver string, d *api.Device) *cel.Input {
	v, ok := c.inputs.Load(d)
	if !ok {
		v, _ = c.inputs.LoadOrStore(d, &lazyInput{})
	}
	li := v.(*lazyInput)
	li.once.Do(func() {
		dev := celDevice(driver, d)
		dev.AllowMultipleAllocations = false
		li.in = c.cache.Compiler().NewInput(dev)
	})
	return li.in
}
