package builder

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Builders of the Dynamic Resource Allocation objects (resource.k8s.io/v1)
// kube-scheduler's DynamicResources plugin reads: the ResourceSlices
// drivers publish, DeviceClasses, ResourceClaims and their templates, in
// the style of kube-scheduler's DRA test wrappers (st.MakeResourceSlice,
// st.MakeResourceClaim).

// quantity parses q as field of the named object, recording the first
// error in *first.
func quantity(first *error, object, name, field, q string) resource.Quantity {
	v, err := resource.ParseQuantity(q)
	if err != nil && *first == nil {
		*first = fmt.Errorf("builder: %s %q: %s: %w", object, name, field, err)
	}
	return v
}

// counters parses a counter set's amounts.
func counters(first *error, object, name, field string, m map[string]string) map[string]api.Counter {
	out := make(map[string]api.Counter, len(m))
	for k, q := range m {
		out[k] = api.Counter{Value: quantity(first, object, name, field+"."+k, q)}
	}
	return out
}

// DeviceWrapper builds one device of a ResourceSlice; MakeDevice starts
// one.
type DeviceWrapper struct {
	d   api.Device
	err error // the first malformed quantity
}

// MakeDevice starts a device named name, without attributes or
// capacities.
func MakeDevice(name string) *DeviceWrapper { return &DeviceWrapper{d: api.Device{Name: name}} }

// Build returns the device, or the first malformed quantity given to the
// wrapper as an error naming the device, the field and the value.
func (w *DeviceWrapper) Build() (api.Device, error) {
	if w.err != nil {
		return api.Device{}, w.err
	}
	return *deepCopy(&w.d), nil
}

// Obj returns the device. It panics when a quantity given to the wrapper
// was malformed (Build returns the error instead).
func (w *DeviceWrapper) Obj() api.Device { return must(w.Build()) }

func (w *DeviceWrapper) attribute(name string, a api.DeviceAttribute) *DeviceWrapper {
	if w.d.Attributes == nil {
		w.d.Attributes = map[api.QualifiedName]api.DeviceAttribute{}
	}
	w.d.Attributes[api.QualifiedName(name)] = a
	return w
}

// StringAttr sets the string attribute name ("model", or with a domain,
// "resource.kubernetes.io/pcieRoot"; without one it is in the driver's
// domain).
func (w *DeviceWrapper) StringAttr(name, v string) *DeviceWrapper {
	return w.attribute(name, api.DeviceAttribute{StringValue: &v})
}

// IntAttr sets the integer attribute name.
func (w *DeviceWrapper) IntAttr(name string, v int64) *DeviceWrapper {
	return w.attribute(name, api.DeviceAttribute{IntValue: &v})
}

// BoolAttr sets the boolean attribute name.
func (w *DeviceWrapper) BoolAttr(name string, v bool) *DeviceWrapper {
	return w.attribute(name, api.DeviceAttribute{BoolValue: &v})
}

// VersionAttr sets the semantic-version attribute name ("1.2.3").
func (w *DeviceWrapper) VersionAttr(name, v string) *DeviceWrapper {
	return w.attribute(name, api.DeviceAttribute{VersionValue: &v})
}

// Capacity sets the capacity name to q ("80Gi").
func (w *DeviceWrapper) Capacity(name, q string) *DeviceWrapper {
	if w.d.Capacity == nil {
		w.d.Capacity = map[api.QualifiedName]api.DeviceCapacity{}
	}
	w.d.Capacity[api.QualifiedName(name)] = api.DeviceCapacity{Value: quantity(&w.err, "device", w.d.Name, "capacity."+name, q)}
	return w
}

// ConsumesCounters adds what allocating the device takes from the shared
// counter set named set of its pool ({"memory": "40Gi"}).
func (w *DeviceWrapper) ConsumesCounters(set string, amounts map[string]string) *DeviceWrapper {
	w.d.ConsumesCounters = append(slices.Clone(w.d.ConsumesCounters), api.DeviceCounterConsumption{CounterSet: set,
		Counters: counters(&w.err, "device", w.d.Name, "consumesCounters["+set+"]", amounts)})
	return w
}

