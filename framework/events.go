package framework

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// ActionType is what changed in a cluster event: bit flags that compose, as
// kube-scheduler v1.36's framework.ActionType (kube-scheduler/framework
// types.go).
type ActionType int64

// Action types. The UpdateNodeX and UpdatePodX actions name the part of a
// node or pod an update changed; Update is all of them.
const (
	Add ActionType = 1 << iota
	Delete
	// UpdateNodeAllocatable: status.allocatable changed.
	UpdateNodeAllocatable
	// UpdateNodeLabel: labels changed.
	UpdateNodeLabel
	// UpdateNodeTaint: taints changed, or spec.unschedulable went false.
	UpdateNodeTaint
	// UpdateNodeCondition: a condition's status changed (schedkit's Node
	// models no conditions and never produces it; kept for plugins that
	// register it).
	UpdateNodeCondition
	// UpdateNodeAnnotation: annotations changed.
	UpdateNodeAnnotation
	// UpdateNodeDeclaredFeature: declared features changed (not modelled).
	UpdateNodeDeclaredFeature
	// UpdatePodLabel: labels changed.
	UpdatePodLabel
	// UpdatePodScaleDown: some resource request went down or away.
	UpdatePodScaleDown
	// UpdatePodToleration: tolerations were added.
	UpdatePodToleration
	// UpdatePodSchedulingGatesEliminated: the last scheduling gate went.
	UpdatePodSchedulingGatesEliminated
	// UpdatePodGeneratedResourceClaim: the claims generated for the
	// pod's templates (status.resourceClaimStatuses) changed.
	UpdatePodGeneratedResourceClaim

	// All is every action.
	All ActionType = 1<<iota - 1
	// Update is every kind of update.
	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition | UpdateNodeAnnotation |
		UpdateNodeDeclaredFeature | UpdatePodLabel | UpdatePodScaleDown | UpdatePodToleration |
		UpdatePodSchedulingGatesEliminated | UpdatePodGeneratedResourceClaim
	// None is no action (used internally).
	None ActionType = 0
)

var actionNames = map[ActionType]string{
	Add: "Add", Delete: "Delete", UpdateNodeAllocatable: "UpdateNodeAllocatable", UpdateNodeLabel: "UpdateNodeLabel",
	UpdateNodeTaint: "UpdateNodeTaint", UpdateNodeCondition: "UpdateNodeCondition", UpdateNodeAnnotation: "UpdateNodeAnnotation",
	UpdateNodeDeclaredFeature: "UpdateNodeDeclaredFeature", UpdatePodLabel: "UpdatePodLabel", UpdatePodScaleDown: "UpdatePodScaleDown",
	UpdatePodToleration: "UpdatePodToleration", UpdatePodSchedulingGatesEliminated: "UpdatePodSchedulingGatesEliminated",
	UpdatePodGeneratedResourceClaim: "UpdatePodGeneratedResourceClaim", All: "All", Update: "Update",
}

// String names a single action (or All, Update) as kube does; a
// combination of flags prints as ActionType(n).
func (a ActionType) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("ActionType(%d)", int64(a))
}

// EventResource is the kind of object a cluster event is about.
type EventResource string

