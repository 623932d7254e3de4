package allocator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/cel"
	"github.com/schedkit/schedkit/internal/nodeselector"
	"github.com/schedkit/schedkit/resource"
)

// ErrFailedAllocationOnNode is wrapped by the errors of Allocate that
// concern only the node at hand (Kubernetes' structured.ErrFailedAllocationOnNode):
// the scheduler reports the node as unschedulable with the error's text
// instead of failing the whole attempt. It has no text of its own.
var ErrFailedAllocationOnNode = errors.New("")

// DeviceID names one device: its driver, pool and name within the pool.
type DeviceID struct{ Driver, Pool, Device string }

// String returns "driver/pool/device", as Kubernetes prints device IDs in
// its error messages.
func (d DeviceID) String() string { return d.Driver + "/" + d.Pool + "/" + d.Device }

// SharedDeviceID names one share of a device that allows multiple
// allocations: the device and the share ID of one allocation of it.
type SharedDeviceID struct {
	DeviceID
	ShareID string
}

// Features are the optional behaviours of the allocator, one per feature
// Kubernetes' DynamicResources plugin passes to its allocator (the names
// are the feature gates'). DeviceBindingAndStatus is on when both
// DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are.
//
// Kubernetes runs one of three allocators depending on the features: with
// its default gates (v1.36 and v1.37) the "incubating" one, which this
// package reproduces. CompatibilityGroups, DerivedAttributes,
// ListTypeAttributes and OptionalNodeOperations (alpha, off by default)
// need Kubernetes' "experimental" allocator, which it does not: New
// refuses them.
type Features struct {
	AdminAccess            bool // DRAAdminAccess
	CompatibilityGroups    bool // DRADeviceCompatibilityGroups
	ConsumableCapacity     bool // DRAConsumableCapacity
	DerivedAttributes      bool // DRADerivedAttributes
	DeviceBindingAndStatus bool // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus
	DeviceTaints           bool // DRADeviceTaints
	// DeviceTaintRules (DRADeviceTaintRules): the caller gives the
	// allocator slices with the DeviceTaintRules' taints applied
	// (framework.DRAView.TaintedResourceSlices), as kube-scheduler's
	// ResourceSlice tracker does; the allocator itself does not read it.
	DeviceTaintRules        bool
	FractionalCapacityRange bool // DRAFractionalCapacityRange
	ListTypeAttributes      bool // DRAListTypeAttributes
	OptionalNodeOperations  bool // DRAOptionalNodeOperations
	PartitionableDevices    bool // DRAPartitionableDevices
	PrioritizedList         bool // DRAPrioritizedList

	// Release is the Kubernetes release whose allocator runs: v1.36's
	// (k8s.io/dynamic-resource-allocation v0.36.4) differs from v1.37's in
	// error texts (CEL runtime errors name no device and give no hint; the
	// limit of devices per claim is checked once per claim), in claim
	// configuration (repeated per matching
	// request, never widened to all requests), in distinctAttribute (which
	// compares a device only with the last device of each other request),
	// in consumable capacity (an "All" request counts capacity consumed
	// already; rounded amounts are BinarySI) and in counter slices (always
	// visible to every node). The zero value means the newest, v1.37.
	Release framework.KubeVersion
}

// DefaultFeatures returns the features kube-scheduler v enables with its
// default feature gates. v1.36 and v1.37 both enable AdminAccess,
// ConsumableCapacity, DeviceBindingAndStatus, DeviceTaints,
// PartitionableDevices and PrioritizedList; v1.37 also DeviceTaintRules
// (GA, on by default; beta and off by default in v1.36).
// (DRAFractionalCapacityRange is beta in v1.37 but on by default only
// with --min-compatibility-version 1.37, not with the default of one
// release back.)
func DefaultFeatures(v framework.KubeVersion) Features {
	return Features{
		Release:                v,
		AdminAccess:            true,
		ConsumableCapacity:     true,
		DeviceBindingAndStatus: true,
		DeviceTaints:           true,
		DeviceTaintRules:       v.IsZero() || v.AtLeast(framework.KubeV137),
		PartitionableDevices:   true,
		PrioritizedList:        true,
	}
}