// Taint adds a device taint.
func (w *DeviceWrapper) Taint(t api.DeviceTaint) *DeviceWrapper {
	w.d.Taints = append(slices.Clone(w.d.Taints), t)
	return w
}

// BindingConditions makes allocating the device tie the claim to the
// chosen node (bindsToNode) and wait for the conditions (bindingConditions)
// unless one of failure (bindingFailureConditions) becomes true.
func (w *DeviceWrapper) BindingConditions(conditions, failure []string) *DeviceWrapper {
	yes := true
	w.d.BindsToNode = &yes
	w.d.BindingConditions, w.d.BindingFailureConditions = slices.Clone(conditions), slices.Clone(failure)
	return w
}

// NodeName sets the node that reaches the device, for a slice with
// PerDeviceNodeSelection.
func (w *DeviceWrapper) NodeName(n string) *DeviceWrapper { w.d.NodeName = &n; return w }

// AllowMultipleAllocations lets several allocations share the device,
// each consuming part of its capacity.
func (w *DeviceWrapper) AllowMultipleAllocations() *DeviceWrapper {
	yes := true
	w.d.AllowMultipleAllocations = &yes
	return w
}

// ResourceSliceWrapper builds an api.ResourceSlice; MakeResourceSlice
// starts one.
type ResourceSliceWrapper struct {
	s   api.ResourceSlice
	err error // the first malformed quantity
}

// MakeResourceSlice starts the slice driver publishes for the devices of
// node, as a driver's kubelet plugin publishes it: named
// <node>-<driver>, on node (spec.nodeName), in the pool named after the
// node, generation 1, of one slice. For a slice that is not a node's, set
// NodeName(""), then NodeSelector, AllNodes or PerDeviceNodeSelection.
func MakeResourceSlice(node, driver string) *ResourceSliceWrapper {
	w := &ResourceSliceWrapper{}
	w.s.Name = node + "-" + driver
	w.s.Spec.Driver = driver
	if node != "" {
		w.s.Spec.NodeName = &node
	}
	w.s.Spec.Pool = api.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}
	return w
}

// Build returns the slice, or the first malformed quantity given to the
// wrapper or its devices as an error naming the object, the field and the
// value.
func (w *ResourceSliceWrapper) Build() (*api.ResourceSlice, error) {
	if w.err != nil {
		return nil, w.err
	}
	return deepCopy(&w.s), nil
}

// Obj returns the slice. It panics when a quantity given to the wrapper
// was malformed (Build returns the error instead).
func (w *ResourceSliceWrapper) Obj() *api.ResourceSlice { return must(w.Build()) }

// Name sets metadata.name.
func (w *ResourceSliceWrapper) Name(n string) *ResourceSliceWrapper { w.s.Name = n; return w }

// Pool sets the pool's name, generation and number of slices.
func (w *ResourceSliceWrapper) Pool(name string, generation, sliceCount int64) *ResourceSliceWrapper {
	w.s.Spec.Pool = api.ResourcePool{Name: name, Generation: generation, ResourceSliceCount: sliceCount}
	return w
}

// NodeName sets spec.nodeName ("" for none).
func (w *ResourceSliceWrapper) NodeName(n string) *ResourceSliceWrapper {
	w.s.Spec.NodeName = nil
	if n != "" {
		w.s.Spec.NodeName = &n
	}
	return w
}

// NodeSelector makes the devices reachable from the nodes s selects
// (instead of one node).
func (w *ResourceSliceWrapper) NodeSelector(s *api.NodeSelector) *ResourceSliceWrapper {
	w.s.Spec.NodeName, w.s.Spec.NodeSelector = nil, s
	return w
}

// AllNodes makes the devices reachable from every node (instead of one
// node).
func (w *ResourceSliceWrapper) AllNodes() *ResourceSliceWrapper {
	yes := true
	w.s.Spec.NodeName, w.s.Spec.AllNodes = nil, &yes
	return w
}

