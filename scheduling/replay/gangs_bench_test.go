package replay

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

var gangBenchFull = flag.Bool("schedkit.gangbench.full", false, "BenchmarkGangReplay: also run 1,000 nodes and 200 gangs (minutes)")

// gangBenchScenario is nodes 16-cpu nodes and gangs gangs of 8–64 pods of 4
// cpu (sizes drawn from a fixed seed), arriving 100 ms apart with their
// pods interleaved (each gang's pods spread over the next second), each
// running 60 s once whole: about 1.8 times what the cluster holds.
func gangBenchScenario(nodes, gangs int) *Scenario {
	w := &Scenario{}
	for i := range nodes {
		w.Nodes = append(w.Nodes, st.MakeNode().Name(fmt.Sprintf("node-%04d", i)).Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"}).Obj())
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for g := range gangs {
		size := 8 + rng.IntN(57)
		name := fmt.Sprintf("gang-%03d", g)
		at := time.Duration(g) * 100 * time.Millisecond
		w.Gangs = append(w.Gangs, GangArrival{At: at, Group: &api.PodGroup{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.PodGroupSpec{MinMember: int32(size)}}})
		for i := range size {
			p := csPod("default", fmt.Sprintf("%s-%02d", name, i), name).Req(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
			w.Arrivals = append(w.Arrivals, PodArrival{At: at + time.Second*time.Duration(i)/time.Duration(size), Duration: time.Minute, Pod: p})
		}
	}
	return w
}

// BenchmarkGangReplay replays gangBenchScenario under kube's default
// profile and with Coscheduling, reporting placements (bound pods) per
// second of real time, the gangs that ran whole and the pod-seconds pods of
// incomplete gangs held idle. The small size (100 nodes, 20 gangs) always
// runs; the full size (1,000 nodes, 200 gangs: minutes per replay, most of
// it retrying the pending pods after every completion) only with
// -schedkit.gangbench.full.
func BenchmarkGangReplay(b *testing.B) {
	for _, size := range []struct {
		name         string
		nodes, gangs int
	}{{"small", 100, 20}, {"full", 1000, 200}} {
		if size.name == "full" && !*gangBenchFull {
			continue
		}
		w := gangBenchScenario(size.nodes, size.gangs)
		for _, p := range []struct {
			name    string
			profile framework.Profile
		}{{"Default", scheduling.DefaultProfile()}, {"Coscheduling", scheduling.EnableCoscheduling(scheduling.DefaultProfile(), nil)}} {
			b.Run(size.name+"/"+p.name, func(b *testing.B) {
				var placed, whole int
				var wasted float64
				var wall time.Duration
				for b.Loop() {
					res, err := Replay(context.Background(), w, Options{Profiles: []framework.Profile{p.profile}})
					if err != nil {
						b.Fatal(err)
					}
					placed, whole, wasted, wall = 0, 0, res.WastedPodSeconds(), wall+res.Wall
					for _, d := range res.Decisions {
						if d.Outcome == scheduling.OutcomeScheduled || d.Outcome == scheduling.OutcomeBound {
							placed++
						}
					}
					for _, g := range res.Gangs {
						if g.Whole {
							whole++
						}
					}
				}
				b.ReportMetric(float64(placed)*float64(b.N)/wall.Seconds(), "placements/s")
				b.ReportMetric(float64(whole), "gangs-whole")
				b.ReportMetric(wasted, "idle-pod-s")
			})
		}
	}
}
