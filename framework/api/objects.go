package api

import (
	"time"

	"github.com/schedkit/schedkit/resource"
)

// ObjectMeta is the metadata shared by pods and nodes. Field names and JSON
// tags follow Kubernetes so that manifests translate field for field.
type ObjectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	OwnerReferences   []OwnerReference  `json:"ownerReferences,omitempty"`
	CreationTimestamp time.Time         `json:"creationTimestamp,omitzero"`
	// DeletionTimestamp is set when the object is being deleted.
	DeletionTimestamp *time.Time `json:"deletionTimestamp,omitempty"`
}

// OwnerReference names the object that owns this one (a ReplicaSet, a
// DaemonSet, a StatefulSet...).
type OwnerReference struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
	Controller bool   `json:"controller,omitempty"`
}

// ControllerRef returns the owner reference marked as controller, or nil.
func (m *ObjectMeta) ControllerRef() *OwnerReference {
	for i := range m.OwnerReferences {
		if m.OwnerReferences[i].Controller {
			return &m.OwnerReferences[i]
		}
	}
	return nil
}

// Pod is a unit of scheduling: the subset of Kubernetes' v1.Pod that the
// scheduling algorithms read. It marshals to v1.Pod's JSON shape (the same
// field names, empty fields omitted where Kubernetes omits them, spec and
// status always present), so a scheduler extender written for
// kube-scheduler reads it, and it reads a v1.Pod (fields it does not model
// are ignored).
type Pod struct {
	ObjectMeta `json:"metadata"`
	Spec       PodSpec   `json:"spec"`
	Status     PodStatus `json:"status"`
}

// PreemptionPolicy says whether a pod may preempt lower-priority pods.
type PreemptionPolicy string

// Preemption policies.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// PodSpec is the desired state of a pod.
type PodSpec struct {
	Containers     []Container `json:"containers"`
	InitContainers []Container `json:"initContainers,omitempty"`
	// Overhead is the pod's runtime overhead, added to its requests.
	Overhead resource.List `json:"overhead,omitempty"`
	// Resources are pod-level requests and limits; when set they replace
	// the container aggregate for cpu, memory and huge pages.
	Resources                 *ResourceRequirements      `json:"resources,omitempty"`
	NodeName                  string                     `json:"nodeName,omitempty"`
	NodeSelector              map[string]string          `json:"nodeSelector,omitempty"`
	Affinity                  *Affinity                  `json:"affinity,omitempty"`
	Tolerations               []Toleration               `json:"tolerations,omitempty"`
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	SchedulerName             string                     `json:"schedulerName,omitempty"`
	SchedulingGroup           *PodSchedulingGroup        `json:"schedulingGroup,omitempty"`
	Priority                  *int32                     `json:"priority,omitempty"`
	PriorityClassName         string                     `json:"priorityClassName,omitempty"`
	PreemptionPolicy          *PreemptionPolicy          `json:"preemptionPolicy,omitempty"`
	Volumes                   []Volume                   `json:"volumes,omitempty"`
	// SchedulingGates hold the pod out of the active queue until every
	// gate is removed (the SchedulingGates PreEnqueue plugin).
	SchedulingGates []PodSchedulingGate `json:"schedulingGates,omitempty"`
	// ResourceClaims are the pod's Dynamic Resource Allocation claims:
	// each names a ResourceClaim, or a ResourceClaimTemplate from which the
	// claim controller creates one for the pod.
	ResourceClaims []PodResourceClaim `json:"resourceClaims,omitempty"`
}

// ContainerRestartPolicy is a container-level restart policy; "Always" on an
// init container makes it a restartable sidecar.
type ContainerRestartPolicy string

// RestartPolicyAlways marks an init container as a sidecar.
const RestartPolicyAlways ContainerRestartPolicy = "Always"

// Container is one container of a pod.
type Container struct {
	Name      string               `json:"name"`
	Image     string               `json:"image,omitempty"`
	Resources ResourceRequirements `json:"resources"`
	Ports     []ContainerPort      `json:"ports,omitempty"`
	// RestartPolicy "Always" on an init container makes it a sidecar.
	RestartPolicy *ContainerRestartPolicy `json:"restartPolicy,omitempty"`
}

// IsSidecar reports whether c, as an init container, is a restartable
// sidecar.
func (c *Container) IsSidecar() bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == RestartPolicyAlways
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Requests resource.List `json:"requests,omitempty"`
	Limits   resource.List `json:"limits,omitempty"`
	// Claims are the pod's resource claims (spec.resourceClaims) the
	// container uses.
	Claims []ContainerResourceClaim `json:"claims,omitempty"`
}

