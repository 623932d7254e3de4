// Package dynamicresources is kube-scheduler's DynamicResources plugin
// (pkg/scheduler/framework/plugins/dynamicresources; v1.37, the default
// release, or v1.36) with its args: it allocates the devices of a pod's
// ResourceClaims with the structured allocator of internal/dra, reproducing
// kube's verdicts, scores and reason strings exactly, and runs its
// per-node Filter without allocating or hoistable map lookups.
package dynamicresources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/dra/allocator"
	"github.com/schedkit/schedkit/internal/dra/cel"
	"github.com/schedkit/schedkit/internal/dra/extended"
	"github.com/schedkit/schedkit/resource"
)

// DynamicResources is kube-scheduler v1.37's DynamicResources plugin
// (pkg/scheduler/framework/plugins/dynamicresources) with its default
// feature gates: it allocates the devices of a pod's ResourceClaims (and
// of its extended resources that DeviceClasses back) with the structured
// allocator, node by node in Filter, holds the chosen node's allocation in
// flight from Reserve, and writes allocation and reservation into the
// claims in PreBind. Its reads come from the cycle's snapshot
// (Snapshot.DRA), its writes go to its handle's DRA manager
// (framework.Handle.DRAManager: a scheduler's cluster; without a handle,
// the cycle's snapshot), which PreEnqueue also reads outside a cycle.
//
// Not modelled: pod groups (DRAWorkloadResourceClaims, off by default),
// node-allocatable resources (DRANodeAllocatableResources, off), PreBind's
// wait for binding conditions (it fails on a binding failure condition or
// timeout and does not wait otherwise), finalizers, and the pod status
// update that names the extended-resource claim.
type DynamicResources struct {
	args     DynamicResourcesArgs
	features allocator.Features
	cache    *cel.Cache
	clock    framework.Clock
	// v136: kube v1.36's PostFilter messages.
	v136 bool

	h framework.Handle

	// idxMu guards the allocator's index of the slices last seen (idxOf):
	// a snapshot returns the same list while its slices do not change, so
	// successive cycles share the index.
	idxMu sync.Mutex
	idxOf []*api.ResourceSlice
	idx   *allocator.Slices

	// last is the state of the last cycle whose claims were searched for
	// (FilterCostly).
	last atomic.Pointer[draState]

	// slots are the allocator's slots of the nodes by their position in
	// the snapshot (NodeInfo.Index), so that Filter finds a node's pools
	// and kept answer without looking its name up; grown, never shrunk,
	// by copying the slice, the slots themselves kept (nodeSlots).
	slots atomic.Pointer[[]*allocator.NodeSlot]
}

var (
	_ framework.PreEnqueuePlugin       = (*DynamicResources)(nil)
	_ framework.PreFilterPlugin        = (*DynamicResources)(nil)
	_ framework.FilterPlugin           = (*DynamicResources)(nil)
	_ framework.PostFilterPlugin       = (*DynamicResources)(nil)
	_ framework.ScorePlugin            = (*DynamicResources)(nil)
	_ fastpath.BoundedBatchScorePlugin = (*DynamicResources)(nil)
	_ fastpath.BatchScoreExtensions    = (*DynamicResources)(nil)
	_ fastpath.RangeNormalizer         = (*DynamicResources)(nil)
	_ fastpath.ConstantScorePlugin     = (*DynamicResources)(nil)
	_ framework.ReservePlugin          = (*DynamicResources)(nil)
	_ framework.PreBindPlugin          = (*DynamicResources)(nil)
	_ framework.EnqueueExtensions      = (*DynamicResources)(nil)
	_ framework.SignRefuser            = (*DynamicResources)(nil)
	_ fastpath.NodeLocalPlugin         = (*DynamicResources)(nil)
	_ fastpath.CostlyFilterPlugin      = (*DynamicResources)(nil)
)

// New builds DynamicResources (a *DynamicResources) with the allocator
// features of h's release: nil args mean DefaultDynamicResourcesArgs(); a
// DynamicResourcesArgs or a pointer to one is used as given, validated. It
// is a framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.DynamicResourcesName, args, h, DefaultDynamicResourcesArgs, newDynamicResources)
}

func newDynamicResources(a DynamicResourcesArgs, h framework.Handle) (framework.Plugin, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	comp, err := cel.NewCompiler()
	if err != nil {
		return nil, fmt.Errorf("dynamicresources: %w", err)
	}
	var v framework.KubeVersion
	var clock framework.Clock = framework.RealClock{}
	if h != nil {
		v = h.KubeVersion()
		if c := h.Clock(); c != nil {
			clock = c
		}
	}
	return &DynamicResources{args: a, features: allocator.DefaultFeatures(v), cache: cel.NewCache(comp), clock: clock,
		v136: !v.IsZero() && !v.AtLeast(framework.KubeV137), h: h}, nil
}

// Name returns DynamicResources.
func (pl *DynamicResources) Name() string { return config.DynamicResourcesName }

const draStateKey framework.StateKey = "PreFilter" + config.DynamicResourcesName

