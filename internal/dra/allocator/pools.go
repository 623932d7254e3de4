package allocator

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// poolID names a pool: its driver and its name.
type poolID struct{ driver, pool string }

// String returns "driver/pool", as Kubernetes prints pool IDs.
func (p poolID) String() string { return p.driver + "/" + p.pool }

// pool is one pool as seen from a node: the slices of its newest
// generation whose devices the node can reach, sorted by name, or a mark
// that it is incomplete (not all its slices are known) or invalid.
type pool struct {
	id         poolID
	incomplete bool
	invalid    bool
	// targeting are the device slices reaching the node, by name, and
	// data what the index keeps of each (nil for a slice outside it).
	targeting []*api.ResourceSlice
	data      []*sliceData
	// notTargeting are the pool's other device slices, known only when
	// the slices reaching the node alone did not make the pool complete.
	notTargeting []*api.ResourceSlice
	// counterSets are the pool's shared counter sets by name.
	counterSets map[string]*api.CounterSet
	// key is the pool's key in the snapshot whose versions were last
	// read through it (AllocatedState.versionOf).
	key atomic.Pointer[framework.DRAPoolKey]
}

// nodeMatches reports whether node is one of the nodes a slice or device
// reaches through nodeName, allNodes or nodeSelector (Kubernetes'
// NodeMatches): the first of them that is set decides; none set reaches no
// node.
func (x *Slices) nodeMatches(node *api.Node, nodeName string, allNodes bool, sel *api.NodeSelector) (bool, error) {
	switch {
	case nodeName != "":
		return node != nil && node.Name == nodeName, nil
	case allNodes:
		return true, nil
	case sel != nil:
		s := x.nodeSelector(sel)
		if err := s.Err(); err != nil {
			return false, fmt.Errorf("failed to parse node selector %s: %w", nodeSelectorString(sel), err)
		}
		return s.Match(node), nil
	}
	return false, nil
}

// nodePools are the pools gathered for one node object, and what Fits
// answered last for that node.
type nodePools struct {
	node  *api.Node
	pools []*pool
	err   error
	fits  atomic.Pointer[fitsMemo]
	// slices, partitionable and v136 are the index and the features
	// the pools were gathered in and with.
	slices              *Slices
	partitionable, v136 bool
}

// NodeSlot keeps what an index gathered for one node, for a caller that
// asks about the node at every cycle (a scheduler's Filter, by the
// node's position in its snapshot): FitsChoosing then finds the node's
// pools and kept answer in the slot instead of looking the node up by
// name. A slot may serve another node, another node object or another
// index later, and is safe for concurrent use; its zero value is empty.
type NodeSlot struct{ p atomic.Pointer[nodePools] }

// fitsMemo is Fits' answer for a node's pools: whether the claims of key
// fit, with the versions of the pools' allocations it was found at
// (versions points into one where the node has one pool, so that an
// answer is one allocation).
type fitsMemo struct {
	key      string
	fits     bool
	versions []any
	one      [1]any
	// chosen is the subrequest chosen for each firstAvailable request
	// when the claims fit (FitsChoosing).
	chosen     []int
	chosenRoom [2]int
}

// pools returns the pools node can reach (gatherPools), computed once per
// node object and kept for the life of the index: they depend on the
// slices and the node only, not on what is allocated.
func (x *Slices) pools(node *api.Node, partitionable, v136 bool) ([]*pool, error) {
	np := x.nodePools(node, partitionable, v136)
	return np.pools, np.err
}

// nodePools is pools with what is kept for the node object.
func (x *Slices) nodePools(node *api.Node, partitionable, v136 bool) *nodePools {
	i, j := boolIndex(partitionable), boolIndex(v136)
	if k := x.kept[node.Name]; k != nil {
		if np := k[i][j].Load(); np != nil && np.node == node {
			return np
		}
		np := x.gather(node, partitionable, v136)
		k[i][j].Store(np)
		return np
	}
	m := &x.byNode[i][j]
	if v, ok := m.Load(node.Name); ok {
		if np := v.(*nodePools); np.node == node {
			return np
		}
	}
	np := x.gather(node, partitionable, v136)
	m.Store(node.Name, np)
	return np
}

// gather gathers the pools node can reach.
func (x *Slices) gather(node *api.Node, partitionable, v136 bool) *nodePools {
	ps, err := gatherer{x, partitionable, v136}.gatherPools(node, x.forNode(node.Name, v136))
	return &nodePools{node: node, pools: ps, err: err, slices: x, partitionable: partitionable, v136: v136}
}