// AllocatedState is what is allocated already, by claims other than the
// ones being allocated: whole devices, shares of devices that allow
// multiple allocations, and the capacity those shares consume per device.
// The allocator only reads it.
type AllocatedState struct {
	// Devices are the devices allocated without admin access and not as a
	// share (no share ID).
	Devices map[DeviceID]struct{}
	// SharedDevices are the shares of devices allocated with a share ID.
	SharedDevices map[SharedDeviceID]struct{}
	// ConsumedCapacity is, per shared device, the sum of the capacity its
	// shares consume.
	ConsumedCapacity map[DeviceID]map[api.QualifiedName]resource.Quantity
	// InUse, when set, reports devices allocated besides Devices (a
	// snapshot's allocated devices, read where they lie rather than
	// copied at every change).
	InUse func(DeviceID) bool
	// Versions, when set, gives the versions of the pools' allocations
	// (DRAView.PoolAllocationVersion: a new one whenever a pool's devices
	// allocated, shared or in flight change), read by keys the allocator
	// resolves once per pool (DRAView.PoolKey): FitsKeyed keeps its
	// answers under the versions of the node's pools.
	Versions *framework.DRAView
}

// versionOf returns the version of the allocations of pool p, through
// the key kept with the pool (the state must have Versions).
func (s *AllocatedState) versionOf(p *pool) any {
	v := s.Versions
	k := p.key.Load()
	if k == nil || !v.Keyed(*k) {
		nk := v.PoolKey(p.id.driver, p.id.pool)
		k = &nk
		p.key.Store(k)
	}
	return v.PoolAllocationVersionOf(*k)
}

// holds reports whether the device is allocated as a whole: in Devices
// or, with InUse, in what it reads.
func (s *AllocatedState) holds(id DeviceID) bool {
	if _, ok := s.Devices[id]; ok {
		return true
	}
	return s.InUse != nil && s.InUse(id)
}

// ClassLister looks up DeviceClasses by name.
type ClassLister interface {
	DeviceClass(name string) (*api.DeviceClass, bool)
}

// Allocator allocates devices to claims on one node at a time. It holds
// the cluster's ResourceSlices and allocated devices as they were when it
// was built (those its state's InUse reads, as they are when it asks: a
// snapshot's, which a cycle does not change). It is safe for concurrent
// use.
type Allocator struct {
	features Features
	state    AllocatedState
	classes  ClassLister
	slices   *Slices

	// sharedInUse are the devices with an allocated share.
	sharedInUse map[DeviceID]struct{}

	// counters caches, per pool, the shared counters left by allocated
	// devices (computed on first use, as Kubernetes does).
	countersMu sync.RWMutex
	counters   map[poolID]counterSets

	// v136 runs Kubernetes v1.36's allocator.
	v136 bool

	// runs are the search states of finished Allocate calls, for the next
	// calls to reuse (*run): one node's search takes maps and slices that
	// the next node's can take over cleared.
	runs sync.Pool
	// searched counts the nodes Fits searched (Searched).
	searched atomic.Int64
}

// Slices is the cluster's ResourceSlices indexed for allocators, with
// what allocators learn that holds whatever is allocated: the devices
// prepared for CEL, selector results, compiled node selectors and the
// pools each node reaches. Build it once per set of slices (IndexSlices)
// and share it among the allocators of successive scheduling cycles
// (NewFromSlices), so that each device is evaluated once per selector and
// each node's pools are gathered once for as long as the slices do not
// change. It is safe for concurrent use. The slices must not change while
// it is in use; a node is recognised by its object, so a changed node
// must be a new object (as schedkit's snapshots make them).
type Slices struct {
	cache    *cel.Cache
	compiler *cel.Compiler

	// all are the slices as given; onNode the slices local to one node by
	// node name, shared the others (in the order given). v1.36 counts
	// counter slices as shared wherever they are: onNode136 and shared136,
	// made on first use.
	all               []*api.ResourceSlice
	onNode, onNode136 map[string][]*api.ResourceSlice
	shared, shared136 []*api.ResourceSlice
	once136           sync.Once

	// inputs are the devices prepared for CEL (*api.Device to
	// *lazyInput), and selectors the slices' and devices' node selectors
	// compiled (*api.NodeSelector to *nodeselector.Selector), both made
	// on first use.
	inputs    sync.Map
	selectors sync.Map
	// kept are the pools of each node with slices of its own, by node
	// name, made with the index (the map is only read afterwards, each
	// entry filled on first use); byNode those of the other nodes
	// (node name to *nodePools). Both by whether partitionable devices
	// are on and whether v1.36 gathers them.
	kept   map[string]*[2][2]atomic.Pointer[nodePools]
	byNode [2][2]sync.Map

	// data keeps, for each slice, what searches learn of it and share:
	// the selector results of its devices and which of them are
	// allocated. The map is made with the index and only read
	// afterwards; what it holds is read without a lock.
	data map[*api.ResourceSlice]*sliceData
}