// Protocol is a network protocol.
type Protocol string

// Protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// ContainerPort is a port a container exposes; a non-zero HostPort binds it
// on the node.
type ContainerPort struct {
	Name          string   `json:"name,omitempty"`
	ContainerPort int32    `json:"containerPort"`
	HostPort      int32    `json:"hostPort,omitempty"`
	Protocol      Protocol `json:"protocol,omitempty"`
	HostIP        string   `json:"hostIP,omitempty"`
}

// PodPhase is the lifecycle phase of a pod.
type PodPhase string

// Pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// IsTerminal reports whether the phase is Succeeded or Failed.
func (p PodPhase) IsTerminal() bool { return p == PodSucceeded || p == PodFailed }

// PodConditionType names a pod condition.
type PodConditionType string

// Pod condition types the algorithms read.
const (
	PodScheduled     PodConditionType = "PodScheduled"
	PodInitialized   PodConditionType = "Initialized"
	PodReady         PodConditionType = "Ready"
	DisruptionTarget PodConditionType = "DisruptionTarget"
	// PodResizePending: the spec asks for a resize the kubelet has not
	// allocated yet; its reason says why (PodReasonDeferred,
	// PodReasonInfeasible).
	PodResizePending PodConditionType = "PodResizePending"
	// PodResizeInProgress: the kubelet allocated a resize and is actuating
	// it.
	PodResizeInProgress PodConditionType = "PodResizeInProgress"
)

// Reasons of the PodResizePending condition.
const (
	// PodReasonDeferred: the resize is feasible on the node but not now.
	PodReasonDeferred = "Deferred"
	// PodReasonInfeasible: the node can never accommodate the resize.
	PodReasonInfeasible = "Infeasible"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// PodCondition is one observed condition of a pod.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	LastTransitionTime time.Time        `json:"lastTransitionTime,omitzero"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// PodQOSClass is the Kubernetes quality-of-service class of a pod.
type PodQOSClass string

// QoS classes.
const (
	QOSGuaranteed PodQOSClass = "Guaranteed"
	QOSBurstable  PodQOSClass = "Burstable"
	QOSBestEffort PodQOSClass = "BestEffort"
)

// PodStatus is the observed state of a pod.
type PodStatus struct {
	Phase             PodPhase       `json:"phase,omitempty"`
	Conditions        []PodCondition `json:"conditions,omitempty"`
	StartTime         *time.Time     `json:"startTime,omitempty"`
	NominatedNodeName string         `json:"nominatedNodeName,omitempty"`
	// InitContainerStatuses and ContainerStatuses are what the kubelet
	// reports per container, matched to the spec's containers by name.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses     []ContainerStatus `json:"containerStatuses,omitempty"`
	// QOSClass, when set, overrides the class computed from requests and
	// limits.
	QOSClass PodQOSClass `json:"qosClass,omitempty"`
	// Resize is the deprecated summary of an in-place resize. Kubernetes
	// v1.33 and later report resizes by the PodResizePending and
	// PodResizeInProgress conditions instead, and kube-scheduler (v1.36 and
	// v1.37) reads only the conditions; the field is kept so that dumps of
	// older clusters round-trip.
	Resize PodResizeStatus `json:"resize,omitempty"`
	// AllocatedResources are the pod-level resources the kubelet allocated
	// (pod-level resources, with in-place pod-level resize).
	AllocatedResources resource.List `json:"allocatedResources,omitempty"`
	// Resources are the pod-level requests and limits the kubelet actuated.
	Resources *ResourceRequirements `json:"resources,omitempty"`
	// ResourceClaimStatuses name the claims generated for the pod's
	// template-backed resource claims.
	ResourceClaimStatuses []PodResourceClaimStatus `json:"resourceClaimStatuses,omitempty"`
}

// ContainerStatus is the kubelet's report of one container: the subset
// kube-scheduler reads to count a resize in flight.
type ContainerStatus struct {
	// Name is the container's name in the pod's spec.
	Name string `json:"name"`
	// AllocatedResources are the requests the kubelet admitted for the
	// container.
	AllocatedResources resource.List `json:"allocatedResources,omitempty"`
	// Resources are the requests and limits the container runs with now.
	Resources *ResourceRequirements `json:"resources,omitempty"`
}

// PodResizeStatus is the value of the deprecated status.resize field.
type PodResizeStatus string

// Values of status.resize.
const (
	PodResizeStatusInProgress PodResizeStatus = "InProgress"
	PodResizeStatusDeferred   PodResizeStatus = "Deferred"
	PodResizeStatusInfeasible PodResizeStatus = "Infeasible"
)

// ResizeInfeasible reports whether the kubelet declared the pod's pending
// resize infeasible: the pod's first PodResizePending condition has reason
// Infeasible (component-helpers IsPodResizeInfeasible; status.resize is not
// read).
func (p *Pod) ResizeInfeasible() bool {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == PodResizePending {
			return p.Status.Conditions[i].Reason == PodReasonInfeasible
		}
	}
	return false
}

