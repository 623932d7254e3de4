package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Helpers shared by this package's object-model tests (prefix om).

// omL parses a resource list (nil for nil).
func omL(m map[string]string) resource.List { return resource.MustParseList(m) }

// omC is a container with requests and limits.
func omC(req, lim map[string]string) api.Container {
	return api.Container{Resources: api.ResourceRequirements{Requests: omL(req), Limits: omL(lim)}}
}

// omSidecar is a restartable init container with requests and limits.
func omSidecar(req, lim map[string]string) api.Container {
	c := omC(req, lim)
	always := api.RestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

// omPod is a pod with the given containers and init containers.
func omPod(containers []api.Container, inits ...api.Container) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", UID: "p"},
		Spec:       api.PodSpec{Containers: containers, InitContainers: inits},
	}
}

// omWithOverhead sets spec.overhead.
func omWithOverhead(p *api.Pod, m map[string]string) *api.Pod { p.Spec.Overhead = omL(m); return p }

// omWithPodLevel sets spec.resources.
func omWithPodLevel(p *api.Pod, req, lim map[string]string) *api.Pod {
	p.Spec.Resources = &api.ResourceRequirements{Requests: omL(req), Limits: omL(lim)}
	return p
}

// omListEqual fails unless got has exactly want's names with numerically
// equal quantities (kube's tests compare with equality.Semantic.DeepEqual,
// which also distinguishes a missing name from an explicit zero).
func omListEqual(t *testing.T, what string, got, want resource.List) {
	t.Helper()
	if diff := cmp.Diff(want.Names(), got.Names()); diff != "" {
		t.Errorf("%s: names (-want +got):\n%s\n got %v, want %v", what, diff, got, want)
		return
	}
	for n, q := range want {
		if got[n].Cmp(q) != 0 {
			t.Errorf("%s: %s = %v, want %v (got %v)", what, n, got[n], q, got)
		}
	}
}

type omM = map[string]string