// sliceData is what the index keeps of one slice for the searches.
type sliceData struct {
	// results are the selector results of each device, by the device's
	// index in the slice: they do not depend on the node, the claim or
	// what is allocated.
	results []deviceResults
	// allocated are the devices the state's InUse reported allocated,
	// under the version of the slice's pool they were read at.
	allocated atomic.Pointer[allocatedBits]
	// bare keeps, per device, whether a request naming no capacity fits
	// it while it has no shares (run.fitsBare).
	bare []atomic.Uint32
}

// allocatedBits are the devices of a slice allocated under one version of
// its pool's allocations: bit i of bits is device i. bits is nil when
// none is.
type allocatedBits struct {
	version any
	bits    []uint64
}

// has reports whether device di is among the bits.
func (b *allocatedBits) has(di int) bool {
	w := di >> 6
	return w < len(b.bits) && b.bits[w]&(1<<uint(di&63)) != 0
}

// deviceResults are the results of the selectors evaluated on one
// device so far, a list replaced whole when one is added.
type deviceResults struct {
	list atomic.Pointer[[]programResult]
}

// programResult is a selector program's result on a device.
type programResult struct {
	prog  *cel.Program
	match bool
	err   error
}

// IndexSlices indexes the cluster's ResourceSlices for allocators that
// evaluate CEL selectors through cache, which must not be nil.
func IndexSlices(slices []*api.ResourceSlice, cache *cel.Cache) (*Slices, error) {
	if cache == nil {
		return nil, errors.New("allocator: the CEL cache is nil")
	}
	x := &Slices{
		cache:    cache,
		compiler: cache.Compiler(),
		all:      slices,
		onNode:   make(map[string][]*api.ResourceSlice),
		kept:     make(map[string]*[2][2]atomic.Pointer[nodePools]),
		data:     make(map[*api.ResourceSlice]*sliceData, len(slices)),
	}
	for _, s := range slices {
		x.data[s] = &sliceData{
			results: make([]deviceResults, len(s.Spec.Devices)),
			bare:    make([]atomic.Uint32, len(s.Spec.Devices)),
		}
		if n := deref(s.Spec.NodeName); n != "" {
			if _, ok := x.onNode[n]; !ok {
				x.kept[n] = new([2][2]atomic.Pointer[nodePools])
			}
			x.onNode[n] = append(x.onNode[n], s)
		} else {
			x.shared = append(x.shared, s)
		}
	}
	return x, nil
}

// index136 makes v1.36's partition.
func (x *Slices) index136() {
	x.onNode136 = make(map[string][]*api.ResourceSlice)
	for _, s := range x.all {
		if n := deref(s.Spec.NodeName); n != "" && len(s.Spec.SharedCounters) == 0 {
			x.onNode136[n] = append(x.onNode136[n], s)
		} else {
			x.shared136 = append(x.shared136, s)
		}
	}
}

// forNode returns the slices that may reach node: its own, then the
// others.
func (x *Slices) forNode(node string, v136 bool) []*api.ResourceSlice {
	local, shared := x.onNode[node], x.shared
	if v136 {
		x.once136.Do(x.index136)
		local, shared = x.onNode136[node], x.shared136
	}
	if len(local) == 0 {
		return shared
	}
	return slices.Concat(local, shared)
}

// lazyInput is a device's CEL input, converted once.
type lazyInput struct {
	once sync.Once
	in   *cel.Input
}

// counterSets are amounts per counter name per counter set name.
type counterSets map[string]map[string]resource.Quantity

