package synth

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/replay"
)

// builderWorkload is AddWorkload of DefaultWorkload written plainly: every pod built on
// its own by the builder, from the same random draws.
func builderWorkload(n int, rng *rand.Rand) []replay.PodArrival {
	shapes := []struct {
		name, cpu, mem string
		weight         int
		batch          bool
	}{
		{"web", "250m", "512Mi", 40, false},
		{"api", "500m", "1Gi", 25, false},
		{"batch", "1", "2Gi", 15, true},
		{"cache", "500m", "4Gi", 12, false},
		{"ml", "2", "8Gi", 8, false},
	}
	var out []replay.PodArrival
	for i := range n {
		pick := rng.IntN(100)
		s := shapes[0]
		for _, c := range shapes {
			if pick < c.weight {
				s = c
				break
			}
			pick -= c.weight
		}
		prio := int32(0)
		if rng.IntN(10) == 0 {
			prio = 1000
		}
		pod := builder.MakePod().Name(fmt.Sprintf("%s-%05d", s.name, i)).Label("app", s.name).Priority(prio).
			Req(map[string]string{"cpu": s.cpu, "memory": s.mem}).Obj()
		var dur time.Duration
		if s.batch {
			dur = time.Duration(30+rng.IntN(61)) * time.Second
		}
		at := time.Duration(0)
		if n > 1 {
			at = 100 * time.Second * time.Duration(i) / time.Duration(n)
		}
		out = append(out, replay.PodArrival{At: at, Duration: dur, Pod: pod})
	}
	return out
}

// TestDefaultWorkloadEqualsBuilt: the default workload's pods, which share
// their specs per shape, equal pods built one by one, arrival for arrival,
// so sharing changes no decision.
func TestDefaultWorkloadEqualsBuilt(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3000} {
		for seed := range uint64(3) {
			var w replay.Scenario
			if err := AddWorkload(&w, DefaultWorkload(n), rand.New(rand.NewPCG(seed, 0x5eed)), nil); err != nil {
				t.Fatal(err)
			}
			want := builderWorkload(n, rand.New(rand.NewPCG(seed, 0x5eed)))
			if len(w.Arrivals) != len(want) {
				t.Fatalf("n=%d seed=%d: %d arrivals, want %d", n, seed, len(w.Arrivals), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(w.Arrivals[i], want[i]) {
					t.Fatalf("n=%d seed=%d: arrival %d = %+v (pod %+v), want %+v (pod %+v)", n, seed, i, w.Arrivals[i], *w.Arrivals[i].Pod, want[i], *want[i].Pod)
				}
			}
		}
	}
}

// builderCluster is AddCluster of DefaultCluster written plainly: every node built on
// its own by the builder, from the same random draws.
func builderCluster(n int, rng *rand.Rand) ([]*api.Node, []*api.NodeMetric) {
	sizes := []struct{ cpu, mem string }{{"8", "32Gi"}, {"16", "64Gi"}, {"32", "128Gi"}, {"64", "256Gi"}}
	size := []int{0, 0, 0, 0, 1, 1, 1, 2, 2, 3}
	var nodes []*api.Node
	var metrics []*api.NodeMetric
	for i := range n {
		s := sizes[size[i%len(size)]]
		node := builder.MakeNode().Name(fmt.Sprintf("node-%04d", i)).Label(api.LabelTopologyZone, fmt.Sprintf("zone-%c", 'a'+i%3)).
			Capacity(map[string]string{"cpu": s.cpu, "memory": s.mem}).Obj()
		nodes = append(nodes, node)
		cpu := node.Status.Allocatable[resource.CPU]
		mem := node.Status.Allocatable[resource.Memory]
		usedCPU := cpu.MilliValue() * int64(rng.IntN(16)) / 100
		usedMem := mem.Value() * int64(5+rng.IntN(16)) / 100
		metrics = append(metrics, builder.MakeNodeMetric(node.Name).UpdateTime(Start()).
			Usage(map[string]string{"cpu": fmt.Sprintf("%dm", usedCPU), "memory": fmt.Sprint(usedMem)}).Obj())
	}
	return nodes, metrics
}

// TestDefaultClusterEqualsBuilt: the default cluster's nodes, which share
// their capacity lists per size, equal nodes built one by one, and so do
// their NodeMetrics.
func TestDefaultClusterEqualsBuilt(t *testing.T) {
	for _, n := range []int{1, 2, 1234} {
		var w replay.Scenario
		if err := AddCluster(&w, DefaultCluster(n), rand.New(rand.NewPCG(5, 0x5eed)), nil); err != nil {
			t.Fatal(err)
		}
		nodes, metrics := builderCluster(n, rand.New(rand.NewPCG(5, 0x5eed)))
		if len(w.Nodes) != n || len(w.NodeMetrics) != n {
			t.Fatalf("n=%d: %d nodes, %d metrics", n, len(w.Nodes), len(w.NodeMetrics))
		}
		for i := range nodes {
			if !reflect.DeepEqual(w.Nodes[i], nodes[i]) {
				t.Fatalf("n=%d: node %d = %+v, want %+v", n, i, *w.Nodes[i], *nodes[i])
			}
			if !reflect.DeepEqual(w.NodeMetrics[i], metrics[i]) {
				t.Fatalf("n=%d: metric %d = %+v, want %+v", n, i, *w.NodeMetrics[i], *metrics[i])
			}
		}
	}
}