// draState is the cycle's state, kube's stateData: the pod's claims (user
// claims, then the extended-resource claim), the allocator, and what
// Filter found per node.
type draState struct {
	claims   []*api.ResourceClaim
	numUser  int
	extended *api.ResourceClaim
	// extendedUID is the extended-resource claim's UID at PreFilter.
	extendedUID string
	extReqs     map[resource.Name]int64
	alloc       *allocator.Allocator
	info        []claimInfo
	// fitsOnly says that Filter only asks the allocator whether a node
	// fits and Reserve allocates on the node it is given: there is no
	// extended-resource claim, which Filter makes for each node.
	fitsOnly bool
	// choosing says that, with fitsOnly, a claim has a firstAvailable
	// request, so that a node's score depends on the subrequests chosen
	// there: Filter keeps each node's score, baseScore (what the
	// allocated claims score) plus what its choices score, by the
	// node's position in nodeScores, or by name in scoreByName (under
	// mu) for a node outside the snapshot.
	choosing    bool
	baseScore   int64
	nodeScores  []int64
	scoreByName map[string]int64
	// unallocated are the claims without an allocation, in order.
	unallocated []*api.ResourceClaim
	// slots are the plugin's slots when the cycle began (nodeSlots).
	slots []*allocator.NodeSlot
	// fitsKey identifies what the unallocated claims ask for, with fitsOnly
	// (fitsKey): the allocator keeps each node's answer under it.
	fitsKey string
	// costly says that Filter is expected to search many nodes' devices
	// (FilterCostly).
	costly bool

	mu          sync.Mutex
	unavailable []bool
	nodeAllocs  map[string]nodeAllocation

	// holders maps allocated devices to their claims, made once per
	// cycle for explanations (dynamicresources_explain.go).
	holdersOnce sync.Once
	holders     map[allocator.DeviceID]string
}

// claimInfo is kube's informationForClaim.
type claimInfo struct {
	// availableOn is an allocated claim's node selector (nil: every node).
	availableOn *api.NodeSelectorMatcher
	// allocation is set by Reserve.
	allocation *api.AllocationResult
}

// nodeAllocation is what Filter allocated on one node.
type nodeAllocation struct {
	results  []api.AllocationResult
	extended *api.ResourceClaim
}

// Clone returns the state itself: it is shared by the cycle's phases.
func (s *draState) Clone() framework.StateData { return s }

// noClaims is the state of every pod without claims (never changed).
var noClaims = &draState{}

func (s *draState) empty() bool { return len(s.claims) == 0 }

func (s *draState) extendedClaim() *api.ResourceClaim {
	if s.numUser == len(s.claims) {
		return nil
	}
	return s.claims[s.numUser]
}

func readDRAState(cs *framework.CycleState) (*draState, error) {
	d, err := cs.Read(draStateKey)
	if err != nil {
		return nil, errors.New("not found")
	}
	s, ok := d.(*draState)
	if !ok {
		return nil, errors.New("unable to convert state into stateData")
	}
	return s, nil
}

// stateAfterPreFilter is the cycle's state for Reserve and PreBind: a pod
// the plugin skips has nothing to reserve even when the state is not the
// one PreFilter wrote to (a capacity question's replicas are filtered on
// a state of their own).
func (pl *DynamicResources) stateAfterPreFilter(cs *framework.CycleState, pi *framework.PodInfo) (*draState, error) {
	s, err := readDRAState(cs)
	if err != nil && pl.NodeLocal(pi) {
		return noClaims, nil
	}
	return s, err
}

// store returns where the cycle writes: the handle's DRA manager, the
// cycle's snapshot without a handle.
func (pl *DynamicResources) store(cs *framework.CycleState) framework.DRAManager {
	if pl.h != nil {
		if m := pl.h.DRAManager(cs); m != nil {
			return m
		}
	}
	return cs.Snapshot().DRAManager()
}

// unresolvable is kube's statusUnschedulable.
func unresolvable(reason string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason)
}

// PreEnqueue keeps a pod out of the active queue while one of its claims
// is not created yet, missing, being deleted or not the pod's, as its
// handle's DRA manager holds them outside a cycle (without one, as
// outside a scheduler, it lets every pod in).
func (pl *DynamicResources) PreEnqueue(_ context.Context, pod *api.Pod) *framework.Status {
	if len(pod.Spec.ResourceClaims) == 0 || pl.h == nil {
		return nil
	}
	base := pl.h.DRAManager(nil)
	if base == nil {
		return nil
	}
	if _, err := podClaims(base.Snapshot().DRA(), pod); err != nil {
		return unresolvable(err.Error())
	}
	return nil
}