// New returns an allocator over the cluster's ResourceSlices, its
// DeviceClasses and what is allocated already (Kubernetes' NewAllocator),
// evaluating CEL selectors through cache, which must not be nil. The
// slices, the state and the classes must not change while the allocator
// is in use. It is IndexSlices followed by NewFromSlices.
func New(f Features, state AllocatedState, classes ClassLister, slices []*api.ResourceSlice, cache *cel.Cache) (*Allocator, error) {
	x, err := IndexSlices(slices, cache)
	if err != nil {
		return nil, err
	}
	return NewFromSlices(f, state, classes, x)
}

// NewFromSlices is New over slices indexed already, which allocators of
// successive cycles can share while the slices do not change.
func NewFromSlices(f Features, state AllocatedState, classes ClassLister, slices *Slices) (*Allocator, error) {
	if slices == nil {
		return nil, errors.New("allocator: the slices are nil")
	}
	if classes == nil {
		return nil, errors.New("allocator: the class lister is nil")
	}
	for _, x := range []struct {
		on   bool
		name string
	}{
		{f.CompatibilityGroups, "CompatibilityGroups"},
		{f.DerivedAttributes, "DerivedAttributes"},
		{f.ListTypeAttributes, "ListTypeAttributes"},
		{f.OptionalNodeOperations, "OptionalNodeOperations"},
	} {
		if x.on {
			return nil, fmt.Errorf("allocator: feature %s needs Kubernetes' experimental allocator, which is not reproduced", x.name)
		}
	}
	a := &Allocator{
		features:    f,
		state:       state,
		classes:     classes,
		slices:      slices,
		sharedInUse: make(map[DeviceID]struct{}, len(state.SharedDevices)),
		counters:    make(map[poolID]counterSets),
		v136:        !f.Release.IsZero() && !f.Release.AtLeast(framework.KubeV137),
	}
	for id := range state.SharedDevices {
		a.sharedInUse[id.DeviceID] = struct{}{}
	}
	return a, nil
}

// nodeSelector returns sel compiled.
func (x *Slices) nodeSelector(sel *api.NodeSelector) *nodeselector.Selector {
	if s, ok := x.selectors.Load(sel); ok {
		return s.(*nodeselector.Selector)
	}
	s, _ := x.selectors.LoadOrStore(sel, nodeselector.NewSelector(sel, "nodeSelector"))
	return s.(*nodeselector.Selector)
}

// input returns the CEL input of a device of driver.
func (x *Slices) input(driver string, d *api.Device) *cel.Input {
	v, ok := x.inputs.Load(d)
	if !ok {
		v, _ = x.inputs.LoadOrStore(d, &lazyInput{})
	}
	li := v.(*lazyInput)
	li.once.Do(func() { li.in = x.compiler.NewInput(celDevice(driver, d)) })
	return li.in
}

// match evaluates prog on device di of slice s, whose data sd is (nil for
// a slice outside the index). Results are kept for the life of the index,
// except those of an evaluation ctx interrupted.
func (x *Slices) match(ctx context.Context, prog *cel.Program, s *api.ResourceSlice, sd *sliceData, di int) (bool, error) {
	var kept *deviceResults
	if sd != nil && di < len(sd.results) {
		kept = &sd.results[di]
		if l := kept.list.Load(); l != nil {
			for _, r := range *l {
				if r.prog == prog {
					return r.match, r.err
				}
			}
		}
	}
	m, _, err := prog.Match(ctx, x.input(s.Spec.Driver, &s.Spec.Devices[di]))
	if ctx.Err() == nil && kept != nil {
		for {
			old := kept.list.Load()
			var l []programResult
			if old != nil {
				l = slices.Clip(*old)
			}
			l = append(l, programResult{prog, m, err})
			if kept.list.CompareAndSwap(old, &l) {
				break
			}
		}
	}
	return m, err
}

// celDevice is what a selector sees of d.
func celDevice(driver string, d *api.Device) cel.Device {
	out := cel.Device{
		Driver:                   driver,
		AllowMultipleAllocations: deref(d.AllowMultipleAllocations),
		Attributes:               make(map[string]cel.AttributeValue, len(d.Attributes)),
		Capacity:                 make(map[string]resource.Quantity, len(d.Capacity)),
	}
	for n, v := range d.Attributes {
		out.Attributes[string(n)] = cel.AttributeValue{
			Int: v.IntValue, Bool: v.BoolValue, String: v.StringValue, Version: v.VersionValue,
			Ints: v.IntValues, Bools: v.BoolValues, Strings: v.StringValues, Versions: v.VersionValues,
		}
	}
	for n, c := range d.Capacity {
		out.Capacity[string(n)] = c.Value
	}
	return out
}