// Cases ported from kubernetes staging/src/k8s.io/component-helpers/resource/
// helpers_test.go (TestPodRequestsAndLimits, TestPodRequestsAndLimitsWithoutOverhead,
// TestPodResourceRequests, TestPodLevelResourceRequests), written in our
// types, plus hand-derived cases; the arithmetic is in the comments.
func TestPodRequests(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		opts api.RequestOptions
		want omM
	}{
		{name: "no containers", pod: omPod(nil), want: omM{}},
		{name: "containers sum", pod: omPod([]api.Container{omC(omM{"cpu": "1", "memory": "5"}, nil), omC(omM{"cpu": "4", "memory": "12", "nvidia.com/gpu": "1"}, nil)}),
			want: omM{"cpu": "5", "memory": "17", "nvidia.com/gpu": "1"}},
		// kube TestPodRequestsAndLimits.
		{name: "kube just-limit-no-overhead", pod: omPod([]api.Container{omC(nil, omM{"cpu": "9"})}), want: omM{}},
		{name: "kube just-overhead", pod: omWithOverhead(omPod([]api.Container{omC(nil, nil)}), omM{"cpu": "5", "memory": "5"}),
			want: omM{"cpu": "5", "memory": "5"}},
		{name: "kube req-and-overhead", pod: omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "10"}, nil)}), omM{"cpu": "5", "memory": "5"}),
			want: omM{"cpu": "6", "memory": "15"}},
		// kube TestPodRequestsAndLimitsWithoutOverhead: ExcludeOverhead.
		{name: "kube two containers, overhead excluded",
			pod:  omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "5"}, nil), omC(omM{"cpu": "4", "memory": "12"}, nil)}), omM{"cpu": "3", "memory": "8"}),
			opts: api.RequestOptions{ExcludeOverhead: true}, want: omM{"cpu": "5", "memory": "17"}},
		{name: "kube massive init, overhead excluded: largest init wins",
			pod: omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "5"}, nil), omC(omM{"cpu": "4", "memory": "12"}, nil)},
				omC(omM{"cpu": "1", "memory": "5"}, nil), omC(omM{"cpu": "40", "memory": "120"}, nil)), omM{"cpu": "3", "memory": "8"}),
			opts: api.RequestOptions{ExcludeOverhead: true}, want: omM{"cpu": "40", "memory": "120"}},
		// Same pod with overhead: max(5, 40) + 3 = 43, max(17, 120) + 8 = 128.
		{name: "massive init plus overhead",
			pod: omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "5"}, nil), omC(omM{"cpu": "4", "memory": "12"}, nil)},
				omC(omM{"cpu": "1", "memory": "5"}, nil), omC(omM{"cpu": "40", "memory": "120"}, nil)), omM{"cpu": "3", "memory": "8"}),
			want: omM{"cpu": "43", "memory": "128"}},
		// kube TestPodResourceRequests.
		{name: "kube larger init container", pod: omPod([]api.Container{omC(omM{"cpu": "1"}, nil)}, omC(omM{"cpu": "4"}, nil)), want: omM{"cpu": "4"}},
		{name: "kube larger containers", pod: omPod([]api.Container{omC(omM{"cpu": "2"}, nil), omC(omM{"cpu": "3"}, nil)}, omC(omM{"cpu": "2"}, nil)), want: omM{"cpu": "5"}},
		{name: "kube pod overhead included",
			pod:  omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "2"}, nil), omC(omM{"cpu": "3"}, nil)}, omC(omM{"cpu": "2"}, omM{"cpu": "2"})), omM{"cpu": "1", "memory": "1Gi"}),
			want: omM{"cpu": "6", "memory": "1Gi"}},
		// kube "restartable-init, init and regular": sidecar 10 runs during
		// init 200 (use 210) and beside the container (100+10=110).
		{name: "kube sidecar before a plain init container",
			pod:  omPod([]api.Container{omC(omM{"cpu": "100"}, nil)}, omSidecar(omM{"cpu": "10"}, nil), omC(omM{"cpu": "200"}, nil)),
			want: omM{"cpu": "210"}},
		// kube TestPodResourceLimits "multiple restartable init containers"
		// (same aggregation on requests): init 5 runs alone (use 5);
		// sidecars 1+2+3 join the container 1: 7. max = 7.
		{name: "kube plain init before sidecars",
			pod: omPod([]api.Container{omC(omM{"cpu": "1"}, nil)},
				omC(omM{"cpu": "5"}, nil), omSidecar(omM{"cpu": "1"}, nil), omSidecar(omM{"cpu": "2"}, nil), omSidecar(omM{"cpu": "3"}, nil)),
			want: omM{"cpu": "7"}},
		// kube "multiple restartable and regular init containers": init-2
		// (5) starts after sidecars 1 and 2: use 5+1+2 = 8; sidecar 3 starts
		// after it and does not count for it; steady state 1+1+2+3 = 7.
		{name: "kube sidecars before and after a plain init container",
			pod: omPod([]api.Container{omC(omM{"cpu": "1"}, nil)},
				omC(omM{"cpu": "5"}, nil), omSidecar(omM{"cpu": "1"}, nil), omSidecar(omM{"cpu": "2"}, nil), omC(omM{"cpu": "5"}, nil), omSidecar(omM{"cpu": "3"}, nil)),
			want: omM{"cpu": "8"}},
		// Per-resource maximum from different phases. Steady state:
		// container 1/1Gi + sidecar 500m/256Mi = 1.5/1280Mi. Init A (before
		// the sidecar): 2/512Mi. Init B (after it): 1+0.5 = 1.5 and
		// 2Gi+256Mi = 2304Mi. cpu = max(1.5, 2, 1.5) = 2 (from A); memory =
		// max(1280Mi, 512Mi, 2304Mi) = 2304Mi (from B). Overhead +100m/+64Mi.
		{name: "per-resource max across phases plus overhead",
			pod: omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "1Gi"}, nil)},
				omC(omM{"cpu": "2", "memory": "512Mi"}, nil), omSidecar(omM{"cpu": "500m", "memory": "256Mi"}, nil), omC(omM{"cpu": "1", "memory": "2Gi"}, nil)),
				omM{"cpu": "100m", "memory": "64Mi"}),
			want: omM{"cpu": "2100m", "memory": "2368Mi"}},
		// A resource only an init container requests still shows up.
		{name: "init-only extended resource", pod: omPod([]api.Container{omC(omM{"cpu": "1"}, nil)}, omC(omM{"example.com/dongle": "2"}, nil)),
			want: omM{"cpu": "1", "example.com/dongle": "2"}},
		// An explicit zero request is kept as a name.
		{name: "explicit zero kept", pod: omPod([]api.Container{omC(omM{"cpu": "0"}, nil)}), want: omM{"cpu": "0"}},
		// kube TestPodLevelResourceRequests.
		{name: "kube pod-level memory, SkipPodLevelResources", pod: omWithPodLevel(omPod(nil), omM{"memory": "2Mi"}, nil),
			opts: api.RequestOptions{SkipPodLevelResources: true}, want: omM{}},
		{name: "kube pod-level memory", pod: omWithPodLevel(omPod(nil), omM{"memory": "2Mi"}, nil), want: omM{"memory": "2Mi"}},
		{name: "kube pod-level memory, container cpu", pod: omWithPodLevel(omPod([]api.Container{omC(omM{"cpu": "2m"}, nil)}), omM{"memory": "2Mi"}, nil),
			want: omM{"memory": "2Mi", "cpu": "2m"}},
		{name: "kube pod-level unsupported resource ignored", pod: omWithPodLevel(omPod([]api.Container{omC(omM{"storage": "3Mi"}, nil)}), omM{"storage": "2Mi"}, nil),
			want: omM{"storage": "3Mi"}},
		{name: "kube pod-level replaces container level", pod: omWithPodLevel(omPod([]api.Container{omC(omM{"cpu": "2m", "memory": "3Mi"}, nil)}), omM{"cpu": "8m", "memory": "6Mi"}, nil),
			want: omM{"cpu": "8m", "memory": "6Mi"}},
		// kube "container-level resources, init and sidecar container set":
		// steady 3+5 = 8Mi, 2+4 = 6m; init after the sidecar 6+5 = 11Mi,
		// 8+4 = 12m.
		{name: "kube sidecar then init, no pod level",
			pod:  omPod([]api.Container{omC(omM{"cpu": "2m", "memory": "3Mi"}, nil)}, omSidecar(omM{"cpu": "4m", "memory": "5Mi"}, nil), omC(omM{"cpu": "8m", "memory": "6Mi"}, nil)),
			want: omM{"cpu": "12m", "memory": "11Mi"}},
		{name: "kube pod-level over sidecar and init",
			pod: omWithPodLevel(omPod([]api.Container{omC(omM{"cpu": "2m", "memory": "3Mi"}, nil)}, omSidecar(omM{"cpu": "4m", "memory": "5Mi"}, nil), omC(omM{"cpu": "8m", "memory": "6Mi"}, nil)),
				omM{"cpu": "18m", "memory": "15Mi"}, nil),
			want: omM{"cpu": "18m", "memory": "15Mi"}},
		{name: "kube pod-level hugepages single size",
			pod:  omWithPodLevel(omPod([]api.Container{omC(omM{"hugepages-2Mi": "6Mi"}, omM{"hugepages-2Mi": "6Mi"})}), omM{"cpu": "1", "hugepages-2Mi": "10Mi"}, omM{"hugepages-2Mi": "10Mi"}),
			want: omM{"cpu": "1", "hugepages-2Mi": "10Mi"}},
		{name: "kube pod-level and container-level hugepage sizes",
			pod: omWithPodLevel(omPod([]api.Container{omC(omM{"memory": "4Mi", "hugepages-1Gi": "1Gi"}, omM{"hugepages-1Gi": "1Gi"})}),
				omM{"cpu": "1", "hugepages-2Mi": "10Mi"}, omM{"hugepages-2Mi": "10Mi"}),
			want: omM{"cpu": "1", "memory": "4Mi", "hugepages-2Mi": "10Mi", "hugepages-1Gi": "1Gi"}},
		// Pod level first, then overhead: 1 + 250m.
		{name: "pod-level then overhead", pod: omWithOverhead(omWithPodLevel(omPod([]api.Container{omC(omM{"cpu": "3"}, nil)}), omM{"cpu": "1"}, nil), omM{"cpu": "250m"}),
			want: omM{"cpu": "1250m"}},
		// NonMissing: A lacks both (100m, 200Mi); B has cpu 0 explicitly,
		// lacks memory (0, 200Mi): steady 100m / 400Mi. Init C 300m, lacks
		// memory (300m, 200Mi). max: 300m / 400Mi.
		{name: "non-missing defaults per container, explicit zero kept",
			pod:  omPod([]api.Container{omC(nil, nil), omC(omM{"cpu": "0"}, nil)}, omC(omM{"cpu": "300m"}, nil)),
			opts: api.RequestOptions{NonMissing: omL(omM{"cpu": "100m", "memory": "200Mi"})},
			want: omM{"cpu": "300m", "memory": "400Mi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			omListEqual(t, "PodRequests", api.PodRequests(tc.pod, tc.opts), omL(tc.want))
		})
	}
}