// PreFilter finds the pod's claims, checks the allocated ones can be used
// and the classes of the others exist, and prepares the allocator. A pod
// without claims is skipped.
func (pl *DynamicResources) PreFilter(ctx context.Context, cs *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	pod := pi.Pod
	snap := cs.Snapshot()
	if snap == nil || (len(pod.Spec.ResourceClaims) == 0 && !pi.RequestsDRAExtended()) {
		cs.Write(draStateKey, noClaims)
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &draState{}
	cs.Write(draStateKey, s)
	view := snap.DRA()
	user, err := podClaims(view, pod)
	if err != nil {
		return nil, unresolvable(err.Error())
	}
	s.claims, s.numUser = user, len(user)
	if reqs := extendedRequests(view, pod); reqs != nil {
		s.extReqs = reqs
		ext := findExtendedClaim(view, pod)
		if ext == nil {
			ext = newExtendedClaim(pod)
		}
		s.extended, s.extendedUID = ext, ext.UID
		s.claims = append(s.claims, ext)
	}
	if s.empty() {
		return nil, framework.NewStatus(framework.Skip)
	}
	s.info = make([]claimInfo, len(s.claims))
	s.unavailable = make([]bool, len(s.claims))
	for i, c := range s.claims {
		if a := c.Status.Allocation; a != nil {
			if a.NodeSelector != nil {
				s.info[i].availableOn = api.CompileNodeSelector(a.NodeSelector)
			}
			continue
		}
		s.unallocated = append(s.unallocated, c)
		if view.InFlight(c.UID) != nil {
			return nil, unresolvable(fmt.Sprintf("resource claim %s is in the process of being allocated", c.Key()))
		}
		if c == s.extended {
			continue
		}
		for _, r := range c.Spec.Devices.Requests {
			switch {
			case r.Exactly != nil:
				if st := validateDeviceClass(view, r.Exactly.DeviceClassName, r.Name); st != nil {
					return nil, st
				}
			case len(r.FirstAvailable) > 0:
				for _, sub := range r.FirstAvailable {
					if st := validateDeviceClass(view, sub.DeviceClassName, r.Name+"/"+sub.Name); st != nil {
						return nil, st
					}
				}
			default:
				return nil, unresolvable(fmt.Sprintf("resource claim %s, request %s: unknown request type", c.Key(), r.Name))
			}
		}
	}
	if len(s.unallocated) > 0 {
		list := view.ResourceSlices()
		if pl.features.DeviceTaintRules {
			list = view.TaintedResourceSlices()
		}
		idx, err := pl.sliceIndex(list)
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		// Reads the view's allocated devices in place: gathering it walks
		// the shared and in-flight allocations alone.
		st := allocator.GatherAllocatedState(view, pl.features.ConsumableCapacity)
		st.Versions = &view
		a, err := allocator.NewFromSlices(pl.features, st, allocator.ViewClasses{View: view}, idx)
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		s.alloc = a
	}
	s.fitsOnly = s.extended == nil
	if s.fitsOnly && s.alloc != nil {
		s.fitsKey = fitsKey(view, s.unallocated)
		s.slots = pl.nodeSlots(snap.NumNodes())
		s.choosing = slices.ContainsFunc(s.claims, func(c *api.ResourceClaim) bool {
			return slices.ContainsFunc(c.Spec.Devices.Requests, func(r api.DeviceRequest) bool { return len(r.FirstAvailable) > 0 })
		})
	}
	if s.choosing {
		for _, c := range s.claims {
			if c.Status.Allocation != nil {
				s.baseScore += claimScore(c, c.Status.Allocation)
			}
		}
		s.nodeScores = make([]int64, snap.NumNodes())
	}
	if s.alloc != nil {
		prev := pl.last.Swap(s)
		same := prev != nil && prev.fitsKey == s.fitsKey
		if same {
			// The key kept with each node's answer is the earlier cycle's
			// string: comparing it with the same string is a pointer
			// check, not a comparison of its bytes at every node.
			s.fitsKey = prev.fitsKey
		}
		s.costly = s.fitsKey == "" || !same || prev.alloc.Searched() >= costlySearched
	}
	s.nodeAllocs = make(map[string]nodeAllocation)
	return nil, nil
}

// sliceIndex returns the allocator's index of slices, built once per list.
func (pl *DynamicResources) sliceIndex(list []*api.ResourceSlice) (*allocator.Slices, error) {
	pl.idxMu.Lock()
	defer pl.idxMu.Unlock()
	if pl.idx != nil && len(list) == len(pl.idxOf) && (len(list) == 0 || &list[0] == &pl.idxOf[0]) {
		return pl.idx, nil
	}
	idx, err := allocator.IndexSlices(list, pl.cache)
	if err != nil {
		return nil, err
	}
	pl.idxOf, pl.idx = list, idx
	return idx, nil
}

// validateDeviceClass checks that a request names a class that exists.
func validateDeviceClass(view framework.DRAView, class, request string) *framework.Status {
	if class == "" {
		return framework.AsStatus(fmt.Errorf("request %s: unsupported request type", request))
	}
	if _, ok := view.DeviceClass(class); !ok {
		return unresolvable(fmt.Sprintf("request %s: device class %s does not exist", request, class))
	}
	return nil
}

// Filter checks that the pod's allocated claims are available on the node
// and that the others can be allocated there, and remembers the
// allocation.
func (pl *DynamicResources) Filter(ctx context.Context, cs *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	s, err := readDRAState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() {
		return nil
	}
	node := ni.Node()
	nodeExt, st := pl.filterExtended(cs, s, pi.Pod, ni)
	if st != nil {
		return st
	}
	if nodeExt == nil && s.numUser == 0 {
		return nil
	}
	var unavailable []int
	for i, c := range s.claims {
		if m := s.info[i].availableOn; m != nil && !m.Match(node) {
			unavailable = append(unavailable, i)
			continue
		}
		if c.Status.Allocation != nil && !pl.bindable(c) {
			unavailable = append(unavailable, i)
		}
	}
	var results []api.AllocationResult
	// keep says that the node's allocation is kept for Reserve; with
	// fitsOnly and no allocation Reserve made, Reserve makes it instead
	// (nodeAllocation).
	keep := false
	if s.alloc != nil {
		toAllocate, pending := s.toAllocate(nodeExt)
		var res []api.AllocationResult
		var err error
		fits, fitsOnly := true, s.fitsOnly && pending == nil
		if fitsOnly {
			var room [4]int
			var chosen []int
			var slot *allocator.NodeSlot
			if i := ni.Index(); i >= 0 && i < len(s.slots) {
				slot = s.slots[i]
			}
			fits, chosen, err = s.alloc.FitsChoosing(ctx, pl.args.FilterTimeout, slot, node, toAllocate, s.fitsKey, room[:0])
			if fits && err == nil && s.choosing {
				s.keepScore(ni, chosen)
			}
		} else {
			actx := ctx
			if pl.args.FilterTimeout > 0 {
				actx = deadlineCtx{ctx, time.Now().Add(pl.args.FilterTimeout)}
			}
			res, err = s.alloc.Allocate(actx, node, toAllocate)
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return framework.AsStatus(fmt.Errorf("node %s: timed out trying to allocate devices", node.Name))
		case errors.Is(err, allocator.ErrFailedAllocationOnNode):
			return unresolvable(err.Error())
		case ctx.Err() != nil:
			return unresolvable(fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)))
		case err != nil:
			return framework.AsStatus(err)
		}
		if !fits || !fitsOnly && len(res) != len(toAllocate) {
			return unresolvable("cannot allocate all claims")
		}
		results, keep = append(res, pending...), !fitsOnly
	}
	if !keep && len(unavailable) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(unavailable) > 0 {
		for _, i := range unavailable {
			s.unavailable[i] = true
		}
		return unresolvable("resourceclaim not available on the node")
	}
	if keep {
		s.nodeAllocs[node.Name] = nodeAllocation{results: results, extended: nodeExt}
	}
	return nil
}

