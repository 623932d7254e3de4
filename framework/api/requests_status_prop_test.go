package api_test

import (
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// rsAmounts is a cpu (milli) and memory (bytes) list; a missing name is
// absent, as in a ResourceList.
type rsAmounts map[resource.Name]int64

func rsFrom(l resource.List) rsAmounts {
	out := rsAmounts{}
	for n, q := range l {
		if n == resource.CPU {
			out[n] = q.MilliValue()
		} else {
			out[n] = q.Value()
		}
	}
	return out
}

func (a rsAmounts) add(b rsAmounts) {
	for n, v := range b {
		a[n] += v
	}
}

func (a rsAmounts) raise(b rsAmounts) {
	for n, v := range b {
		if cur, ok := a[n]; !ok || v > cur {
			a[n] = v
		}
	}
}

// rsReference is kube-scheduler v1.36's NodeInfo request for pod written
// out from component-helpers v0.36 (PodRequests with UseStatusResources,
// AggregateContainerRequests, determineEffectiveRequests), in plain
// integers: per regular container and sidecar with a status reporting
// resources, the per-name maximum of spec, actuated and allocated (spec
// left out when the resize is infeasible); nonMissing fills names a
// container's effective list lacks; sidecars add to the sum and to the
// init containers after them; pod-level cpu and memory replace the
// aggregate; overhead is added.
func rsReference(pod *api.Pod, nonMissing rsAmounts) rsAmounts {
	infeasible := false
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodResizePending {
			infeasible = c.Reason == api.PodReasonInfeasible
			break
		}
	}
	statuses := map[string]api.ContainerStatus{}
	for _, cs := range pod.Status.ContainerStatuses {
		statuses[cs.Name] = cs
	}
	for _, cs := range pod.Status.InitContainerStatuses {
		statuses[cs.Name] = cs
	}
	effective := func(spec resource.List, actuated *api.ResourceRequirements, allocated resource.List) rsAmounts {
		out := rsAmounts{}
		if !infeasible {
			out.raise(rsFrom(spec))
		}
		out.raise(rsFrom(actuated.Requests))
		out.raise(rsFrom(allocated))
		return out
	}
	container := func(c *api.Container, status bool) rsAmounts {
		var out rsAmounts
		if cs, ok := statuses[c.Name]; ok && status && cs.Resources != nil {
			out = effective(c.Resources.Requests, cs.Resources, cs.AllocatedResources)
		} else {
			out = rsFrom(c.Resources.Requests)
		}
		for n, v := range nonMissing {
			if _, ok := out[n]; !ok {
				out[n] = v
			}
		}
		return out
	}
	reqs := rsAmounts{}
	for i := range pod.Spec.Containers {
		reqs.add(container(&pod.Spec.Containers[i], true))
	}
	sidecars, initMax := rsAmounts{}, rsAmounts{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.IsSidecar() {
			e := container(c, true)
			reqs.add(e)
			sidecars.add(e)
			initMax.raise(sidecars)
		} else {
			use := container(c, false)
			use.add(sidecars)
			initMax.raise(use)
		}
	}
	reqs.raise(initMax)
	if r := pod.Spec.Resources; r != nil && len(r.Requests) > 0 {
		var eff rsAmounts
		if pod.Status.Resources != nil {
			eff = effective(r.Requests, pod.Status.Resources, pod.Status.AllocatedResources)
		}
		for n, q := range rsFrom(r.Requests) {
			if eff != nil {
				q = eff[n]
			}
			reqs[n] = q
		}
	}
	reqs.add(rsFrom(pod.Spec.Overhead))
	return reqs
}

