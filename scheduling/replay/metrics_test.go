package replay

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// TestMeasurePacking, by hand: n1 4 cpu / 8Gi with 1 cpu / 1Gi requested,
// n2 2 cpu / 2Gi empty; reference pod 1 cpu / 2Gi.
//   - cpu utilization .25 and 0: mean .125, sd .125; memory .125 and 0:
//     mean .0625, sd .0625; imbalance (|.25−.125| + 0)/2 = .0625.
//   - n1 free 3 cpu / 7Gi takes min(3, 3) = 3 reference pods, stranding
//     1Gi; n2 free 2 cpu / 2Gi takes 1, stranding 1 cpu. Fits 4; stranded
//     cpu 1/5, memory 1Gi/9Gi.
func TestMeasurePacking(t *testing.T) {
	const gi = 1 << 30
	snap := framework.MustSnapshot(
		[]*api.Node{
			st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj(),
			st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "memory": "2Gi", "pods": "10"}).Obj(),
		},
		[]*api.Pod{st.MakePod().Name("p").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Node("n1").Obj()})
	m := MeasurePacking(snap, resource.Vector{MilliCPU: 1000, Memory: 2 * gi})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"cpu mean", m.CPU.Mean, 0.125}, {"cpu sd", m.CPU.StdDev, 0.125}, {"cpu spread", m.CPU.Spread(), 0.25},
		{"mem mean", m.Memory.Mean, 0.0625}, {"mem sd", m.Memory.StdDev, 0.0625},
		{"imbalance", m.Imbalance, 0.0625},
		{"stranded cpu", m.Fragmentation.StrandedCPU, 0.2}, {"stranded mem", m.Fragmentation.StrandedMemory, 1.0 / 9},
		{"pod slots", m.PodSlots.Mean, 0.05},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.Fragmentation.Fits != 4 || m.EmptyNodes != 1 || m.Pods != 1 || m.CPU.Requested != 1000 || m.CPU.Allocatable != 6000 {
		t.Errorf("metrics = %+v", m)
	}
	empty := MeasurePacking(framework.MustSnapshot(nil, nil), resource.Vector{})
	if empty.CPU.Mean != 0 || empty.Nodes != 0 || empty.Fragmentation.StrandedCPU != 0 {
		t.Errorf("empty cluster metrics = %+v", empty)
	}
}

// TestMeasurePackingNil: a nil snapshot measures as an empty cluster
// (and an empty snapshot gives the same answer), instead of panicking.
func TestMeasurePackingNil(t *testing.T) {
	ref := resource.Vector{MilliCPU: 1000}
	empty, err := framework.NewSnapshot(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := MeasurePacking(empty, ref)
	if d := cmp.Diff(want, MeasurePacking(nil, ref)); d != "" {
		t.Errorf("MeasurePacking(nil) (-empty snapshot +nil):\n%s", d)
	}
	if want.Nodes != 0 || want.Fragmentation.Reference.MilliCPU != ref.MilliCPU {
		t.Errorf("empty cluster: %+v", want)
	}
}
