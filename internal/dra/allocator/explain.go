package allocator

import (
	"context"

	"github.com/schedkit/schedkit/framework/api"
)

// ClaimReport is how one claim fares on one node, for explanations
// (Allocator.Explain).
type ClaimReport struct {
	Claim *api.ResourceClaim
	// Requests are the claim's requests, a firstAvailable request as one
	// RequestReport per subrequest, in the claim's order.
	Requests []RequestReport
	// Alone says the claim can be allocated on the node by itself;
	// Unconstrained, that it can be without its constraints.
	Alone, Unconstrained bool
}

// RequestReport is how one request or subrequest fares on one node.
type RequestReport struct {
	// Request is the name an allocation records: "request" or
	// "request/subrequest".
	Request string
	// FirstAvailable marks a subrequest, one alternative of Request's
	// parent.
	FirstAvailable bool
	Class          string
	// Selectors says the request has selectors of its own.
	Selectors bool
	// All marks an "All" request; Count is the devices an ExactCount
	// request needs.
	All   bool
	Count int
	// Matching are the devices the node reaches (in complete, valid
	// pools) that pass the class's and the request's selectors, in the
	// allocator's search order; InUse those of them allocated to other
	// claims (whole, not shared); Tainted those free but with a taint the
	// request does not tolerate.
	Matching, InUse, Tainted []DeviceID
}

// Free returns the matching devices neither in use nor tainted.
func (r *RequestReport) Free() int { return len(r.Matching) - len(r.InUse) - len(r.Tainted) }

// Explain reports, for claims (none allocated yet) on node, which devices
// each request could use and why others are out, and whether each claim
// could be allocated alone and without its constraints. It answers
// questions about a failed Allocate for explanations and is not on the
// scheduling path; an error is the one Allocate would return.
func (a *Allocator) Explain(ctx context.Context, node *api.Node, claims []*api.ResourceClaim) ([]ClaimReport, error) {
	r := new(run)
	r.reset(a, ctx, node, claims)
	pools, err := a.slices.pools(node, a.features.PartitionableDevices, a.v136)
	if err != nil {
		return nil, err
	}
	r.pools = pools
	if err := r.prepare(); err != nil {
		return nil, err
	}
	out := make([]ClaimReport, len(claims))
	for ci, claim := range claims {
		rep := &out[ci]
		rep.Claim = claim
		for _, slot := range r.reqs[ci] {
			for _, rd := range slot.subs {
				rr := RequestReport{
					Request:        rd.fullName(),
					FirstAvailable: slot.firstAvailable,
					Class:          rd.className,
					Selectors:      len(rd.selectors) > 0,
					All:            rd.mode == api.DeviceAllocationModeAll,
					Count:          rd.numDevices,
				}
				if err := r.survey(ci, rd, &rr); err != nil {
					return nil, err
				}
				rep.Requests = append(rep.Requests, rr)
			}
		}
		res, err := a.Allocate(ctx, node, []*api.ResourceClaim{claim})
		rep.Alone = err == nil && res != nil
		rep.Unconstrained = rep.Alone
		if !rep.Alone && len(claim.Spec.Devices.Constraints) > 0 {
			free := *claim
			free.Spec.Devices.Constraints = nil
			res, err := a.Allocate(ctx, node, []*api.ResourceClaim{&free})
			rep.Unconstrained = err == nil && res != nil
		}
	}
	return out, nil
}

// survey lists the devices of the node's pools that the request at
// (ci, ri, si) could use, and which of them are in use or tainted.
func (r *run) survey(ci int, rd *requestData, rr *RequestReport) error {
	for _, p := range r.pools {
		if p.incomplete || p.invalid {
			continue
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
				id := DeviceID{p.id.driver, p.id.pool, d.Name}
				rr.Matching = append(rr.Matching, id)
				switch {
				case !rd.adminAccess && r.inUse(id):
					rr.InUse = append(rr.InUse, id)
				case r.features.DeviceTaints && taintPrevents(d, rd.tolerations):
					rr.Tainted = append(rr.Tainted, id)
				}
			}
		}
	}
	return nil
}