// PodRequests must not write into the pod's own lists.
func TestPodRequestsDoesNotMutatePod(t *testing.T) {
	pod := omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1"}, nil), omC(omM{"cpu": "2"}, nil)},
		omSidecar(omM{"cpu": "1"}, nil), omC(omM{"cpu": "9"}, nil)), omM{"cpu": "1"})
	before := []resource.List{pod.Spec.Containers[0].Resources.Requests.Clone(), pod.Spec.InitContainers[0].Resources.Requests.Clone(), pod.Spec.Overhead.Clone()}
	// Steady: cpu 1+2+1 = 4, memory 1+1+1 (defaults) = 3; init after the
	// sidecar: 9+1 = 10, 1+1 = 2. max 10 / 3, overhead +1 cpu.
	for i := 0; i < 2; i++ {
		omListEqual(t, "PodRequests", api.PodRequests(pod, api.RequestOptions{NonMissing: omL(omM{"memory": "1"})}), omL(omM{"cpu": "11", "memory": "3"}))
	}
	after := []resource.List{pod.Spec.Containers[0].Resources.Requests, pod.Spec.InitContainers[0].Resources.Requests, pod.Spec.Overhead}
	for i := range before {
		omListEqual(t, "pod list", after[i], before[i])
	}
}

// Cases ported from component-helpers helpers_test.go TestPodRequestsAndLimits
// and TestPodResourceLimits (our PodLimits always includes overhead).
func TestPodLimits(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		want omM
	}{
		{name: "kube just-limit-no-overhead", pod: omPod([]api.Container{omC(nil, omM{"cpu": "9"})}), want: omM{"cpu": "9"}},
		{name: "kube just-overhead", pod: omWithOverhead(omPod([]api.Container{omC(nil, nil)}), omM{"cpu": "5", "memory": "5"}), want: omM{}},
		{name: "kube all-req-lim-and-overhead",
			pod:  omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "10"}, omM{"cpu": "2", "memory": "12"})}), omM{"cpu": "5", "memory": "5"}),
			want: omM{"cpu": "7", "memory": "17"}},
		{name: "kube req-some-lim-and-overhead: overhead only on limited resources",
			pod:  omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "1", "memory": "10"}, omM{"cpu": "2"})}), omM{"cpu": "5", "memory": "5"}),
			want: omM{"cpu": "7"}},
		// kube "two container with overhead, massive init" with overhead
		// included: max(2+8, 80) + 3 = 83, max(10+24, 240) + 8 = 248.
		{name: "massive init limits plus overhead",
			pod: omWithOverhead(omPod([]api.Container{omC(nil, omM{"cpu": "2", "memory": "10"}), omC(nil, omM{"cpu": "8", "memory": "24"})},
				omC(nil, omM{"cpu": "1", "memory": "5"}), omC(nil, omM{"cpu": "80", "memory": "240"})), omM{"cpu": "3", "memory": "8"}),
			want: omM{"cpu": "83", "memory": "248"}},
		{name: "kube larger init container", pod: omPod([]api.Container{omC(nil, omM{"cpu": "1"})}, omC(nil, omM{"cpu": "4"})), want: omM{"cpu": "4"}},
		{name: "kube pod overhead included: no memory limit, none added",
			pod:  omWithOverhead(omPod([]api.Container{omC(nil, omM{"cpu": "2"}), omC(nil, omM{"cpu": "3"})}, omC(nil, omM{"cpu": "2"})), omM{"cpu": "1", "memory": "1Gi"}),
			want: omM{"cpu": "6"}},
		{name: "kube no limited containers", pod: omPod([]api.Container{omC(nil, nil)}), want: omM{}},
		{name: "kube one limited and one unlimited container", pod: omPod([]api.Container{omC(nil, omM{"cpu": "2", "memory": "2Gi"}), omC(nil, nil)}),
			want: omM{"cpu": "2", "memory": "2Gi"}},
		{name: "kube one limited and one unlimited init container",
			pod:  omPod([]api.Container{omC(nil, omM{"cpu": "1", "memory": "1Gi"})}, omC(nil, omM{"cpu": "2", "memory": "2Gi"}), omC(nil, nil)),
			want: omM{"cpu": "2", "memory": "2Gi"}},
		{name: "kube restartable init container", pod: omPod([]api.Container{omC(nil, omM{"cpu": "1"})}, omSidecar(nil, omM{"cpu": "1"})), want: omM{"cpu": "2"}},
		{name: "kube multiple restartable and regular init containers",
			pod: omPod([]api.Container{omC(nil, omM{"cpu": "1"})},
				omC(nil, omM{"cpu": "5"}), omSidecar(nil, omM{"cpu": "1"}), omSidecar(nil, omM{"cpu": "2"}), omC(nil, omM{"cpu": "5"}), omSidecar(nil, omM{"cpu": "3"})),
			want: omM{"cpu": "8"}},
		// An explicit zero limit stays zero: kube adds overhead only to
		// non-zero limits (PodLimits: ok && !value.IsZero()).
		{name: "overhead skips an explicit zero limit",
			pod:  omWithOverhead(omPod([]api.Container{omC(nil, omM{"cpu": "0", "memory": "1Gi"})}), omM{"cpu": "1", "memory": "1Gi"}),
			want: omM{"cpu": "0", "memory": "2Gi"}},
		// Pod-level limits replace cpu, memory and huge pages; overhead then.
		{name: "pod-level limits then overhead",
			pod:  omWithOverhead(omWithPodLevel(omPod([]api.Container{omC(nil, omM{"cpu": "1", "hugepages-2Mi": "2Mi", "example.com/x": "1"})}), nil, omM{"cpu": "4", "hugepages-2Mi": "8Mi"}), omM{"cpu": "1"}),
			want: omM{"cpu": "5", "hugepages-2Mi": "8Mi", "example.com/x": "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			omListEqual(t, "PodLimits", api.PodLimits(tc.pod), omL(tc.want))
		})
	}
}

