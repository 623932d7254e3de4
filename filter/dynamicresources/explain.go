package dynamicresources

import (
	"context"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/allocator"
)

var _ framework.FilterExplainer = (*DynamicResources)(nil)

// ExplainRejection says which of the pod's claims could not be satisfied
// on the node and why: for an allocated claim, that its devices are not
// on the node; for the others, each request short of free devices (how
// many devices of its class the node has free, which are allocated and to
// which claims, which are tainted), a claim whose constraints no choice of
// free devices satisfies, or claims that fit alone but not together. The
// status reasons stay kube's; this is schedkit's own detail, computed for
// explanations only.
func (pl *DynamicResources) ExplainRejection(ctx context.Context, cs *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo, st *framework.Status) []string {
	s, err := readDRAState(cs)
	if err != nil || s.empty() || st.IsSuccess() || ni.Node() == nil {
		return nil
	}
	node := ni.Node()
	var out []string
	for i, c := range s.claims {
		switch {
		case s.info[i].availableOn != nil && !s.info[i].availableOn.Match(node):
			out = append(out, fmt.Sprintf("claim %s is allocated already, on devices this node does not reach (its allocation's node selector does not match the node)", c.Key()))
		case c.Status.Allocation != nil && !pl.bindable(c):
			if _, failed := c.BindingReady(); failed != nil {
				out = append(out, fmt.Sprintf("claim %s: binding failed, its device reports %s=True", c.Key(), failed.Type))
				continue
			}
			out = append(out, fmt.Sprintf("claim %s: its devices did not become ready for binding within %s of the allocation", c.Key(), pl.args.BindingTimeout))
		}
	}
	ex := s.alloc
	if len(out) > 0 || ex == nil {
		return out
	}
	nodeExt, fst := pl.filterExtended(cs, s, pi.Pod, ni)
	if fst != nil {
		return nil
	}
	var toAllocate []*api.ResourceClaim
	for i, c := range s.claims {
		if c.Status.Allocation != nil || s.info[i].allocation != nil {
			continue
		}
		if c == s.extended && nodeExt != nil {
			c = nodeExt
		}
		toAllocate = append(toAllocate, c)
	}
	reports, err := ex.Explain(ctx, node, toAllocate)
	if err != nil {
		return nil // the status reports the allocator's error
	}
	s.holdersOnce.Do(func() { s.holders = deviceHolders(cs.Snapshot().DRA()) })
	holders := s.holders
	alone := 0
	for i := range reports {
		if reports[i].Alone {
			alone++
			continue
		}
		out = append(out, explainClaim(&reports[i], holders)...)
	}
	if alone == len(reports) && alone > 1 {
		keys := make([]string, len(reports))
		for i := range reports {
			keys[i] = reports[i].Claim.Key()
		}
		out = append(out, fmt.Sprintf("claims %s each fit on this node alone but not together: they compete for the same devices", strings.Join(keys, ", ")))
	}
	return out
}

// deviceHolders maps each allocated device to the claim holding it.
func deviceHolders(view framework.DRAView) map[allocator.DeviceID]string {
	out := make(map[allocator.DeviceID]string)
	add := func(c *api.ResourceClaim, suffix string) {
		if a := c.Status.Allocation; a != nil {
			for _, r := range a.Devices.Results {
				out[allocator.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}] = "claim " + c.Key() + suffix
			}
		}
	}
	for _, c := range view.ResourceClaims() {
		add(c, "")
	}
	for _, c := range view.InFlightClaims() {
		add(c, " (being allocated)")
	}
	return out
}