// nodePoolsIn is nodePools through slot, when not nil: what the slot
// holds when it is for this node object, index and features, else what
// nodePools finds, kept in the slot.
func (x *Slices) nodePoolsIn(slot *NodeSlot, node *api.Node, partitionable, v136 bool) *nodePools {
	if slot == nil {
		return x.nodePools(node, partitionable, v136)
	}
	if np := slot.p.Load(); np != nil && np.node == node && np.slices == x && np.partitionable == partitionable && np.v136 == v136 {
		return np
	}
	np := x.nodePools(node, partitionable, v136)
	slot.p.Store(np)
	return np
}

// boolIndex is 1 for true, 0 for false.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gatherer gathers pools with the features that matter to it.
type gatherer struct {
	x                   *Slices
	partitionable, v136 bool
}

// gatherPools collects the pools with devices node can reach, from the
// slices local to the node and the slices not bound to one node; pools are
// sorted by driver and pool name, those with binding conditions last.
func (a gatherer) gatherPools(node *api.Node, slicesForNode []*api.ResourceSlice) ([]*pool, error) {
	if len(slicesForNode) == 0 {
		return nil, nil
	}
	byID := make(map[poolID][]*api.ResourceSlice)
	for _, s := range slicesForNode {
		if !a.partitionable && (s.Spec.PerDeviceNodeSelection != nil || len(s.Spec.SharedCounters) > 0) {
			continue
		}
		var relevant bool
		nodeName, allNodes := deref(s.Spec.NodeName), deref(s.Spec.AllNodes)
		switch {
		case a.v136 && len(s.Spec.SharedCounters) > 0:
			// v1.36: counter slices are visible to every node.
			relevant = true
		case nodeName != "" || allNodes || s.Spec.NodeSelector != nil:
			m, err := a.x.nodeMatches(node, nodeName, allNodes, s.Spec.NodeSelector)
			if err != nil {
				return nil, fmt.Errorf("failed to perform node selection for slice %s: %w", s.Name, err)
			}
			relevant = m
		case deref(s.Spec.PerDeviceNodeSelection):
			for i := range s.Spec.Devices {
				d := &s.Spec.Devices[i]
				m, err := a.x.nodeMatches(node, deref(d.NodeName), deref(d.AllNodes), d.NodeSelector)
				if err != nil {
					return nil, fmt.Errorf("failed to perform node selection for device %s in slice %s: %w", d.Name, s.Name, err)
				}
				if m {
					relevant = true
					break
				}
			}
		default:
			// A slice that says nothing about its nodes (a future kind of
			// node selection) is ignored.
			continue
		}
		if relevant {
			addSlice(byID, s)
		}
	}

	var result, withBindingConditions []*pool
	for id, forPool := range byID {
		gen, count := forPool[0].Spec.Pool.Generation, forPool[0].Spec.Pool.ResourceSliceCount
		var all []*api.ResourceSlice
		if int64(len(forPool)) != count {
			// Slices that do not reach this node may complete the pool;
			// a newer generation among them makes this one obsolete.
			obsolete, inPool := slicesOfPool(a.x.all, id, gen)
			if obsolete {
				continue
			}
			if int64(len(inPool)) != count {
				result = append(result, &pool{id: id, incomplete: true})
				continue
			}
			all = inPool
		}
		p := a.buildPool(id, forPool, all)
		if p.hasBindingConditions() {
			withBindingConditions = append(withBindingConditions, p)
			continue
		}
		result = append(result, p)
	}
	sortPools(result)
	sortPools(withBindingConditions)
	return append(result, withBindingConditions...), nil
}

func sortPools(ps []*pool) {
	slices.SortFunc(ps, func(x, y *pool) int {
		if c := cmp.Compare(x.id.driver, y.id.driver); c != 0 {
			return c
		}
		return cmp.Compare(x.id.pool, y.id.pool)
	})
}

// addSlice adds s to its pool unless the pool holds a newer generation; a
// newer generation replaces the older slices.
func addSlice(byID map[poolID][]*api.ResourceSlice, s *api.ResourceSlice) {
	id := poolID{s.Spec.Driver, s.Spec.Pool.Name}
	cur := byID[id]
	switch {
	case cur == nil || s.Spec.Pool.Generation > cur[0].Spec.Pool.Generation:
		byID[id] = []*api.ResourceSlice{s}
	case s.Spec.Pool.Generation == cur[0].Spec.Pool.Generation:
		byID[id] = append(cur, s)
	}
}

