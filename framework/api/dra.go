package api

import (
	"encoding/json"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// The Dynamic Resource Allocation objects (resource.k8s.io/v1): the devices
// drivers publish in ResourceSlices, the DeviceClasses that name kinds of
// device, the ResourceClaims (and their templates) pods use to ask for
// devices, and the DeviceTaintRules that taint devices from outside their
// slices. The JSON shapes are Kubernetes', so a dump's objects decode into
// them directly. Fields behind alpha feature gates that are off in the
// releases schedkit reproduces are not modelled.

// ResourceSlice is one slice of a driver's pool of devices: the devices, and
// which nodes can reach them (exactly one of NodeName, NodeSelector, AllNodes
// or PerDeviceNodeSelection).
type ResourceSlice struct {
	ObjectMeta `json:"metadata"`
	Spec       ResourceSliceSpec `json:"spec"`
}

// ResourceSliceSpec is a ResourceSlice's content.
type ResourceSliceSpec struct {
	// Driver names the DRA driver that publishes the devices.
	Driver string `json:"driver"`
	// Pool names the pool the slice belongs to and its generation.
	Pool ResourcePool `json:"pool"`
	// NodeName: the devices are local to this node.
	NodeName *string `json:"nodeName,omitempty"`
	// NodeSelector: the devices can be reached from the nodes it selects.
	NodeSelector *NodeSelector `json:"nodeSelector,omitempty"`
	// AllNodes: the devices can be reached from every node.
	AllNodes *bool `json:"allNodes,omitempty"`
	// PerDeviceNodeSelection: each device says which nodes reach it.
	PerDeviceNodeSelection *bool `json:"perDeviceNodeSelection,omitempty"`
	// Devices are the devices of this slice.
	Devices []Device `json:"devices,omitempty"`
	// SharedCounters are counter sets devices of the pool consume from.
	SharedCounters []CounterSet `json:"sharedCounters,omitempty"`
}

// ResourcePool names a pool and the generation of the slices that describe
// it; slices of an older generation than the newest are ignored.
type ResourcePool struct {
	Name               string `json:"name"`
	Generation         int64  `json:"generation"`
	ResourceSliceCount int64  `json:"resourceSliceCount"`
}

// CounterSet is a named set of counters (e.g. the memory of a GPU that its
// partitions share).
type CounterSet struct {
	Name     string             `json:"name"`
	Counters map[string]Counter `json:"counters,omitempty"`
}

// Counter is one counter's amount.
type Counter struct {
	Value resource.Quantity `json:"value"`
}

// QualifiedName is an attribute or capacity name, with or without a domain
// ("model" or "gpu.example.com/model"); without one it is in the driver's
// domain.
type QualifiedName string

// FullyQualifiedName is an attribute name with its domain.
type FullyQualifiedName string

// Device is one device in a ResourceSlice.
type Device struct {
	Name       string                            `json:"name"`
	Attributes map[QualifiedName]DeviceAttribute `json:"attributes,omitempty"`
	Capacity   map[QualifiedName]DeviceCapacity  `json:"capacity,omitempty"`
	// ConsumesCounters are the shared counters allocating the device uses.
	ConsumesCounters []DeviceCounterConsumption `json:"consumesCounters,omitempty"`
	// NodeName, NodeSelector and AllNodes say which nodes reach the device
	// when its slice has PerDeviceNodeSelection.
	NodeName     *string       `json:"nodeName,omitempty"`
	NodeSelector *NodeSelector `json:"nodeSelector,omitempty"`
	AllNodes     *bool         `json:"allNodes,omitempty"`
	// Taints keep claims that do not tolerate them off the device.
	Taints []DeviceTaint `json:"taints,omitempty"`
	// BindsToNode: allocating the device ties the claim to the chosen node.
	BindsToNode *bool `json:"bindsToNode,omitempty"`
	// BindingConditions must become true before a pod using the device is
	// bound; BindingFailureConditions abort the binding.
	BindingConditions        []string `json:"bindingConditions,omitempty"`
	BindingFailureConditions []string `json:"bindingFailureConditions,omitempty"`
	// AllowMultipleAllocations: the device can be shared by several
	// allocations, each consuming part of its capacity.
	AllowMultipleAllocations *bool `json:"allowMultipleAllocations,omitempty"`
}

// DeviceCounterConsumption is what a device takes from one counter set.
type DeviceCounterConsumption struct {
	CounterSet string             `json:"counterSet"`
	Counters   map[string]Counter `json:"counters,omitempty"`
}

// DeviceAttribute is one typed attribute value; exactly one field is set.
type DeviceAttribute struct {
	IntValue      *int64   `json:"int,omitempty"`
	BoolValue     *bool    `json:"bool,omitempty"`
	StringValue   *string  `json:"string,omitempty"`
	VersionValue  *string  `json:"version,omitempty"`
	IntValues     []int64  `json:"ints,omitempty"`
	BoolValues    []bool   `json:"bools,omitempty"`
	StringValues  []string `json:"strings,omitempty"`
	VersionValues []string `json:"versions,omitempty"`
}

// DeviceCapacity is one capacity of a device and, for devices that allow
// multiple allocations, how much of it one allocation takes.
type DeviceCapacity struct {
	Value         resource.Quantity      `json:"value"`
	RequestPolicy *CapacityRequestPolicy `json:"requestPolicy,omitempty"`
}

// CapacityRequestPolicy constrains how much of a shared device's capacity a
// request may consume.
type CapacityRequestPolicy struct {
	Default     *resource.Quantity          `json:"default,omitempty"`
	ValidValues []resource.Quantity         `json:"validValues,omitempty"`
	ValidRange  *CapacityRequestPolicyRange `json:"validRange,omitempty"`
}

// CapacityRequestPolicyRange is a range of valid amounts with an optional
// step.
type CapacityRequestPolicyRange struct {
	Min  *resource.Quantity `json:"min,omitempty"`
	Max  *resource.Quantity `json:"max,omitempty"`
	Step *resource.Quantity `json:"step,omitempty"`
}

// DeviceTaintEffect is what a device taint does to claims that do not
// tolerate it.
type DeviceTaintEffect string

// The device taint effects.
const (
	DeviceTaintEffectNoSchedule DeviceTaintEffect = "NoSchedule"
	DeviceTaintEffectNoExecute  DeviceTaintEffect = "NoExecute"
	DeviceTaintEffectNone       DeviceTaintEffect = "None"
)

// DeviceTaint is a taint on a device.
type DeviceTaint struct {
	Key       string            `json:"key"`
	Value     string            `json:"value,omitempty"`
	Effect    DeviceTaintEffect `json:"effect"`
	TimeAdded *time.Time        `json:"timeAdded,omitempty"`
}

// DeviceTolerationOperator compares a toleration with a taint.
type DeviceTolerationOperator string

// The device toleration operators.
const (
	DeviceTolerationOpExists DeviceTolerationOperator = "Exists"
	DeviceTolerationOpEqual  DeviceTolerationOperator = "Equal"
)

// DeviceToleration lets a request use devices with matching taints.
type DeviceToleration struct {
	Key               string                   `json:"key,omitempty"`
	Operator          DeviceTolerationOperator `json:"operator,omitempty"`
	Value             string                   `json:"value,omitempty"`
	Effect            DeviceTaintEffect        `json:"effect,omitempty"`
	TolerationSeconds *int64                   `json:"tolerationSeconds,omitempty"`
}

// DeviceClass names a kind of device: the selectors every device of the
// class must pass, and configuration for its drivers.
type DeviceClass struct {
	ObjectMeta `json:"metadata"`
	Spec       DeviceClassSpec `json:"spec"`
}

// DeviceClassSpec is a DeviceClass's content.
type DeviceClassSpec struct {
	Selectors []DeviceSelector           `json:"selectors,omitempty"`
	Config    []DeviceClassConfiguration `json:"config,omitempty"`
	// ExtendedResourceName lets pods ask for the class's devices as an
	// extended resource (DRAExtendedResource).
	ExtendedResourceName *string `json:"extendedResourceName,omitempty"`
}

// DeviceClassConfiguration is driver configuration a class passes on.
type DeviceClassConfiguration struct {
	DeviceConfiguration `json:",inline"`
}

// DeviceConfiguration is configuration for a driver; only its driver name
// matters to scheduling.
type DeviceConfiguration struct {
	Opaque *OpaqueDeviceConfiguration `json:"opaque,omitempty"`
}

// OpaqueDeviceConfiguration is a driver's own parameters, kept as raw JSON.
type OpaqueDeviceConfiguration struct {
	Driver     string          `json:"driver"`
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// DeviceSelector selects devices; only CEL selectors exist.
type DeviceSelector struct {
	CEL *CELDeviceSelector `json:"cel,omitempty"`
}

// CELDeviceSelector is a CEL expression over the variable device that must
// be true for a device to be selected.
type CELDeviceSelector struct {
	Expression string `json:"expression"`
}

// ResourceClaim asks for devices; its status holds the allocation and the
// pods that use it.
type ResourceClaim struct {
	ObjectMeta `json:"metadata"`
	Spec       ResourceClaimSpec   `json:"spec"`
	Status     ResourceClaimStatus `json:"status,omitzero"`
}

// ResourceClaimSpec is what a claim asks for.
type ResourceClaimSpec struct {
	Devices DeviceClaim `json:"devices"`
}

// DeviceClaim is a claim's device requests, the constraints between them
// and their configuration.
type DeviceClaim struct {
	Requests    []DeviceRequest            `json:"requests,omitempty"`
	Constraints []DeviceConstraint         `json:"constraints,omitempty"`
	Config      []DeviceClaimConfiguration `json:"config,omitempty"`
}

// DeviceRequest is one request of a claim: either Exactly one kind of device
// or the FirstAvailable of several alternatives, tried in order.
type DeviceRequest struct {
	Name           string              `json:"name"`
	Exactly        *ExactDeviceRequest `json:"exactly,omitempty"`
	FirstAvailable []DeviceSubRequest  `json:"firstAvailable,omitempty"`
}

// DeviceAllocationMode says whether a request takes Count devices or All
// matching devices.
type DeviceAllocationMode string

// The allocation modes.
const (
	DeviceAllocationModeExactCount DeviceAllocationMode = "ExactCount"
	DeviceAllocationModeAll        DeviceAllocationMode = "All"
)

// ExactDeviceRequest asks for devices of one class.
type ExactDeviceRequest struct {
	DeviceClassName string               `json:"deviceClassName"`
	Selectors       []DeviceSelector     `json:"selectors,omitempty"`
	AllocationMode  DeviceAllocationMode `json:"allocationMode,omitempty"`
	Count           int64                `json:"count,omitempty"`
	// AdminAccess asks for access to devices that may be in use by others.
	AdminAccess *bool                 `json:"adminAccess,omitempty"`
	Tolerations []DeviceToleration    `json:"tolerations,omitempty"`
	Capacity    *CapacityRequirements `json:"capacity,omitempty"`
}

// DeviceSubRequest is one alternative of a FirstAvailable request.
type DeviceSubRequest struct {
	Name            string                `json:"name"`
	DeviceClassName string                `json:"deviceClassName"`
	Selectors       []DeviceSelector      `json:"selectors,omitempty"`
	AllocationMode  DeviceAllocationMode  `json:"allocationMode,omitempty"`
	Count           int64                 `json:"count,omitempty"`
	Tolerations     []DeviceToleration    `json:"tolerations,omitempty"`
	Capacity        *CapacityRequirements `json:"capacity,omitempty"`
}

// CapacityRequirements is how much of a shared device's capacities a request
// consumes.
type CapacityRequirements struct {
	Requests map[QualifiedName]resource.Quantity `json:"requests,omitempty"`
}

// DeviceConstraint ties the devices of several requests together: all with
// the same value of MatchAttribute, or all with distinct values of
// DistinctAttribute. No Requests means every request of the claim.
type DeviceConstraint struct {
	Requests          []string            `json:"requests,omitempty"`
	MatchAttribute    *FullyQualifiedName `json:"matchAttribute,omitempty"`
	DistinctAttribute *FullyQualifiedName `json:"distinctAttribute,omitempty"`
}

// DeviceClaimConfiguration is driver configuration for some requests.
type DeviceClaimConfiguration struct {
	Requests            []string `json:"requests,omitempty"`
	DeviceConfiguration `json:",inline"`
}

// ResourceClaimStatus is a claim's allocation, its users and what the
// drivers report about the allocated devices.
type ResourceClaimStatus struct {
	Allocation  *AllocationResult                `json:"allocation,omitempty"`
	ReservedFor []ResourceClaimConsumerReference `json:"reservedFor,omitempty"`
	// Devices is the drivers' status of allocated devices; the scheduler
	// reads their conditions against the binding conditions of the
	// allocation's results.
	Devices []AllocatedDeviceStatus `json:"devices,omitempty"`
}

// AllocatedDeviceStatus is a driver's status of one allocated device:
// its conditions, and data the scheduler does not read (kept as JSON).
type AllocatedDeviceStatus struct {
	Driver      string          `json:"driver"`
	Pool        string          `json:"pool"`
	Device      string          `json:"device"`
	ShareID     *string         `json:"shareID,omitempty"`
	Conditions  []Condition     `json:"conditions,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	NetworkData json.RawMessage `json:"networkData,omitempty"`
}

// ResourceClaimReservedForMaxSize is how many consumers a claim can be
// reserved for.
const ResourceClaimReservedForMaxSize = 256

// ResourceClaimConsumerReference names a user of a claim (a pod, for the
// scheduler).
type ResourceClaimConsumerReference struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Resource string `json:"resource"`
	Name     string `json:"name"`
	UID      string `json:"uid"`
}

// AllocationResult is the devices allocated to a claim and the nodes that
// can use them.
type AllocationResult struct {
	Devices      DeviceAllocationResult `json:"devices,omitzero"`
	NodeSelector *NodeSelector          `json:"nodeSelector,omitempty"`
	// AllocationTimestamp is when the allocation was made (binding
	// conditions time out from it).
	AllocationTimestamp *time.Time `json:"allocationTimestamp,omitempty"`
}

// DeviceAllocationResult is the allocated devices and their configuration.
type DeviceAllocationResult struct {
	Results []DeviceRequestAllocationResult `json:"results,omitempty"`
	Config  []DeviceAllocationConfiguration `json:"config,omitempty"`
}

// DeviceRequestAllocationResult is one device allocated for a request (for
// a FirstAvailable request, "request/subrequest").
type DeviceRequestAllocationResult struct {
	Request                  string                              `json:"request"`
	Driver                   string                              `json:"driver"`
	Pool                     string                              `json:"pool"`
	Device                   string                              `json:"device"`
	AdminAccess              *bool                               `json:"adminAccess,omitempty"`
	Tolerations              []DeviceToleration                  `json:"tolerations,omitempty"`
	BindingConditions        []string                            `json:"bindingConditions,omitempty"`
	BindingFailureConditions []string                            `json:"bindingFailureConditions,omitempty"`
	ShareID                  *string                             `json:"shareID,omitempty"`
	ConsumedCapacity         map[QualifiedName]resource.Quantity `json:"consumedCapacity,omitempty"`
}

// AllocationConfigSource says where allocated configuration came from.
type AllocationConfigSource string

// The configuration sources.
const (
	AllocationConfigSourceClass AllocationConfigSource = "FromClass"
	AllocationConfigSourceClaim AllocationConfigSource = "FromClaim"
)

// DeviceAllocationConfiguration is configuration recorded with an
// allocation.
type DeviceAllocationConfiguration struct {
	Source              AllocationConfigSource `json:"source"`
	Requests            []string               `json:"requests,omitempty"`
	DeviceConfiguration `json:",inline"`
}

// ResourceClaimTemplate is the spec the resource claim controller copies
// into a new claim for each pod that names the template.
type ResourceClaimTemplate struct {
	ObjectMeta `json:"metadata"`
	Spec       ResourceClaimTemplateSpec `json:"spec"`
}

// ResourceClaimTemplateSpec is the claim a template makes: its metadata
// (labels and annotations copied to the claim) and spec.
type ResourceClaimTemplateSpec struct {
	ObjectMeta ObjectMeta        `json:"metadata,omitzero"`
	Spec       ResourceClaimSpec `json:"spec"`
}

// PodResourceClaim is one entry of a pod's spec.resourceClaims: a name the
// containers use, and the claim (or the template of a claim) behind it.
type PodResourceClaim struct {
	Name                      string  `json:"name"`
	ResourceClaimName         *string `json:"resourceClaimName,omitempty"`
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// PodResourceClaimStatus names the claim generated for a pod's
// template-backed entry (nil ResourceClaimName: none was needed).
type PodResourceClaimStatus struct {
	Name              string  `json:"name"`
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`
}

// ContainerResourceClaim is a container's use of one of the pod's claims
// (and optionally one request of it).
type ContainerResourceClaim struct {
	Name    string `json:"name"`
	Request string `json:"request,omitempty"`
}

// DeviceTaintRule adds one taint to every device its selector selects,
// as if the driver had published the taint in the device's ResourceSlice
// (kube-scheduler applies the rules with the DRADeviceTaintRules gate, on
// by default from v1.37).
type DeviceTaintRule struct {
	ObjectMeta `json:"metadata"`
	Spec       DeviceTaintRuleSpec   `json:"spec"`
	Status     DeviceTaintRuleStatus `json:"status,omitzero"`
}

// DeviceTaintRuleSpec is the devices a rule taints and the taint.
type DeviceTaintRuleSpec struct {
	// DeviceSelector selects the devices; nil selects none, an empty one
	// every device.
	DeviceSelector *DeviceTaintSelector `json:"deviceSelector,omitempty"`
	Taint          DeviceTaint          `json:"taint"`
}

// DeviceTaintSelector selects the devices of a driver, a pool and a
// device name; each unset field matches any.
type DeviceTaintSelector struct {
	Driver *string `json:"driver,omitempty"`
	Pool   *string `json:"pool,omitempty"`
	Device *string `json:"device,omitempty"`
}

// DeviceTaintRuleStatus is what the eviction controller reports about a
// rule; the scheduler does not read it.
type DeviceTaintRuleStatus struct {
	Conditions []Condition `json:"conditions,omitempty"`
}

// DRAObjects are the Dynamic Resource Allocation objects of a cluster, as a
// snapshot or a cluster file holds them.
type DRAObjects struct {
	ResourceSlices         []*ResourceSlice         `json:"resourceSlices,omitempty"`
	DeviceClasses          []*DeviceClass           `json:"deviceClasses,omitempty"`
	ResourceClaims         []*ResourceClaim         `json:"resourceClaims,omitempty"`
	ResourceClaimTemplates []*ResourceClaimTemplate `json:"resourceClaimTemplates,omitempty"`
	DeviceTaintRules       []*DeviceTaintRule       `json:"deviceTaintRules,omitempty"`
}