// explainClaim explains why one claim cannot be allocated on the node.
func explainClaim(rep *allocator.ClaimReport, holders map[allocator.DeviceID]string) []string {
	key := rep.Claim.Key()
	var out []string
	for i := 0; i < len(rep.Requests); {
		rr := &rep.Requests[i]
		if !rr.FirstAvailable {
			if requestShort(rr) {
				out = append(out, fmt.Sprintf("claim %s request %s: %s", key, rr.Request, requestFreeText(rr, holders)))
			}
			i++
			continue
		}
		parent, _, _ := strings.Cut(rr.Request, "/")
		j := i
		short := true
		var alts []string
		for ; j < len(rep.Requests) && rep.Requests[j].FirstAvailable && strings.HasPrefix(rep.Requests[j].Request, parent+"/"); j++ {
			short = short && requestShort(&rep.Requests[j])
			alts = append(alts, rep.Requests[j].Request+": "+requestFreeText(&rep.Requests[j], holders))
		}
		if short {
			out = append(out, fmt.Sprintf("claim %s request %s: no alternative fits: %s", key, parent, strings.Join(alts, "; ")))
		}
		i = j
	}
	if len(out) > 0 {
		return out
	}
	cons := rep.Claim.Spec.Devices.Constraints
	if !rep.Unconstrained || len(cons) == 0 {
		return []string{fmt.Sprintf("claim %s: each request has enough free devices, but not all the claim's requests together (they share devices, or shared counters or capacity run out)", key)}
	}
	if len(rep.Requests) == 1 && len(cons) == 1 && cons[0].MatchAttribute != nil && !rep.Requests[0].All {
		rr := &rep.Requests[0]
		return []string{fmt.Sprintf("claim %s request %s: %d devices of class %s free on this node, but no %d of them have the same %s (constraint matchAttribute)",
			key, rr.Request, rr.Free(), rr.Class, rr.Count, *cons[0].MatchAttribute)}
	}
	names := make([]string, 0, len(cons))
	for _, c := range cons {
		switch {
		case c.MatchAttribute != nil:
			names = append(names, "matchAttribute "+string(*c.MatchAttribute))
		case c.DistinctAttribute != nil:
			names = append(names, "distinctAttribute "+string(*c.DistinctAttribute))
		}
	}
	return []string{fmt.Sprintf("claim %s: each request has enough free devices, but no choice of them satisfies the claim's constraints (%s)", key, strings.Join(names, "; "))}
}

// requestShort reports whether a request lacks free devices on its own.
func requestShort(rr *allocator.RequestReport) bool {
	if rr.All {
		return len(rr.Matching) == 0 || rr.Free() < len(rr.Matching)
	}
	return rr.Free() < rr.Count
}

// maxNamedDevices is how many unavailable devices a detail names.
const maxNamedDevices = 8

// requestFreeText says how many devices a request finds free on the node
// and names the others with the claims holding them.
func requestFreeText(rr *allocator.RequestReport, holders map[allocator.DeviceID]string) string {
	if len(rr.Matching) == 0 {
		if rr.Selectors {
			return fmt.Sprintf("no device of class %s on this node matches the request's selectors", rr.Class)
		}
		return fmt.Sprintf("no device of class %s on this node", rr.Class)
	}
	var b strings.Builder
	need := rr.Count
	if rr.All {
		need = len(rr.Matching)
	}
	fmt.Fprintf(&b, "%d of %d devices of class %s free on this node", rr.Free(), need, rr.Class)
	if rr.All {
		b.WriteString(" (all are asked for)")
	}
	var parts []string
	named := 0
	byHolder := map[string][]string{}
	var order []string
	for _, id := range rr.InUse {
		h := holders[id]
		if h == "" {
			h = "another claim"
		}
		if _, ok := byHolder[h]; !ok {
			order = append(order, h)
		}
		if named < maxNamedDevices {
			byHolder[h] = append(byHolder[h], id.Device)
			named++
		}
	}
	for _, h := range order {
		if devs := byHolder[h]; len(devs) > 0 {
			parts = append(parts, strings.Join(devs, ", ")+" allocated to "+h)
		}
	}
	if len(rr.Tainted) > 0 && named < maxNamedDevices {
		var devs []string
		for _, id := range rr.Tainted[:min(len(rr.Tainted), maxNamedDevices-named)] {
			devs = append(devs, id.Device)
		}
		named += len(devs)
		parts = append(parts, strings.Join(devs, ", ")+" tainted")
	}
	if left := len(rr.InUse) + len(rr.Tainted) - named; left > 0 {
		parts = append(parts, fmt.Sprintf("%d more unavailable", left))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, "; "))
	}
	return b.String()
}
