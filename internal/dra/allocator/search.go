package allocator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/cel"
)

// maxResults is how many devices one claim's allocation can hold
// (resource.k8s.io/v1 AllocationResultsMaxSize).
const maxResults = 32

// errMaxSizeExceeded says that the devices still needed do not fit in the
// claim's allocation; the search uses it to cut branches, and it surfaces
// as an error only where Kubernetes lets it.
var errMaxSizeExceeded = errors.New("allocation max size exceeded")

// run is one Allocate call: the search state for one node. Its maps and
// slices outlive the call for the next to reuse (reset); what Allocate
// returns shares none of them.
type run struct {
	*Allocator
	ctx    context.Context
	node   *api.Node
	claims []*api.ResourceClaim
	pools  []*pool
	// reqs are the requests of each claim.
	reqs [][]requestSlot
	// cons are the constraints of each claim.
	cons [][]constraint
	// consumed are the counters taken by the devices of this attempt.
	consumed map[poolID]counterSets
	// allocating are the devices of this attempt (not shared ones), each
	// with the index of a claim it goes to, in the order they were
	// chosen: a few dozen at most, which a scan finds sooner than a map
	// keyed by three strings.
	allocating []allocatingDevice
	// capacity is what the shares of this attempt consume per device.
	capacity map[DeviceID]capacities
	// results are the devices chosen so far, per claim.
	results [][]deviceResult
	// views holds the requests' and subrequests' requestData, which reqs
	// point into.
	views []requestData
	// steps counts the calls of allocateOne, which polls ctx and the
	// timeout every ctxPoll of them.
	steps int
	// versions are the versions of each pool's allocations, as asked.
	versions []knownVersion
	// timeout, when positive, bounds the search from started, when the
	// clock was first read.
	timeout time.Duration
	started time.Time
}

// aborted returns the error that stops the search when its context is
// done or its timeout has passed since the clock was first read, at the
// second poll: a search of fewer steps never reads it.
func (r *run) aborted() error {
	if r.ctx.Err() != nil {
		return fmt.Errorf("filter operation aborted: %w", context.Cause(r.ctx))
	}
	if r.timeout > 0 && r.steps > 0 {
		now := time.Now()
		if r.started.IsZero() {
			r.started = now
		} else if now.Sub(r.started) >= r.timeout {
			return fmt.Errorf("filter operation aborted: %w", context.DeadlineExceeded)
		}
	}
	return nil
}

// ctxPoll is how many steps of the search go between two polls of its
// context and timeout, from the first: a timeout reads the clock when
// polled, which took a fifth of a one-device search polled at every
// step; the search notices a done context up to ctxPoll steps, and a
// passed timeout up to twice as many (microseconds), late.
const ctxPoll = 32

// reset makes r the state of a new Allocate call by a for claims on node,
// keeping the room its maps and slices have.
func (r *run) reset(a *Allocator, ctx context.Context, node *api.Node, claims []*api.ResourceClaim) {
	r.Allocator, r.ctx, r.node, r.claims, r.pools, r.steps = a, ctx, node, claims, nil, 0
	r.timeout, r.started = 0, time.Time{}
	r.reqs = resize(r.reqs, len(claims))
	r.cons = resize(r.cons, len(claims))
	r.results = resize(r.results, len(claims))
	clear(r.consumed)
	r.allocating = r.allocating[:0]
	r.versions = r.versions[:0]
	clear(r.capacity)
	n := 0
	for _, c := range claims {
		for _, req := range c.Spec.Devices.Requests {
			n += max(len(req.FirstAvailable), 1)
		}
	}
	if cap(r.views) < n {
		r.views = make([]requestData, n)
	}
	r.views = r.views[:0]
}

// resize returns s with length n, reusing its array when it has the room;
// the elements keep what they held, for their own room to be reused.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

// view returns a place in r.views for a request's requestData: reset gave
// views the room for every request of the call, so that the pointers it
// hands out stay valid.
func (r *run) view(rd requestData) *requestData {
	r.views = r.views[:len(r.views)+1]
	v := &r.views[len(r.views)-1]
	rd.allDevices = v.allDevices[:0] // the room of the call that had the place
	*v = rd
	return v
}