// Allocate chooses devices for claims (none of them allocated yet) on
// node. It returns one result per claim, in the order of claims; nil
// results and a nil error when the claims cannot all be allocated on this
// node; and an error, with Kubernetes' text, for a failure Kubernetes
// reports as one (a CEL runtime error, a missing class, a request asking
// for all devices of a pool that is being updated, a cancelled ctx, ...).
// Errors that wrap ErrFailedAllocationOnNode concern this node only.
// Results have no AllocationTimestamp. A device shared through
// allowMultipleAllocations gets a share ID derived from the claim and the
// device (Kubernetes draws a random UID), so that the same inputs give the
// same results.
func (a *Allocator) Allocate(ctx context.Context, node *api.Node, claims []*api.ResourceClaim) ([]api.AllocationResult, error) {
	r := a.run(ctx, node, claims)
	defer a.runs.Put(r)
	done, err := r.search()
	if err != nil || !done {
		return nil, err
	}
	return r.build()
}

// Fits reports whether Allocate would allocate claims on node, returning
// the error Allocate would return, without building the results: a
// scheduler's Filter asks it of every node and Allocate of the one it
// picks. A positive timeout bounds the search as a context with that
// timeout bounds Allocate's (an error wrapping context.DeadlineExceeded),
// without the context, from a few microseconds into the search.
func (a *Allocator) Fits(ctx context.Context, timeout time.Duration, node *api.Node, claims []*api.ResourceClaim) (bool, error) {
	return a.FitsKeyed(ctx, timeout, node, claims, "")
}

// FitsKeyed is Fits for claims that key identifies (their requests and
// the classes they name, as the caller encodes them; "" for none): with
// a key and the state's Versions, the answer is kept with the node's
// pools, under the key and the versions of the pools' allocations, and
// given again without a search while they stay the same. Answers with an
// error are not kept. A stream of pods whose claims ask the same, each
// placed in turn, then searches again only the nodes whose devices the
// placements took.
func (a *Allocator) FitsKeyed(ctx context.Context, timeout time.Duration, node *api.Node, claims []*api.ResourceClaim, key string) (bool, error) {
	var room [4]int
	fits, _, err := a.FitsChoosing(ctx, timeout, nil, node, claims, key, room[:0])
	return fits, err
}

// FitsChoosing is FitsKeyed that also tells, when the claims fit, which
// subrequest Allocate would use for each firstAvailable request: its
// index among the request's subrequests, appended to chosen in the order
// of the claims and their requests. With a slot (which may be nil) the
// node's pools and kept answer are found in the slot, and kept there.
func (a *Allocator) FitsChoosing(ctx context.Context, timeout time.Duration, slot *NodeSlot, node *api.Node, claims []*api.ResourceClaim, key string, chosen []int) (bool, []int, error) {
	np := a.slices.nodePoolsIn(slot, node, a.features.PartitionableDevices, a.v136)
	keyed := key != "" && a.state.Versions != nil && np.err == nil
	var room [4]any
	var versions []any
	if keyed {
		versions = room[:0]
		for _, p := range np.pools {
			versions = append(versions, a.state.versionOf(p))
		}
		// A done context gets the search's error.
		if m := np.fits.Load(); ctx.Err() == nil && m != nil && m.key == key && slices.Equal(m.versions, versions) {
			if m.fits {
				chosen = append(chosen, m.chosen...)
			}
			return m.fits, chosen, nil
		}
	}
	a.searched.Add(1)
	before := len(chosen)
	fits, chosen, err := a.fits(ctx, timeout, node, claims, np, versions, chosen)
	if keyed && err == nil {
		m := &fitsMemo{key: key, fits: fits}
		m.versions = m.one[:0]
		if len(np.pools) > 1 {
			m.versions = make([]any, 0, len(np.pools))
		}
		m.versions = append(m.versions, versions...)
		if n := len(chosen) - before; n > 0 {
			m.chosen = m.chosenRoom[:0]
			if n > len(m.chosenRoom) {
				m.chosen = make([]int, 0, n)
			}
			m.chosen = append(m.chosen, chosen[before:]...)
		}
		np.fits.Store(m)
	}
	return fits, chosen, err
}