// rsReference137 is kube-scheduler v1.37's NodeInfo request for pod
// written out from component-helpers v0.37 (PodRequests with
// UseStatusResources, AggregateContainerRequests,
// aggregateContainerResourcesByFn, containerAllocatedRequests,
// containerActuatedRequests, findContainerStatus,
// effectivePodLevelResources, applyPodLevelResources), in plain integers:
// the spec, allocated and actuated totals each over all containers (the
// pod-level status as the two status totals when both are set), with
// nonMissing filling each container's list; per name their maximum (spec
// left out when the resize is infeasible); the effective pod-level
// requests' names replace the aggregate; overhead is added.
func rsReference137(pod *api.Pod, nonMissing rsAmounts) rsAmounts {
	infeasible := false
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodResizePending {
			infeasible = c.Reason == api.PodReasonInfeasible
			break
		}
	}
	find := func(name string) *api.ContainerStatus {
		for _, l := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
			for i := range l {
				if l[i].Name == name {
					return &l[i]
				}
			}
		}
		return nil
	}
	total := func(list func(c *api.Container, cs *api.ContainerStatus) resource.List) rsAmounts {
		one := func(c *api.Container) rsAmounts {
			out := rsFrom(list(c, find(c.Name)))
			for n, v := range nonMissing {
				if _, ok := out[n]; !ok {
					out[n] = v
				}
			}
			return out
		}
		reqs := rsAmounts{}
		for i := range pod.Spec.Containers {
			reqs.add(one(&pod.Spec.Containers[i]))
		}
		sidecars, initMax := rsAmounts{}, rsAmounts{}
		for i := range pod.Spec.InitContainers {
			c := &pod.Spec.InitContainers[i]
			use := one(c)
			if c.IsSidecar() {
				reqs.add(use)
				sidecars.add(use)
				initMax.raise(sidecars)
			} else {
				use.add(sidecars)
				initMax.raise(use)
			}
		}
		reqs.raise(initMax)
		return reqs
	}
	spec := total(func(c *api.Container, _ *api.ContainerStatus) resource.List { return c.Resources.Requests })
	allocatedOf := func(c *api.Container, cs *api.ContainerStatus) resource.List {
		switch {
		case cs != nil && cs.AllocatedResources != nil:
			return cs.AllocatedResources
		case infeasible:
			return nil
		}
		return c.Resources.Requests
	}
	var allocated, actuated rsAmounts
	if st := pod.Status; st.AllocatedResources != nil && st.Resources != nil && st.Resources.Requests != nil {
		allocated, actuated = rsFrom(st.AllocatedResources), rsFrom(st.Resources.Requests)
	} else {
		allocated = total(allocatedOf)
		actuated = total(func(c *api.Container, cs *api.ContainerStatus) resource.List {
			if cs != nil && cs.Resources != nil && cs.Resources.Requests != nil {
				return cs.Resources.Requests
			}
			return allocatedOf(c, cs)
		})
	}
	reqs := rsAmounts{}
	if !infeasible {
		reqs.raise(spec)
	}
	reqs.raise(actuated)
	reqs.raise(allocated)
	if r := pod.Spec.Resources; r != nil && len(r.Requests) > 0 {
		eff := rsFrom(r.Requests)
		if st := pod.Status; st.Resources != nil {
			eff = rsAmounts{}
			if !infeasible {
				eff.raise(rsFrom(r.Requests))
			}
			eff.raise(rsFrom(st.Resources.Requests))
			eff.raise(rsFrom(st.AllocatedResources))
		}
		for n, q := range eff {
			reqs[n] = q
		}
	}
	reqs.add(rsFrom(pod.Spec.Overhead))
	return reqs
}

// rsReferenceNonZero is the non-zero cpu and memory of a release's rule
// ref (PodInfo.CalculateResource with getNonMissingContainerRequests).
func rsReferenceNonZero(pod *api.Pod, ref func(*api.Pod, rsAmounts) rsAmounts) (int64, int64) {
	defaults := rsAmounts{resource.CPU: api.DefaultMilliCPURequest, resource.Memory: api.DefaultMemoryRequest}
	if r := pod.Spec.Resources; r != nil && len(r.Requests) > 0 {
		reqs := ref(pod, nil)
		for n := range reqs {
			delete(defaults, n)
		}
		if len(defaults) == 0 {
			return reqs[resource.CPU], reqs[resource.Memory]
		}
	}
	reqs := ref(pod, defaults)
	return reqs[resource.CPU], reqs[resource.Memory]
}

