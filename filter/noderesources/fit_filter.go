package noderesources

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/resource"
)

// nrfPreFilterKey is kube's "PreFilter"+NodeResourcesFit state key.
const nrfPreFilterKey framework.StateKey = "PreFilter" + config.NodeResourcesFitName

// nrfScalarRequest is one scalar resource the pod requests and the filter checks,
// with its reason and single-reason statuses built once per pod.
type nrfScalarRequest struct {
	name   resource.Name
	value  int64
	reason string
	unsch  *framework.Status // Unschedulable, this reason alone
	unres  *framework.Status // UnschedulableAndUnresolvable, this reason alone
	// dra is set when a DeviceClass backs the resource: a node that does
	// not advertise it (allocatable 0) leaves it to DynamicResources.
	dra bool
}

// short reports whether a node with allocatable alloc and requested used
// of the resource lacks room for the request, and whether the request
// exceeds alloc outright; a DRA-backed resource the node does not
// advertise is never short (kube's shouldDelegateResourceToDRA).
func (sc *nrfScalarRequest) short(alloc, used int64) (short, unres bool) {
	if sc.dra && alloc <= 0 {
		return false, false
	}
	return sc.value > alloc-used, sc.value > alloc
}

// nrfPreFilterState is the pod's request, computed once per cycle.
type nrfPreFilterState struct {
	cpu, mem, eph int64
	// scalars are the checked scalar requests (value > 0, not ignored), in
	// name order.
	scalars []nrfScalarRequest
	// podsOnly is set when the pod requests nothing at all: only the pod
	// count is checked.
	podsOnly bool
	// plain counts the scalars without dra: those a node without scalar
	// resources lacks.
	plain int
	// missing memoizes, when scalars is not empty, the statuses of nodes
	// without scalar resources (every scalar missing) by nrfShortfalls
	// mask of their other shortfalls.
	missing *[nrfMasks]atomic.Pointer[framework.Status]
}

// Clone returns the state itself: AddPod/RemovePod never change it.
func (s *nrfPreFilterState) Clone() framework.StateData { return s }

// nrfPlainKept is how many scalar-free PreFilter states NodeResourcesFit
// keeps for later pods: a workload's few shapes of requests, in turn.
const nrfPlainKept = 4

// nrfPlainStates are the last nrfPlainKept complete PreFilter states of
// pods that asked for no scalar resource, the oldest replaced first. It
// is safe for concurrent use.
type nrfPlainStates struct {
	kept [nrfPlainKept]atomic.Pointer[nrfPreFilterState]
	next atomic.Uint32
}

// find returns the kept state of a pod asking for cpu, mem and eph and no
// scalar resource, or nil.
func (p *nrfPlainStates) find(cpu, mem, eph int64) *nrfPreFilterState {
	for i := range p.kept {
		if s := p.kept[i].Load(); s != nil && s.cpu == cpu && s.mem == mem && s.eph == eph {
			return s
		}
	}
	return nil
}

// keep adds s, a complete state of a pod that asked for no scalar
// resource, in place of the oldest.
func (p *nrfPlainStates) keep(s *nrfPreFilterState) {
	p.kept[(p.next.Add(1)-1)%nrfPlainKept].Store(s)
}

// nrfMasks is the number of nrfShortfalls masks: bit 0 too many pods, then
// per resource (cpu, memory, ephemeral storage) a shortfall bit and an
// unresolvable bit.
const nrfMasks = 1 << 7

// isIgnored reports whether the filter skips scalar resource n: an extended
// resource listed in ignoredResources or whose prefix before '/' is in
// ignoredResourceGroups (kube v1.36 fitsRequest). Other scalar resources
// (huge pages, kubernetes.io/...) are never ignored.
func (pl *NodeResourcesFit) isIgnored(n resource.Name) bool {
	if !n.IsExtended() {
		return false
	}
	if _, ok := pl.ignored[n]; ok {
		return true
	}
	if len(pl.ignoredGroups) > 0 {
		prefix, _, _ := strings.Cut(string(n), "/")
		if _, ok := pl.ignoredGroups[prefix]; ok {
			return true
		}
	}
	return false
}