// slicesOfPool returns all slices of pool id at generation gen, or
// obsolete when some slice of the pool has a newer generation.
func slicesOfPool(all []*api.ResourceSlice, id poolID, gen int64) (obsolete bool, inPool []*api.ResourceSlice) {
	for _, s := range all {
		if s.Spec.Driver != id.driver || s.Spec.Pool.Name != id.pool {
			continue
		}
		switch {
		case s.Spec.Pool.Generation == gen:
			inPool = append(inPool, s)
		case s.Spec.Pool.Generation > gen:
			return true, nil
		}
	}
	return false, inPool
}

// buildPool sorts a complete pool's slices reaching the node by name,
// separates the slices of shared counters, and validates device names and
// counter references; a pool that fails validation is invalid. all is
// every slice of the pool when forNode alone is not all of them.
func (a gatherer) buildPool(id poolID, forNode, all []*api.ResourceSlice) *pool {
	sorted := slices.Clone(forNode)
	slices.SortStableFunc(sorted, func(x, y *api.ResourceSlice) int { return cmp.Compare(x.Name, y.Name) })

	var deviceSlices, counterSlices, notTargeting []*api.ResourceSlice
	isCounterSlice := func(s *api.ResourceSlice) bool {
		return a.partitionable && len(s.Spec.SharedCounters) > 0
	}
	for _, s := range sorted {
		if isCounterSlice(s) {
			counterSlices = append(counterSlices, s)
		} else {
			deviceSlices = append(deviceSlices, s)
		}
	}
	if len(sorted) < len(all) {
		names := make(map[string]struct{}, len(sorted))
		for _, s := range sorted {
			names[s.Name] = struct{}{}
		}
		for _, s := range all {
			if _, ok := names[s.Name]; ok {
				continue
			}
			if isCounterSlice(s) {
				counterSlices = append(counterSlices, s)
			} else {
				notTargeting = append(notTargeting, s)
			}
		}
	}
	invalid := func(error) *pool { return &pool{id: id, invalid: true} }

	seen := make(map[string]struct{})
	for _, s := range deviceSlices {
		for i := range s.Spec.Devices {
			n := s.Spec.Devices[i].Name
			if _, dup := seen[n]; dup {
				return invalid(fmt.Errorf("duplicate device name %s", n))
			}
			seen[n] = struct{}{}
		}
	}
	data := make([]*sliceData, len(deviceSlices))
	for i, s := range deviceSlices {
		data[i] = a.x.data[s]
	}
	if !a.partitionable {
		return &pool{id: id, targeting: deviceSlices, data: data}
	}
	sets := make(map[string]*api.CounterSet)
	for _, s := range counterSlices {
		for i := range s.Spec.SharedCounters {
			cs := &s.Spec.SharedCounters[i]
			if _, dup := sets[cs.Name]; dup {
				return invalid(fmt.Errorf("duplicate counter set name %s", cs.Name))
			}
			sets[cs.Name] = cs
		}
	}
	for _, group := range [][]*api.ResourceSlice{deviceSlices, notTargeting} {
		if err := validateCounterConsumption(sets, group); err != nil {
			return invalid(err)
		}
	}
	return &pool{id: id, targeting: deviceSlices, data: data, notTargeting: notTargeting, counterSets: sets}
}

// validateCounterConsumption checks that every counter a device consumes
// exists in the pool's counter sets.
func validateCounterConsumption(sets map[string]*api.CounterSet, group []*api.ResourceSlice) error {
	for _, s := range group {
		for i := range s.Spec.Devices {
			for _, c := range s.Spec.Devices[i].ConsumesCounters {
				set, ok := sets[c.CounterSet]
				if !ok {
					return fmt.Errorf("counter set %s not found", c.CounterSet)
				}
				for name := range c.Counters {
					if _, ok := set.Counters[name]; !ok {
						return fmt.Errorf("counter %s not found in counter set %s", name, set.Name)
					}
				}
			}
		}
	}
	return nil
}

// hasBindingConditions reports whether a device of the pool reaching the
// node has binding conditions (such pools are tried last).
func (p *pool) hasBindingConditions() bool {
	for _, s := range p.targeting {
		for i := range s.Spec.Devices {
			if s.Spec.Devices[i].BindingConditions != nil {
				return true
			}
		}
	}
	return false
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// nodeSelectorString renders a node selector for error messages.
func nodeSelectorString(sel *api.NodeSelector) string {
	return fmt.Sprintf("%+v", *sel)
}