// Event resources: kube-scheduler v1.36's, plus Koordinator's NodeMetric.
// ResourceAssignedPod and ResourceUnscheduledPod are what the scheduler reports for a pod
// event (a pod with a node, a pod without one); a plugin registers ResourcePod,
// which matches both.
const (
	ResourcePod            EventResource = "Pod"
	ResourceAssignedPod    EventResource = "AssignedPod"
	ResourceUnscheduledPod EventResource = "UnschedulablePod"
	ResourceNode           EventResource = "Node"
	// ResourceNodeMetric is Koordinator's NodeMetric (its event resource
	// "nodemetrics.v1alpha1.slo.koordinator.sh").
	ResourceNodeMetric EventResource = "nodemetrics.v1alpha1.slo.koordinator.sh"
	// Storage objects, for the volume plugins: events about them are
	// reported through the same entry points as node and pod events.
	ResourcePersistentVolume      EventResource = "PersistentVolume"
	ResourcePersistentVolumeClaim EventResource = "PersistentVolumeClaim"
	ResourceStorageClass          EventResource = "storage.k8s.io/StorageClass"
	ResourceCSINode               EventResource = "storage.k8s.io/CSINode"
	ResourceCSIDriver             EventResource = "storage.k8s.io/CSIDriver"
	ResourceCSIStorageCapacity    EventResource = "storage.k8s.io/CSIStorageCapacity"
	ResourceVolumeAttachment      EventResource = "storage.k8s.io/VolumeAttachment"
	// Dynamic Resource Allocation objects, for DynamicResources.
	ResourceResourceClaim EventResource = "resource.k8s.io/ResourceClaim"
	ResourceResourceSlice EventResource = "resource.k8s.io/ResourceSlice"
	ResourceDeviceClass   EventResource = "resource.k8s.io/DeviceClass"
	// ResourcePodGroup is kube-scheduler's PodGroup (GangScheduling).
	ResourcePodGroup EventResource = "scheduling.k8s.io/PodGroup"
	// ResourceCoschedulingPodGroup is scheduler-plugins' PodGroup
	// (Coscheduling's "podgroups.v1alpha1.scheduling.x-k8s.io").
	ResourceCoschedulingPodGroup EventResource = "podgroups.v1alpha1.scheduling.x-k8s.io"
	// ResourceNodeLoad is the Trimaran plugins' measured node load.
	ResourceNodeLoad EventResource = "NodeLoad"
	// ResourceWildCard matches every resource.
	ResourceWildCard EventResource = "*"
)

// ClusterEvent is a change of the cluster that may make a rejected pod
// schedulable: which kind of object, and what happened to it.
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
	// CustomLabel names special events (UnschedulableTimeout,
	// ForceActivate) in Label.
	CustomLabel string
}

// Events the scheduler reports, as kube-scheduler v1.36's
// (pkg/scheduler/framework/events.go).
var (
	EventAssignedPodAdd       = ClusterEvent{Resource: ResourceAssignedPod, ActionType: Add}
	EventAssignedPodUpdate    = ClusterEvent{Resource: ResourceAssignedPod, ActionType: Update}
	EventAssignedPodDelete    = ClusterEvent{Resource: ResourceAssignedPod, ActionType: Delete}
	EventUnscheduledPodAdd    = ClusterEvent{Resource: ResourceUnscheduledPod, ActionType: Add}
	EventUnscheduledPodUpdate = ClusterEvent{Resource: ResourceUnscheduledPod, ActionType: Update}
	EventUnscheduledPodDelete = ClusterEvent{Resource: ResourceUnscheduledPod, ActionType: Delete}
	// EventUnschedulableTimeout is the leftover flush of pods that waited
	// longer than the unschedulable pool allows.
	EventUnschedulableTimeout = ClusterEvent{Resource: ResourceWildCard, ActionType: All, CustomLabel: "UnschedulableTimeout"}
	// EventForceActivate moves pods whatever their rejectors registered.
	EventForceActivate = ClusterEvent{Resource: ResourceWildCard, ActionType: All, CustomLabel: "ForceActivate"}
)

// Label names the event: its CustomLabel, else resource then action
// ("NodeAdd", "PodUpdatePodLabel").
func (e ClusterEvent) Label() string {
	if e.CustomLabel != "" {
		return e.CustomLabel
	}
	return fmt.Sprintf("%v%v", e.Resource, e.ActionType)
}

// IsWildCard reports whether e is the wildcard event (every resource, every
// action), which moves every pod.
func (e ClusterEvent) IsWildCard() bool { return e.Resource == ResourceWildCard && e.ActionType == All }

// Match reports whether the registered event e covers incoming: e is the
// wildcard, or its resource covers incoming's (WildCard covers all, Pod
// covers AssignedPod and UnscheduledPod) and incoming's action is one of
// e's and no broader (a registered Update matches an incoming
// UpdateNodeLabel; a registered UpdateNodeLabel does not match an incoming
// Update). As kube-scheduler v1.36's MatchClusterEvents.
func (e ClusterEvent) Match(incoming ClusterEvent) bool {
	if e.IsWildCard() {
		return true
	}
	resOK := e.Resource == ResourceWildCard || e.Resource == incoming.Resource ||
		(e.Resource == ResourcePod && (incoming.Resource == ResourceAssignedPod || incoming.Resource == ResourceUnscheduledPod))
	return resOK && e.ActionType&incoming.ActionType != 0 && incoming.ActionType <= e.ActionType
}

// QueueingHint is a plugin's verdict on whether an event may make a pod it
// rejected schedulable.
type QueueingHint int