// PerDeviceNodeSelection lets each device say which nodes reach it
// (DeviceWrapper.NodeName), instead of the slice.
func (w *ResourceSliceWrapper) PerDeviceNodeSelection() *ResourceSliceWrapper {
	yes := true
	w.s.Spec.NodeName, w.s.Spec.PerDeviceNodeSelection = nil, &yes
	return w
}

// Device adds devices.
func (w *ResourceSliceWrapper) Device(ds ...*DeviceWrapper) *ResourceSliceWrapper {
	w.s.Spec.Devices = slices.Clone(w.s.Spec.Devices)
	for _, d := range ds {
		if d.err != nil && w.err == nil {
			w.err = fmt.Errorf("builder: ResourceSlice %q: %w", w.s.Name, d.err)
		}
		w.s.Spec.Devices = append(w.s.Spec.Devices, *deepCopy(&d.d))
	}
	return w
}

// SharedCounters adds the counter set name with its amounts ({"memory":
// "80Gi"}), which the pool's devices consume (DeviceWrapper.ConsumesCounters).
func (w *ResourceSliceWrapper) SharedCounters(name string, amounts map[string]string) *ResourceSliceWrapper {
	w.s.Spec.SharedCounters = append(slices.Clone(w.s.Spec.SharedCounters), api.CounterSet{Name: name,
		Counters: counters(&w.err, "ResourceSlice", w.s.Name, "spec.sharedCounters["+name+"]", amounts)})
	return w
}

// DeviceClassWrapper builds an api.DeviceClass; MakeDeviceClass starts
// one.
type DeviceClassWrapper struct{ c api.DeviceClass }

// MakeDeviceClass starts a class named name, selecting every device.
func MakeDeviceClass(name string) *DeviceClassWrapper {
	return &DeviceClassWrapper{c: api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: name}}}
}

// Build returns the class.
func (w *DeviceClassWrapper) Build() (*api.DeviceClass, error) { return deepCopy(&w.c), nil }

// Obj returns the class.
func (w *DeviceClassWrapper) Obj() *api.DeviceClass { return must(w.Build()) }

// Selector adds a CEL selector every device of the class must pass
// (`device.driver == "gpu.example.com"`).
func (w *DeviceClassWrapper) Selector(expression string) *DeviceClassWrapper {
	w.c.Spec.Selectors = append(slices.Clone(w.c.Spec.Selectors), celSelector(expression))
	return w
}

// Config adds opaque configuration for driver, passed on to the devices
// allocated through the class.
func (w *DeviceClassWrapper) Config(driver string, parameters json.RawMessage) *DeviceClassWrapper {
	w.c.Spec.Config = append(slices.Clone(w.c.Spec.Config), api.DeviceClassConfiguration{
		DeviceConfiguration: api.DeviceConfiguration{Opaque: &api.OpaqueDeviceConfiguration{Driver: driver, Parameters: parameters}}})
	return w
}

// ExtendedResourceName lets pods ask for the class's devices as the
// extended resource name.
func (w *DeviceClassWrapper) ExtendedResourceName(name string) *DeviceClassWrapper {
	w.c.Spec.ExtendedResourceName = &name
	return w
}

func celSelector(expression string) api.DeviceSelector {
	return api.DeviceSelector{CEL: &api.CELDeviceSelector{Expression: expression}}
}

// SubRequest is one alternative of a FirstAvailable request: count
// devices of class.
func SubRequest(name, class string, count int64) api.DeviceSubRequest {
	return api.DeviceSubRequest{Name: name, DeviceClassName: class, AllocationMode: api.DeviceAllocationModeExactCount, Count: count}
}

// SubRequestAll is one alternative of a FirstAvailable request: all
// devices of class.
func SubRequestAll(name, class string) api.DeviceSubRequest {
	return api.DeviceSubRequest{Name: name, DeviceClassName: class, AllocationMode: api.DeviceAllocationModeAll}
}

// DeviceResult is one allocated device of a claim's allocation: device of
// driver's pool, for request ("request/subrequest" for a FirstAvailable
// request).
func DeviceResult(request, driver, pool, device string) api.DeviceRequestAllocationResult {
	return api.DeviceRequestAllocationResult{Request: request, Driver: driver, Pool: pool, Device: device}
}

