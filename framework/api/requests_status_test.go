package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

const (
	rsGi    = 1 << 30
	rsMi200 = 200 << 20 // kube's non-zero memory default
)

// TestPodInfoResizeInFlight checks, with numbers worked by hand from
// component-helpers v0.36 PodRequests with UseStatusResources (the rule
// kube-scheduler v1.36's NodeInfo counts a pod by:
// KubeV136.NewPodInfo), the effective requests
// (PodInfo.Requests), their non-zero view and the spec-only requests the
// NodeResourcesFit filter checks (PodInfo.SpecRequests).
func TestPodInfoResizeInFlight(t *testing.T) {
	mk := builder.MakePod
	type m = map[string]string
	tests := []struct {
		name          string
		pod           *api.Pod
		cpu, mem      int64 // Requests
		nzCPU, nzMem  int64 // NonZeroMilliCPU, NonZeroMemory
		specCPU       int64 // SpecRequests().MilliCPU
		specIsDerived bool  // SpecRequests() is &Requests
	}{
		{name: "no status: the spec",
			pod: mk().Name("p").Req(m{"cpu": "1", "memory": "1Gi"}).Obj(),
			cpu: 1000, mem: rsGi, nzCPU: 1000, nzMem: rsGi, specCPU: 1000, specIsDerived: true},
		{name: "status equal to spec: the spec",
			pod: mk().Name("p").Req(m{"cpu": "1", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "1", "memory": "1Gi"}).StatusAllocated("c0", m{"cpu": "1000m", "memory": "1Gi"}).Obj(),
			cpu: 1000, mem: rsGi, nzCPU: 1000, nzMem: rsGi, specCPU: 1000, specIsDerived: true},
		{name: "status above spec: the status",
			pod: mk().Name("p").Req(m{"cpu": "500m", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "1500m", "memory": "1Gi"}).ResizeInProgress().Obj(),
			cpu: 1500, mem: rsGi, nzCPU: 1500, nzMem: rsGi, specCPU: 500},
		{name: "spec above status, deferred: the spec",
			pod: mk().Name("p").Req(m{"cpu": "1500m", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "500m", "memory": "1Gi"}).ResizePending(api.PodReasonDeferred).Obj(),
			cpu: 1500, mem: rsGi, nzCPU: 1500, nzMem: rsGi, specCPU: 1500, specIsDerived: true},
		{name: "allocated above spec and status",
			pod: mk().Name("p").Req(m{"cpu": "500m"}).StatusReq("c0", m{"cpu": "500m"}).StatusAllocated("c0", m{"cpu": "1"}).Obj(),
			cpu: 1000, mem: 0, nzCPU: 1000, nzMem: rsMi200, specCPU: 500},
		{name: "the larger per resource",
			pod: mk().Name("p").Req(m{"cpu": "2", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "1", "memory": "3Gi"}).Obj(),
			cpu: 2000, mem: 3 * rsGi, nzCPU: 2000, nzMem: 3 * rsGi, specCPU: 2000},
		{name: "infeasible: the status alone",
			pod: mk().Name("p").Req(m{"cpu": "2", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "500m", "memory": "1Gi"}).StatusAllocated("c0", m{"cpu": "500m", "memory": "1Gi"}).
				ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 500, mem: rsGi, nzCPU: 500, nzMem: rsGi, specCPU: 2000},
		{name: "infeasible: a resource the status omits is missing, so defaulted in the non-zero view",
			pod: mk().Name("p").Req(m{"cpu": "2", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "500m"}).ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 500, mem: 0, nzCPU: 500, nzMem: rsMi200, specCPU: 2000},
		{name: "infeasible: a container without status counts its spec",
			pod: mk().Name("p").Req(m{"cpu": "1"}).Req(m{"cpu": "2"}).StatusReq("c0", m{"cpu": "500m"}).ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 2500, mem: 0, nzCPU: 2500, nzMem: 2 * rsMi200, specCPU: 3000},
		{name: "the first PodResizePending condition decides",
			pod: mk().Name("p").Req(m{"cpu": "2"}).StatusReq("c0", m{"cpu": "500m"}).ResizePending(api.PodReasonDeferred).ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 2000, mem: 0, nzCPU: 2000, nzMem: rsMi200, specCPU: 2000, specIsDerived: true},
		{name: "status of a container the spec lacks: ignored",
			pod: mk().Name("p").Req(m{"cpu": "1"}).StatusReq("other", m{"cpu": "3"}).Obj(),
			cpu: 1000, mem: 0, nzCPU: 1000, nzMem: rsMi200, specCPU: 1000, specIsDerived: true},
		{name: "allocatedResources without resources: not read",
			pod: mk().Name("p").Req(m{"cpu": "500m"}).StatusAllocated("c0", m{"cpu": "1500m"}).Obj(),
			cpu: 500, mem: 0, nzCPU: 500, nzMem: rsMi200, specCPU: 500, specIsDerived: true},
		{name: "per container, then summed", // 2 + 2; kube v1.37's max of the totals would give 3
			pod: mk().Name("p").Req(m{"cpu": "1"}).Req(m{"cpu": "2"}).StatusReq("c0", m{"cpu": "2"}).StatusReq("c1", m{"cpu": "1"}).Obj(),
			cpu: 4000, mem: 0, nzCPU: 4000, nzMem: 2 * rsMi200, specCPU: 3000},
		{name: "plain init container: its status is not read", // max(1, 3)
			pod: mk().Name("p").InitReq(m{"cpu": "3"}).Req(m{"cpu": "1"}).StatusReq("i0", m{"cpu": "5"}).Obj(),
			cpu: 3000, mem: 0, nzCPU: 3000, nzMem: rsMi200, specCPU: 3000, specIsDerived: true},
		{name: "sidecar status adds to the containers and to the init containers after it",
			// sidecar 1 (status) + container 1 = 2; init i1 uses 2 + sidecar 1 = 3; max 3.
			// Spec: 0.5 + 1 = 1.5; i1 uses 2 + 0.5 = 2.5; max 2.5.
			// Non-zero memory: 200Mi for each of c0 and s0, and i1 + s0.
			pod: mk().Name("p").SidecarReq(m{"cpu": "500m"}).InitReq(m{"cpu": "2"}).Req(m{"cpu": "1"}).StatusReq("s0", m{"cpu": "1"}).Obj(),
			cpu: 3000, mem: 0, nzCPU: 3000, nzMem: 2 * rsMi200, specCPU: 2500},
		{name: "pod level: status above spec",
			// cpu from the pod level; memory missing everywhere: the container's default.
			pod: mk().Name("p").PodReq(m{"cpu": "2"}).Req(m{"cpu": "500m"}).StatusPodReq(m{"cpu": "3"}).Obj(),
			cpu: 3000, mem: 0, nzCPU: 3000, nzMem: rsMi200, specCPU: 2000},
		{name: "pod level: allocated above spec and status",
			pod: mk().Name("p").PodReq(m{"cpu": "2"}).Req(m{"cpu": "1"}).StatusPodReq(m{"cpu": "2"}).StatusPodAllocated(m{"cpu": "4"}).Obj(),
			cpu: 4000, mem: 0, nzCPU: 4000, nzMem: rsMi200, specCPU: 2000},
		{name: "pod level: a container's status counts for what the pod level leaves",
			pod: mk().Name("p").PodReq(m{"memory": "2Gi"}).Req(m{"cpu": "500m"}).StatusReq("c0", m{"cpu": "1"}).Obj(),
			cpu: 1000, mem: 2 * rsGi, nzCPU: 1000, nzMem: 2 * rsGi, specCPU: 500},
		{name: "pod level: infeasible, a resource the status omits counts as zero",
			// memory is then present (at zero), so no default applies either.
			pod: mk().Name("p").PodReq(m{"cpu": "2", "memory": "1Gi"}).Req(m{"cpu": "500m", "memory": "512Mi"}).StatusPodReq(m{"cpu": "1"}).
				ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 1000, mem: 0, nzCPU: 1000, nzMem: 0, specCPU: 2000},
		{name: "overhead on top",
			pod: mk().Name("p").Req(m{"cpu": "500m"}).StatusReq("c0", m{"cpu": "1500m"}).Overhead(m{"cpu": "100m"}).Obj(),
			cpu: 1600, mem: 0, nzCPU: 1600, nzMem: rsMi200, specCPU: 600},
		{name: "non-zero defaults apply after the status",
			pod: mk().Name("p").Req(nil).StatusReq("c0", m{"cpu": "250m"}).Obj(),
			cpu: 250, mem: 0, nzCPU: 250, nzMem: rsMi200, specCPU: 0},
		{name: "a status name the spec lacks, even at zero, takes the default's place",
			pod: mk().Name("p").Req(m{"cpu": "1"}).StatusReq("c0", m{"cpu": "1", "memory": "0"}).Obj(),
			cpu: 1000, mem: 0, nzCPU: 1000, nzMem: 0, specCPU: 1000},
		{name: "the last status of a name wins",
			pod: func() *api.Pod {
				p := mk().Name("p").Req(m{"cpu": "1"}).StatusReq("c0", m{"cpu": "3"}).Obj()
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{Name: "c0", Resources: &api.ResourceRequirements{Requests: omL(m{"cpu": "2"})}})
				return p
			}(),
			cpu: 2000, mem: 0, nzCPU: 2000, nzMem: rsMi200, specCPU: 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pi, err := fw.KubeV136.NewPodInfo(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if pi.Requests.MilliCPU != tc.cpu || pi.Requests.Memory != tc.mem {
				t.Errorf("Requests cpu %dm memory %d, want %dm %d", pi.Requests.MilliCPU, pi.Requests.Memory, tc.cpu, tc.mem)
			}
			if pi.NonZeroMilliCPU != tc.nzCPU || pi.NonZeroMemory != tc.nzMem {
				t.Errorf("non-zero cpu %dm memory %d, want %dm %d", pi.NonZeroMilliCPU, pi.NonZeroMemory, tc.nzCPU, tc.nzMem)
			}
			if got := pi.SpecRequests().MilliCPU; got != tc.specCPU {
				t.Errorf("SpecRequests cpu %dm, want %dm", got, tc.specCPU)
			}
			if got := (pi.SpecRequests() == &pi.Requests); got != tc.specIsDerived {
				t.Errorf("SpecRequests is &Requests: %v, want %v", got, tc.specIsDerived)
			}
			if spec := api.PodRequestVector(tc.pod); !spec.Equal(*pi.SpecRequests()) {
				t.Errorf("SpecRequests %+v, PodRequestVector %+v", *pi.SpecRequests(), spec)
			}
			if got := resource.VectorFrom(api.PodRequests(tc.pod, api.RequestOptions{UseStatusResources: true, StatusRule: api.StatusPerContainer})); !got.Equal(pi.Requests) {
				t.Errorf("PodRequests %+v, Requests %+v", got, pi.Requests)
			}
		})
	}
}