// requestSlot is one request of a claim: a single request, or the
// subrequests of a firstAvailable request and which one was chosen.
type requestSlot struct {
	subs           []*requestData
	firstAvailable bool
	selected       int
}

// requestData is a request or subrequest with its class and the number
// of devices it needs.
type requestData struct {
	name        string // the request's or subrequest's own name
	parent      string // the request's name for a subrequest, else ""
	className   string
	selectors   []api.DeviceSelector
	mode        api.DeviceAllocationMode
	count       int64
	adminAccess bool
	hasAdmin    bool
	tolerations []api.DeviceToleration
	capacity    *api.CapacityRequirements

	class      *api.DeviceClass
	numDevices int
	// allDevices are the devices of an "All" request, fixed up front.
	allDevices []candidate
}

// fullName is the name the allocation result records: "request" or
// "request/subrequest".
func (rd *requestData) fullName() string {
	if rd.parent != "" {
		return rd.parent + "/" + rd.name
	}
	return rd.name
}

// position is the device being chosen: the claim, its request, the
// subrequest, and the device's index within the request.
type position struct{ claim, request, sub, device int }

// location is a device's place in the search order: pool, slice of the
// pool, device of the slice.
type location struct{ pool, slice, device int }

// candidate is a device that may be allocated.
type candidate struct {
	id    DeviceID
	dev   *api.Device
	slice *api.ResourceSlice
	pool  *pool
	// taken is allocatedIn of the slice, which index is the device's
	// place in; nil when not known.
	taken *allocatedBits
	index int
	// capacityChecked says the search checked the device's remaining
	// capacity for the request already, in the state allocateDevice
	// finds.
	capacityChecked bool
}

// knownVersion is a pool's version, once asked.
type knownVersion struct {
	v     any
	known bool
}

// deviceResult is a device chosen for a request.
type deviceResult struct {
	candidate
	req      *requestData
	shareID  *string
	consumed capacities
	admin    bool
}

func claimRef(c *api.ResourceClaim) string {
	if c.Namespace == "" {
		return c.Name
	}
	return c.Namespace + "/" + c.Name
}

// exactView and subView read a request the way Kubernetes' defaults
// complete it: no allocation mode means ExactCount, and ExactCount with no
// count means one device.
func exactView(req *api.DeviceRequest) requestData {
	e := req.Exactly
	rd := requestData{
		name:        req.Name,
		className:   e.DeviceClassName,
		selectors:   e.Selectors,
		mode:        e.AllocationMode,
		count:       e.Count,
		adminAccess: deref(e.AdminAccess),
		hasAdmin:    e.AdminAccess != nil,
		tolerations: e.Tolerations,
		capacity:    e.Capacity,
	}
	defaultMode(&rd)
	return rd
}

func subView(parent string, sub *api.DeviceSubRequest) requestData {
	rd := requestData{
		name:        sub.Name,
		parent:      parent,
		className:   sub.DeviceClassName,
		selectors:   sub.Selectors,
		mode:        sub.AllocationMode,
		count:       sub.Count,
		tolerations: sub.Tolerations,
		capacity:    sub.Capacity,
	}
	defaultMode(&rd)
	return rd
}

func defaultMode(rd *requestData) {
	if rd.mode == "" {
		rd.mode = api.DeviceAllocationModeExactCount
	}
	if rd.mode == api.DeviceAllocationModeExactCount && rd.count == 0 {
		rd.count = 1
	}
}