// deviceClaim holds the edits ResourceClaimWrapper and
// ResourceClaimTemplateWrapper share: they build the same spec.
type deviceClaim struct {
	dc   *api.DeviceClaim
	err  *error
	kind string
	name *string
}

// request adds r.
func (c deviceClaim) request(r api.DeviceRequest) {
	c.dc.Requests = append(slices.Clone(c.dc.Requests), r)
}

// last edits the last request: its exactly part, or its last
// alternative.
func (c deviceClaim) last(exact func(*api.ExactDeviceRequest), sub func(*api.DeviceSubRequest)) {
	if len(c.dc.Requests) == 0 {
		if *c.err == nil {
			*c.err = fmt.Errorf("builder: %s %q: no request to refine: call Request, RequestAll or FirstAvailable first", c.kind, *c.name)
		}
		return
	}
	c.dc.Requests = slices.Clone(c.dc.Requests)
	r := &c.dc.Requests[len(c.dc.Requests)-1]
	switch {
	case r.Exactly != nil:
		e := *r.Exactly
		exact(&e)
		r.Exactly = &e
	case len(r.FirstAvailable) > 0:
		r.FirstAvailable = slices.Clone(r.FirstAvailable)
		sub(&r.FirstAvailable[len(r.FirstAvailable)-1])
	}
}

func (c deviceClaim) selector(expression string) {
	s := celSelector(expression)
	c.last(func(e *api.ExactDeviceRequest) { e.Selectors = append(slices.Clone(e.Selectors), s) },
		func(r *api.DeviceSubRequest) { r.Selectors = append(slices.Clone(r.Selectors), s) })
}

func (c deviceClaim) toleration(t api.DeviceToleration) {
	c.last(func(e *api.ExactDeviceRequest) { e.Tolerations = append(slices.Clone(e.Tolerations), t) },
		func(r *api.DeviceSubRequest) { r.Tolerations = append(slices.Clone(r.Tolerations), t) })
}

func (c deviceClaim) adminAccess() {
	yes := true
	c.last(func(e *api.ExactDeviceRequest) { e.AdminAccess = &yes }, func(r *api.DeviceSubRequest) {
		if *c.err == nil {
			*c.err = fmt.Errorf("builder: %s %q: AdminAccess: a firstAvailable alternative has no adminAccess", c.kind, *c.name)
		}
	})
}

func (c deviceClaim) capacity(name, q string) {
	v := quantity(c.err, c.kind, *c.name, "capacity.requests."+name, q)
	add := func(cr **api.CapacityRequirements) {
		out := &api.CapacityRequirements{Requests: map[api.QualifiedName]resource.Quantity{}}
		if *cr != nil {
			for k, x := range (*cr).Requests {
				out.Requests[k] = x
			}
		}
		out.Requests[api.QualifiedName(name)] = v
		*cr = out
	}
	c.last(func(e *api.ExactDeviceRequest) { add(&e.Capacity) }, func(r *api.DeviceSubRequest) { add(&r.Capacity) })
}

func (c deviceClaim) constraint(match, distinct string, requests []string) {
	k := api.DeviceConstraint{Requests: slices.Clone(requests)}
	if match != "" {
		a := api.FullyQualifiedName(match)
		k.MatchAttribute = &a
	} else {
		a := api.FullyQualifiedName(distinct)
		k.DistinctAttribute = &a
	}
	c.dc.Constraints = append(slices.Clone(c.dc.Constraints), k)
}

func (c deviceClaim) config(driver string, parameters json.RawMessage, requests []string) {
	c.dc.Config = append(slices.Clone(c.dc.Config), api.DeviceClaimConfiguration{Requests: slices.Clone(requests),
		DeviceConfiguration: api.DeviceConfiguration{Opaque: &api.OpaqueDeviceConfiguration{Driver: driver, Parameters: parameters}}})
}

