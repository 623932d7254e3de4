package api_test

import (
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// TestPropPodRequestsSingleContainer: PodRequestVector and
// PodNonZeroRequests, which read a lone container's requests directly,
// equal the general aggregation (PodRequests, with the non-zero defaults
// for missing cpu and memory) on pods of one or more containers, with or
// without init containers and overhead, requesting any subset of cpu,
// memory, ephemeral storage and an extended resource, zero amounts and
// fractional ones included.
func TestPropPodRequestsSingleContainer(t *testing.T) {
	amounts := []string{"0", "1", "100m", "250m", "1.5", "512Mi", "1Gi", "3"}
	names := []resource.Name{resource.CPU, resource.Memory, resource.EphemeralStorage, "example.com/gpu"}
	list := func(t *rapid.T, label string) resource.List {
		l := resource.List{}
		for _, n := range names {
			if rapid.Bool().Draw(t, label+" has "+string(n)) {
				l[n] = resource.MustParse(rapid.SampledFrom(amounts).Draw(t, label+" "+string(n)))
			}
		}
		if len(l) == 0 && rapid.Bool().Draw(t, label+" nil") {
			return nil
		}
		return l
	}
	rapid.Check(t, func(t *rapid.T) {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns"}}
		for i := range rapid.IntRange(0, 2).Draw(t, "containers") {
			pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Resources: api.ResourceRequirements{Requests: list(t, "container "+string(rune('0'+i)))}})
		}
		if rapid.IntRange(0, 3).Draw(t, "init") == 0 {
			pod.Spec.InitContainers = []api.Container{{Resources: api.ResourceRequirements{Requests: list(t, "init")}}}
		}
		if rapid.IntRange(0, 3).Draw(t, "overhead") == 0 {
			pod.Spec.Overhead = list(t, "overhead")
		}
		want := resource.VectorFrom(api.PodRequests(pod, api.RequestOptions{}))
		if got := api.PodRequestVector(pod); !got.Equal(want) {
			t.Fatalf("PodRequestVector = %+v, want %+v", got, want)
		}
		nz := api.PodRequests(pod, api.RequestOptions{NonMissing: resource.List{
			resource.CPU:    resource.NewMilliQuantity(api.DefaultMilliCPURequest, resource.DecimalSI),
			resource.Memory: resource.NewQuantity(api.DefaultMemoryRequest, resource.DecimalSI),
		}})
		cpu, mem := nz[resource.CPU], nz[resource.Memory]
		if gotCPU, gotMem := api.PodNonZeroRequests(pod); gotCPU != cpu.MilliValue() || gotMem != mem.Value() {
			t.Fatalf("PodNonZeroRequests = (%d, %d), want (%d, %d)", gotCPU, gotMem, cpu.MilliValue(), mem.Value())
		}
	})
}