// TestPodInfoResizeInFlightV137 checks, with numbers worked by hand from
// component-helpers v0.37 PodRequests with UseStatusResources (the rule
// kube-scheduler v1.37's NodeInfo counts a pod by: KubeV137.NewPodInfo,
// and NewPodInfo), the effective requests, their non-zero view and the
// spec-only requests; v136 is what v1.36 counts (Requests cpu), for
// contrast.
func TestPodInfoResizeInFlightV137(t *testing.T) {
	mk := builder.MakePod
	type m = map[string]string
	withStatuses := func(p *api.Pod, containers, inits []api.ContainerStatus) *api.Pod {
		p.Status.ContainerStatuses, p.Status.InitContainerStatuses = containers, inits
		return p
	}
	req := func(name, cpu string) api.ContainerStatus {
		return api.ContainerStatus{Name: name, Resources: &api.ResourceRequirements{Requests: omL(m{"cpu": cpu})}}
	}
	tests := []struct {
		name         string
		pod          *api.Pod
		cpu, mem     int64 // Requests
		nzCPU, nzMem int64 // NonZeroMilliCPU, NonZeroMemory
		specCPU      int64 // SpecRequests().MilliCPU
		v136         int64 // v1.36's Requests cpu
	}{
		// Infeasible resizes: the spec total is left out.
		{name: "infeasible: the status alone",
			pod: mk().Name("p").Req(m{"cpu": "2", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "500m", "memory": "1Gi"}).StatusAllocated("c0", m{"cpu": "500m", "memory": "1Gi"}).
				ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 500, mem: rsGi, nzCPU: 500, nzMem: rsGi, specCPU: 2000, v136: 500},
		{name: "infeasible: a container without status counts nothing, but the non-zero defaults",
			// actuated: c0 500m, c1 nothing; allocated: nothing (c0 reports none).
			// Non-zero: actuated (500m+100m, 200Mi+200Mi), allocated (100m+100m, 400Mi).
			pod: mk().Name("p").Req(m{"cpu": "1"}).Req(m{"cpu": "2"}).StatusReq("c0", m{"cpu": "500m"}).ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 500, mem: 0, nzCPU: 600, nzMem: 2 * rsMi200, specCPU: 3000, v136: 2500},
		{name: "infeasible without any status: nothing",
			pod: mk().Name("p").Req(m{"cpu": "6"}).ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 0, mem: 0, nzCPU: 100, nzMem: rsMi200, specCPU: 6000, v136: 6000},
		// Allocated and actuated amounts.
		{name: "allocatedResources without resources: allocated and actuated",
			pod: mk().Name("p").Req(m{"cpu": "500m"}).StatusAllocated("c0", m{"cpu": "1500m"}).Obj(),
			cpu: 1500, mem: 0, nzCPU: 1500, nzMem: rsMi200, specCPU: 500, v136: 500},
		{name: "allocated above spec and actuated",
			pod: mk().Name("p").Req(m{"cpu": "1"}).StatusReq("c0", m{"cpu": "500m"}).StatusAllocated("c0", m{"cpu": "2"}).Obj(),
			cpu: 2000, mem: 0, nzCPU: 2000, nzMem: rsMi200, specCPU: 1000, v136: 2000},
		{name: "actuated above spec and allocated",
			pod: mk().Name("p").Req(m{"cpu": "500m"}).StatusReq("c0", m{"cpu": "1500m"}).StatusAllocated("c0", m{"cpu": "500m"}).ResizeInProgress().Obj(),
			cpu: 1500, mem: 0, nzCPU: 1500, nzMem: rsMi200, specCPU: 500, v136: 1500},
		{name: "the largest total, not the sum of per-container maxima",
			// spec 1+2, actuated 2+1: 3; v1.36 max(1,2) + max(2,1) = 4.
			pod: mk().Name("p").Req(m{"cpu": "1"}).Req(m{"cpu": "2"}).StatusReq("c0", m{"cpu": "2"}).StatusReq("c1", m{"cpu": "1"}).Obj(),
			cpu: 3000, mem: 0, nzCPU: 3000, nzMem: 2 * rsMi200, specCPU: 3000, v136: 4000},
		// Init containers.
		{name: "plain init container: its allocation counts",
			// allocated total max(1, 6); v1.36 max(1, 4).
			pod: mk().Name("p").InitReq(m{"cpu": "4"}).Req(m{"cpu": "1"}).StatusAllocated("i0", m{"cpu": "6"}).Obj(),
			cpu: 6000, mem: 0, nzCPU: 6000, nzMem: rsMi200, specCPU: 4000, v136: 4000},
		{name: "plain init container: its actuated requests count",
			pod: mk().Name("p").InitReq(m{"cpu": "3"}).Req(m{"cpu": "1"}).StatusReq("i0", m{"cpu": "5"}).Obj(),
			cpu: 5000, mem: 0, nzCPU: 5000, nzMem: rsMi200, specCPU: 3000, v136: 3000},
		{name: "sidecar status adds to the containers and to the init containers after it",
			// actuated: s0 1 + c0 1 = 2, i1 2 + 1 = 3; spec and allocated 2.5.
			pod: mk().Name("p").SidecarReq(m{"cpu": "500m"}).InitReq(m{"cpu": "2"}).Req(m{"cpu": "1"}).StatusReq("s0", m{"cpu": "1"}).Obj(),
			cpu: 3000, mem: 0, nzCPU: 3000, nzMem: 2 * rsMi200, specCPU: 2500, v136: 3000},
		// The status of a name.
		{name: "containerStatuses before initContainerStatuses",
			pod: withStatuses(mk().Name("p").Req(m{"cpu": "1"}).Obj(), []api.ContainerStatus{req("c0", "2")}, []api.ContainerStatus{req("c0", "5")}),
			cpu: 2000, mem: 0, nzCPU: 2000, nzMem: rsMi200, specCPU: 1000, v136: 5000},
		{name: "the first status of a name",
			pod: withStatuses(mk().Name("p").Req(m{"cpu": "1"}).Obj(), []api.ContainerStatus{req("c0", "3"), req("c0", "2")}, nil),
			cpu: 3000, mem: 0, nzCPU: 3000, nzMem: rsMi200, specCPU: 1000, v136: 2000},
		{name: "a status that drops a name the spec requests: the non-zero default fills it",
			// actuated lacks memory: 200Mi > the spec's 100Mi in the non-zero view.
			pod: mk().Name("p").Req(m{"cpu": "1", "memory": "100Mi"}).StatusReq("c0", m{"cpu": "1"}).Obj(),
			cpu: 1000, mem: 100 << 20, nzCPU: 1000, nzMem: rsMi200, specCPU: 1000, v136: 1000},
		// Pod-level requests and status.
		{name: "pod level: a status name the spec lacks is counted",
			pod: mk().Name("p").PodReq(m{"cpu": "2"}).Req(m{"cpu": "1", "memory": "1Gi"}).StatusPodReq(m{"cpu": "2", "memory": "3Gi"}).StatusPodAllocated(m{"cpu": "2", "memory": "3Gi"}).Obj(),
			cpu: 2000, mem: 3 * rsGi, nzCPU: 2000, nzMem: 3 * rsGi, specCPU: 2000, v136: 2000},
		{name: "pod level: infeasible, a name the status omits keeps the containers' total",
			// The containers count nothing (no status); memory is then missing, so defaulted.
			pod: mk().Name("p").PodReq(m{"cpu": "2", "memory": "1Gi"}).Req(m{"cpu": "500m", "memory": "512Mi"}).StatusPodReq(m{"cpu": "1"}).
				ResizePending(api.PodReasonInfeasible).Obj(),
			cpu: 1000, mem: 0, nzCPU: 1000, nzMem: rsMi200, specCPU: 2000, v136: 1000},
		{name: "pod-level status totals replace the containers' statuses",
			// max(spec 1, 2, 2); c0's own status (5) is not read.
			pod: mk().Name("p").Req(m{"cpu": "1"}).StatusReq("c0", m{"cpu": "5"}).StatusPodReq(m{"cpu": "2"}).StatusPodAllocated(m{"cpu": "2"}).Obj(),
			cpu: 2000, mem: 0, nzCPU: 2000, nzMem: rsMi200, specCPU: 1000, v136: 5000},
		{name: "pod level: allocated above spec and status",
			pod: mk().Name("p").PodReq(m{"cpu": "2"}).Req(m{"cpu": "1"}).StatusPodReq(m{"cpu": "2"}).StatusPodAllocated(m{"cpu": "4"}).Obj(),
			cpu: 4000, mem: 0, nzCPU: 4000, nzMem: rsMi200, specCPU: 2000, v136: 4000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pi, err := fw.KubeV137.NewPodInfo(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if pi.Requests.MilliCPU != tc.cpu || pi.Requests.Memory != tc.mem {
				t.Errorf("Requests cpu %dm memory %d, want %dm %d", pi.Requests.MilliCPU, pi.Requests.Memory, tc.cpu, tc.mem)
			}
			if pi.NonZeroMilliCPU != tc.nzCPU || pi.NonZeroMemory != tc.nzMem {
				t.Errorf("non-zero cpu %dm memory %d, want %dm %d", pi.NonZeroMilliCPU, pi.NonZeroMemory, tc.nzCPU, tc.nzMem)
			}
			if got := pi.SpecRequests().MilliCPU; got != tc.specCPU {
				t.Errorf("SpecRequests cpu %dm, want %dm", got, tc.specCPU)
			}
			if got := api.PodNodeRequests(tc.pod); !got.Equal(pi.Requests) {
				t.Errorf("PodNodeRequests %+v, Requests %+v", got, pi.Requests)
			}
			if def := fw.MustPodInfo(tc.pod); !def.Requests.Equal(pi.Requests) {
				t.Errorf("NewPodInfo %+v, v1.37 %+v", def.Requests, pi.Requests)
			}
			if old, _ := fw.KubeV136.NewPodInfo(tc.pod); old.Requests.MilliCPU != tc.v136 {
				t.Errorf("v1.36 Requests cpu %dm, want %dm", old.Requests.MilliCPU, tc.v136)
			}
		})
	}
}