func exactly(name, class string, mode api.DeviceAllocationMode, count int64) api.DeviceRequest {
	return api.DeviceRequest{Name: name, Exactly: &api.ExactDeviceRequest{DeviceClassName: class, AllocationMode: mode, Count: count}}
}

// ResourceClaimWrapper builds an api.ResourceClaim; MakeResourceClaim
// starts one.
type ResourceClaimWrapper struct {
	c      api.ResourceClaim
	uidSet bool  // UID was called: Build does not default the UID to the name
	err    error // the first malformed quantity or misplaced refinement
}

// MakeResourceClaim starts a claim named name in namespace "default",
// without requests; its UID is its name unless UID sets one.
func MakeResourceClaim(name string) *ResourceClaimWrapper {
	return &ResourceClaimWrapper{c: api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}}
}

func (w *ResourceClaimWrapper) spec() deviceClaim {
	return deviceClaim{dc: &w.c.Spec.Devices, err: &w.err, kind: "ResourceClaim", name: &w.c.Name}
}

// Build returns the claim, or the first malformed quantity (or a
// refinement with no request to refine) as an error naming the claim.
func (w *ResourceClaimWrapper) Build() (*api.ResourceClaim, error) {
	if w.err != nil {
		return nil, w.err
	}
	c := deepCopy(&w.c)
	if !w.uidSet {
		c.UID = c.Name
	}
	return c, nil
}

// Obj returns the claim. It panics where Build returns an error.
func (w *ResourceClaimWrapper) Obj() *api.ResourceClaim { return must(w.Build()) }

// Name sets metadata.name.
func (w *ResourceClaimWrapper) Name(n string) *ResourceClaimWrapper { w.c.Name = n; return w }

// Namespace sets metadata.namespace.
func (w *ResourceClaimWrapper) Namespace(ns string) *ResourceClaimWrapper {
	w.c.Namespace = ns
	return w
}

// UID sets metadata.uid.
func (w *ResourceClaimWrapper) UID(u string) *ResourceClaimWrapper {
	w.c.UID, w.uidSet = u, true
	return w
}

// Request adds a request for count devices of class (exactly, ExactCount).
func (w *ResourceClaimWrapper) Request(name, class string, count int64) *ResourceClaimWrapper {
	w.spec().request(exactly(name, class, api.DeviceAllocationModeExactCount, count))
	return w
}

// RequestAll adds a request for all the devices of class a node reaches
// (exactly, allocationMode All).
func (w *ResourceClaimWrapper) RequestAll(name, class string) *ResourceClaimWrapper {
	w.spec().request(exactly(name, class, api.DeviceAllocationModeAll, 0))
	return w
}

// FirstAvailable adds a request satisfied by the first of alternatives
// that can be allocated (SubRequest, SubRequestAll).
func (w *ResourceClaimWrapper) FirstAvailable(name string, alternatives ...api.DeviceSubRequest) *ResourceClaimWrapper {
	w.spec().request(api.DeviceRequest{Name: name, FirstAvailable: slices.Clone(alternatives)})
	return w
}

// Selector adds a CEL selector to the last request (to its last
// alternative for a FirstAvailable request).
func (w *ResourceClaimWrapper) Selector(expression string) *ResourceClaimWrapper {
	w.spec().selector(expression)
	return w
}

// Toleration adds a device toleration to the last request (to its last
// alternative for a FirstAvailable request).
func (w *ResourceClaimWrapper) Toleration(t api.DeviceToleration) *ResourceClaimWrapper {
	w.spec().toleration(t)
	return w
}

// AdminAccess asks for admin access in the last request (an exactly
// request): devices in use by other claims can be allocated.
func (w *ResourceClaimWrapper) AdminAccess() *ResourceClaimWrapper {
	w.spec().adminAccess()
	return w
}

// CapacityRequest asks the last request (its last alternative for a
// FirstAvailable request) for q of the capacity name of a device that
// allows multiple allocations.
func (w *ResourceClaimWrapper) CapacityRequest(name, q string) *ResourceClaimWrapper {
	w.spec().capacity(name, q)
	return w
}

