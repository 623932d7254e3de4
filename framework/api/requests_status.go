package api

import "github.com/schedkit/schedkit/resource"

// A resize in flight: a bound pod whose spec asks for other requests than
// the kubelet has allocated (status.containerStatuses[].allocatedResources)
// or actuated (status.containerStatuses[].resources). Until the resize is
// done the node must hold both, so kube-scheduler's NodeInfo counts the pod
// by component-helpers PodRequests with UseStatusResources, whose rule
// changed between the releases schedkit reproduces (StatusRule).
//
// kube-scheduler v1.36 (component-helpers v0.36 AggregateContainerRequests
// and determineEffectiveRequests; StatusPerContainer):
//
//   - for each regular container and each sidecar whose status (found by
//     name) reports resources, per resource the largest of the spec
//     request, the actuated request and the allocated amount; when the
//     pod's PodResizePending condition has reason Infeasible the spec is
//     left out (the kubelet will not grant it), so only the two status
//     amounts count, and a resource neither reports counts as absent;
//   - a container without a status entry, or whose entry reports no
//     resources (allocatedResources alone is not read), counts its spec;
//   - a plain init container always counts its spec;
//   - a container's status is the last entry of its name, init container
//     statuses after container statuses;
//   - pod-level requests (spec.resources.requests) the same way against
//     status.resources.requests and status.allocatedResources, when
//     status.resources is set; a resource of the spec that an infeasible
//     resize's status omits counts as zero.
//
// The non-zero defaults (100m cpu, 200 MiB memory per container missing a
// request) apply after, to each container's effective requests.
//
// kube-scheduler v1.37 (component-helpers v0.37 AggregateContainerRequests,
// aggregateContainerResourcesByFn, effectivePodLevelResources;
// StatusAggregated) adds up three totals of the pod instead, each over all
// containers by the sidecar rule, and counts per resource the largest:
//
//   - the spec total, left out when the resize is infeasible;
//   - the allocated total: each container's status.allocatedResources, or
//     its spec when it has none (nothing when the resize is infeasible);
//   - the actuated total: each container's status.resources.requests, else
//     its allocatedResources, else its spec (nothing when infeasible);
//   - plain init containers count their status too;
//   - a container's status is the first entry of its name, container
//     statuses before init container statuses;
//   - when status.allocatedResources and status.resources.requests (the
//     pod-level status) are both set, they are the allocated and actuated
//     totals, and the containers' statuses are not read;
//   - the non-zero defaults apply to each container's list of each total,
//     so a container with nothing to count counts the defaults;
//   - pod-level requests, when status.resources is set: per resource the
//     largest of spec.resources.requests (left out when infeasible),
//     status.resources.requests and status.allocatedResources, and each
//     name of that list replaces the containers' total (a name the list
//     lacks keeps the total; a name only the status has is added).
//
// The NodeResourcesFit filter checks an incoming pod by its spec alone
// (framework.PodInfo.SpecRequests); the scores and every account of a
// bound pod use the effective requests (framework.PodInfo.Requests).
// For a pod whose status reports no resources and no infeasible resize
// both rules count its spec.

// StatusRule names the rule by which a resize in flight makes a pod's
// requests differ from its spec's (RequestOptions.UseStatusResources).
type StatusRule uint8

const (
	// StatusAggregated is kube-scheduler v1.37's rule: the largest of the
	// pod's spec, allocated and actuated totals.
	StatusAggregated StatusRule = iota
	// StatusPerContainer is kube-scheduler v1.36's rule: the largest of
	// each running container's spec and status amounts, added up.
	StatusPerContainer
)

// String returns "Aggregated" or "PerContainer".
func (r StatusRule) String() string {
	if r == StatusPerContainer {
		return "PerContainer"
	}
	return "Aggregated"
}

// PodNodeRequests returns, in dense form, the requests a bound pod holds on
// its node in kube-scheduler v1.37's NodeInfo: PodRequests with
// UseStatusResources (framework.PodInfo.Requests).
func PodNodeRequests(pod *Pod) resource.Vector {
	if !StatusAffectsRequests(pod, StatusAggregated) {
		return PodRequestVector(pod)
	}
	return resource.VectorFrom(PodRequests(pod, RequestOptions{UseStatusResources: true}))
}