// nodeSlots returns the plugin's node slots, at least n of them.
func (pl *DynamicResources) nodeSlots(n int) []*allocator.NodeSlot {
	for {
		cur := pl.slots.Load()
		if cur != nil && len(*cur) >= n {
			return *cur
		}
		var grown []*allocator.NodeSlot
		if cur != nil {
			grown = slices.Clone(*cur)
		}
		for len(grown) < n {
			grown = append(grown, new(allocator.NodeSlot))
		}
		if pl.slots.CompareAndSwap(cur, &grown) {
			return grown
		}
	}
}

// fitsKey encodes what claims ask for (their device requests,
// constraints and configuration) and the DeviceClasses they name, so
// that pods whose claims ask the same have the same key while the
// classes stay the same; "" when it cannot be encoded.
func fitsKey(view framework.DRAView, claims []*api.ResourceClaim) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, c := range claims {
		if enc.Encode(c.Spec.Devices) != nil {
			return ""
		}
		for _, r := range c.Spec.Devices.Requests {
			names := []string{}
			if r.Exactly != nil {
				names = append(names, r.Exactly.DeviceClassName)
			}
			for _, sub := range r.FirstAvailable {
				names = append(names, sub.DeviceClassName)
			}
			for _, n := range names {
				b.WriteString(n)
				if class, ok := view.DeviceClass(n); !ok {
					b.WriteString(" missing\n")
				} else if enc.Encode(class.Spec) != nil {
					return ""
				}
			}
		}
	}
	return b.String()
}

// FilterCostly reports whether Filter is expected to search the devices
// of many nodes for the pod's claims (fastpath.CostlyFilterPlugin):
// microseconds a node where the built-in plugins take tens of
// nanoseconds. It is not when the cycle before asked the same and
// searched fewer than costlySearched nodes: the answers kept from it
// (FitsChoosing) make this cycle's Filter a lookup on most nodes.
func (pl *DynamicResources) FilterCostly(cs *framework.CycleState, _ *framework.PodInfo) bool {
	s, err := readDRAState(cs)
	return err == nil && s.alloc != nil && s.costly
}

// costlySearched is how many nodes a cycle must have searched for the
// next one asking the same to be expected costly: a chunk of a costly
// loop (costlyChunk in the runtime), a hundred times a fork and join.
const costlySearched = 64

// toAllocate returns the claims Filter allocates on a node, with the
// node's extended-resource claim nodeExt (when not nil) in place of the
// pod's, and the allocations Reserve made already for the others.
func (s *draState) toAllocate(nodeExt *api.ResourceClaim) ([]*api.ResourceClaim, []api.AllocationResult) {
	if nodeExt == nil && !slices.ContainsFunc(s.info, func(c claimInfo) bool { return c.allocation != nil }) {
		return s.unallocated, nil
	}
	toAllocate := make([]*api.ResourceClaim, 0, len(s.claims))
	var pending []api.AllocationResult
	for i, c := range s.claims {
		if c.Status.Allocation != nil {
			continue
		}
		if c == s.extended && nodeExt != nil {
			c = nodeExt
		}
		if a := s.info[i].allocation; a != nil {
			pending = append(pending, *a)
			continue
		}
		toAllocate = append(toAllocate, c)
	}
	return toAllocate, pending
}

// deadlineCtx is ctx with a deadline that Err reports once it passed,
// without the timer of context.WithTimeout (Filter runs once per node):
// the allocator polls Err. Done is ctx's.
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