// MatchAttribute adds a constraint: the devices of requests (all requests
// when none are named) have the same value of attribute
// ("resource.kubernetes.io/pcieRoot").
func (w *ResourceClaimWrapper) MatchAttribute(attribute string, requests ...string) *ResourceClaimWrapper {
	w.spec().constraint(attribute, "", requests)
	return w
}

// DistinctAttribute adds a constraint: the devices of requests (all
// requests when none are named) have distinct values of attribute.
func (w *ResourceClaimWrapper) DistinctAttribute(attribute string, requests ...string) *ResourceClaimWrapper {
	w.spec().constraint("", attribute, requests)
	return w
}

// Config adds opaque configuration for driver, for requests (all when
// none are named).
func (w *ResourceClaimWrapper) Config(driver string, parameters json.RawMessage, requests ...string) *ResourceClaimWrapper {
	w.spec().config(driver, parameters, requests)
	return w
}

// Allocated sets status.allocation: the devices allocated and, when node
// is not "", the node selector that ties the claim to that node (as the
// allocator writes it for node-local devices).
func (w *ResourceClaimWrapper) Allocated(node string, results ...api.DeviceRequestAllocationResult) *ResourceClaimWrapper {
	a := &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: slices.Clone(results)}}
	if node != "" {
		a.NodeSelector = &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{node}}}}}}
	}
	w.c.Status.Allocation = a
	return w
}

// ReservedFor adds pod to status.reservedFor: the pod uses the claim.
func (w *ResourceClaimWrapper) ReservedFor(pod *api.Pod) *ResourceClaimWrapper {
	w.c.Status.ReservedFor = append(slices.Clone(w.c.Status.ReservedFor),
		api.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
	return w
}

// OwnedBy makes pod the claim's controlling owner, as the resource claim
// controller does for the claim it creates from a pod's template.
func (w *ResourceClaimWrapper) OwnedBy(pod *api.Pod) *ResourceClaimWrapper {
	w.c.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true}}
	return w
}

// Deleting marks the claim as being deleted.
func (w *ResourceClaimWrapper) Deleting() *ResourceClaimWrapper {
	w.c.DeletionTimestamp = epoch()
	return w
}

// DeviceCondition sets a condition of the driver's status of an
// allocated device (status.devices, added for the device when missing),
// as a driver reports its binding conditions.
func (w *ResourceClaimWrapper) DeviceCondition(driver, pool, device, condition string, status api.ConditionStatus) *ResourceClaimWrapper {
	devs := slices.Clone(w.c.Status.Devices)
	i := slices.IndexFunc(devs, func(d api.AllocatedDeviceStatus) bool {
		return d.Driver == driver && d.Pool == pool && d.Device == device
	})
	if i < 0 {
		devs, i = append(devs, api.AllocatedDeviceStatus{Driver: driver, Pool: pool, Device: device}), len(devs)
	}
	conds := slices.DeleteFunc(slices.Clone(devs[i].Conditions), func(c api.Condition) bool { return c.Type == condition })
	devs[i].Conditions = append(conds, api.Condition{Type: condition, Status: status, LastTransitionTime: *epoch()})
	w.c.Status.Devices = devs
	return w
}

// DeviceTaintRuleWrapper builds an api.DeviceTaintRule;
// MakeDeviceTaintRule starts one.
type DeviceTaintRuleWrapper struct{ r api.DeviceTaintRule }

// MakeDeviceTaintRule starts a rule named name putting the taint on
// every device (an empty selector); Driver, Pool and Device narrow it.
func MakeDeviceTaintRule(name string, taint api.DeviceTaint) *DeviceTaintRuleWrapper {
	return &DeviceTaintRuleWrapper{r: api.DeviceTaintRule{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.DeviceTaintRuleSpec{DeviceSelector: &api.DeviceTaintSelector{}, Taint: taint}}}
}

// Build returns the rule.
func (w *DeviceTaintRuleWrapper) Build() (*api.DeviceTaintRule, error) { return deepCopy(&w.r), nil }

// Obj returns the rule.
func (w *DeviceTaintRuleWrapper) Obj() *api.DeviceTaintRule { return must(w.Build()) }