// TestPodRequestsUseStatusResources checks the names PodRequests returns
// with status resources: a pod-level resource an infeasible resize's
// status omits is present at zero in v1.36 (kube sets it from the
// effective list) and absent in v1.37 (kube sets the effective list's own
// names, and the containers count nothing without status); a container
// resource it omits is absent.
func TestPodRequestsUseStatusResources(t *testing.T) {
	type m = map[string]string
	opts := api.RequestOptions{UseStatusResources: true, StatusRule: api.StatusPerContainer}
	opts137 := api.RequestOptions{UseStatusResources: true}
	podLevel := builder.MakePod().Name("p").PodReq(m{"cpu": "2", "memory": "1Gi"}).Req(m{"cpu": "500m", "memory": "512Mi"}).
		StatusPodReq(m{"cpu": "1"}).ResizePending(api.PodReasonInfeasible).Obj()
	omListEqual(t, "pod level", api.PodRequests(podLevel, opts), omL(m{"cpu": "1", "memory": "0"}))
	omListEqual(t, "pod level, v1.37", api.PodRequests(podLevel, opts137), omL(m{"cpu": "1"}))
	container := builder.MakePod().Name("p").Req(m{"cpu": "2", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "500m"}).ResizePending(api.PodReasonInfeasible).Obj()
	omListEqual(t, "container", api.PodRequests(container, opts), omL(m{"cpu": "500m"}))
	omListEqual(t, "container, v1.37", api.PodRequests(container, opts137), omL(m{"cpu": "500m"}))
	// Without the option, and for limits, the spec alone.
	omListEqual(t, "spec", api.PodRequests(container, api.RequestOptions{}), omL(m{"cpu": "2", "memory": "1Gi"}))
	withLimits := builder.MakePod().Name("p").Lim(m{"cpu": "1"}, m{"cpu": "2"}).Obj()
	withLimits.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c0", Resources: &api.ResourceRequirements{Requests: omL(m{"cpu": "1"}), Limits: omL(m{"cpu": "4"})}}}
	omListEqual(t, "limits", api.PodLimits(withLimits), omL(m{"cpu": "2"}))
}