func (c deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c deadlineCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// bindable is kube's Filter check of an allocated claim: no binding
// failure condition of its devices is True, and it is ready or the
// binding timeout has not passed since its allocation.
func (pl *DynamicResources) bindable(c *api.ResourceClaim) bool {
	ready, failed := c.BindingReady()
	return !pl.features.DeviceBindingAndStatus || failed == nil && (ready || !c.BindingTimedOut(pl.args.BindingTimeout, pl.clock.Now()))
}

// filterExtended is kube's filterExtendedResources: the node's own copy
// of the extended-resource claim with the requests the node must serve
// through DRA (nil when the node's device plugins serve them all).
func (pl *DynamicResources) filterExtended(cs *framework.CycleState, s *draState, pod *api.Pod, ni *framework.NodeInfo) (*api.ResourceClaim, *framework.Status) {
	ext := s.extendedClaim()
	if ext == nil {
		return nil, nil
	}
	if ext.Spec.Devices.Requests != nil {
		return nil, unresolvable("cannot schedule extended resource claim")
	}
	view := cs.Snapshot().DRA()
	alloc := ni.Node().Status.Allocatable
	var need map[resource.Name]int64
	names := make([]resource.Name, 0, len(s.extReqs))
	for n := range s.extReqs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		q := s.extReqs[n]
		if !isDRAExtendedName(n) || q == 0 {
			continue
		}
		have, ok := alloc[n]
		backed := extendedClass(view, n) != nil
		if backed && have.IsZero() {
			if need == nil {
				need = make(map[resource.Name]int64)
			}
			need[n] = q
		} else if !ok {
			return nil, unresolvable("cannot fit resource")
		}
	}
	if s.numUser == 0 && need == nil {
		return nil, nil
	}
	if ext.Status.Allocation != nil {
		return nil, nil
	}
	c := *ext
	c.Spec.Devices.Requests = extended.DeviceRequests(view, pod, need)
	return &c, nil
}