// Driver selects the devices of driver only.
func (w *DeviceTaintRuleWrapper) Driver(driver string) *DeviceTaintRuleWrapper {
	sel := *w.r.Spec.DeviceSelector
	sel.Driver = &driver
	w.r.Spec.DeviceSelector = &sel
	return w
}

// Pool selects the devices of the pool named pool only.
func (w *DeviceTaintRuleWrapper) Pool(pool string) *DeviceTaintRuleWrapper {
	sel := *w.r.Spec.DeviceSelector
	sel.Pool = &pool
	w.r.Spec.DeviceSelector = &sel
	return w
}

// Device selects the devices named device only.
func (w *DeviceTaintRuleWrapper) Device(device string) *DeviceTaintRuleWrapper {
	sel := *w.r.Spec.DeviceSelector
	sel.Device = &device
	w.r.Spec.DeviceSelector = &sel
	return w
}

// ResourceClaimTemplateWrapper builds an api.ResourceClaimTemplate;
// MakeResourceClaimTemplate starts one. Its requests are built as
// ResourceClaimWrapper's.
type ResourceClaimTemplateWrapper struct {
	t   api.ResourceClaimTemplate
	err error // the first malformed quantity or misplaced refinement
}

// MakeResourceClaimTemplate starts a template named name in namespace
// "default", without requests.
func MakeResourceClaimTemplate(name string) *ResourceClaimTemplateWrapper {
	return &ResourceClaimTemplateWrapper{t: api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}}
}

func (w *ResourceClaimTemplateWrapper) spec() deviceClaim {
	return deviceClaim{dc: &w.t.Spec.Spec.Devices, err: &w.err, kind: "ResourceClaimTemplate", name: &w.t.Name}
}

// Build returns the template, or the first malformed quantity (or a
// refinement with no request to refine) as an error naming the template.
func (w *ResourceClaimTemplateWrapper) Build() (*api.ResourceClaimTemplate, error) {
	if w.err != nil {
		return nil, w.err
	}
	return deepCopy(&w.t), nil
}

// Obj returns the template. It panics where Build returns an error.
func (w *ResourceClaimTemplateWrapper) Obj() *api.ResourceClaimTemplate { return must(w.Build()) }

// Name sets metadata.name.
func (w *ResourceClaimTemplateWrapper) Name(n string) *ResourceClaimTemplateWrapper {
	w.t.Name = n
	return w
}

// Namespace sets metadata.namespace.
func (w *ResourceClaimTemplateWrapper) Namespace(ns string) *ResourceClaimTemplateWrapper {
	w.t.Namespace = ns
	return w
}

// ClaimLabel adds a label the claims made from the template get.
func (w *ResourceClaimTemplateWrapper) ClaimLabel(k, v string) *ResourceClaimTemplateWrapper {
	w.t.Spec.ObjectMeta.Labels = withKey(w.t.Spec.ObjectMeta.Labels, k, v)
	return w
}

// Request adds a request for count devices of class (exactly, ExactCount).
func (w *ResourceClaimTemplateWrapper) Request(name, class string, count int64) *ResourceClaimTemplateWrapper {
	w.spec().request(exactly(name, class, api.DeviceAllocationModeExactCount, count))
	return w
}

// RequestAll adds a request for all the devices of class a node reaches.
func (w *ResourceClaimTemplateWrapper) RequestAll(name, class string) *ResourceClaimTemplateWrapper {
	w.spec().request(exactly(name, class, api.DeviceAllocationModeAll, 0))
	return w
}

// FirstAvailable adds a request satisfied by the first of alternatives
// that can be allocated.
func (w *ResourceClaimTemplateWrapper) FirstAvailable(name string, alternatives ...api.DeviceSubRequest) *ResourceClaimTemplateWrapper {
	w.spec().request(api.DeviceRequest{Name: name, FirstAvailable: slices.Clone(alternatives)})
	return w
}

// Selector adds a CEL selector to the last request (to its last
// alternative for a FirstAvailable request).
func (w *ResourceClaimTemplateWrapper) Selector(expression string) *ResourceClaimTemplateWrapper {
	w.spec().selector(expression)
	return w
}