// TestValidatePodStatusResources: a negative amount anywhere in the
// resources a status reports is an error naming the pod, the field and the
// value, from ValidatePod and NewPodInfo alike; resource names are not
// checked (kube ignores unknown ones).
func TestValidatePodStatusResources(t *testing.T) {
	type m = map[string]string
	base := func() *builder.PodWrapper {
		return builder.MakePod().Name("p").Req(m{"cpu": "1"}).InitReq(m{"cpu": "1"})
	}
	tests := []struct {
		name string
		pod  *api.Pod
		want string // "" for valid
	}{
		{"valid, with an unknown name", base().StatusReq("c0", m{"cpus": "2"}).Obj(), ""},
		{"container requests", base().StatusReq("c0", m{"cpu": "1"}).StatusReq("c1", m{"memory": "1Gi", "cpu": "-1"}).Obj(),
			`framework: pod default/p: status.containerStatuses[1].resources.requests["cpu"]=-1: must not be negative`},
		{"container limits", func() *api.Pod {
			p := base().Obj()
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c0", Resources: &api.ResourceRequirements{Limits: omL(m{"memory": "-1Gi"})}}}
			return p
		}(), `framework: pod default/p: status.containerStatuses[0].resources.limits["memory"]=-1Gi: must not be negative`},
		{"init container allocated", base().StatusAllocated("i0", m{"cpu": "-500m"}).Obj(),
			`framework: pod default/p: status.initContainerStatuses[0].allocatedResources["cpu"]=-500m: must not be negative`},
		{"pod-level requests", base().StatusPodReq(m{"cpu": "-2"}).Obj(),
			`framework: pod default/p: status.resources.requests["cpu"]=-2: must not be negative`},
		{"pod-level allocated", base().StatusPodAllocated(m{"memory": "-1"}).Obj(),
			`framework: pod default/p: status.allocatedResources["memory"]=-1: must not be negative`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errV := api.ValidatePod(tc.pod)
			_, errI := fw.NewPodInfo(tc.pod)
			for _, err := range []error{errV, errI} {
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("unexpected error: %v", err)
				case tc.want != "" && (err == nil || err.Error() != tc.want):
					t.Errorf("error %v, want %s", err, tc.want)
				}
			}
		})
	}
}