// rsDrawPod draws a pod of one to three containers and up to two init
// containers (sidecars or not), each with or without a status entry
// (without resources, or with actuated requests and allocated amounts),
// a status for a container the spec lacks, a second status for a
// container, a resize condition,
// pod-level requests and status, and overhead. Amounts are cpu and memory,
// absent, zero or positive.
func rsDrawPod(t *rapid.T) *api.Pod {
	cpus := []string{"", "0", "100m", "250m", "500m", "1", "1500m", "2"}
	mems := []string{"", "0", "128Mi", "1Gi", "1500Mi"}
	list := func(label string) resource.List {
		m := map[string]string{}
		if c := rapid.SampledFrom(cpus).Draw(t, label+" cpu"); c != "" {
			m["cpu"] = c
		}
		if c := rapid.SampledFrom(mems).Draw(t, label+" memory"); c != "" {
			m["memory"] = c
		}
		if len(m) == 0 && rapid.Bool().Draw(t, label+" nil") {
			return nil
		}
		return resource.MustParseList(m)
	}
	status := func(name string) *api.ContainerStatus {
		switch rapid.IntRange(0, 3).Draw(t, name+" status") {
		case 0:
			return nil
		case 1:
			return &api.ContainerStatus{Name: name, AllocatedResources: list(name + " allocated only")}
		}
		return &api.ContainerStatus{Name: name, Resources: &api.ResourceRequirements{Requests: list(name + " actuated")}, AllocatedResources: list(name + " allocated")}
	}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns"}}
	for i := range rapid.IntRange(1, 3).Draw(t, "containers") {
		name := fmt.Sprintf("c%d", i)
		pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: name, Resources: api.ResourceRequirements{Requests: list(name)}})
		if cs := status(name); cs != nil {
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, *cs)
		}
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "init containers") {
		name := fmt.Sprintf("i%d", i)
		c := api.Container{Name: name, Resources: api.ResourceRequirements{Requests: list(name)}}
		if rapid.Bool().Draw(t, name+" sidecar") {
			always := api.RestartPolicyAlways
			c.RestartPolicy = &always
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
		if cs := status(name); cs != nil {
			pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, *cs)
		}
	}
	if cs := status("ghost"); cs != nil {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, *cs)
	}
	if rapid.IntRange(0, 3).Draw(t, "duplicate status") == 0 {
		// A second entry for a container: v1.36 reads the last, v1.37
		// the first.
		name := fmt.Sprintf("c%d", rapid.IntRange(0, len(pod.Spec.Containers)-1).Draw(t, "duplicate of"))
		if cs := status(name + " again"); cs != nil {
			cs.Name = name
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, *cs)
		}
	}
	if n := len(pod.Spec.InitContainers); n > 0 && rapid.IntRange(0, 3).Draw(t, "init status among container statuses") == 0 {
		// An init container's name in containerStatuses: v1.37 finds it
		// there first, v1.36 takes the initContainerStatuses entry.
		name := fmt.Sprintf("i%d", rapid.IntRange(0, n-1).Draw(t, "listed init container"))
		if cs := status(name + " listed"); cs != nil {
			cs.Name = name
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, *cs)
		}
	}
	switch rapid.IntRange(0, 3).Draw(t, "condition") {
	case 1:
		pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodResizePending, Status: api.ConditionTrue, Reason: api.PodReasonDeferred})
	case 2:
		pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodResizePending, Status: api.ConditionTrue, Reason: api.PodReasonInfeasible})
	case 3:
		pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodResizeInProgress, Status: api.ConditionTrue})
	}
	if rapid.IntRange(0, 2).Draw(t, "pod level") == 0 {
		pod.Spec.Resources = &api.ResourceRequirements{Requests: list("pod level")}
	}
	if rapid.IntRange(0, 2).Draw(t, "pod level status") == 0 {
		// The kubelet may report the pod-level status without pod-level
		// requests in the spec.
		pod.Status.Resources = &api.ResourceRequirements{Requests: list("pod level actuated")}
		pod.Status.AllocatedResources = list("pod level allocated")
	}
	if rapid.IntRange(0, 3).Draw(t, "overhead") == 0 {
		pod.Spec.Overhead = list("overhead")
	}
	return pod
}