// PreFilter stores the pod's effective requests from its spec
// (PodInfo.SpecRequests: init containers, sidecars, pod-level resources and
// overhead; no non-zero defaults, no status resources), as kube-scheduler
// v1.36 does. It never skips and never
// narrows the node set. Scalar requests are checked in name order (kube
// iterates a Go map, whose order is unspecified). A scalar resource that a
// DeviceClass of the cycle's snapshot backs (DRAView.ExtendedResourceClass,
// kube's DRAExtendedResource, on in v1.36 and v1.37) is checked only on
// the nodes that advertise it: on the others DynamicResources allocates
// devices for it.
func (pl *NodeResourcesFit) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	r := pod.SpecRequests()
	if len(r.Scalars) == 0 && pl.plain != nil {
		if s := pl.plain.find(r.MilliCPU, r.Memory, r.EphemeralStorage); s != nil {
			state.Write(nrfPreFilterKey, s)
			return nil, nil
		}
	}
	s := &nrfPreFilterState{cpu: r.MilliCPU, mem: r.Memory, eph: r.EphemeralStorage}
	s.podsOnly = r.MilliCPU == 0 && r.Memory == 0 && r.EphemeralStorage == 0 && len(r.Scalars) == 0
	snap := state.Snapshot()
	for _, sc := range r.Scalars {
		if sc.Value == 0 || pl.isIgnored(sc.Name) {
			continue
		}
		reason := ReasonInsufficientPrefix + string(sc.Name)
		dra := snap != nil && snap.DRA().ExtendedResourceClass(sc.Name) != nil
		if !dra {
			s.plain++
		}
		s.scalars = append(s.scalars, nrfScalarRequest{
			name: sc.Name, value: sc.Value, reason: reason, dra: dra,
			unsch: framework.NewStatus(framework.Unschedulable, reason),
			unres: framework.NewStatus(framework.UnschedulableAndUnresolvable, reason),
		})
	}
	if len(s.scalars) > 0 {
		s.missing = &[nrfMasks]atomic.Pointer[framework.Status]{}
	}
	if len(r.Scalars) == 0 && pl.plain != nil {
		pl.plain.keep(s) // complete: later pods may share it
	}
	state.Write(nrfPreFilterKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil: the state does not depend on other pods.
func (pl *NodeResourcesFit) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// VictimRemoval reports that removing pods from a node keeps a pass
// (removing pods only lowers the node's requests and pod count;
// runtime.VictimRemovalFilter).
func (pl *NodeResourcesFit) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return false, true
}

// Filter checks the node. Shortfalls are reported in kube's order: pods,
// cpu, memory, ephemeral-storage, then scalar resources. A request is
// checked only when positive; a shortfall is unresolvable when the request
// alone exceeds the node's allocatable ("Too many pods" never is).
// Without PreFilter state it returns an Error, as kube does.
func (pl *NodeResourcesFit) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, st := nrfReadPreFilterState(state)
	if st != nil {
		return st
	}
	return pl.filter(s, node)
}

func nrfReadPreFilterState(state *framework.CycleState) (*nrfPreFilterState, *framework.Status) {
	d, err := state.Read(nrfPreFilterKey)
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("error reading %q from cycleState: %w", nrfPreFilterKey, err))
	}
	s, ok := d.(*nrfPreFilterState)
	if !ok {
		return nil, framework.AsStatus(fmt.Errorf("%+v  convert to NodeResourcesFit.preFilterState error", d))
	}
	return s, nil
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *NodeResourcesFit) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// nrfChecked returns req when the filter checks it (req > 0), else
// math.MinInt64, which never exceeds a free amount.
func nrfChecked(req int64) int64 {
	if req > 0 {
		return req
	}
	return math.MinInt64
}

// missesPlain reports whether alloc has none of some scalar the pod asks
// for that no DeviceClass backs: a node with such allocatable is short of
// it whatever it runs (requests are never negative: NewPodInfo rejects
// them).
func (s *nrfPreFilterState) missesPlain(alloc *resource.Vector) bool {
	for i := range s.scalars {
		if sc := &s.scalars[i]; !sc.dra && sc.value > 0 && alloc.Scalar(sc.name) <= 0 {
			return true
		}
	}
	return false
}