// A pod update is a scale-down when its effective requests, status
// resources counted, go down (kube's extractPodScaleDown): a resize the
// kubelet actuates downwards is one even though the spec did not change,
// and lowering the spec below what still runs is not; each release counts
// the requests by its own rule.
func TestPodUpdateEventsResizeInFlight(t *testing.T) {
	type m = map[string]string
	pod := func(spec, status string) *api.Pod {
		return builder.MakePod().Name("p").Node("n").Req(m{"cpu": spec}).StatusReq("c0", m{"cpu": status}).Obj()
	}
	assigned := func(a fw.ActionType) []fw.ClusterEvent {
		return []fw.ClusterEvent{{Resource: fw.ResourceAssignedPod, ActionType: a}}
	}
	for _, tc := range []struct {
		name     string
		old, new *api.Pod
		want     []fw.ClusterEvent
	}{
		{"resize actuated downwards", pod("500m", "1500m"), pod("500m", "500m"), assigned(fw.UpdatePodScaleDown)},
		{"spec lowered, not yet actuated", pod("1500m", "1500m"), pod("500m", "1500m"), assigned(fw.Update)},
	} {
		for _, v := range fw.KubeVersions() {
			if diff := cmp.Diff(tc.want, fw.PodUpdateEvents(tc.old, tc.new, v)); diff != "" {
				t.Errorf("%s: %s (-want +got):\n%s", v, tc.name, diff)
			}
		}
	}
	// A plain init container's allocation going from 6 cpu back to its
	// spec's 4: v1.37 counted the 6, v1.36 never read it.
	initPod := func(alloc string) *api.Pod {
		return builder.MakePod().Name("p").Node("n").InitReq(m{"cpu": "4"}).Req(m{"cpu": "1"}).StatusAllocated("i0", m{"cpu": alloc}).Obj()
	}
	for v, want := range map[fw.KubeVersion]fw.ActionType{fw.KubeV136: fw.Update, fw.KubeV137: fw.UpdatePodScaleDown} {
		if diff := cmp.Diff(assigned(want), fw.PodUpdateEvents(initPod("6"), initPod("4"), v)); diff != "" {
			t.Errorf("%s: init container's allocation lowered (-want +got):\n%s", v, diff)
		}
	}
}