// Queueing hints.
const (
	// QueueSkip: the event cannot change the plugin's verdict; the pod
	// stays in the unschedulable pool.
	QueueSkip QueueingHint = iota
	// Queue: the pod may be schedulable now; it is retried.
	Queue
)

func (h QueueingHint) String() string {
	switch h {
	case QueueSkip:
		return "QueueSkip"
	case Queue:
		return "Queue"
	}
	return fmt.Sprintf("QueueingHint(%d)", int(h))
}

// QueueingHintFn decides whether an event may make pod, which the plugin
// rejected, schedulable. oldObj is nil for an add, newObj nil for a delete;
// for node events they are *Node, for pod events *PodInfo (the pod with
// its compiled terms and requests), for NodeMetric events *NodeMetric
// (EventObjects converts them). snap is the cluster after the event, for plugins that
// need more than the objects (services, namespaces). An error counts as
// Queue, so that no pod is stuck by a failing hint.
type QueueingHintFn func(snap *Snapshot, pod *PodInfo, oldObj, newObj any) (QueueingHint, error)

// EventObjects returns an event's old and new objects as *T: nil stays nil;
// another type is an error naming both (kube's util.As).
func EventObjects[T any](oldObj, newObj any) (oldT, newT *T, err error) {
	conv := func(o any) (*T, error) {
		if o == nil {
			return nil, nil
		}
		t, ok := o.(*T)
		if !ok {
			return nil, fmt.Errorf("framework: event object of type %T, want %T", o, t)
		}
		return t, nil
	}
	if oldT, err = conv(oldObj); err != nil {
		return nil, nil, err
	}
	if newT, err = conv(newObj); err != nil {
		return nil, nil, err
	}
	return oldT, newT, nil
}

// SamePod reports whether a and b are the same pod: the same UID when
// either has one, else the same namespace and name.
func SamePod(a, b *api.Pod) bool { return samePod(a, b) }

// ClusterEventWithHint is an event a plugin registers, with its hint
// function (nil: always Queue).
type ClusterEventWithHint struct {
	Event          ClusterEvent
	QueueingHintFn QueueingHintFn
}

// EnqueueExtensions is implemented by PreEnqueue, PreFilter, Filter,
// Reserve and Permit plugins that know which cluster events can undo their
// rejections (kube-scheduler's EnqueueExtensions). A pod such a plugin
// rejected is retried only after an event it registered whose hint says
// Queue. A plugin at those points without EnqueueExtensions is treated as
// registering every event with Queue (it is retried on every event).
// Returning no events means no event can help: the pod waits for the
// unschedulable pool's leftover flush. The list is read once, when the
// scheduler is built.
type EnqueueExtensions interface {
	Plugin
	EventsToRegister(ctx context.Context) ([]ClusterEventWithHint, error)
}

// AllEvents is what a plugin without EnqueueExtensions registers: every
// resource with every action, each always Queue (kube-scheduler's
// UnrollWildCardResource).
func AllEvents() []ClusterEventWithHint {
	rs := []EventResource{ResourcePod, ResourceNode, ResourcePersistentVolume, ResourcePersistentVolumeClaim, ResourceCSINode, ResourceCSIDriver, ResourceCSIStorageCapacity,
		ResourceStorageClass, ResourceVolumeAttachment, ResourceNodeMetric, ResourcePodGroup, ResourceCoschedulingPodGroup, ResourceNodeLoad}
	out := make([]ClusterEventWithHint, len(rs))
	for i, r := range rs {
		out[i] = ClusterEventWithHint{Event: ClusterEvent{Resource: r, ActionType: All}}
	}
	return out
}

// NodeUpdateEvents returns the events an update of a node from oldNode to
// newNode reports, one per kind of change, in kube-scheduler v1.36's order
// (NodeSchedulingPropertiesChange): spec.unschedulable turned off
// (reported as UpdateNodeTaint), allocatable, labels, taints, annotations.
// None when nothing scheduling reads changed (an update of images or
// capacity alone reports nothing, as in kube).
func NodeUpdateEvents(oldNode, newNode *api.Node) []ClusterEvent {
	var out []ClusterEvent
	add := func(a ActionType) { out = append(out, ClusterEvent{Resource: ResourceNode, ActionType: a}) }
	if oldNode.Spec.Unschedulable != newNode.Spec.Unschedulable && !newNode.Spec.Unschedulable {
		add(UpdateNodeTaint)
	}
	if !quantitiesEqual(oldNode.Status.Allocatable, newNode.Status.Allocatable) {
		add(UpdateNodeAllocatable)
	}
	if !stringMapsEqual(oldNode.Labels, newNode.Labels) {
		add(UpdateNodeLabel)
	}
	if !slices.EqualFunc(oldNode.Spec.Taints, newNode.Spec.Taints, taintEqual) {
		add(UpdateNodeTaint)
	}
	if !stringMapsEqual(oldNode.Annotations, newNode.Annotations) {
		add(UpdateNodeAnnotation)
	}
	return out
}