// prepare checks the claims' requests, resolves their classes, counts the
// devices they need (and finds the devices of "All" requests), and sets up
// the claims' constraints.
func (r *run) prepare() error {
	for ci, claim := range r.claims {
		minPerClaim := 0
		reqs := claim.Spec.Devices.Requests
		r.reqs[ci] = resize(r.reqs[ci], len(reqs))
		for ri := range reqs {
			req := &reqs[ri]
			slot := &r.reqs[ci][ri]
			*slot = requestSlot{subs: slot.subs[:0]}
			hasSubs := len(req.FirstAvailable) > 0
			if !r.features.PrioritizedList && hasSubs {
				return fmt.Errorf("claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", claimRef(claim), req.Name)
			}
			if !r.features.ConsumableCapacity {
				if req.Exactly != nil && req.Exactly.Capacity != nil {
					return fmt.Errorf("claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimRef(claim), req.Name)
				}
				for _, sub := range req.FirstAvailable {
					if sub.Capacity != nil {
						return fmt.Errorf("claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimRef(claim), sub.Name)
					}
				}
			}
			var minPerRequest int
			if hasSubs {
				slot.firstAvailable = true
				minPerRequest = math.MaxInt
				for si := range req.FirstAvailable {
					rd := r.view(subView(req.Name, &req.FirstAvailable[si]))
					if err := r.validate(rd, ci, claim); err != nil {
						return err
					}
					slot.subs = append(slot.subs, rd)
					minPerRequest = min(minPerRequest, rd.numDevices)
				}
			} else {
				if req.Exactly == nil {
					return fmt.Errorf("claim %s, request %s: neither exactly nor firstAvailable is set (unsupported request type?)", claimRef(claim), req.Name)
				}
				rd := r.view(exactView(req))
				if err := r.validate(rd, ci, claim); err != nil {
					return err
				}
				slot.subs = append(slot.subs, rd)
				minPerRequest = rd.numDevices
			}
			if !r.v136 && minPerRequest > maxResults-minPerClaim {
				return fmt.Errorf("claim %s, request %s: adding %d devices exceeds the claim limit of %d, with %d already accounted for", claimRef(claim), req.Name, minPerRequest, maxResults, minPerClaim)
			}
			minPerClaim += minPerRequest
		}
		if r.v136 && minPerClaim > maxResults {
			return fmt.Errorf("claim %s: number of requested devices %d exceeds the claim limit of %d", claimRef(claim), minPerClaim, maxResults)
		}
		if res := r.results[ci]; cap(res) >= minPerClaim {
			r.results[ci] = res[:0]
		} else {
			r.results[ci] = make([]deviceResult, 0, max(minPerClaim, 0))
		}

		cons := make([]constraint, len(claim.Spec.Devices.Constraints))
		for i, c := range claim.Spec.Devices.Constraints {
			switch {
			case c.MatchAttribute != nil:
				cons[i] = &matchAttribute{requests: c.Requests, attr: *c.MatchAttribute}
			case c.DistinctAttribute != nil:
				if r.v136 {
					cons[i] = &distinctAttribute136{requests: c.Requests, attr: *c.DistinctAttribute, last: make(map[string]*api.DeviceAttribute)}
				} else {
					cons[i] = &distinctAttribute{requests: c.Requests, attr: *c.DistinctAttribute}
				}
			default:
				return fmt.Errorf("claim %s, constraint #%d: empty constraint (unsupported constraint type?)", claimRef(claim), i)
			}
		}
		r.cons[ci] = cons
	}
	return nil
}

// validate checks one request or subrequest, resolves its class and
// counts its devices (for "All", finds them).
func (r *run) validate(rd *requestData, ci int, claim *api.ResourceClaim) error {
	for i, sel := range rd.selectors {
		if sel.CEL == nil {
			return fmt.Errorf("claim %s, request %s, selector #%d: CEL expression empty (unsupported selector type?)", claimRef(claim), rd.name, i)
		}
	}
	if !r.features.AdminAccess && rd.hasAdmin {
		return fmt.Errorf("claim %s, request %s: admin access is requested, but the feature is disabled", claimRef(claim), rd.name)
	}
	if rd.className == "" {
		return fmt.Errorf("claim %s, request %s: missing device class name (unsupported request type?)", claimRef(claim), rd.name)
	}
	class, ok := r.classes.DeviceClass(rd.className)
	if !ok || class == nil {
		return fmt.Errorf("claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io %q not found", claimRef(claim), rd.name, rd.className, rd.className)
	}
	rd.class = class

	switch rd.mode {
	case api.DeviceAllocationModeExactCount:
		rd.numDevices = int(rd.count)
	case api.DeviceAllocationModeAll:
		for _, p := range r.pools {
			if p.incomplete {
				return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently being updated", claimRef(claim), rd.name, p.id)
			}
			if p.invalid {
				return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently invalid", claimRef(claim), rd.name, p.id)
			}
			for sli, s := range p.targeting {
				sd := p.data[sli]
				for di := range s.Spec.Devices {
					ok, err := r.selectable(ci, rd, s, sd, di)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
					d := &s.Spec.Devices[di]
					if r.features.ConsumableCapacity {
						var counted capacities
						if r.v136 {
							counted = r.state.ConsumedCapacity[DeviceID{s.Spec.Driver, s.Spec.Pool.Name, d.Name}]
						}
						fits, err := r.fitsCapacity(counted, rd.capacity, d.Capacity, nil)
						if err != nil {
							return fmt.Errorf("claim %s, request %s: checking capacity for device %s: %w", claimRef(claim), rd.name, d.Name, err)
						}
						if !fits {
							continue
						}
					}
					rd.allDevices = append(rd.allDevices, candidate{
						id:    DeviceID{s.Spec.Driver, s.Spec.Pool.Name, d.Name},
						dev:   d,
						slice: s,
						pool:  p,
					})
				}
			}
		}
		rd.numDevices = len(rd.allDevices)
	default:
		return fmt.Errorf("claim %s, request %s: unsupported count mode %s", claimRef(claim), rd.name, rd.mode)
	}
	return nil
}

// selectable reports whether device di of slice s passes the request's
// class and own selectors and, for per-device node selection, reaches the
// node. The selectors' results are kept with the slices (Slices.match),
// not per call: a device met again in a search reads them there.
func (r *run) selectable(ci int, rd *requestData, s *api.ResourceSlice, sd *sliceData, di int) (bool, error) {
	d := &s.Spec.Devices[di]
	if !r.features.DeviceBindingAndStatus && len(d.BindingConditions) > 0 {
		return false, nil
	}
	if rd.class != nil {
		m, err := r.selectorsMatch(ci, s, sd, di, rd.class, rd.class.Spec.Selectors)
		if err != nil || !m {
			return false, err
		}
	}
	m, err := r.selectorsMatch(ci, s, sd, di, nil, rd.selectors)
	if err != nil || !m {
		return false, err
	}
	if deref(s.Spec.PerDeviceNodeSelection) {
		return r.slices.nodeMatches(r.node, deref(d.NodeName), deref(d.AllNodes), d.NodeSelector)
	}
	return true, nil
}

// selectorsMatch evaluates selectors (a class's when class is set, else
// the request's) on a device; all must be true.
func (r *run) selectorsMatch(ci int, s *api.ResourceSlice, sd *sliceData, di int, class *api.DeviceClass, sels []api.DeviceSelector) (bool, error) {
	for i, sel := range sels {
		prog, err := r.slices.cache.Get(sel.CEL.Expression)
		if err != nil {
			if class != nil {
				return false, fmt.Errorf("class %s: selector #%d: CEL compile error: %w", class.Name, i, err)
			}
			return false, fmt.Errorf("claim %s: selector #%d: CEL compile error: %w", claimRef(r.claims[ci]), i, err)
		}
		m, err := r.slices.match(r.ctx, prog, s, sd, di)
		if err != nil && r.v136 {
			if class != nil {
				return false, fmt.Errorf("class %s: selector #%d: CEL runtime error: %w", class.Name, i, err)
			}
			return false, fmt.Errorf("claim %s: selector #%d: CEL runtime error: %w", claimRef(r.claims[ci]), i, err)
		}
		if err != nil {
			err = cel.EnhanceRuntimeError(err)
			id := DeviceID{s.Spec.Driver, s.Spec.Pool.Name, s.Spec.Devices[di].Name}
			if class != nil {
				return false, fmt.Errorf("class %s: selector #%d on device %s: CEL runtime error: %w", class.Name, i, id, err)
			}
			return false, fmt.Errorf("claim %s: selector #%d on device %s: CEL runtime error: %w", claimRef(r.claims[ci]), i, id, err)
		}
		if !m {
			return false, nil
		}
	}
	return true, nil
}

// allocateOne chooses the device at p and, recursively, all that follow;
// it reports whether a full solution was found. Within one request the
// candidates start at start, the place after the request's previous
// device, so that each set of devices is tried once.
func (r *run) allocateOne(p position, inSub bool, start location) (bool, error) {
	if r.steps%ctxPoll == 0 {
		if err := r.aborted(); err != nil {
			return false, err
		}
	}
	r.steps++
	if p.claim >= len(r.claims) {
		return true, nil
	}
	if p.request >= len(r.reqs[p.claim]) {
		ok, err := r.allocateOne(position{claim: p.claim + 1}, false, location{})
		if errors.Is(err, errMaxSizeExceeded) {
			// A different choice for an earlier claim may let a
			// firstAvailable request here pick a smaller alternative.
			return false, nil
		}
		return ok, err
	}
	slot := &r.reqs[p.claim][p.request]
	if !inSub && slot.firstAvailable {
		allExceeded := true
		for si := range slot.subs {
			q := p
			q.sub = si
			ok, err := r.allocateOne(q, true, location{})
			if errors.Is(err, errMaxSizeExceeded) {
				continue
			}
			allExceeded = false
			if err != nil {
				return false, err
			}
			if ok {
				slot.selected = si
				return true, nil
			}
		}
		if allExceeded {
			return false, errMaxSizeExceeded
		}
		return false, nil
	}

	rd := slot.subs[p.sub]
	all := rd.mode == api.DeviceAllocationModeAll
	if all && len(rd.allDevices) == 0 {
		return false, nil
	}
	if p.device >= rd.numDevices {
		return r.allocateOne(position{claim: p.claim, request: p.request + 1}, false, location{})
	}
	if rd.numDevices-p.device > maxResults-len(r.results[p.claim]) {
		return false, errMaxSizeExceeded
	}

	next := p
	next.device++
	if all {
		c := rd.allDevices[p.device]
		ok, undo, err := r.allocateDevice(p, c, true)
		if err != nil || !ok {
			return false, err
		}
		done, err := r.allocateOne(next, inSub, location{})
		if err != nil || !done {
			r.undo(undo)
			return false, err
		}
		return true, nil
	}

	for pi := start.pool; pi < len(r.pools); pi++ {
		pl := r.pools[pi]
		if pl.incomplete || pl.invalid {
			continue
		}
		sliceStart := 0
		if pi == start.pool {
			sliceStart = start.slice
		}
		for sli := sliceStart; sli < len(pl.targeting); sli++ {
			s, sd := pl.targeting[sli], pl.data[sli]
			taken := r.allocatedIn(pi, pl, s, sd)
			devStart := 0
			if pi == start.pool && sli == start.slice {
				devStart = start.device
			}
			for di := devStart; di < len(s.Spec.Devices); di++ {
				d := &s.Spec.Devices[di]
				id := DeviceID{pl.id.driver, pl.id.pool, d.Name}
				if rd.adminAccess && r.allocatingForClaim(id, p.claim) {
					continue
				}
				if !rd.adminAccess && r.inUseAt(id, taken, di) {
					continue
				}
				ok, err := r.selectable(p.claim, rd, s, sd, di)
				if err != nil {
					return false, err
				}
				if !ok {
					continue
				}
				if r.features.ConsumableCapacity {
					fits, err := r.fitsRemaining(rd, id, d, sd, di)
					if err != nil {
						return false, fmt.Errorf("claim %s, request %s: checking capacity for device %s: %w", claimRef(r.claims[p.claim]), rd.name, id, err)
					}
					if !fits {
						continue
					}
				}
				c := candidate{id: id, dev: d, slice: s, pool: pl, taken: taken, index: di, capacityChecked: r.features.ConsumableCapacity}
				ok, undo, err := r.allocateDevice(p, c, false)
				if err != nil {
					return false, err
				}
				if !ok {
					continue
				}
				done, err := r.allocateOne(next, inSub, location{pi, sli, di + 1})
				if err == nil && done {
					return true, nil
				}
				r.undo(undo)
				if err != nil {
					return false, err
				}
			}
		}
	}
	return false, nil
}

// fitsRemaining reports whether a request's capacity fits what is left of
// a device after the allocated shares and this attempt's shares.
func (r *run) fitsRemaining(rd *requestData, id DeviceID, d *api.Device, sd *sliceData, di int) (bool, error) {
	allocated, allocating := r.state.ConsumedCapacity[id], r.capacity[id]
	if rd.capacity == nil && len(allocated) == 0 && len(allocating) == 0 && sd != nil && di < len(sd.bare) {
		return r.fitsBare(d, &sd.bare[di])
	}
	return r.fitsCapacity(allocated, rd.capacity, d.Capacity, allocating)
}

// fitsBare is fitsRemaining of a request that names no capacity on a
// device without shares, which depends on the device alone: its answer
// is kept in memo, two bits (known, fits) for each combination of the
// features it reads, and computed again when it was an error.
func (r *run) fitsBare(d *api.Device, memo *atomic.Uint32) (bool, error) {
	shift := 0
	if r.features.FractionalCapacityRange {
		shift += 2
	}
	if r.v136 {
		shift += 4
	}
	known, fit := uint32(1)<<shift, uint32(2)<<shift
	if v := memo.Load(); v&known != 0 {
		return v&fit != 0, nil
	}
	ok, err := r.fitsCapacity(nil, nil, d.Capacity, nil)
	if err != nil {
		return ok, err
	}
	set := known
	if ok {
		set |= fit
	}
	memo.Or(set)
	return ok, nil
}

// fitsCapacity is fitsCapacity with the allocator's features; v1.36
// computed no errors and skipped a device it could not compute.
func (r *run) fitsCapacity(allocated capacities, req *api.CapacityRequirements, devCap map[api.QualifiedName]api.DeviceCapacity, allocating capacities) (bool, error) {
	ok, err := fitsCapacity(allocated, req, devCap, allocating, r.features.FractionalCapacityRange, r.v136)
	if err != nil && r.v136 {
		return false, nil
	}
	return ok, err
}

// allocatingDevice is a device of this attempt and a claim it goes to.
type allocatingDevice struct {
	id    DeviceID
	claim int
}

func (r *run) inUse(id DeviceID) bool { return r.inUseAt(id, nil, 0) }

// inUseAt is inUse of device di of a slice, reading what the state's
// InUse reports from taken when that is known (not nil).
func (r *run) inUseAt(id DeviceID, taken *allocatedBits, di int) bool {
	if taken == nil {
		if r.state.holds(id) {
			return true
		}
	} else if taken.has(di) {
		return true
	} else if _, ok := r.state.Devices[id]; ok {
		return true
	}
	return slices.ContainsFunc(r.allocating, func(a allocatingDevice) bool { return a.id == id })
}

// allocatedIn returns the devices of slice s (whose data is sd) of the
// run's pool pi that the state's InUse reports allocated, kept with the
// slice under its pool's version so that searches read each device's
// state in a word rather than a lookup by its three names; nil when the
// state has no InUse or no versions, or the slice is outside the
// index.
func (r *run) allocatedIn(pi int, pl *pool, s *api.ResourceSlice, sd *sliceData) *allocatedBits {
	if sd == nil || r.state.InUse == nil || r.state.Versions == nil {
		return nil
	}
	v := r.poolVersion(pi, pl)
	if b := sd.allocated.Load(); b != nil && b.version == v {
		return b
	}
	b := &allocatedBits{version: v}
	for di := range s.Spec.Devices {
		if r.state.InUse(DeviceID{pl.id.driver, pl.id.pool, s.Spec.Devices[di].Name}) {
			if b.bits == nil {
				b.bits = make([]uint64, (len(s.Spec.Devices)+63)/64)
			}
			b.bits[di>>6] |= 1 << uint(di&63)
		}
	}
	sd.allocated.Store(b)
	return b
}

// poolVersion returns the version of the allocations of the run's pool
// pi, asked once a run.
func (r *run) poolVersion(pi int, pl *pool) any {
	if len(r.versions) != len(r.pools) {
		r.versions = resize(r.versions[:0], len(r.pools))
		clear(r.versions)
	}
	if v := &r.versions[pi]; !v.known {
		v.v, v.known = r.state.versionOf(pl), true
	}
	return r.versions[pi].v
}

func (r *run) allocatingForClaim(id DeviceID, claim int) bool {
	return slices.Contains(r.allocating, allocatingDevice{id, claim})
}

// capacityInUse reports whether a shared device has a share, allocated or
// in this attempt.
func (r *run) capacityInUse(id DeviceID) bool {
	if _, ok := r.state.ConsumedCapacity[id]; ok {
		return true
	}
	if _, ok := r.sharedInUse[id]; ok && !r.v136 {
		return true
	}
	_, ok := r.capacity[id]
	return ok
}

// allocated reports whether a device has any allocation in the state.
func (a *Allocator) allocated(id DeviceID) bool {
	if a.state.holds(id) {
		return true
	}
	if _, ok := a.sharedInUse[id]; ok {
		return true
	}
	_, ok := a.state.ConsumedCapacity[id]
	return ok
}

// undoState records what allocateDevice changed, to take it back.
type undoState struct {
	countersReserved bool
	constraintsAdded int
	marked           bool
	capInserted      bool
	capExisted       bool
	resultAdded      bool
	prevResults      int
	consumed         capacities
}

// record is a device allocateDevice recorded, with what undo needs to
// take it back.
type record struct {
	p         position
	c         candidate
	base, sub string
	st        undoState
}

// undo takes back the device allocateDevice recorded as u.
func (r *run) undo(u record) { r.rollback(u.p, u.c, u.base, u.sub, u.st) }

// allocateDevice tries c for the request at p: availability, counters,
// taints and the claim's constraints. On success the device is recorded,
// and undo of what it returns takes it back. must says the caller needs
// exactly this device ("All" mode): a constraint that rejects it is then
// an error.
func (r *run) allocateDevice(p position, c candidate, must bool) (bool, record, error) {
	claim := r.claims[p.claim]
	rd := r.reqs[p.claim][p.request].subs[p.sub]
	multi := r.features.ConsumableCapacity && deref(c.dev.AllowMultipleAllocations)
	if !multi && rd.adminAccess && r.allocatingForClaim(c.id, p.claim) {
		return false, record{}, nil
	}
	if !rd.adminAccess && r.inUseAt(c.id, c.taken, c.index) {
		return false, record{}, nil
	}
	if !r.features.PartitionableDevices && len(c.dev.ConsumesCounters) > 0 {
		return false, record{}, nil
	}
	skipCounters := multi && r.capacityInUse(c.id)
	st := undoState{prevResults: len(r.results[p.claim])}
	if !skipCounters && len(c.dev.ConsumesCounters) > 0 {
		if !r.reserveCounters(c) {
			return false, record{}, nil
		}
		st.countersReserved = true
	}
	base, sub := rd.name, ""
	if rd.parent != "" {
		base, sub = rd.parent, rd.name
	}
	if r.features.DeviceTaints && taintPrevents(c.dev, rd.tolerations) {
		r.rollback(p, c, base, sub, st)
		return false, record{}, nil
	}
	for _, con := range r.cons[p.claim] {
		if !con.add(base, sub, c.dev, c.id) {
			r.rollback(p, c, base, sub, st)
			if must {
				return false, record{}, fmt.Errorf("claim %s, request %s: cannot add device %s because a claim constraint would not be satisfied", claimRef(claim), rd.name, c.id)
			}
			return false, record{}, nil
		}
		st.constraintsAdded++
	}
	if !multi {
		r.allocating = append(r.allocating, allocatingDevice{c.id, p.claim})
		st.marked = true
	}
	var consumed capacities
	var shareID *string
	if r.features.ConsumableCapacity {
		if !c.capacityChecked {
			fits, err := r.fitsRemaining(rd, c.id, c.dev, nil, 0)
			if err != nil {
				r.rollback(p, c, base, sub, st)
				return false, record{}, fmt.Errorf("claim %s, request %s: rechecking capacity for device %s: %w", claimRef(claim), rd.name, c.id, err)
			}
			if !fits {
				r.rollback(p, c, base, sub, st)
				return false, record{}, nil
			}
		}
		if multi {
			var err error
			consumed, err = consumedCapacity(rd.capacity, c.dev.Capacity, r.features.FractionalCapacityRange, r.v136)
			if err != nil {
				r.rollback(p, c, base, sub, st)
				return false, record{}, fmt.Errorf("claim %s, request %s: computing consumed capacity for device %s: %w", claimRef(claim), rd.name, c.id, err)
			}
			id := shareIDFor(claim, len(r.results[p.claim]), c.id)
			shareID = &id
			_, st.capExisted = r.capacity[c.id]
			if r.capacity == nil {
				r.capacity = make(map[DeviceID]capacities)
			}
			r.capacity[c.id] = addCapacities(r.capacity[c.id], consumed)
			st.capInserted = true
			st.consumed = consumed
		}
	}
	res := deviceResult{candidate: c, req: rd, shareID: shareID, admin: rd.adminAccess}
	if len(consumed) > 0 {
		res.consumed = consumed
	}
	r.results[p.claim] = append(r.results[p.claim], res)
	st.resultAdded = true
	return true, record{p, c, base, sub, st}, nil
}

// rollback takes back what allocateDevice recorded, in reverse order.
func (r *run) rollback(p position, c candidate, base, sub string, st undoState) {
	if st.resultAdded {
		r.results[p.claim] = r.results[p.claim][:st.prevResults]
	}
	if st.capInserted {
		if cur, ok := r.capacity[c.id]; ok {
			left := make(capacities, len(cur))
			empty := true
			for n, q := range cur {
				if s, ok := st.consumed[n]; ok {
					q = q.Sub(s)
				}
				left[n] = q
				if !q.IsZero() {
					empty = false
				}
			}
			if empty {
				delete(r.capacity, c.id)
			} else {
				r.capacity[c.id] = left
			}
		}
		if _, ok := r.capacity[c.id]; st.capExisted && !ok {
			// An earlier share of the device is still in this attempt.
			r.capacity[c.id] = capacities{}
		}
	}
	if st.marked {
		if i := slices.Index(r.allocating, allocatingDevice{c.id, p.claim}); i >= 0 {
			r.allocating = slices.Delete(r.allocating, i, i+1)
		}
	}
	for i := st.constraintsAdded - 1; i >= 0; i-- {
		r.cons[p.claim][i].remove(base, sub, c.dev, c.id)
	}
	if st.countersReserved {
		r.releaseCounters(c)
	}
}

// taintPrevents reports whether the device has a NoSchedule or NoExecute
// taint none of the tolerations tolerates.
func taintPrevents(d *api.Device, tols []api.DeviceToleration) bool {
	for _, t := range d.Taints {
		if t.Effect != api.DeviceTaintEffectNoSchedule && t.Effect != api.DeviceTaintEffectNoExecute {
			continue
		}
		tolerated := false
		for _, tol := range tols {
			if tolerates(tol, t) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return true
		}
	}
	return false
}

// tolerates reports whether tol tolerates taint (an empty operator means
// Equal, the API default).
func tolerates(tol api.DeviceToleration, t api.DeviceTaint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != t.Key {
		return false
	}
	switch tol.Operator {
	case "", api.DeviceTolerationOpEqual:
		return tol.Value == t.Value
	case api.DeviceTolerationOpExists:
		return true
	}
	return false
}