// PostFilter deallocates one allocated claim of the pod that was not
// available on some node and that no other pod uses, or deletes an
// extended-resource claim left from an earlier cycle, so that the next
// attempt can allocate anew (kube v1.37's messages; no reason when there
// is nothing to do, where v1.36 says "no new claims to deallocate" for a
// pod without claims and "still not schedulable" otherwise).
func (pl *DynamicResources) PostFilter(_ context.Context, cs *framework.CycleState, pi *framework.PodInfo, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	s, err := readDRAState(cs)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if s.empty() {
		if pl.v136 {
			return nil, framework.NewStatus(framework.Unschedulable, "no new claims to deallocate")
		}
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	pod := pi.Pod
	st := pl.store(cs)
	ext := s.extendedClaim()
	for i, bad := range s.unavailable {
		if !bad {
			continue
		}
		c := s.claims[i]
		if c == ext {
			if c.Name != specialClaimName {
				break
			}
			continue
		}
		rf := c.Status.ReservedFor
		if len(rf) == 0 || (len(rf) == 1 && rf[0].UID == pod.UID) {
			cur := *c
			cur.Status.ReservedFor, cur.Status.Allocation, cur.Status.Devices = nil, nil, nil
			if err := st.WriteClaim(&cur, false); err != nil {
				return nil, framework.AsStatus(err)
			}
			return nil, framework.NewStatus(framework.Unschedulable, "deallocation of ResourceClaim completed")
		}
	}
	if ext != nil && ext.Name != specialClaimName {
		if err := st.DeleteClaim(ext.Namespace, ext.Name); err != nil {
			return nil, framework.AsStatus(err)
		}
		return nil, framework.NewStatus(framework.Unschedulable, "deletion of ResourceClaim completed")
	}
	if pl.v136 {
		return nil, framework.NewStatus(framework.Unschedulable, "still not schedulable")
	}
	return nil, framework.NewStatus(framework.Unschedulable)
}

// firstAvailableMaxSize is resourceapi.FirstAvailableDeviceRequestMaxSize.
const firstAvailableMaxSize = 8

// Score prefers nodes where FirstAvailable requests got an earlier
// alternative: each allocated subrequest at position i scores 8 − i
// (kube's computeScore).
func (pl *DynamicResources) Score(_ context.Context, cs *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	s, err := pl.stateAfterPreFilter(cs, pi)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	v, err := s.scoreNode(ni)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	return v, nil
}

// scoreNode is Score on the node ni, from the cycle's state.
func (s *draState) scoreNode(ni *framework.NodeInfo) (int64, error) {
	if s.choosing {
		if i := ni.Index(); i >= 0 && i < len(s.nodeScores) {
			return s.nodeScores[i], nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.scoreByName[ni.Node().Name], nil
	}
	if s.empty() || s.fitsOnly {
		return 0, nil // only firstAvailable requests score
	}
	na, ok := s.nodeAllocs[ni.Node().Name]
	if !ok {
		return 0, nil
	}
	var score int64
	next := 0
	for _, c := range s.claims {
		a := c.Status.Allocation
		if a == nil {
			if next >= len(na.results) {
				return 0, fmt.Errorf("number of allocations %d is smaller than number of claims needing allocation", len(na.results))
			}
			a = &na.results[next]
			next++
		}
		score += claimScore(c, a)
	}
	return score, nil
}

// claimScore is what claim's allocation a scores: 8 − i for each
// firstAvailable request allocated its subrequest at position i.
func claimScore(c *api.ResourceClaim, a *api.AllocationResult) int64 {
	var score int64
	for _, r := range c.Spec.Devices.Requests {
		if r.Exactly != nil {
			continue
		}
		for i, sub := range r.FirstAvailable {
			if slices.ContainsFunc(a.Devices.Results, func(d api.DeviceRequestAllocationResult) bool { return isSubRequest(d.Request, r.Name, sub.Name) }) {
				score += int64(firstAvailableMaxSize - i)
			}
		}
	}
	return score
}

// keepScore keeps the score of node ni, where the unallocated claims fit
// with the subrequests chosen: each scores as its allocation would, 8 − i
// for the subrequest at position i (claimScore), since the allocation
// gives every chosen subrequest at least one device.
func (s *draState) keepScore(ni *framework.NodeInfo, chosen []int) {
	v := s.baseScore
	for _, i := range chosen {
		v += int64(firstAvailableMaxSize - i)
	}
	if i := ni.Index(); i >= 0 && i < len(s.nodeScores) {
		s.nodeScores[i] = v
		return
	}
	s.mu.Lock()
	if s.scoreByName == nil {
		s.scoreByName = make(map[string]int64)
	}
	s.scoreByName[ni.Node().Name] = v
	s.mu.Unlock()
}

// isSubRequest reports whether ref is "request/sub" without building it.
func isSubRequest(ref, request, sub string) bool {
	return len(ref) == len(request)+1+len(sub) && ref[len(request)] == '/' &&
		strings.HasPrefix(ref, request) && strings.HasSuffix(ref, sub)
}

// ScoreExtensions returns the plugin: scores are normalized to [0, 100].
func (pl *DynamicResources) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the scores to [0, 100] (DefaultNormalizeScore).
func (pl *DynamicResources) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// ScoreBatch is Score over nodes, into out. A pod without claims scores 0
// on every node, as in kube, which has no PreScore to skip the plugin:
// explanations list the plugin's row of zeros as kube's do.
func (pl *DynamicResources) ScoreBatch(ctx context.Context, cs *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, cs, pi, nodes, idx, out)
	return st
}

// ConstantScore reports the 0 a pod without claims scores on every node
// (fastpath.ConstantScorePlugin); kube v1.37 runs Score for such a pod
// on every node.
func (pl *DynamicResources) ConstantScore(_ context.Context, cs *framework.CycleState, pi *framework.PodInfo) (int64, bool) {
	s, err := pl.stateAfterPreFilter(cs, pi)
	return 0, err == nil && s.empty()
}

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score (lo > hi for no nodes).
func (pl *DynamicResources) ScoreBatchBounds(ctx context.Context, cs *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) (lo, hi int64, st *framework.Status) {
	if len(nodes) == 0 {
		return 1, 0, nil
	}
	s, err := pl.stateAfterPreFilter(cs, pi)
	if err != nil {
		return 0, 0, framework.AsStatus(err)
	}
	if s.empty() || s.fitsOnly && !s.choosing {
		// Without firstAvailable requests every node scores 0.
		clear(out[:len(nodes)])
		return 0, 0, nil
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for j, ni := range nodes {
		v, err := s.scoreNode(ni)
		if err != nil {
			return 0, 0, framework.AsStatus(err)
		}
		out[j] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, nil
}

// NormalizeScoreBatch is NormalizeScore on a row of scores. A pod without
// claims scored 0 everywhere, which normalizes to 0: the row is left as it
// is without reading it.
func (pl *DynamicResources) NormalizeScoreBatch(_ context.Context, cs *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	if s, err := pl.stateAfterPreFilter(cs, pi); err == nil && s.empty() {
		return nil
	}
	var top int64
	for _, v := range scores {
		top = max(top, v)
	}
	if top == 0 {
		return nil
	}
	for j, v := range scores {
		scores[j] = framework.MaxNodeScore * v / top
	}
	return nil
}

// NormalizeRange is NormalizeScore as a function of the least and
// greatest score.
func (pl *DynamicResources) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, false, lo, out)
	return true
}

// Reserve puts the node's allocations in flight, so that no other pod
// gets their devices before PreBind writes them.
func (pl *DynamicResources) Reserve(ctx context.Context, cs *framework.CycleState, pi *framework.PodInfo, node string) *framework.Status {
	s, err := pl.stateAfterPreFilter(cs, pi)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() {
		return nil
	}
	withAllocator, needUser := 0, false
	for _, c := range s.claims {
		if c.Status.Allocation == nil {
			withAllocator++
			if c != s.extended {
				needUser = true
			}
		}
	}
	if withAllocator == 0 || s.alloc == nil {
		return nil
	}
	na, ok := s.nodeAllocation(ctx, cs, node)
	if !ok || len(na.results) == 0 {
		if !needUser {
			return nil
		}
		return framework.AsStatus(errors.New("claim allocation not found for node"))
	}
	if len(na.results) != withAllocator {
		return framework.AsStatus(fmt.Errorf("internal error, have %d allocations, %d claims to allocate, want %d claims", len(na.results), withAllocator, withAllocator))
	}
	st := pl.store(cs)
	view := st.Snapshot().DRA()
	k := 0
	for i, c := range s.claims {
		if c.Status.Allocation != nil {
			continue
		}
		a := &na.results[k]
		k++
		s.info[i].allocation = a
		if c == s.extended {
			c = na.extended
		}
		cp := *c
		cp.Status.Allocation = a
		if view.InFlight(c.UID) != nil {
			continue
		}
		if c.Name != specialClaimName {
			if cur, ok := view.ResourceClaim(c.Namespace, c.Name); ok && cur.UID == c.UID && cur.Status.Allocation != nil {
				continue
			}
		}
		st.SetInFlight(c.UID, &cp)
	}
	return nil
}

// nodeAllocation returns what Filter allocated on the node named node.
// With fitsOnly, Filter kept nothing when no claim had an allocation
// Reserve made: the node's allocation is made now, as Filter would have
// made it (the allocator gives the same inputs the same devices), and
// kept for PreBind.
func (s *draState) nodeAllocation(ctx context.Context, cs *framework.CycleState, node string) (nodeAllocation, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if na, ok := s.nodeAllocs[node]; ok || !s.fitsOnly {
		return na, ok
	}
	snap := cs.Snapshot()
	if snap == nil {
		return nodeAllocation{}, false
	}
	ni, ok := snap.Get(node)
	if !ok || ni.Node() == nil {
		return nodeAllocation{}, false
	}
	res, err := s.alloc.Allocate(ctx, ni.Node(), s.unallocated)
	if err != nil || len(res) != len(s.unallocated) {
		return nodeAllocation{}, false
	}
	na := nodeAllocation{results: res}
	s.nodeAllocs[node] = na
	return na, true
}

// Unreserve ends the pod's in-flight allocations and removes the pod from
// the claims reserved for it; an extended-resource claim PreBind created
// is deleted.
func (pl *DynamicResources) Unreserve(_ context.Context, cs *framework.CycleState, pi *framework.PodInfo, _ string) {
	s, err := readDRAState(cs)
	if err != nil || s.empty() {
		return
	}
	pod := pi.Pod
	st := pl.store(cs)
	view := st.Snapshot().DRA()
	for _, c := range s.claims[:s.numUser] {
		if view.InFlight(c.UID) != nil {
			st.SetInFlight(c.UID, nil)
		}
		if c.Status.Allocation != nil && reservedForPod(pod, c) {
			cur, ok := view.ResourceClaim(c.Namespace, c.Name)
			if !ok || cur.UID != c.UID {
				continue
			}
			cp := *cur
			cp.Status.ReservedFor = slices.DeleteFunc(slices.Clone(cur.Status.ReservedFor), func(r api.ResourceClaimConsumerReference) bool { return r.UID == pod.UID })
			_ = st.WriteClaim(&cp, false)
		}
	}
	ext := s.extendedClaim()
	if ext == nil {
		return
	}
	if view.InFlight(s.extendedUID) != nil {
		st.SetInFlight(s.extendedUID, nil)
	}
	if ext.Name != specialClaimName {
		_ = st.DeleteClaim(ext.Namespace, ext.Name)
	}
}

// PreBind writes each claim's allocation (from Reserve) and the pod's
// reservation into the claim, creating the extended-resource claim first.
func (pl *DynamicResources) PreBind(_ context.Context, cs *framework.CycleState, pi *framework.PodInfo, node string) *framework.Status {
	s, err := pl.stateAfterPreFilter(cs, pi)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() {
		return nil
	}
	pod := pi.Pod
	st := pl.store(cs)
	var done []string
	for i, c := range s.claims {
		if reservedForPod(pod, c) {
			continue
		}
		nc, err := pl.bindClaim(st, s, i, pod, node)
		if err != nil {
			return framework.AsStatus(err)
		}
		if s.info[i].allocation != nil {
			done = append(done, c.UID)
		}
		s.claims[i] = nc
	}
	if err := pl.bindingError(st.Snapshot().DRA(), s.claims); err != nil {
		return framework.AsStatus(err)
	}
	view := st.Snapshot().DRA()
	for _, uid := range done {
		if view.InFlight(uid) != nil {
			st.SetInFlight(uid, nil)
		}
	}
	return nil
}

// bindingError is PreBind's check of the binding conditions of the
// claims' devices, as stored: kube's first check before it waits for them
// (isPodReadyForBinding). A True binding failure condition or a passed
// binding timeout is kube's error; a device not ready yet is not waited
// for.
func (pl *DynamicResources) bindingError(view framework.DRAView, claims []*api.ResourceClaim) error {
	for _, c := range claims {
		if cur, ok := view.ResourceClaim(c.Namespace, c.Name); ok && pl.features.DeviceBindingAndStatus {
			ready, failed := cur.BindingReady()
			if failed != nil {
				return fmt.Errorf("device binding failed: claim=%s, reason=%s, message=%q", c.Name, failed.Reason, failed.Message)
			}
			if !ready && cur.BindingTimedOut(pl.args.BindingTimeout, pl.clock.Now()) {
				return fmt.Errorf("device binding timeout: claim=%s", c.Name)
			}
		}
	}
	return nil
}

// bindClaim is kube's bindClaim: the claim with its allocation and the
// pod's reservation, as written.
func (pl *DynamicResources) bindClaim(st framework.DRAManager, s *draState, i int, pod *api.Pod, node string) (*api.ResourceClaim, error) {
	c := s.claims[i]
	alloc := s.info[i].allocation
	if c == s.extendedClaim() {
		if alloc == nil && c.Spec.Devices.Requests == nil {
			return c, nil
		}
		if c.Name == specialClaimName {
			na, ok := s.nodeAllocs[node]
			if !ok || na.extended == nil {
				return nil, fmt.Errorf("extended resource claim not found for node %s", node)
			}
			nc := *na.extended
			nc.Status.Allocation = nil
			nc.Name = extendedClaimName(st.Snapshot().DRA(), pod)
			nc.UID = "claim/" + nc.Namespace + "/" + nc.Name
			if err := st.WriteClaim(&nc, true); err != nil {
				return nil, fmt.Errorf("create claim for extended resources %s/%s: %w", nc.Namespace, nc.Name, err)
			}
			c = &nc
			s.claims[i] = c
		}
	}
	cur, ok := st.Snapshot().DRA().ResourceClaim(c.Namespace, c.Name)
	if !ok {
		return nil, fmt.Errorf("add reservation to claim %s: %w", c.Key(), errClaimNotFound(c.Namespace, c.Name))
	}
	if cur.DeletionTimestamp != nil {
		return nil, fmt.Errorf("claim %s got deleted in the meantime", c.Key())
	}
	nc := *cur
	if alloc != nil {
		if cur.Status.Allocation != nil {
			return nil, fmt.Errorf("claim %s got allocated elsewhere in the meantime", c.Key())
		}
		a := *alloc
		nc.Status.Allocation = &a
	}
	nc.Status.ReservedFor = append(slices.Clip(cur.Status.ReservedFor), api.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
	if nc.Status.Allocation == nil {
		return nil, fmt.Errorf("claim %s got deallocated elsewhere in the meantime", c.Key())
	}
	if nc.Status.Allocation.AllocationTimestamp == nil {
		a := *nc.Status.Allocation
		now := pl.clock.Now()
		a.AllocationTimestamp = &now
		nc.Status.Allocation = &a
	}
	if err := st.WriteClaim(&nc, false); err != nil {
		if alloc != nil {
			return nil, fmt.Errorf("add allocation and reservation to claim %s: %w", c.Key(), err)
		}
		return nil, fmt.Errorf("add reservation to claim %s: %w", c.Key(), err)
	}
	return &nc, nil
}

// extendedClaimName names the extended-resource claim PreBind creates:
// <pod>-extended-resources-<n> with the smallest n not taken (the API
// server appends a random suffix to the generateName).
func extendedClaimName(view framework.DRAView, pod *api.Pod) string {
	base := pod.Name + "-extended-resources-"
	for n := 0; ; n++ {
		name := fmt.Sprintf("%s%d", base, n)
		if _, ok := view.ResourceClaim(pod.Namespace, name); !ok {
			return name
		}
	}
}

// EventsToRegister returns the events that can make a pod DynamicResources
// rejected schedulable (kube v1.37's list, with its claim hint).
func (pl *DynamicResources) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.Add | framework.UpdateNodeLabel | framework.UpdateNodeAllocatable}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceResourceClaim, ActionType: framework.Add | framework.Update | framework.Delete}, QueueingHintFn: afterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: framework.UpdatePodGeneratedResourceClaim}, QueueingHintFn: afterPodUpdate},
		{Event: framework.ClusterEvent{Resource: framework.ResourceDeviceClass, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceResourceSlice, ActionType: framework.Add | framework.Update}},
	}, nil
}

