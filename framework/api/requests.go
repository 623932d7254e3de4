package api

import "github.com/schedkit/schedkit/resource"

// Default requests kube-scheduler assumes for a container that states no cpu
// or memory request, in the "non-zero" view used by LeastAllocated,
// MostAllocated and framework.NodeInfo.NonZeroRequested.
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// RequestOptions select a variant of the pod request computation.
type RequestOptions struct {
	// NonMissing gives values for resources a container does not request at
	// all; an explicit zero request is kept.
	NonMissing resource.List
	// ExcludeOverhead leaves the pod overhead out.
	ExcludeOverhead bool
	// SkipPodLevelResources ignores spec.resources (pod-level requests).
	SkipPodLevelResources bool
	// UseStatusResources counts a resize in flight as kube-scheduler's
	// NodeInfo does (component-helpers PodRequests with UseStatusResources
	// and InPlacePodLevelResourcesVerticalScalingEnabled, both on by
	// default), by the rule StatusRule names (requests_status.go). Limits
	// ignore it.
	UseStatusResources bool
	// StatusRule is the release's rule UseStatusResources applies; the
	// zero value is kube-scheduler v1.37's.
	StatusRule StatusRule
}

// nonZeroDefaults is the NonMissing list of kube-scheduler's non-zero view.
func nonZeroDefaults() resource.List {
	return resource.List{
		resource.CPU:    resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI),
		resource.Memory: resource.NewQuantity(DefaultMemoryRequest, resource.DecimalSI),
	}
}

// PodRequests computes a pod's effective requests as Kubernetes'
// component-helpers PodRequests: the sum of the regular containers; init
// containers in order, where a restartable sidecar adds to the sum and to a
// running sidecar total and a plain init container "uses" its own request
// plus the sidecars started before it; the per-resource maximum of the two;
// pod-level requests replacing cpu, memory and huge pages when set; then
// overhead.
func PodRequests(pod *Pod, opts RequestOptions) resource.List {
	return podAggregate(pod, opts, false)
}

// PodLimits computes a pod's effective limits as Kubernetes' PodLimits: the
// same container aggregation as PodRequests over limits; pod-level limits
// replace cpu, memory and huge pages when set; overhead is added only to
// resources that already have a non-zero limit.
func PodLimits(pod *Pod) resource.List {
	return podAggregate(pod, RequestOptions{}, true)
}

func containerAmounts(c *Container, limits bool) resource.List {
	if limits {
		return c.Resources.Limits
	}
	return c.Resources.Requests
}

func podAggregate(pod *Pod, opts RequestOptions, limits bool) resource.List {
	status := opts.UseStatusResources && !limits
	aggregated := status && opts.StatusRule == StatusAggregated
	var reqs resource.List
	if aggregated {
		reqs = aggregatedStatusRequests(pod, opts.NonMissing)
	} else {
		infeasible := status && pod.ResizeInfeasible()
		reqs = aggregateContainers(pod, opts.NonMissing, func(c *Container, runs bool) resource.List {
			l := containerAmounts(c, limits)
			// v1.36 reads the status of a container that runs beside the
			// others only: a plain init container counts its spec.
			if status && runs {
				l = statusRequests(l, containerStatusOf(pod, c.Name), infeasible)
			}
			return l
		})
	}
	if !opts.SkipPodLevelResources && pod.Spec.Resources != nil {
		pl := pod.Spec.Resources.Requests
		if limits {
			pl = pod.Spec.Resources.Limits
		}
		switch {
		case aggregated && pod.Status.Resources != nil && hasPodLevelRequests(pod):
			// The effective pod-level requests' own names count.
			for n, q := range podLevelStatusRequests(pod) {
				if isPodLevelResource(n) {
					reqs[n] = q
				}
			}
			pl = nil
		case status && !aggregated && pod.Status.Resources != nil:
			eff := statusRequests(pl, &ContainerStatus{Resources: pod.Status.Resources, AllocatedResources: pod.Status.AllocatedResources}, pod.ResizeInfeasible())
			for n := range pl {
				if isPodLevelResource(n) {
					// A name the effective list lacks (an infeasible
					// resize whose status omits it) counts as zero.
					reqs[n] = eff[n]
				}
			}
			pl = nil
		}
		for n, q := range pl {
			if isPodLevelResource(n) {
				reqs[n] = q
			}
		}
	}
	if !opts.ExcludeOverhead {
		for n, q := range pod.Spec.Overhead {
			if limits {
				// Overhead raises only limits that are set and non-zero.
				if cur, ok := reqs[n]; ok && !cur.IsZero() {
					reqs[n] = cur.Add(q)
				}
				continue
			}
			reqs[n] = reqs[n].Add(q)
		}
	}
	return reqs
}

// aggregateContainers adds up the pod's containers as component-helpers'
// aggregateContainerResourcesByFn: amounts(c, runs) is container c's list,
// runs saying whether c runs beside the others (a regular container or a
// sidecar); nonMissing fills names a container's list lacks (a nil list
// becomes nonMissing); the regular containers and the sidecars add up;
// a plain init container uses its own list plus the sidecars started
// before it; the result is the per-resource maximum of the sum and of
// every init container's use.
func aggregateContainers(pod *Pod, nonMissing resource.List, amounts func(c *Container, runs bool) resource.List) resource.List {
	reqs := resource.List{}
	apply := func(l resource.List) resource.List {
		if len(nonMissing) == 0 {
			return l
		}
		var out resource.List
		for n, q := range nonMissing {
			if _, ok := l[n]; !ok {
				if out == nil {
					out = l.Clone()
					if out == nil {
						out = resource.List{}
					}
				}
				out[n] = q
			}
		}
		if out == nil {
			return l
		}
		return out
	}
	for i := range pod.Spec.Containers {
		addInto(reqs, apply(amounts(&pod.Spec.Containers[i], true)))
	}
	sidecars := resource.List{}
	initMax := resource.List{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cr := apply(amounts(c, c.IsSidecar()))
		var use resource.List
		if c.IsSidecar() {
			addInto(reqs, cr)
			addInto(sidecars, cr)
			use = sidecars
		} else {
			use = resource.List{}
			addInto(use, cr)
			addInto(use, sidecars)
		}
		maxInto(initMax, use)
	}
	maxInto(reqs, initMax)
	return reqs
}

// isPodLevelResource reports whether pod-level resources may set n: cpu,
// memory and huge pages, as component-helpers' IsSupportedPodLevelResource.
func isPodLevelResource(n resource.Name) bool {
	return n == resource.CPU || n == resource.Memory || n.IsHugePages()
}

// hasPodLevelRequests reports whether the pod sets a pod-level request for a
// supported resource (component-helpers' IsPodLevelRequestsSet).
func hasPodLevelRequests(pod *Pod) bool {
	if pod.Spec.Resources == nil {
		return false
	}
	for n := range pod.Spec.Resources.Requests {
		if isPodLevelResource(n) {
			return true
		}
	}
	return false
}

func addInto(dst, src resource.List) {
	for n, q := range src {
		if cur, ok := dst[n]; ok {
			dst[n] = cur.Add(q)
		} else {
			dst[n] = q
		}
	}
}

func maxInto(dst, src resource.List) {
	for n, q := range src {
		if cur, ok := dst[n]; !ok || q.Cmp(cur) > 0 {
			dst[n] = q
		}
	}
}

// PodRequestVector is PodRequests in dense form.
func PodRequestVector(pod *Pod) resource.Vector {
	if c := singleContainer(pod); c != nil {
		return resource.VectorFrom(c.Resources.Requests)
	}
	return resource.VectorFrom(PodRequests(pod, RequestOptions{}))
}

// singleContainer returns the pod's one container when the pod has no init
// containers, overhead or pod-level resources: its requests are then the
// pod's (PodRequests copies them), which PodRequestVector and
// PodNonZeroRequests read without building the sums.
func singleContainer(pod *Pod) *Container {
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) != 0 || len(pod.Spec.Overhead) != 0 || pod.Spec.Resources != nil {
		return nil
	}
	return &pod.Spec.Containers[0]
}

// PodNonZeroRequests returns the pod's cpu (milli) and memory (bytes)
// requests in kube-scheduler's non-zero view: 100m and 200 MiB stand in, per
// container, for a missing cpu or memory request.
//
// When the pod sets pod-level requests, a default applies only to a resource
// that the pod's effective requests (containers, pod level and overhead) lack
// entirely, as kube-scheduler's getNonMissingContainerRequests.
func PodNonZeroRequests(pod *Pod) (milliCPU, memory int64) {
	return PodNonZeroRequestsWith(pod, RequestOptions{})
}

// PodNonZeroRequestsWith is PodNonZeroRequests over PodRequests(pod, opts)
// (opts.NonMissing is replaced by the defaults).
func PodNonZeroRequestsWith(pod *Pod, opts RequestOptions) (milliCPU, memory int64) {
	if c := singleContainer(pod); c != nil && !opts.UseStatusResources {
		milliCPU, memory = DefaultMilliCPURequest, DefaultMemoryRequest
		if q, ok := c.Resources.Requests[resource.CPU]; ok {
			milliCPU = q.MilliValue()
		}
		if q, ok := c.Resources.Requests[resource.Memory]; ok {
			memory = q.Value()
		}
		return milliCPU, memory
	}
	defaults := nonZeroDefaults()
	opts.NonMissing = nil
	var l resource.List
	if hasPodLevelRequests(pod) {
		l = PodRequests(pod, opts)
		for n := range defaults {
			if _, ok := l[n]; ok {
				delete(defaults, n)
			}
		}
		if len(defaults) > 0 {
			opts.NonMissing = defaults
			l = PodRequests(pod, opts)
		}
	} else {
		opts.NonMissing = defaults
		l = PodRequests(pod, opts)
	}
	cpu, mem := l[resource.CPU], l[resource.Memory]
	return cpu.MilliValue(), mem.Value()
}

// QOSClass returns the pod's Kubernetes QoS class (Status.QOSClass when
// set), computed as Kubernetes' GetPodQOS from the cpu and memory requests
// and limits of all containers and init containers, or from the pod-level
// resources alone when spec.resources is set (even if empty).
//
// Requests are not defaulted from limits: the API server would copy the
// limits of a limits-only container into its requests (making it
// Guaranteed), but on an undefaulted pod such a container has no requests,
// and QOSClass — like kube's GetPodQOS on the same object — returns
// Burstable.
func (p *Pod) QOSClass() PodQOSClass {
	if p.Status.QOSClass != "" {
		return p.Status.QOSClass
	}
	requests, limits := resource.List{}, resource.List{}
	guaranteed := true
	supported := func(n resource.Name) bool { return n == resource.CPU || n == resource.Memory }
	visit := func(r ResourceRequirements) {
		for n, q := range r.Requests {
			if supported(n) && q.Sign() > 0 {
				requests[n] = requests[n].Add(q)
			}
		}
		found := 0
		for n, q := range r.Limits {
			if supported(n) && q.Sign() > 0 {
				found++
				limits[n] = limits[n].Add(q)
			}
		}
		if found < 2 {
			guaranteed = false
		}
	}
	if p.Spec.Resources != nil {
		// Pod-level resources, even empty ones, decide alone (kube's
		// ComputePodQOS with PodLevelResources enabled).
		visit(*p.Spec.Resources)
	} else {
		for i := range p.Spec.InitContainers {
			visit(p.Spec.InitContainers[i].Resources)
		}
		for i := range p.Spec.Containers {
			visit(p.Spec.Containers[i].Resources)
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return QOSBestEffort
	}
	if guaranteed {
		for n, req := range requests {
			if lim, ok := limits[n]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return QOSGuaranteed
	}
	return QOSBurstable
}