// aggregatedStatusRequests is the containers' part of kube-scheduler
// v1.37's rule (StatusAggregated), with nonMissing applied to each
// container's list.
func aggregatedStatusRequests(pod *Pod, nonMissing resource.List) resource.List {
	infeasible := pod.ResizeInfeasible()
	out := resource.List{}
	if !infeasible {
		out = aggregateContainers(pod, nonMissing, func(c *Container, _ bool) resource.List { return c.Resources.Requests })
	}
	if s := &pod.Status; s.AllocatedResources != nil && s.Resources != nil && s.Resources.Requests != nil {
		maxInto(out, s.Resources.Requests)
		maxInto(out, s.AllocatedResources)
		return out
	}
	maxInto(out, aggregateContainers(pod, nonMissing, func(c *Container, _ bool) resource.List {
		if cs := findContainerStatus(pod, c.Name); cs != nil && cs.Resources != nil && cs.Resources.Requests != nil {
			return cs.Resources.Requests
		}
		return allocatedRequests(pod, c, infeasible)
	}))
	maxInto(out, aggregateContainers(pod, nonMissing, func(c *Container, _ bool) resource.List {
		return allocatedRequests(pod, c, infeasible)
	}))
	return out
}

// allocatedRequests is container c's allocated requests in kube-scheduler
// v1.37's rule: its status's allocatedResources, else its spec, or nothing
// when the resize is infeasible.
func allocatedRequests(pod *Pod, c *Container, infeasible bool) resource.List {
	if cs := findContainerStatus(pod, c.Name); cs != nil && cs.AllocatedResources != nil {
		return cs.AllocatedResources
	}
	if infeasible {
		return nil
	}
	return c.Resources.Requests
}

// podLevelStatusRequests is kube-scheduler v1.37's effective pod-level
// requests of a pod whose status.resources is set: per resource the
// largest of spec.resources.requests (left out when the resize is
// infeasible), status.resources.requests and status.allocatedResources.
func podLevelStatusRequests(pod *Pod) resource.List {
	out := resource.List{}
	if !pod.ResizeInfeasible() {
		maxInto(out, pod.Spec.Resources.Requests)
	}
	maxInto(out, pod.Status.Resources.Requests)
	maxInto(out, pod.Status.AllocatedResources)
	return out
}

