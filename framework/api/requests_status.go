package api

import "github.com/schedkit/schedkit/resource"

// A resize in flight: a bound pod whose spec asks for other requests than
// the kubelet has allocated (status.containerStatuses[].allocatedResources)
// or actuated (status.containerStatuses[].resources). Until the resize is
// done the node must hold both, so kube-scheduler v1.36's NodeInfo counts
// the pod by component-helpers v0.36 PodRequests with UseStatusResources:
//
//   - for each regular container and each sidecar whose status (found by
//     name) reports resources, per resource the largest of the spec request,
//     the actuated request and the allocated amount; when the pod's
//     PodResizePending condition has reason Infeasible the spec is left out
//     (the kubelet will not grant it), so only the two status amounts
//     count, and a resource neither reports counts as absent;
//   - a container without a status entry, or whose entry reports no
//     resources (allocatedResources alone is not read), counts its spec;
//   - a plain init container always counts its spec;
//   - pod-level requests (spec.resources.requests) the same way against
//     status.resources.requests and status.allocatedResources, when
//     status.resources is set; a resource of the spec that an infeasible
//     resize's status omits counts as zero.
//
// The non-zero defaults (100m cpu, 200 MiB memory per container missing a
// request) apply after, to the effective requests. The NodeResourcesFit
// filter checks an incoming pod by its spec alone
// (framework.PodInfo.SpecRequests); the scores and every account of a
// bound pod use the effective requests (framework.PodInfo.Requests).
//
// kube-scheduler v1.37 (component-helpers v0.37) changed the rule: it
// aggregates the spec, the allocated and the actuated requests of all
// containers separately (init containers included, allocatedResources read
// without resources, a container without status counting nothing when the
// resize is infeasible), or takes the pod-level status.allocatedResources
// and status.resources.requests as the two status totals when both are
// set, and counts the per-resource maximum of the three pod totals.
// schedkit reproduces v1.36.

// PodNodeRequests returns, in dense form, the requests a bound pod holds on
// its node in kube-scheduler v1.36's NodeInfo: PodRequests with
// UseStatusResources (framework.PodInfo.Requests).
func PodNodeRequests(pod *Pod) resource.Vector {
	if !StatusAffectsRequests(pod) {
		return PodRequestVector(pod)
	}
	return resource.VectorFrom(PodRequests(pod, RequestOptions{UseStatusResources: true}))
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
// effective requests differ from its spec's: some regular container or
// sidecar, or the pod level, has status resources that are not all
// covered by its spec requests (a name the spec lacks, or a larger
// amount), or a resize is infeasible. When it returns false,
// PodRequests with and without UseStatusResources agree, non-zero
// defaults included.
func StatusAffectsRequests(pod *Pod) bool {
	if len(pod.Status.ContainerStatuses) == 0 && len(pod.Status.InitContainerStatuses) == 0 && pod.Status.Resources == nil {
		return false
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