// Condition returns the pod's condition of type t, or nil.
func (p *Pod) Condition(t PodConditionType) *PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// PriorityValue returns the pod's priority, 0 when unset.
func (p *Pod) PriorityValue() int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// Key returns "namespace/name".
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// TaintEffect is what a taint does to pods that don't tolerate it.
type TaintEffect string

// Taint effects.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods that do not tolerate it.
type Taint struct {
	Key       string      `json:"key"`
	Value     string      `json:"value,omitempty"`
	Effect    TaintEffect `json:"effect"`
	TimeAdded *time.Time  `json:"timeAdded,omitempty"`
}

// TolerationOperator is Exists or Equal (Lt and Gt are feature-gated in
// Kubernetes and accepted here).
type TolerationOperator string

// Toleration operators.
const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
	TolerationOpLt     TolerationOperator = "Lt"
	TolerationOpGt     TolerationOperator = "Gt"
)

// Toleration lets a pod schedule onto a node with a matching taint.
type Toleration struct {
	Key               string             `json:"key,omitempty"`
	Operator          TolerationOperator `json:"operator,omitempty"`
	Value             string             `json:"value,omitempty"`
	Effect            TaintEffect        `json:"effect,omitempty"`
	TolerationSeconds *int64             `json:"tolerationSeconds,omitempty"`
}

// ToleratesTaint reports whether t tolerates taint, with Kubernetes'
// semantics: an empty effect matches every effect, an empty key with Exists
// matches every key, an empty operator means Equal.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case TolerationOpExists:
		return true
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	}
	return false
}

// TolerationsTolerateTaint reports whether any toleration tolerates taint.
func TolerationsTolerateTaint(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// Node is a machine pods run on: the subset of Kubernetes' v1.Node that the
// scheduling algorithms read. Like Pod, it marshals to (and reads) the JSON
// shape of v1.Node.
type Node struct {
	ObjectMeta `json:"metadata"`
	Spec       NodeSpec   `json:"spec"`
	Status     NodeStatus `json:"status"`
}

// NodeSpec is the configured state of a node.
type NodeSpec struct {
	Unschedulable bool    `json:"unschedulable,omitempty"`
	Taints        []Taint `json:"taints,omitempty"`
}

// NodeStatus is the observed state of a node.
type NodeStatus struct {
	Capacity    resource.List    `json:"capacity,omitempty"`
	Allocatable resource.List    `json:"allocatable,omitempty"`
	Images      []ContainerImage `json:"images,omitempty"`
}

// ContainerImage is an image present on a node, under all its names.
type ContainerImage struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"sizeBytes,omitempty"`
}

// Namespace carries the labels that namespace selectors match.
type Namespace struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}

// Service is the part of a Kubernetes Service that scheduling reads: its
// pod selector (used by PodTopologySpread's default constraints).
type Service struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Selector  map[string]string `json:"selector,omitempty"`
}

// WorkloadController is a ReplicaSet, ReplicationController or StatefulSet
// as scheduling sees it: its kind, identity and pod selector. A pod's
// controller owner reference names it.
type WorkloadController struct {
	Kind      string        `json:"kind"`
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	Selector  LabelSelector `json:"selector"`
}

// PodDisruptionBudget limits voluntary disruptions (preemption honours it).
type PodDisruptionBudget struct {
	Namespace string         `json:"namespace"`
	Name      string         `json:"name"`
	Selector  *LabelSelector `json:"selector,omitempty"`
	// DisruptionsAllowed is status.disruptionsAllowed.
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`
	// DisruptedPods lists pods (by name) already counted as disrupted.
	DisruptedPods map[string]time.Time `json:"disruptedPods,omitempty"`
}
