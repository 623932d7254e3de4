package api

import (
	"fmt"
	"time"
)

// PodSchedulingGroup is a pod's reference to the kube-scheduler PodGroup it
// belongs to (pod.spec.schedulingGroup, Kubernetes v1.36, alpha behind the
// GenericWorkload feature gate): a WorkloadPodGroup of the pod's namespace.
type PodSchedulingGroup struct {
	PodGroupName *string `json:"podGroupName,omitempty"`
}

// WorkloadPodGroup is Kubernetes v1.36's PodGroup (scheduling.k8s.io/v1alpha2,
// alpha): the runtime instance of a group of pods scheduled together, by
// its scheduling policy (basic: pod by pod; gang: all of minCount or
// none) and constraints (one topology key the whole group must share).
// Field names and JSON tags follow the API. (scheduler-plugins' PodGroup,
// read by Coscheduling, is PodGroup.)
type WorkloadPodGroup struct {
	ObjectMeta `json:"metadata"`
	Spec       WorkloadPodGroupSpec `json:"spec"`
	// Status is what the scheduler observed: its PodGroupScheduled
	// condition (set by the pod group scheduling cycle).
	Status WorkloadPodGroupStatus `json:"status,omitzero"`
}

// WorkloadPodGroupStatus is a WorkloadPodGroup's status.
type WorkloadPodGroupStatus struct {
	Conditions []Condition `json:"conditions,omitempty"`
}

// Condition is one observed condition of an object (metav1.Condition
// without observedGeneration: schedkit's objects have no generation).
type Condition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime time.Time       `json:"lastTransitionTime,omitzero"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// The PodGroupScheduled condition kube-scheduler v1.36 sets on a
// WorkloadPodGroup after each pod group cycle, and its reasons.
const (
	PodGroupScheduled            = "PodGroupScheduled"
	PodGroupReasonScheduled      = "Scheduled"
	PodGroupReasonUnschedulable  = "Unschedulable"
	PodGroupReasonSchedulerError = "SchedulerError"
)

// FindCondition returns the condition of type t, or nil.
func FindCondition(conds []Condition, t string) *Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// SetCondition is apimachinery's SetStatusCondition: it adds c, or updates
// the condition of its type (its LastTransitionTime moves to c's, or now
// when c has none, only when the status changes), and reports whether
// anything changed.
func SetCondition(conds *[]Condition, c Condition, now time.Time) bool {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = now
	}
	old := FindCondition(*conds, c.Type)
	if old == nil {
		*conds = append(*conds, c)
		return true
	}
	changed := false
	if old.Status != c.Status {
		old.Status, old.LastTransitionTime = c.Status, c.LastTransitionTime
		changed = true
	}
	if old.Reason != c.Reason {
		old.Reason = c.Reason
		changed = true
	}
	if old.Message != c.Message {
		old.Message = c.Message
		changed = true
	}
	return changed
}

// WorkloadPodGroupSpec is a WorkloadPodGroup's spec.
type WorkloadPodGroupSpec struct {
	// PodGroupTemplateRef names the Workload template the group was made
	// from (informational here).
	PodGroupTemplateRef   *PodGroupTemplateReference     `json:"podGroupTemplateRef,omitempty"`
	SchedulingPolicy      PodGroupSchedulingPolicy       `json:"schedulingPolicy"`
	SchedulingConstraints *PodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`
	// DisruptionMode says how the group may be preempted (alpha,
	// WorkloadAwarePreemption): Pod (default) one pod at a time, PodGroup
	// all of it together.
	DisruptionMode    *DisruptionMode `json:"disruptionMode,omitempty"`
	PriorityClassName string          `json:"priorityClassName,omitempty"`
	// Priority is the group's priority in workload-aware preemption (nil:
	// 0).
	Priority *int32 `json:"priority,omitempty"`
}

// DisruptionMode is how a WorkloadPodGroup may be disrupted.
type DisruptionMode string

// Disruption modes.
const (
	DisruptionModePod      DisruptionMode = "Pod"
	DisruptionModePodGroup DisruptionMode = "PodGroup"
)

// PodGroupTemplateReference points at a Workload's pod group template.
type PodGroupTemplateReference struct {
	Workload *WorkloadPodGroupTemplateReference `json:"workload,omitempty"`
}

// WorkloadPodGroupTemplateReference names a Workload and one of its
// templates.
type WorkloadPodGroupTemplateReference struct {
	WorkloadName         string `json:"workloadName"`
	PodGroupTemplateName string `json:"podGroupTemplateName"`
}

// PodGroupSchedulingPolicy sets how a group is scheduled; exactly one field
// is set.
type PodGroupSchedulingPolicy struct {
	Basic *BasicSchedulingPolicy `json:"basic,omitempty"`
	Gang  *GangSchedulingPolicy  `json:"gang,omitempty"`
}

// BasicSchedulingPolicy schedules the group's pods one by one.
type BasicSchedulingPolicy struct{}

// GangSchedulingPolicy schedules minCount pods of the group together or
// none of them.
type GangSchedulingPolicy struct {
	MinCount int32 `json:"minCount"`
}

// PodGroupSchedulingConstraints are constraints on the whole group.
type PodGroupSchedulingConstraints struct {
	// Topology asks for all the group's pods in one domain of its key (at
	// most one constraint in v1.36).
	Topology []TopologyConstraint `json:"topology,omitempty"`
}

// TopologyConstraint is a node label key whose value the group's pods share.
type TopologyConstraint struct {
	Key string `json:"key"`
}