// short reports whether a node with pods pods of allocPods and the given
// free cpu, memory and ephemeral storage lacks room for the pod (scalar
// resources aside): FilterBatch's quick check before Filter's full path.
func (s *nrfPreFilterState) short(pods, allocPods, freeCPU, freeMem, freeEph int64) bool {
	return pods+1 > allocPods ||
		s.cpu > 0 && s.cpu > freeCPU ||
		s.mem > 0 && s.mem > freeMem ||
		s.eph > 0 && s.eph > freeEph
}

// filter is Filter with the PreFilter state read.
func (pl *NodeResourcesFit) filter(s *nrfPreFilterState, node *framework.NodeInfo) *framework.Status {
	alloc, used := &node.Allocatable, &node.Requested

	// Fast path: count the failures and remember the first; build a
	// multi-reason status only when there is more than one.
	var n int
	var first *framework.Status
	unres := false
	note := func(unsch, unresSt *framework.Status, isUnres bool) {
		if n == 0 {
			if isUnres {
				first = unresSt
			} else {
				first = unsch
			}
		}
		n++
		unres = unres || isUnres
	}
	if int64(len(node.Pods))+1 > alloc.Pods {
		note(pl.tooManyPods, pl.tooManyPods, false)
	}
	if s.podsOnly {
		return first
	}
	if s.cpu > 0 && s.cpu > alloc.MilliCPU-used.MilliCPU {
		note(pl.cpuUnsch, pl.cpuUnres, s.cpu > alloc.MilliCPU)
	}
	if s.mem > 0 && s.mem > alloc.Memory-used.Memory {
		note(pl.memUnsch, pl.memUnres, s.mem > alloc.Memory)
	}
	if s.eph > 0 && s.eph > alloc.EphemeralStorage-used.EphemeralStorage {
		note(pl.ephUnsch, pl.ephUnres, s.eph > alloc.EphemeralStorage)
	}
	for i := range s.scalars {
		sc := &s.scalars[i]
		if short, unres := sc.short(alloc.Scalar(sc.name), used.Scalar(sc.name)); short {
			note(sc.unsch, sc.unres, unres)
		}
	}
	if n <= 1 {
		return first
	}
	return pl.slowStatus(s, node)
}

// slowStatus returns the full multi-reason status on a node with several
// shortfalls: built once per combination of shortfalls when no scalar
// resource is short (maskStatus), else afresh.
func (pl *NodeResourcesFit) slowStatus(s *nrfPreFilterState, node *framework.NodeInfo) *framework.Status {
	alloc, used := &node.Allocatable, &node.Requested
	for i := range s.scalars {
		if short, _ := s.scalars[i].short(alloc.Scalar(s.scalars[i].name), used.Scalar(s.scalars[i].name)); short {
			return pl.buildStatus(s, node)
		}
	}
	return pl.maskStatus(s.shortMask(int64(len(node.Pods)), alloc.Pods, alloc.MilliCPU, used.MilliCPU,
		alloc.Memory, used.Memory, alloc.EphemeralStorage, used.EphemeralStorage))
}

// rowMask is shortMask from a node's dense numbers.
func (s *nrfPreFilterState) rowMask(r *framework.NodeResources) uint {
	return s.shortMask(r.NumPods, r.AllocatablePods, r.AllocatableMilliCPU, r.RequestedMilliCPU,
		r.AllocatableMemory, r.RequestedMemory, r.AllocatableEphemeralStorage, r.RequestedEphemeralStorage)
}

// shortMask returns the nrfMasks mask of a node's shortfalls in pods, cpu,
// memory and ephemeral storage (scalar resources aside), from its pods,
// allocatable and requested numbers.
func (s *nrfPreFilterState) shortMask(pods, allocPods, allocCPU, usedCPU, allocMem, usedMem, allocEph, usedEph int64) uint {
	var mask uint
	if pods+1 > allocPods {
		mask |= 1
	}
	if s.podsOnly {
		return mask
	}
	for r, c := range [...]struct{ req, alloc, used int64 }{{s.cpu, allocCPU, usedCPU}, {s.mem, allocMem, usedMem}, {s.eph, allocEph, usedEph}} {
		if c.req > 0 && c.req > c.alloc-c.used {
			mask |= 1 << (1 + 2*r)
			if c.req > c.alloc {
				mask |= 1 << (2 + 2*r)
			}
		}
	}
	return mask
}

// maskStatus returns the status of the shortfalls in mask (not 0), as
// filter gives it: a pre-built status for one shortfall, else the
// multi-reason status, built on first use (pl.multi).
func (pl *NodeResourcesFit) maskStatus(mask uint) *framework.Status {
	switch mask {
	case 1:
		return pl.tooManyPods
	case 1 << 1:
		return pl.cpuUnsch
	case 1<<1 | 1<<2:
		return pl.cpuUnres
	case 1 << 3:
		return pl.memUnsch
	case 1<<3 | 1<<4:
		return pl.memUnres
	case 1 << 5:
		return pl.ephUnsch
	case 1<<5 | 1<<6:
		return pl.ephUnres
	}
	if pl.multi == nil {
		return pl.buildMaskStatus(mask)
	}
	slot := &pl.multi[mask]
	if st := slot.Load(); st != nil {
		return st
	}
	st := pl.buildMaskStatus(mask)
	slot.Store(st)
	return st
}

// missingStatus returns the status of a node that lacks every scalar
// resource the pod requests (s.scalars is not empty) and has the other
// shortfalls in mask, as filter gives it: unresolvable, the reasons of
// the scalars no DeviceClass backs after mask's (mask's status, nil for
// 0, when a class backs every scalar); memoized per mask in s.missing.
func (pl *NodeResourcesFit) missingStatus(s *nrfPreFilterState, mask uint) *framework.Status {
	if s.plain == 0 {
		if mask == 0 {
			return nil
		}
		return pl.maskStatus(mask)
	}
	if mask == 0 && len(s.scalars) == 1 {
		return s.scalars[0].unres
	}
	slot := &s.missing[mask]
	if st := slot.Load(); st != nil {
		return st
	}
	reasons, _ := pl.maskReasons(mask)
	for i := range s.scalars {
		if !s.scalars[i].dra {
			reasons = append(reasons, s.scalars[i].reason)
		}
	}
	st := framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	slot.Store(st)
	return st
}

// buildMaskStatus builds the multi-reason status of the shortfalls in
// mask.
func (pl *NodeResourcesFit) buildMaskStatus(mask uint) *framework.Status {
	reasons, unres := pl.maskReasons(mask)
	if unres {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	}
	return framework.NewStatus(framework.Unschedulable, reasons...)
}

// maskReasons returns the reasons of the shortfalls in mask, in kube's
// order (pods, cpu, memory, ephemeral storage), and whether one is
// unresolvable.
func (pl *NodeResourcesFit) maskReasons(mask uint) (reasons []string, unres bool) {
	for b, reason := range [...]string{ReasonTooManyPods, pl.reasonCPU, pl.reasonMem, pl.reasonEp} {
		if b == 0 && mask&1 != 0 || b > 0 && mask&(1<<(2*b-1)) != 0 {
			reasons = append(reasons, reason)
		}
		if b > 0 && mask&(1<<(2*b)) != 0 {
			unres = true
		}
	}
	return reasons, unres
}

// buildStatus builds the full multi-reason status of node.
func (pl *NodeResourcesFit) buildStatus(s *nrfPreFilterState, node *framework.NodeInfo) *framework.Status {
	alloc, used := &node.Allocatable, &node.Requested
	reasons := make([]string, 0, 4)
	code := framework.Unschedulable
	add := func(reason string, isUnres bool) {
		reasons = append(reasons, reason)
		if isUnres {
			code = framework.UnschedulableAndUnresolvable
		}
	}
	if int64(len(node.Pods))+1 > alloc.Pods {
		add(ReasonTooManyPods, false)
	}
	if s.cpu > 0 && s.cpu > alloc.MilliCPU-used.MilliCPU {
		add(pl.reasonCPU, s.cpu > alloc.MilliCPU)
	}
	if s.mem > 0 && s.mem > alloc.Memory-used.Memory {
		add(pl.reasonMem, s.mem > alloc.Memory)
	}
	if s.eph > 0 && s.eph > alloc.EphemeralStorage-used.EphemeralStorage {
		add(pl.reasonEp, s.eph > alloc.EphemeralStorage)
	}
	for i := range s.scalars {
		sc := &s.scalars[i]
		if short, unres := sc.short(alloc.Scalar(sc.name), used.Scalar(sc.name)); short {
			add(sc.reason, unres)
		}
	}
	return framework.NewStatus(code, reasons...)
}