// findContainerStatus returns the status of the container named name, or
// nil, as kube-scheduler v1.37 finds it: the first entry of that name,
// container statuses before init container statuses.
func findContainerStatus(pod *Pod, name string) *ContainerStatus {
	for _, list := range [2][]ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// statusRequests returns the requests kube-scheduler v1.36 counts for a
// container whose spec requests are spec and whose status is cs
// (component-helpers determineEffectiveRequests): spec itself when cs is
// nil or reports no resources.
func statusRequests(spec resource.List, cs *ContainerStatus, infeasible bool) resource.List {
	if cs == nil || cs.Resources == nil {
		return spec
	}
	out := resource.List{}
	if !infeasible {
		maxInto(out, spec)
	}
	maxInto(out, cs.Resources.Requests)
	maxInto(out, cs.AllocatedResources)
	return out
}

// containerStatusOf returns the status of the container named name, or
// nil. kube-scheduler v1.36 indexes a pod's statuses by name, container
// statuses first and init container statuses after, so that the last
// entry of a name wins; this searches in the reverse order for the same
// answer.
func containerStatusOf(pod *Pod, name string) *ContainerStatus {
	for _, list := range [2][]ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := len(list) - 1; i >= 0; i-- {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// StatusAffectsRequests reports whether the pod's status may make its
// effective requests by rule differ from its spec's: some container, or
// the pod level, has status resources that are not all covered by its
// spec requests (a name the spec lacks, or a larger amount), or a resize
// is infeasible. When it returns false, PodRequests with and without
// UseStatusResources agree, non-zero defaults included.
func StatusAffectsRequests(pod *Pod, rule StatusRule) bool {
	if len(pod.Status.ContainerStatuses) == 0 && len(pod.Status.InitContainerStatuses) == 0 && pod.Status.Resources == nil {
		// v1.37 counts an infeasible resize's status amounts alone, and
		// here there are none.
		return rule == StatusAggregated && pod.ResizeInfeasible()
	}
	if rule == StatusAggregated {
		return aggregatedStatusAffects(pod)
	}
	infeasible := pod.ResizeInfeasible()
	differs := func(spec resource.List, cs *ContainerStatus) bool {
		if cs == nil || cs.Resources == nil {
			return false
		}
		return infeasible || !coveredBy(cs.Resources.Requests, spec) || !coveredBy(cs.AllocatedResources, spec)
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if differs(c.Resources.Requests, containerStatusOf(pod, c.Name)) {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.IsSidecar() && differs(c.Resources.Requests, containerStatusOf(pod, c.Name)) {
			return true
		}
	}
	if r := pod.Status.Resources; r != nil && hasPodLevelRequests(pod) {
		if infeasible {
			return true
		}
		// Only the spec's names count at the pod level.
		for n, q := range pod.Spec.Resources.Requests {
			if !isPodLevelResource(n) {
				continue
			}
			if a, ok := r.Requests[n]; ok && a.Cmp(q) > 0 {
				return true
			}
			if a, ok := pod.Status.AllocatedResources[n]; ok && a.Cmp(q) > 0 {
				return true
			}
		}
	}
	return false
}

// aggregatedStatusAffects is StatusAffectsRequests for kube-scheduler
// v1.37's rule: each total is at most the spec total, per resource, when
// each container's allocated and actuated lists are covered by its spec
// and keep its cpu and memory names (a missing one would take the
// non-zero default), or when the pod-level status totals are covered by
// the spec total; the pod-level requests stay the spec's when the
// pod-level status is covered by them.
func aggregatedStatusAffects(pod *Pod) bool {
	if pod.ResizeInfeasible() {
		return true
	}
	s := &pod.Status
	podLevel := hasPodLevelRequests(pod)
	if s.Resources != nil && podLevel && (!podLevelCovered(s.Resources.Requests, pod.Spec.Resources.Requests) || !podLevelCovered(s.AllocatedResources, pod.Spec.Resources.Requests)) {
		return true
	}
	if s.AllocatedResources != nil && s.Resources != nil && s.Resources.Requests != nil {
		spec := PodRequests(pod, RequestOptions{ExcludeOverhead: true, SkipPodLevelResources: true})
		for _, l := range [2]resource.List{s.Resources.Requests, s.AllocatedResources} {
			for n, q := range l {
				if podLevel && isPodLevelResource(n) {
					continue // the pod-level requests replace it
				}
				if t, ok := spec[n]; !ok || q.Cmp(t) > 0 {
					return true
				}
			}
		}
		return false
	}
	differs := func(c *Container) bool {
		cs := findContainerStatus(pod, c.Name)
		if cs == nil {
			return false
		}
		spec := c.Resources.Requests
		allocated := spec
		if cs.AllocatedResources != nil {
			allocated = cs.AllocatedResources
		}
		actuated := allocated
		if cs.Resources != nil && cs.Resources.Requests != nil {
			actuated = cs.Resources.Requests
		}
		return !coveredKeepingDefaults(allocated, spec) || !coveredKeepingDefaults(actuated, spec)
	}
	for i := range pod.Spec.Containers {
		if differs(&pod.Spec.Containers[i]) {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if differs(&pod.Spec.InitContainers[i]) {
			return true
		}
	}
	return false
}

// podLevelCovered reports whether every pod-level resource of l is named
// in spec with at least that amount.
func podLevelCovered(l, spec resource.List) bool {
	for n, q := range l {
		if !isPodLevelResource(n) {
			continue
		}
		if s, ok := spec[n]; !ok || q.Cmp(s) > 0 {
			return false
		}
	}
	return true
}

// coveredKeepingDefaults is coveredBy, and l names cpu and memory where
// spec does, so that the non-zero defaults fill the same names of both.
func coveredKeepingDefaults(l, spec resource.List) bool {
	for _, n := range [2]resource.Name{resource.CPU, resource.Memory} {
		if _, ok := spec[n]; ok {
			if _, ok := l[n]; !ok {
				return false
			}
		}
	}
	return coveredBy(l, spec)
}

// coveredBy reports whether every amount of l is named in spec with at
// least that amount.
func coveredBy(l, spec resource.List) bool {
	for n, q := range l {
		if s, ok := spec[n]; !ok || q.Cmp(s) > 0 {
			return false
		}
	}
	return true
}
