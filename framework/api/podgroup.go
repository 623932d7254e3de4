package api

import (
	"fmt"

	"github.com/schedkit/schedkit/resource"
)

// PodGroupLabel is the label by which a pod joins a PodGroup of its
// namespace, as scheduler-plugins' v1alpha1.PodGroupLabel.
const PodGroupLabel = "scheduling.x-k8s.io/pod-group"

// PodGroup is scheduler-plugins' PodGroup (scheduling.x-k8s.io/v1alpha1),
// the gang the Coscheduling plugin schedules all or nothing: pods name it
// with the PodGroupLabel label in the same namespace. Field names and JSON
// tags follow the CRD.
type PodGroup struct {
	ObjectMeta `json:"metadata"`
	Spec       PodGroupSpec `json:"spec"`
}

// PodGroupSpec is what a gang needs.
type PodGroupSpec struct {
	// MinMember is how many pods must be placed together; at least 1.
	MinMember int32 `json:"minMember,omitempty"`
	// MinResources, when set, must be free in the cluster (summed over
	// nodes, with pods = MinMember) before any pod of the group is placed.
	MinResources resource.List `json:"minResources,omitempty"`
	// ScheduleTimeoutSeconds is how long placed pods wait at Permit for the
	// rest of the group (absent or 0: the plugin's permitWaitingTimeSeconds).
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
}

// Key returns "namespace/name".
func (g *PodGroup) Key() string { return g.Namespace + "/" + g.Name }

// Validate checks what the CRD's validation rejects or no scheduler can
// use: an empty name, minMember below 1 (the CRD's minimum), a negative
// scheduleTimeoutSeconds (scheduler-plugins would wait a negative time,
// i.e. reject at once) and negative minResources. The error names the
// group, the field and the value.
func (g *PodGroup) Validate() error {
	if g == nil {
		return fmt.Errorf("PodGroup: nil")
	}
	if g.Name == "" {
		return fmt.Errorf("PodGroup: metadata.name is empty (namespace %q)", g.Namespace)
	}
	if g.Spec.MinMember < 1 {
		return fmt.Errorf("PodGroup %s: spec.minMember=%d: must be at least 1", g.Key(), g.Spec.MinMember)
	}
	if t := g.Spec.ScheduleTimeoutSeconds; t != nil && *t < 0 {
		return fmt.Errorf("PodGroup %s: spec.scheduleTimeoutSeconds=%d: must not be negative", g.Key(), *t)
	}
	for _, n := range g.Spec.MinResources.Names() {
		if q := g.Spec.MinResources[n]; q.Sign() < 0 {
			return fmt.Errorf("PodGroup %s: spec.minResources[%q]=%s: must not be negative", g.Key(), n, q.String())
		}
	}
	return nil
}

// PodGroupKey returns "namespace/name" of the PodGroup the pod names with
// PodGroupLabel, or "" when it names none (scheduler-plugins'
// GetPodGroupFullName).
func PodGroupKey(pod *Pod) string {
	name := pod.Labels[PodGroupLabel]
	if name == "" {
		return ""
	}
	return pod.Namespace + "/" + name
}