const omMi = 1 << 20

// PodNonZeroRequests follows kube-scheduler's PodInfo.CalculateResource
// (pkg/scheduler/framework/types.go) and getNonMissingContainerRequests:
// 100m and 200Mi per container (init containers included) lacking cpu or
// memory, unless pod-level requests are set — then a default applies only to
// a resource the effective requests lack entirely.
func TestPodNonZeroRequests(t *testing.T) {
	tests := []struct {
		name    string
		pod     *api.Pod
		wantCPU int64
		wantMem int64
	}{
		{name: "best effort container", pod: omPod([]api.Container{omC(nil, nil)}), wantCPU: 100, wantMem: 200 * omMi},
		{name: "two best effort containers", pod: omPod([]api.Container{omC(nil, nil), omC(nil, nil)}), wantCPU: 200, wantMem: 400 * omMi},
		{name: "no containers", pod: omPod(nil), wantCPU: 0, wantMem: 0},
		{name: "explicit zeros kept", pod: omPod([]api.Container{omC(omM{"cpu": "0", "memory": "0"}, nil)}), wantCPU: 0, wantMem: 0},
		{name: "cpu only", pod: omPod([]api.Container{omC(omM{"cpu": "500m"}, nil)}), wantCPU: 500, wantMem: 200 * omMi},
		{name: "scalar only", pod: omPod([]api.Container{omC(omM{"nvidia.com/gpu": "1"}, nil)}), wantCPU: 100, wantMem: 200 * omMi},
		// Defaults apply to the init container too: init 100m/200Mi vs
		// steady state 1 / 200Mi → 1000m, 200Mi.
		{name: "init container defaults", pod: omPod([]api.Container{omC(omM{"cpu": "1"}, nil)}, omC(nil, nil)), wantCPU: 1000, wantMem: 200 * omMi},
		// Sidecar and container both defaulted: 200m / 400Mi.
		{name: "sidecar defaults", pod: omPod([]api.Container{omC(nil, nil)}, omSidecar(nil, nil)), wantCPU: 200, wantMem: 400 * omMi},
		// Overhead added after the defaults: 100m+50m, 200Mi+10Mi.
		{name: "overhead", pod: omWithOverhead(omPod([]api.Container{omC(nil, nil)}), omM{"cpu": "50m", "memory": "10Mi"}), wantCPU: 150, wantMem: 210 * omMi},
		// Pod level sets both: no defaults at all.
		{name: "pod level cpu and memory", pod: omWithPodLevel(omPod([]api.Container{omC(nil, nil), omC(nil, nil)}), omM{"cpu": "1", "memory": "1Gi"}, nil),
			wantCPU: 1000, wantMem: 1 << 30},
		// Pod level cpu only, no memory anywhere: memory defaults per
		// container, 2 × 200Mi.
		{name: "pod level cpu, memory missing everywhere", pod: omWithPodLevel(omPod([]api.Container{omC(nil, nil), omC(nil, nil)}), omM{"cpu": "2"}, nil),
			wantCPU: 2000, wantMem: 400 * omMi},
		// Pod level cpu only, one container requests 100Mi: memory is
		// present in the effective requests, so the other container gets no
		// default (kube getNonMissingContainerRequests): 100Mi, not 300Mi.
		{name: "pod level cpu, one container has memory", pod: omWithPodLevel(omPod([]api.Container{omC(omM{"memory": "100Mi"}, nil), omC(nil, nil)}), omM{"cpu": "2"}, nil),
			wantCPU: 2000, wantMem: 100 * omMi},
		// Memory only in the overhead also counts as present: 10Mi.
		{name: "pod level cpu, memory only in overhead", pod: omWithOverhead(omWithPodLevel(omPod([]api.Container{omC(nil, nil)}), omM{"cpu": "2"}, nil), omM{"memory": "10Mi"}),
			wantCPU: 2000, wantMem: 10 * omMi},
		// Pod-level huge pages alone: cpu and memory missing → defaults.
		{name: "pod level hugepages only", pod: omWithPodLevel(omPod([]api.Container{omC(nil, nil)}), omM{"hugepages-2Mi": "2Mi"}, nil),
			wantCPU: 100, wantMem: 200 * omMi},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cpu, mem := api.PodNonZeroRequests(tc.pod)
			if cpu != tc.wantCPU || mem != tc.wantMem {
				t.Errorf("PodNonZeroRequests = (%d, %d), want (%d, %d)", cpu, mem, tc.wantCPU, tc.wantMem)
			}
			pi, err := fw.NewPodInfo(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if pi.NonZeroMilliCPU != tc.wantCPU || pi.NonZeroMemory != tc.wantMem {
				t.Errorf("PodInfo non-zero = (%d, %d), want (%d, %d)", pi.NonZeroMilliCPU, pi.NonZeroMemory, tc.wantCPU, tc.wantMem)
			}
		})
	}
	if api.DefaultMilliCPURequest != 100 || api.DefaultMemoryRequest != 209715200 {
		t.Errorf("defaults = %d, %d; want 100, 209715200", api.DefaultMilliCPURequest, api.DefaultMemoryRequest)
	}
}