// TestPropPodInfoStatusResources: on random pods with resizes in flight,
// PodInfo's requests and non-zero requests for each release equal an
// independent transcription of its rule (rsReference for v1.36,
// rsReference137 for v1.37); NewPodInfo counts as v1.37; unless the
// resize is infeasible or (v1.37) a pod-level status replaces the
// containers' total they are at least the spec's, per resource; and
// the spec-only requests are PodRequestVector's.
func TestPropPodInfoStatusResources(t *testing.T) {
	refs := map[fw.KubeVersion]func(*api.Pod, rsAmounts) rsAmounts{fw.KubeV136: rsReference, fw.KubeV137: rsReference137}
	rapid.Check(t, func(t *rapid.T) {
		pod := rsDrawPod(t)
		for _, v := range fw.KubeVersions() {
			pi, err := v.NewPodInfo(pod)
			if err != nil {
				t.Fatal(err)
			}
			want := refs[v](pod, nil)
			if pi.Requests.MilliCPU != want[resource.CPU] || pi.Requests.Memory != want[resource.Memory] {
				t.Fatalf("%s: Requests cpu %dm memory %d, reference %dm %d", v, pi.Requests.MilliCPU, pi.Requests.Memory, want[resource.CPU], want[resource.Memory])
			}
			nzCPU, nzMem := rsReferenceNonZero(pod, refs[v])
			if pi.NonZeroMilliCPU != nzCPU || pi.NonZeroMemory != nzMem {
				t.Fatalf("%s: non-zero cpu %dm memory %d, reference %dm %d", v, pi.NonZeroMilliCPU, pi.NonZeroMemory, nzCPU, nzMem)
			}
			spec := api.PodRequestVector(pod)
			if !spec.Equal(*pi.SpecRequests()) {
				t.Fatalf("%s: SpecRequests %+v, PodRequestVector %+v", v, *pi.SpecRequests(), spec)
			}
			// v1.37 lets a pod-level status name replace the containers'
			// total, also downwards; otherwise the status only adds.
			podLevelStatus := v == fw.KubeV137 && pod.Status.Resources != nil && pod.Spec.Resources != nil
			if !pod.ResizeInfeasible() && !podLevelStatus && (pi.Requests.MilliCPU < spec.MilliCPU || pi.Requests.Memory < spec.Memory) {
				t.Fatalf("%s: Requests %+v below the spec's %+v", v, pi.Requests, spec)
			}
		}
		def, err := fw.NewPodInfo(pod)
		if err != nil {
			t.Fatal(err)
		}
		if v137 := fw.MustPodInfo(pod); !def.Requests.Equal(v137.Requests) || def.NonZeroMilliCPU != v137.NonZeroMilliCPU || def.NonZeroMemory != v137.NonZeroMemory {
			t.Fatalf("NewPodInfo %+v, v1.37 %+v", def.Requests, v137.Requests)
		}
	})
}

// TestPropStatusRulesAgreeWithoutStatusResources: for a pod whose status
// reports no resources and no infeasible resize, both releases count
// exactly its spec, on the fast path (no second request vector), with the
// non-zero view of PodNonZeroRequests.
func TestPropStatusRulesAgreeWithoutStatusResources(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := rsDrawPod(t)
		pod.Status = api.PodStatus{Phase: api.PodRunning}
		if rapid.Bool().Draw(t, "resize condition") {
			reason := rapid.SampledFrom([]string{api.PodReasonDeferred, ""}).Draw(t, "reason")
			pod.Status.Conditions = []api.PodCondition{{Type: api.PodResizePending, Status: api.ConditionTrue, Reason: reason}}
		}
		for _, name := range []string{"c0", "i0"} {
			if rapid.Bool().Draw(t, name+" status without resources") {
				pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, api.ContainerStatus{Name: name})
			}
		}
		spec := api.PodRequestVector(pod)
		nzCPU, nzMem := api.PodNonZeroRequests(pod)
		for _, v := range fw.KubeVersions() {
			if api.StatusAffectsRequests(pod, v.StatusRule()) {
				t.Fatalf("%s: StatusAffectsRequests", v)
			}
			pi, err := v.NewPodInfo(pod)
			if err != nil {
				t.Fatal(err)
			}
			if !pi.Requests.Equal(spec) || pi.SpecRequests() != &pi.Requests {
				t.Fatalf("%s: Requests %+v, spec %+v", v, pi.Requests, spec)
			}
			if pi.NonZeroMilliCPU != nzCPU || pi.NonZeroMemory != nzMem {
				t.Fatalf("%s: non-zero %d %d, PodNonZeroRequests %d %d", v, pi.NonZeroMilliCPU, pi.NonZeroMemory, nzCPU, nzMem)
			}
			got := api.PodRequests(pod, api.RequestOptions{UseStatusResources: true, StatusRule: v.StatusRule()})
			if !resource.VectorFrom(got).Equal(spec) {
				t.Fatalf("%s: PodRequests with status %v, spec %+v", v, got, spec)
			}
		}
	})
}