// afterClaimChange is kube's isSchedulableAfterClaimChange.
func afterClaimChange(snap *framework.Snapshot, pi *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldC, newC, err := framework.EventObjects[api.ResourceClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if newC == nil {
		if oldC == nil || oldC.Status.Allocation != nil {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	uses := false
	if snap != nil {
		claims, err := podClaims(snap.DRA(), pi.Pod)
		if err != nil {
			return framework.QueueSkip, nil
		}
		for _, c := range claims {
			if c.UID == newC.UID {
				uses = true
			}
		}
	}
	if oldC != nil && oldC.Status.Allocation != nil && newC.Status.Allocation == nil {
		return framework.Queue, nil
	}
	if !uses {
		return framework.QueueSkip, nil
	}
	if oldC == nil || !reflect.DeepEqual(oldC.Status, newC.Status) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterPodUpdate is kube's isSchedulableAfterTargetPodUpdate: the
// rejected pod itself was updated and its claims now all exist.
func afterPodUpdate(snap *framework.Snapshot, pi *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, p, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil || p == nil || snap == nil {
		return framework.Queue, err
	}
	if !framework.SamePod(p.Pod, pi.Pod) {
		return framework.QueueSkip, nil
	}
	if _, err := podClaims(snap.DRA(), p.Pod); err != nil {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// SignPod makes a pod with claims unsignable, as kube does ("pods with
// dra resource claims are not signable"); other pods sign with nothing.
func (pl *DynamicResources) SignPod(_ context.Context, pi *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if pl.RefusesSign(pi) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with dra resource claims are not signable")
	}
	return nil, nil
}

// RefusesSign reports whether SignPod refuses the pod (it has claims).
func (pl *DynamicResources) RefusesSign(pi *framework.PodInfo) bool {
	return len(pi.Pod.Spec.ResourceClaims) > 0
}

// NodeLocal reports true for a pod without claims (and without extended
// requests a DeviceClass might back): the plugin skips it, whatever other
// pods do.
func (pl *DynamicResources) NodeLocal(pi *framework.PodInfo) bool {
	return len(pi.Pod.Spec.ResourceClaims) == 0 && !pi.RequestsDRAExtended()
}

// PreFilterExtensions returns nil: preemption's pod additions and removals
// do not change what DynamicResources decides.
func (pl *DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }
