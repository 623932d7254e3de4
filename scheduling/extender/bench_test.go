package extender

import (
	"fmt"
	"net/http/httptest"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/internal/st"
)

// benchServer serves NodeResourcesFit (filter and LeastAllocated score)
// and BalancedAllocation over n nodes (32 cpu, 128Gi, 110 pods, three
// labels, ten images of two names each, as real nodes carry) with three
// pods each.
func benchServer(b *testing.B, n int) (*Server, *Cluster) {
	b.Helper()
	nodes := make([]*api.Node, n)
	var pods []*api.Pod
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		w := st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "32", "memory": "128Gi", "pods": "110"}).
			Label("kubernetes.io/hostname", name).Label("topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3)).
			Label("node.kubernetes.io/instance-type", "m6i.8xlarge")
		for k := range 10 {
			w = w.Image(int64(100+k)<<20, fmt.Sprintf("registry.example.com/team-%d/service:v1.%d", k, i%7), fmt.Sprintf("registry.example.com/team-%d/service@sha256:%064d", k, i%7))
		}
		nodes[i] = w.Obj()
		for j := range 3 {
			pods = append(pods, st.MakePod().Name(fmt.Sprintf("%s-p%d", name, j)).UID(fmt.Sprintf("%s-p%d", name, j)).Node(name).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 500+(i*7+j*311)%6000), "memory": fmt.Sprintf("%dMi", 512+(i*13+j*97)%16000)}).Obj())
		}
	}
	cl, err := NewCluster(nodes, pods)
	if err != nil {
		b.Fatal(err)
	}
	reg := framework.NewRegistry()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(reg.Register("FitFilter", framework.TypedFactory(noderesources.NewFit)))
	must(reg.Register(config.NodeResourcesFitName, framework.TypedFactory(noderesources.NewFit)))
	must(reg.Register(config.NodeResourcesBalancedAllocationName, framework.TypedFactory(noderesources.NewBalancedAllocation)))
	f, err := fwruntime.NewFramework(reg, framework.Profile{
		PreFilter: []string{"FitFilter"}, Filter: []string{"FitFilter"},
		PreScore: []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Score:    []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Weights:  map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1},
	})
	must(err)
	s, err := NewServer(ServerConfig{Framework: f, Cluster: cl})
	must(err)
	return s, cl
}

// BenchmarkServerRoundTrip is one pod's filter call then prioritize call
// (on the nodes that passed) from schedkit's client to the server over
// loopback HTTP, for 5,000 nodes: by name (nodeCacheCapable) and whole.
// Each op is a round trip of two requests; it reports round trips per
// second, the 99th-percentile round trip and the CPU time per round trip
// (client and server together; on a loaded machine the wall-clock numbers
// measure the load).
func BenchmarkServerRoundTrip(b *testing.B) {
	const n = 5000
	s, cl := benchServer(b, n)
	srv := httptest.NewServer(s)
	defer srv.Close()
	nodes := cl.Snapshot().Nodes()
	var pods []*framework.PodInfo
	for k := range 16 { // varied pods: the plugins' state is rebuilt per call anyway
		pods = append(pods, framework.MustPodInfo(st.MakePod().Name(fmt.Sprintf("in-%d", k)).UID(fmt.Sprintf("in-%d", k)).
			Req(map[string]string{"cpu": fmt.Sprintf("%dm", 250+k*700), "memory": fmt.Sprintf("%dMi", 256+k*1500)}).Obj()))
	}
	for _, mode := range []string{"names", "nodes"} {
		b.Run(fmt.Sprintf("nodes=%d/mode=%s", n, mode), func(b *testing.B) {
			c, err := New(Config{URLPrefix: srv.URL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: mode == "names"})
			if err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			runtime.GC() // the setup's garbage is not the round trips' CPU
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			cpu0, cpuOK := procstat.CPUTime()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				pod := pods[i%len(pods)]
				passed, _, _, err := c.Filter(pod, nodes)
				if err != nil {
					b.Fatal(err)
				}
				if len(passed) > 1 {
					if _, _, err := c.Prioritize(pod, passed); err != nil {
						b.Fatal(err)
					}
				}
				lat = append(lat, time.Since(t0))
			}
			elapsed := time.Since(start)
			cpu1, _ := procstat.CPUTime()
			b.StopTimer()
			if cpuOK {
				// Client and server share the process: the CPU both ends
				// spend per round trip, whatever the machine's load.
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/roundtrip")
			}
			slices.Sort(lat)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "roundtrips/s")
			b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
		})
	}
}