// Toleration adds a device toleration to the last request.
func (w *ResourceClaimTemplateWrapper) Toleration(t api.DeviceToleration) *ResourceClaimTemplateWrapper {
	w.spec().toleration(t)
	return w
}

// AdminAccess asks for admin access in the last request (an exactly
// request).
func (w *ResourceClaimTemplateWrapper) AdminAccess() *ResourceClaimTemplateWrapper {
	w.spec().adminAccess()
	return w
}

// CapacityRequest asks the last request for q of the capacity name of a
// device that allows multiple allocations.
func (w *ResourceClaimTemplateWrapper) CapacityRequest(name, q string) *ResourceClaimTemplateWrapper {
	w.spec().capacity(name, q)
	return w
}

// MatchAttribute adds a constraint: the devices of requests (all when
// none are named) have the same value of attribute.
func (w *ResourceClaimTemplateWrapper) MatchAttribute(attribute string, requests ...string) *ResourceClaimTemplateWrapper {
	w.spec().constraint(attribute, "", requests)
	return w
}

// DistinctAttribute adds a constraint: the devices of requests (all when
// none are named) have distinct values of attribute.
func (w *ResourceClaimTemplateWrapper) DistinctAttribute(attribute string, requests ...string) *ResourceClaimTemplateWrapper {
	w.spec().constraint("", attribute, requests)
	return w
}

// Config adds opaque configuration for driver, for requests (all when
// none are named).
func (w *ResourceClaimTemplateWrapper) Config(driver string, parameters json.RawMessage, requests ...string) *ResourceClaimTemplateWrapper {
	w.spec().config(driver, parameters, requests)
	return w
}

// Pod resource claims, read by DynamicResources.

// ResourceClaim adds the pod claim name backed by the existing
// ResourceClaim claim, and makes every container use it.
func (w *PodWrapper) ResourceClaim(name, claim string) *PodWrapper {
	return w.podClaim(api.PodResourceClaim{Name: name, ResourceClaimName: &claim})
}

// ResourceClaimTemplate adds the pod claim name whose ResourceClaim the
// resource claim controller makes from template, and makes every
// container use it. Until the claim exists (ClaimStatus names it), the
// pod waits.
func (w *PodWrapper) ResourceClaimTemplate(name, template string) *PodWrapper {
	return w.podClaim(api.PodResourceClaim{Name: name, ResourceClaimTemplateName: &template})
}

// ClaimStatus records in status.resourceClaimStatuses the claim made for
// the template-backed pod claim name ("" when none was needed).
func (w *PodWrapper) ClaimStatus(name, claim string) *PodWrapper {
	s := api.PodResourceClaimStatus{Name: name}
	if claim != "" {
		s.ResourceClaimName = &claim
	}
	w.p.Status.ResourceClaimStatuses = append(slices.Clone(w.p.Status.ResourceClaimStatuses), s)
	return w
}

// podClaim adds c to spec.resourceClaims and to the resources.claims of
// every container (those added later too: Build adds it).
func (w *PodWrapper) podClaim(c api.PodResourceClaim) *PodWrapper {
	w.p.Spec.ResourceClaims = append(slices.Clone(w.p.Spec.ResourceClaims), c)
	return w
}

// withContainerClaims gives every container of p a resources.claims entry
// for each pod claim it does not name yet.
func withContainerClaims(p *api.Pod) {
	if len(p.Spec.ResourceClaims) == 0 {
		return
	}
	cs := slices.Clone(p.Spec.Containers)
	for i := range cs {
		claims := slices.Clone(cs[i].Resources.Claims)
		for _, rc := range p.Spec.ResourceClaims {
			if !slices.ContainsFunc(claims, func(c api.ContainerResourceClaim) bool { return c.Name == rc.Name }) {
				claims = append(claims, api.ContainerResourceClaim{Name: rc.Name})
			}
		}
		cs[i].Resources.Claims = claims
	}
	p.Spec.Containers = cs
}
