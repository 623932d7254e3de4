package allocator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// build turns the chosen devices into one AllocationResult per claim: the
// devices, the configuration of their classes and claims, and the nodes
// that can use them.
func (r *run) build() ([]api.AllocationResult, error) {
	out := make([]api.AllocationResult, len(r.claims))
	for ci, claim := range r.claims {
		res := &out[ci]
		devs := r.results[ci]
		res.Devices.Results = make([]api.DeviceRequestAllocationResult, len(devs))
		for i, d := range devs {
			x := api.DeviceRequestAllocationResult{
				Request:     d.req.fullName(),
				Driver:      d.id.Driver,
				Pool:        d.id.Pool,
				Device:      d.id.Device,
				Tolerations: copyTolerations(d.req.tolerations),
				ShareID:     d.shareID,
			}
			if d.admin {
				t := true
				x.AdminAccess = &t
			}
			if d.consumed != nil {
				x.ConsumedCapacity = make(map[api.QualifiedName]resource.Quantity, len(d.consumed))
				for n, q := range d.consumed {
					x.ConsumedCapacity[n] = q
				}
			}
			if r.features.DeviceBindingAndStatus {
				x.BindingConditions = slices.Clone(d.dev.BindingConditions)
				x.BindingFailureConditions = slices.Clone(d.dev.BindingFailureConditions)
			}
			res.Devices.Results[i] = x
		}
		res.Devices.Config = r.configs(ci, claim)
		sel, err := nodeSelectorFor(devs, r.node.Name, true)
		if err != nil {
			return nil, fmt.Errorf("create NodeSelector for claim %s: %w", claim.Name, err)
		}
		res.NodeSelector = sel
	}
	return out, nil
}

// chosen returns the request or the chosen subrequest of request ri.
func (r *run) chosen(ci, ri int) *requestData {
	slot := &r.reqs[ci][ri]
	return slot.subs[slot.selected]
}

// configs lists the configuration of an allocation: each class's
// configuration once (for all requests using the class), then the claim's
// configuration that applies to an allocated request or subrequest; a
// configuration that names every request applies to all and lists none.
func (r *run) configs(ci int, claim *api.ResourceClaim) []api.DeviceAllocationConfiguration {
	var out []api.DeviceAllocationConfiguration
	type span struct{ start, end int }
	byClass := make(map[string]span)
	for ri := range claim.Spec.Devices.Requests {
		rd := r.chosen(ci, ri)
		if rd.class == nil {
			continue
		}
		if sp, ok := byClass[rd.class.Name]; ok {
			for i := sp.start; i < sp.end; i++ {
				out[i].Requests = append(out[i].Requests, rd.fullName())
			}
			continue
		}
		start := len(out)
		for _, c := range rd.class.Spec.Config {
			out = append(out, api.DeviceAllocationConfiguration{
				Source:              api.AllocationConfigSourceClass,
				Requests:            []string{rd.fullName()},
				DeviceConfiguration: copyConfig(c.DeviceConfiguration),
			})
		}
		byClass[rd.class.Name] = span{start, len(out)}
	}
	for _, c := range claim.Spec.Devices.Config {
		fromClaim := api.DeviceAllocationConfiguration{
			Source:              api.AllocationConfigSourceClaim,
			Requests:            slices.Clone(c.Requests),
			DeviceConfiguration: copyConfig(c.DeviceConfiguration),
		}
		if len(c.Requests) == 0 {
			out = append(out, fromClaim)
			continue
		}
		for ri, req := range claim.Spec.Devices.Requests {
			if slices.Contains(c.Requests, req.Name) {
				out = append(out, fromClaim)
				if r.v136 {
					// v1.36 adds the configuration once per request it names.
					fromClaim.Requests = slices.Clone(c.Requests)
					fromClaim.DeviceConfiguration = copyConfig(c.DeviceConfiguration)
					continue
				}
				break
			}
			rd := r.chosen(ci, ri)
			if rd.parent == "" {
				continue
			}
			if slices.Contains(c.Requests, rd.fullName()) {
				out = append(out, fromClaim)
				if r.v136 {
					fromClaim.Requests = slices.Clone(c.Requests)
					fromClaim.DeviceConfiguration = copyConfig(c.DeviceConfiguration)
					continue
				}
				break
			}
		}
	}
	if r.v136 {
		return out
	}
	for i := range out {
		reqs := out[i].Requests
		if len(reqs) == 0 {
			continue
		}
		all := true
		for ri, req := range claim.Spec.Devices.Requests {
			if slices.Contains(reqs, req.Name) {
				continue
			}
			if rd := r.chosen(ci, ri); rd.parent != "" && slices.Contains(reqs, rd.fullName()) {
				continue
			}
			all = false
			break
		}
		if all {
			out[i].Requests = nil
		}
	}
	return out
}

