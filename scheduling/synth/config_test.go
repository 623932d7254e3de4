package synth

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/replay"
)

func TestConfigErrors(t *testing.T) {
	cluster := func(f func(*ClusterConfig)) ClusterConfig { c := DefaultCluster(10); f(&c); return c }
	workload := func(f func(*WorkloadConfig)) WorkloadConfig { c := DefaultWorkload(10); f(&c); return c }
	for _, tc := range []struct {
		name    string
		c       *ClusterConfig
		w       *WorkloadConfig
		wantErr string
	}{
		{"negative nodes", ptr(cluster(func(c *ClusterConfig) { c.Nodes = -1 })), nil, "nodes=-1"},
		{"no zones", ptr(cluster(func(c *ClusterConfig) { c.Zones = 0 })), nil, "zones=0"},
		{"27 zones", ptr(cluster(func(c *ClusterConfig) { c.Zones = 27 })), nil, "zones=27"},
		{"no node shapes", ptr(cluster(func(c *ClusterConfig) { c.Shapes = nil })), nil, "shapes: none given"},
		{"zero weight", ptr(cluster(func(c *ClusterConfig) { c.Shapes[1].Weight = 0 })), nil, "shapes[1].weight=0"},
		{"huge weight", ptr(cluster(func(c *ClusterConfig) { c.Shapes[0].Weight = MaxWeight + 1 })), nil, "shapes[0].weight=1001"},
		{"bad cpu", ptr(cluster(func(c *ClusterConfig) { c.Shapes[2].CPU = "lots" })), nil, `shapes[2]`},
		{"zero memory", ptr(cluster(func(c *ClusterConfig) { c.Shapes[0].Memory = "0" })), nil, `shapes[0].memory="0": must be positive`},
		{"negative pods", ptr(cluster(func(c *ClusterConfig) { c.Shapes[0].Pods = -2 })), nil, "shapes[0].pods=-2"},
		{"too many shapes", ptr(cluster(func(c *ClusterConfig) {
			c.Shapes = slices.Repeat(c.Shapes[:1], MaxShapes+1)
		})), nil, "65 given"},
		{"negative pod count", nil, ptr(workload(func(c *WorkloadConfig) { c.Pods = -3 })), "pods=-3"},
		{"negative window", nil, ptr(workload(func(c *WorkloadConfig) { c.Window = -time.Second })), "window=-1s"},
		{"negative one-in", nil, ptr(workload(func(c *WorkloadConfig) { c.HighPriorityOneIn = -1 })), "highPriorityOneIn=-1"},
		{"bad shape name", nil, ptr(workload(func(c *WorkloadConfig) { c.Shapes[0].Name = "Web_1" })), `shapes[0].name="Web_1"`},
		{"shape named twice", nil, ptr(workload(func(c *WorkloadConfig) { c.Shapes[1].Name = "web" })), `shapes[1].name="web": given twice`},
		{"bad request", nil, ptr(workload(func(c *WorkloadConfig) { c.Shapes[3].Memory = "4Gx" })), "shapes[3] (cache)"},
		{"max below min", nil, ptr(workload(func(c *WorkloadConfig) { c.Shapes[2].MaxDuration = time.Second })), "shapes[2] (batch): duration 30s–1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w replay.Scenario
			var err error
			if tc.c != nil {
				err = AddCluster(&w, *tc.c, rand.New(rand.NewPCG(1, 1)), nil)
			} else {
				err = AddWorkload(&w, *tc.w, rand.New(rand.NewPCG(1, 1)), nil)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "synth: ") {
				t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
			}
			if len(w.Nodes)+len(w.Arrivals) > 0 {
				t.Errorf("a refused configuration added %d nodes and %d pods", len(w.Nodes), len(w.Arrivals))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestClusterShapes: the nodes follow the weights in every run of nodes as
// long as the pattern, each shape with its capacity and pod slots, zones
// in turn, and a NodeMetric per node within the documented usage.
func TestClusterShapes(t *testing.T) {
	c := ClusterConfig{Nodes: 50, Zones: 2, Shapes: []NodeShape{
		{CPU: "4", Memory: "8Gi", Weight: 2},
		{CPU: "96", Memory: "768Gi", Pods: 250, Weight: 3},
	}}
	var w replay.Scenario
	var calls int
	if err := AddCluster(&w, c, rand.New(rand.NewPCG(3, 4)), func(done, total int) {
		calls++
		if done != calls || total != 50 {
			t.Fatalf("progress(%d, %d) at call %d", done, total, calls)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if calls != 50 || len(w.Nodes) != 50 || len(w.NodeMetrics) != 50 {
		t.Fatalf("%d progress calls, %d nodes, %d metrics", calls, len(w.Nodes), len(w.NodeMetrics))
	}
	for i, n := range w.Nodes {
		big := i%5 >= 2
		cpu, pods := n.Status.Allocatable[resource.CPU], n.Status.Allocatable[resource.Pods]
		wantCPU, wantPods := int64(4), int64(110)
		if big {
			wantCPU, wantPods = 96, 250
		}
		if cpu.Value() != wantCPU || pods.Value() != wantPods {
			t.Errorf("node %d: cpu %v pods %v, want %d and %d", i, cpu.String(), pods.String(), wantCPU, wantPods)
		}
		if z := n.Labels[api.LabelTopologyZone]; z != []string{"zone-a", "zone-b"}[i%2] {
			t.Errorf("node %d: zone %q", i, z)
		}
		if err := api.ValidateNode(n); err != nil {
			t.Errorf("node %d: %v", i, err)
		}
		m := w.NodeMetrics[i]
		used := m.Status.NodeMetric.NodeUsage.Resources[resource.CPU]
		if m.Name != n.Name || used.MilliValue() > cpu.MilliValue()*15/100 {
			t.Errorf("metric %d: node %s, cpu usage %v of %v", i, m.Name, used.String(), cpu.String())
		}
	}
	AddLoads(&w, 3)
	if len(w.NodeLoads) != 50 {
		t.Errorf("%d NodeLoads for 50 nodes with metrics", len(w.NodeLoads))
	}
}

// TestWorkloadArrivals: arrivals are Window·i/n exactly (computed here
// with big integers, so windows of years do not overflow), durations stay
// within their shape's bounds in whole seconds, and HighPriorityOneIn 0
// gives no high-priority pod.
func TestWorkloadArrivals(t *testing.T) {
	for _, window := range []time.Duration{0, 7 * time.Millisecond, 100 * time.Second, 200 * 365 * 24 * time.Hour} {
		c := WorkloadConfig{Pods: 997, Window: window, Shapes: []PodShape{
			{Name: "a", CPU: "1", Memory: "1Gi", Weight: 1, MinDuration: 5 * time.Second, MaxDuration: 8 * time.Second},
			{Name: "b", CPU: "100m", Memory: "64Mi", Weight: 2, MinDuration: 3 * time.Second, MaxDuration: 3 * time.Second},
		}}
		var w replay.Scenario
		if err := AddWorkload(&w, c, rand.New(rand.NewPCG(9, 9)), nil); err != nil {
			t.Fatal(err)
		}
		if len(w.Arrivals) != c.Pods {
			t.Fatalf("%d arrivals, want %d", len(w.Arrivals), c.Pods)
		}
		for i, a := range w.Arrivals {
			want := new(big.Int).Mul(big.NewInt(int64(window)), big.NewInt(int64(i)))
			want.Quo(want, big.NewInt(int64(c.Pods)))
			if a.At != time.Duration(want.Int64()) {
				t.Fatalf("window %v: arrival %d at %v, want %v", window, i, a.At, time.Duration(want.Int64()))
			}
			if a.Pod.Spec.Priority != nil && *a.Pod.Spec.Priority != 0 {
				t.Fatalf("pod %s has priority %d with HighPriorityOneIn 0", a.Pod.Name, *a.Pod.Spec.Priority)
			}
			switch a.Pod.Labels["app"] {
			case "a":
				if a.Duration < 5*time.Second || a.Duration > 8*time.Second || a.Duration%time.Second != 0 {
					t.Fatalf("pod %s runs %v", a.Pod.Name, a.Duration)
				}
			case "b":
				if a.Duration != 3*time.Second {
					t.Fatalf("pod %s runs %v", a.Pod.Name, a.Duration)
				}
			default:
				t.Fatalf("pod %s of app %q", a.Pod.Name, a.Pod.Labels["app"])
			}
		}
	}
}

// TestProfiles: every comparison profile builds, scores with its own
// plugin at weight 1 and with neither of the default profile's resource
// scores unless it is that plugin, and keeps every filter of the default
// profile; an unknown name lists the known ones.
func TestProfiles(t *testing.T) {
	plugin := map[string]string{
		"LeastAllocated": "NodeResourcesFit", "MostAllocated": "NodeResourcesFit",
		"BalancedAllocation": "NodeResourcesBalancedAllocation", "LoadAware": "LoadAwareScheduling",
		"TargetLoadPacking": "TargetLoadPacking", "LoadVariationRiskBalancing": "LoadVariationRiskBalancing",
	}
	if got := ProfileNames(); len(got) != len(plugin) {
		t.Fatalf("ProfileNames() = %v", got)
	}
	for _, v := range []framework.KubeVersion{framework.KubeV136, framework.KubeV137} {
		for _, name := range ProfileNames() {
			reg, p, err := Profile(name, v)
			if err != nil {
				t.Fatalf("%s %v: %v", name, v, err)
			}
			if reg == nil {
				t.Fatalf("%s: nil registry", name)
			}
			want := plugin[name]
			if !slices.Contains(p.Score, want) || p.Weights[want] != 1 {
				t.Errorf("%s: score %v weights %v, want %s at 1", name, p.Score, p.Weights, want)
			}
			for _, other := range []string{"NodeResourcesFit", "NodeResourcesBalancedAllocation"} {
				if other != want && slices.Contains(p.Score, other) {
					t.Errorf("%s: still scores with %s", name, other)
				}
			}
			if !slices.Contains(p.Filter, "NodeResourcesFit") || !slices.Contains(p.Filter, "PodTopologySpread") {
				t.Errorf("%s: filters %v", name, p.Filter)
			}
		}
	}
	if _, _, err := Profile("Spread", framework.KubeV137); err == nil || !strings.Contains(err.Error(), `"Spread": unknown (known: LeastAllocated, MostAllocated`) {
		t.Errorf("unknown profile: %v", err)
	}
}