// Searched returns how many nodes Fits, FitsKeyed and FitsChoosing
// searched so far, the answers kept aside.
func (a *Allocator) Searched() int64 { return a.searched.Load() }

// fits is FitsChoosing's search on the node's pools np, whose
// pools' versions are versions when the caller asked them (nil when not).
func (a *Allocator) fits(ctx context.Context, timeout time.Duration, node *api.Node, claims []*api.ResourceClaim, np *nodePools, versions []any, chosen []int) (bool, []int, error) {
	r := a.run(ctx, node, claims)
	defer a.runs.Put(r)
	r.timeout = timeout
	for _, v := range versions {
		r.versions = append(r.versions, knownVersion{v, true})
	}
	done, err := r.searchPools(np.pools, np.err)
	if err != nil || !done {
		return false, chosen, err
	}
	for ci, claim := range claims {
		if _, err := nodeSelectorFor(r.results[ci], node.Name, false); err != nil {
			return false, chosen, fmt.Errorf("create NodeSelector for claim %s: %w", claim.Name, err)
		}
	}
	for ci := range claims {
		for _, slot := range r.reqs[ci] {
			if slot.firstAvailable {
				chosen = append(chosen, slot.selected)
			}
		}
	}
	return true, chosen, nil
}

// run returns the search state of a new Allocate call, reusing a finished
// call's; the caller puts it back in a.runs once done with it.
func (a *Allocator) run(ctx context.Context, node *api.Node, claims []*api.ResourceClaim) *run {
	r, _ := a.runs.Get().(*run)
	if r == nil {
		r = new(run)
	}
	r.reset(a, ctx, node, claims)
	return r
}

// search gathers the node's pools, prepares the requests and searches for
// devices for every claim; it reports whether it found them all, or the
// error Allocate returns (a node whose pools are invalid fails with
// ErrFailedAllocationOnNode when nothing was found).
func (r *run) search() (bool, error) {
	return r.searchPools(r.slices.pools(r.node, r.features.PartitionableDevices, r.v136))
}

// searchPools is search on the node's pools, gathered with error err.
func (r *run) searchPools(pools []*pool, err error) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("gather pool information: %w", err)
	}
	r.pools = pools
	if err := r.prepare(); err != nil {
		return false, err
	}
	done, err := r.allocateOne(position{}, false, location{})
	if err != nil {
		return false, err
	}
	if !done {
		for _, p := range pools {
			if p.invalid {
				return false, fmt.Errorf("invalid resource pools were encountered%w", ErrFailedAllocationOnNode)
			}
		}
	}
	return done, nil
}

// AddAllocation records the devices of an allocated claim in the state as
// Kubernetes' scheduler does: devices allocated with admin access are not
// in use; with consumableCapacity, a device allocated with a share ID is a
// share whose consumed capacity adds to the device's; any other device is
// in use as a whole.
func (s *AllocatedState) AddAllocation(a *api.AllocationResult, consumableCapacity bool) {
	if a == nil {
		return
	}
	for _, r := range a.Devices.Results {
		if deref(r.AdminAccess) {
			continue
		}
		id := DeviceID{r.Driver, r.Pool, r.Device}
		if consumableCapacity && r.ShareID != nil {
			if s.SharedDevices == nil {
				s.SharedDevices = make(map[SharedDeviceID]struct{})
			}
			s.SharedDevices[SharedDeviceID{id, *r.ShareID}] = struct{}{}
			if r.ConsumedCapacity != nil {
				if s.ConsumedCapacity == nil {
					s.ConsumedCapacity = make(map[DeviceID]map[api.QualifiedName]resource.Quantity)
				}
				s.ConsumedCapacity[id] = addCapacities(s.ConsumedCapacity[id], r.ConsumedCapacity)
			}
			continue
		}
		if s.Devices == nil {
			s.Devices = make(map[DeviceID]struct{})
		}
		s.Devices[id] = struct{}{}
	}
}