// nodeSelectorFor returns the nodes that can use the devices: only the
// node allocated for when a device is local to a node or binds to it,
// otherwise the requirements of the devices' node selectors in one term,
// or nil when the devices are reachable from every node. Without build, it
// only checks that it can, and returns nil or the error.
func nodeSelectorFor(devs []deviceResult, nodeName string, build bool) (*api.NodeSelector, error) {
	var term api.NodeSelectorTerm
	for _, d := range devs {
		name, sel := d.slice.Spec.NodeName, d.slice.Spec.NodeSelector
		if deref(d.slice.Spec.PerDeviceNodeSelection) {
			name, sel = d.dev.NodeName, d.dev.NodeSelector
		}
		if name != nil || deref(d.dev.BindsToNode) {
			if !build {
				return nil, nil
			}
			return nodeNameSelector(nodeName), nil
		}
		if sel == nil {
			continue
		}
		switch len(sel.NodeSelectorTerms) {
		case 0:
		case 1:
			if !build {
				continue
			}
			term.MatchFields = addRequirements(term.MatchFields, sel.NodeSelectorTerms[0].MatchFields)
			term.MatchExpressions = addRequirements(term.MatchExpressions, sel.NodeSelectorTerms[0].MatchExpressions)
		default:
			return nil, fmt.Errorf("unsupported ResourceSlice.NodeSelector with %d terms", len(sel.NodeSelectorTerms))
		}
	}
	if len(term.MatchFields) == 0 && len(term.MatchExpressions) == 0 {
		return nil, nil
	}
	return &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{term}}, nil
}

// nodeNameSelector returns the selector of the node named name alone, in
// one allocation.
func nodeNameSelector(name string) *api.NodeSelector {
	x := new(struct {
		sel  api.NodeSelector
		term [1]api.NodeSelectorTerm
		req  [1]api.NodeSelectorRequirement
		val  [1]string
	})
	x.val[0] = name
	x.req[0] = api.NodeSelectorRequirement{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: x.val[:]}
	x.term[0].MatchFields = x.req[:]
	x.sel.NodeSelectorTerms = x.term[:]
	return &x.sel
}

// addRequirements appends the requirements of from that to lacks (same
// key, operator and set of values).
func addRequirements(to, from []api.NodeSelectorRequirement) []api.NodeSelectorRequirement {
	for _, req := range from {
		if !slices.ContainsFunc(to, func(x api.NodeSelectorRequirement) bool {
			return x.Key == req.Key && x.Operator == req.Operator && sameSet(x.Values, req.Values)
		}) {
			req.Values = slices.Clone(req.Values)
			to = append(to, req)
		}
	}
	return to
}

func sameSet(a, b []string) bool {
	sa := make(map[string]struct{}, len(a))
	for _, s := range a {
		sa[s] = struct{}{}
	}
	sb := make(map[string]struct{}, len(b))
	for _, s := range b {
		sb[s] = struct{}{}
	}
	if len(sa) != len(sb) {
		return false
	}
	for s := range sa {
		if _, ok := sb[s]; !ok {
			return false
		}
	}
	return true
}

// copyTolerations copies a request's tolerations into a result, with the
// API server's default operator (Equal) where none is set.
func copyTolerations(tols []api.DeviceToleration) []api.DeviceToleration {
	if tols == nil {
		return nil
	}
	out := make([]api.DeviceToleration, len(tols))
	for i, t := range tols {
		if t.Operator == "" {
			t.Operator = api.DeviceTolerationOpEqual
		}
		if t.TolerationSeconds != nil {
			s := *t.TolerationSeconds
			t.TolerationSeconds = &s
		}
		out[i] = t
	}
	return out
}

func copyConfig(c api.DeviceConfiguration) api.DeviceConfiguration {
	if c.Opaque != nil {
		o := *c.Opaque
		o.Parameters = slices.Clone(o.Parameters)
		c.Opaque = &o
	}
	return c
}

// shareIDFor derives the share ID of the i-th device of a claim's
// allocation, in the form of a UID, from the claim and the device, so that
// the same inputs give the same ID and different claims different IDs.
func shareIDFor(claim *api.ResourceClaim, i int, id DeviceID) string {
	h := sha256.New()
	for _, s := range []string{claim.Namespace, claim.Name, string(claim.UID), strconv.Itoa(i), id.Driver, id.Pool, id.Device} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x40 // version 4 layout
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}