// PodUpdateEvents returns the events an update of a pod from oldPod to
// newPod reports, as kube-scheduler v1.36's PodSchedulingPropertiesChange:
// UpdatePodLabel, UpdatePodScaleDown (a request went down or away, the
// requests counted as release v's NodeInfo counts them),
// UpdatePodSchedulingGatesEliminated (the last gate went),
// UpdatePodToleration (the number of tolerations changed; the API only
// adds them), UpdatePodGeneratedResourceClaim (status.resourceClaimStatuses
// changed), in that order, on AssignedPod when newPod has a node and
// UnscheduledPod otherwise; a plain Update when none of them applies.
func PodUpdateEvents(oldPod, newPod *api.Pod, v KubeVersion) []ClusterEvent {
	r := ResourceAssignedPod
	if newPod.Spec.NodeName == "" {
		r = ResourceUnscheduledPod
	}
	var out []ClusterEvent
	add := func(a ActionType) { out = append(out, ClusterEvent{Resource: r, ActionType: a}) }
	if !stringMapsEqual(oldPod.Labels, newPod.Labels) {
		add(UpdatePodLabel)
	}
	if podScaledDown(oldPod, newPod, v.StatusRule()) {
		add(UpdatePodScaleDown)
	}
	if len(newPod.Spec.SchedulingGates) == 0 && len(oldPod.Spec.SchedulingGates) != 0 {
		add(UpdatePodSchedulingGatesEliminated)
	}
	if len(oldPod.Spec.Tolerations) != len(newPod.Spec.Tolerations) {
		add(UpdatePodToleration)
	}
	if !claimStatusesEqual(oldPod.Status.ResourceClaimStatuses, newPod.Status.ResourceClaimStatuses) {
		add(UpdatePodGeneratedResourceClaim)
	}
	if len(out) == 0 {
		add(Update)
	}
	return out
}

// podScaledDown reports whether some effective request of oldPod (status
// resources counted by rule) is gone or lower in newPod (kube's
// extractPodScaleDown).
func podScaledDown(oldPod, newPod *api.Pod, rule api.StatusRule) bool {
	opts := api.RequestOptions{UseStatusResources: true, StatusRule: rule}
	oldReq, newReq := api.PodRequests(oldPod, opts), api.PodRequests(newPod, opts)
	for name, oq := range oldReq {
		nq, ok := newReq[name]
		if !ok || oq.MilliValue() > nq.MilliValue() {
			return true
		}
	}
	return false
}

// stringMapsEqual is equality.Semantic.DeepEqual for label maps: nil and
// empty are equal.
func stringMapsEqual(a, b map[string]string) bool { return maps.Equal(a, b) }

// taintEqual compares taints by value (TimeAdded by time, not pointer).
func taintEqual(a, b api.Taint) bool {
	if a.Key != b.Key || a.Value != b.Value || a.Effect != b.Effect || (a.TimeAdded == nil) != (b.TimeAdded == nil) {
		return false
	}
	return a.TimeAdded == nil || a.TimeAdded.Equal(*b.TimeAdded)
}

// quantitiesEqual compares resource lists by value (1000m equals 1).
func quantitiesEqual(a, b resource.List) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		o, ok := b[k]
		if !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// claimStatusesEqual is resourceclaim.PodStatusEqual: the same entries in
// the same order.
func claimStatusesEqual(a, b []api.PodResourceClaimStatus) bool {
	return slices.EqualFunc(a, b, func(x, y api.PodResourceClaimStatus) bool {
		if x.Name != y.Name || (x.ResourceClaimName == nil) != (y.ResourceClaimName == nil) {
			return false
		}
		return x.ResourceClaimName == nil || *x.ResourceClaimName == *y.ResourceClaimName
	})
}