// Workload is Kubernetes v1.36's Workload (scheduling.k8s.io/v1alpha2): the
// templates a controller creates WorkloadPodGroups from.
type Workload struct {
	ObjectMeta `json:"metadata"`
	Spec       WorkloadSpec `json:"spec"`
}

// WorkloadSpec is a Workload's spec.
type WorkloadSpec struct {
	ControllerRef     *TypedLocalObjectReference `json:"controllerRef,omitempty"`
	PodGroupTemplates []PodGroupTemplate         `json:"podGroupTemplates"`
}

// TypedLocalObjectReference names an object of the same namespace.
type TypedLocalObjectReference struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// PodGroupTemplate is one template of a Workload.
type PodGroupTemplate struct {
	Name                  string                         `json:"name"`
	SchedulingPolicy      PodGroupSchedulingPolicy       `json:"schedulingPolicy"`
	SchedulingConstraints *PodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`
	DisruptionMode        *DisruptionMode                `json:"disruptionMode,omitempty"`
	PriorityClassName     string                         `json:"priorityClassName,omitempty"`
	Priority              *int32                         `json:"priority,omitempty"`
}

// Key returns "namespace/name".
func (g *WorkloadPodGroup) Key() string { return g.Namespace + "/" + g.Name }

// MinCount returns the group's gang minCount, or 0 for a basic group.
func (g *WorkloadPodGroup) MinCount() int {
	if gang := g.Spec.SchedulingPolicy.Gang; gang != nil {
		return int(gang.MinCount)
	}
	return 0
}

// Validate checks what the v1.36 API validation rejects: an empty name,
// a scheduling policy with neither or both of basic and gang, a gang
// minCount below 1, more than one topology constraint or an empty key.
// The error names the group, the field and the value.
func (g *WorkloadPodGroup) Validate() error {
	if g == nil {
		return fmt.Errorf("PodGroup: nil")
	}
	if g.Name == "" {
		return fmt.Errorf("PodGroup: metadata.name is empty (namespace %q)", g.Namespace)
	}
	return validateGroupPolicy("PodGroup "+g.Key()+": spec", g.Spec.SchedulingPolicy, g.Spec.SchedulingConstraints, g.Spec.DisruptionMode)
}

// PriorityValue is the group's priority in workload-aware preemption
// (kube's PodGroupPriority: spec.priority, or 0).
func (g *WorkloadPodGroup) PriorityValue() int32 {
	if g.Spec.Priority != nil {
		return *g.Spec.Priority
	}
	return 0
}

func validateGroupPolicy(prefix string, p PodGroupSchedulingPolicy, c *PodGroupSchedulingConstraints, dm *DisruptionMode) error {
	if dm != nil && *dm != DisruptionModePod && *dm != DisruptionModePodGroup {
		return fmt.Errorf("%s.disruptionMode=%q: must be %q or %q", prefix, *dm, DisruptionModePod, DisruptionModePodGroup)
	}
	switch {
	case p.Basic == nil && p.Gang == nil:
		return fmt.Errorf("%s.schedulingPolicy: exactly one of basic and gang must be set, got neither", prefix)
	case p.Basic != nil && p.Gang != nil:
		return fmt.Errorf("%s.schedulingPolicy: exactly one of basic and gang must be set, got both", prefix)
	case p.Gang != nil && p.Gang.MinCount < 1:
		return fmt.Errorf("%s.schedulingPolicy.gang.minCount=%d: must be at least 1", prefix, p.Gang.MinCount)
	}
	if c != nil {
		if len(c.Topology) > 1 {
			return fmt.Errorf("%s.schedulingConstraints.topology: %d constraints: at most 1", prefix, len(c.Topology))
		}
		for i, t := range c.Topology {
			if t.Key == "" {
				return fmt.Errorf("%s.schedulingConstraints.topology[%d].key: must not be empty", prefix, i)
			}
		}
	}
	return nil
}

// Validate checks each template as WorkloadPodGroup.Validate checks a
// group, and that template names are set and unique (at most 8, as the
// API).
func (w *Workload) Validate() error {
	if w == nil {
		return fmt.Errorf("Workload: nil")
	}
	if w.Name == "" {
		return fmt.Errorf("Workload: metadata.name is empty (namespace %q)", w.Namespace)
	}
	if n := len(w.Spec.PodGroupTemplates); n == 0 || n > 8 {
		return fmt.Errorf("Workload %s/%s: spec.podGroupTemplates: %d templates: want 1 to 8", w.Namespace, w.Name, n)
	}
	seen := map[string]bool{}
	for i, t := range w.Spec.PodGroupTemplates {
		prefix := fmt.Sprintf("Workload %s/%s: spec.podGroupTemplates[%d]", w.Namespace, w.Name, i)
		if t.Name == "" || seen[t.Name] {
			return fmt.Errorf("%s.name=%q: must be set and unique", prefix, t.Name)
		}
		seen[t.Name] = true
		if err := validateGroupPolicy(prefix, t.SchedulingPolicy, t.SchedulingConstraints, t.DisruptionMode); err != nil {
			return err
		}
	}
	return nil
}

// WorkloadPodGroupKey returns "namespace/name" of the WorkloadPodGroup the
// pod names in spec.schedulingGroup, or "".
func WorkloadPodGroupKey(pod *Pod) string {
	if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil && *g.PodGroupName != "" {
		return pod.Namespace + "/" + *g.PodGroupName
	}
	return ""
}