// PodRequestVector and PodInfo.Requests carry PodRequests in Vector units.
func TestPodRequestVector(t *testing.T) {
	pod := omWithOverhead(omPod([]api.Container{omC(omM{"cpu": "250m", "memory": "1.5", "nvidia.com/gpu": "1", "foo": "3"}, nil)}), omM{"cpu": "10m"})
	want := resource.Vector{MilliCPU: 260, Memory: 2, Scalars: []resource.Scalar{{Name: "nvidia.com/gpu", Value: 1}}}
	if got := api.PodRequestVector(pod); !got.Equal(want) {
		t.Errorf("PodRequestVector = %+v, want %+v", got, want)
	}
	if got := fw.MustPodInfo(pod).Requests; !got.Equal(want) {
		t.Errorf("PodInfo.Requests = %+v, want %+v", got, want)
	}
}

// Cases ported from kubernetes pkg/apis/core/v1/helper/qos/qos_test.go
// (TestComputePodQOS), plus edge cases.
func TestQOSClass(t *testing.T) {
	g, bu, be := api.QOSGuaranteed, api.QOSBurstable, api.QOSBestEffort
	cl := func(cpu, mem string) omM {
		m := omM{}
		if cpu != "" {
			m["cpu"] = cpu
		}
		if mem != "" {
			m["memory"] = mem
		}
		return m
	}
	tests := []struct {
		name string
		pod  *api.Pod
		want api.PodQOSClass
	}{
		{"kube guaranteed", omPod([]api.Container{omC(cl("100m", "100Mi"), cl("100m", "100Mi"))}), g},
		{"kube guaranteed-guaranteed", omPod([]api.Container{omC(cl("100m", "100Mi"), cl("100m", "100Mi")), omC(cl("100m", "100Mi"), cl("100m", "100Mi"))}), g},
		{"kube best-effort-best-effort", omPod([]api.Container{omC(nil, nil), omC(nil, nil)}), be},
		{"kube best-effort", omPod([]api.Container{omC(nil, nil)}), be},
		{"kube best-effort-burstable", omPod([]api.Container{omC(nil, nil), omC(cl("1", ""), cl("2", ""))}), bu},
		{"kube best-effort-guaranteed", omPod([]api.Container{omC(nil, nil), omC(cl("10m", "100Mi"), cl("10m", "100Mi"))}), bu},
		{"kube burstable-cpu-guaranteed-memory", omPod([]api.Container{omC(cl("", "100Mi"), cl("", "100Mi"))}), bu},
		{"kube burstable-no-limits", omPod([]api.Container{omC(cl("100m", "100Mi"), nil)}), bu},
		{"kube burstable-guaranteed", omPod([]api.Container{omC(cl("1", "100Mi"), cl("2", "100Mi")), omC(cl("100m", "100Mi"), cl("100m", "100Mi"))}), bu},
		{"kube burstable-unbounded-but-requests-match-limits", omPod([]api.Container{omC(cl("100m", "100Mi"), cl("200m", "200Mi")), omC(cl("100m", "100Mi"), nil)}), bu},
		{"kube burstable-1", omPod([]api.Container{omC(cl("10m", "100Mi"), cl("100m", "200Mi"))}), bu},
		{"kube burstable-2", omPod([]api.Container{omC(cl("0", "0"), cl("100m", "200Mi"))}), bu},
		{"kube best-effort-hugepages", omPod([]api.Container{omC(omM{"cpu": "0", "memory": "0", "hugepages-2Mi": "1Gi"}, omM{"cpu": "0", "memory": "0", "hugepages-2Mi": "1Gi"})}), be},
		{"kube init-container", omPod([]api.Container{omC(nil, nil)}, omC(cl("10m", "100Mi"), cl("100m", "200Mi"))), bu},
		{"kube guaranteed-with-pod-level-resources", omWithPodLevel(omPod([]api.Container{omC(nil, nil)}), cl("10m", "100Mi"), cl("10m", "100Mi")), g},
		{"kube guaranteed-with-pod-and-container-level-resources", omWithPodLevel(omPod([]api.Container{omC(cl("3m", "10Mi"), cl("5m", "20Mi"))}), cl("10m", "100Mi"), cl("10m", "100Mi")), g},
		{"kube burstable-with-pod-level-resources", omWithPodLevel(omPod([]api.Container{omC(nil, nil)}), cl("10m", "10Mi"), cl("20m", "50Mi")), bu},
		{"kube burstable-with-pod-and-container-level-resources", omWithPodLevel(omPod([]api.Container{omC(cl("5m", "10Mi"), cl("5m", "10Mi"))}), cl("10m", "10Mi"), cl("20m", "50Mi")), bu},
		{"kube burstable-with-pod-and-container-level-requests", omWithPodLevel(omPod([]api.Container{omC(cl("5m", "10Mi"), nil)}), cl("10m", "10Mi"), nil), bu},
		{"kube burstable-with-pod-and-container-level-resources-2",
			omWithPodLevel(omPod([]api.Container{omC(cl("5m", "10Mi"), nil), omC(cl("5m", "10Mi"), cl("5m", "10Mi"))}), cl("10m", "10Mi"), cl("5m", "")), bu},
		// Equal quantities in different units match.
		{"1 == 1000m", omPod([]api.Container{omC(cl("1", "1Gi"), cl("1000m", "1024Mi"))}), g},
		// Init containers count: both guaranteed → guaranteed; a sidecar
		// with only requests makes the pod burstable.
		{"guaranteed init and container", omPod([]api.Container{omC(cl("1", "1Gi"), cl("1", "1Gi"))}, omC(cl("2", "2Gi"), cl("2", "2Gi"))), g},
		{"sidecar with requests only", omPod([]api.Container{omC(cl("1", "1Gi"), cl("1", "1Gi"))}, omSidecar(cl("100m", ""), nil)), bu},
		// Only extended resources: not a QoS resource → best effort.
		{"extended only", omPod([]api.Container{omC(omM{"nvidia.com/gpu": "1"}, omM{"nvidia.com/gpu": "1"})}), be},
		// A limits-only container. The API server would default requests
		// to the limits (→ Guaranteed); we do not default, and kube's
		// GetPodQOS on such an undefaulted pod returns Burstable: requests
		// are empty, limits hold 2 entries, so the counts differ.
		{"limits only (no API defaulting)", omPod([]api.Container{omC(nil, cl("1", "1Gi"))}), bu},
		// An empty pod-level resources stanza still selects the pod-level
		// branch (kube: pod.Spec.Resources != nil) → best effort.
		{"empty pod-level resources", omWithPodLevel(omPod([]api.Container{omC(cl("1", "1Gi"), cl("1", "1Gi"))}), nil, nil), be},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.pod.QOSClass(); got != tc.want {
				t.Errorf("QOSClass = %s, want %s", got, tc.want)
			}
		})
	}
	// Status.QOSClass, when set, wins (kube GetPodQOS).
	p := omPod([]api.Container{omC(nil, nil)})
	p.Status.QOSClass = api.QOSGuaranteed
	if got := p.QOSClass(); got != api.QOSGuaranteed {
		t.Errorf("QOSClass with status = %s, want Guaranteed", got)
	}
}
