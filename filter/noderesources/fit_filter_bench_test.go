package noderesources

import (
	"fmt"
	"math/rand/v2"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
)

func BenchmarkNodeResourcesFitFilter(b *testing.B) {
	pl, err := NewFit(NodeResourcesFitArgs{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	pod := fw.MustPodInfo(st.MakePod().Name("bench").Req(map[string]string{"cpu": "2", "memory": "4Gi", "example.com/gpu": "1"}).Obj())
	st.BenchFilter(b, pl, pod)
}

// BenchmarkShortNodeLoops times the filter pass's two loops over 5,000
// nodes for a pod without ephemeral storage, with none, 5–50 % at random
// positions, every third node (a full zone of three listed in turn) or
// all of the nodes short: dense writes every position and keeps the
// short ones by the count, sparse branches on each node. Each call reads
// another of 64 sets of free amounts, so that the branch predictor cannot
// learn random positions; nrfShortNodes2 is what the filter runs (the dense
// loop over the first loopchoice.Probe nodes, then the loop they
// suggest).
func BenchmarkShortNodeLoops(b *testing.B) {
	const nodes, sets = 5000, 64
	idx := make([]int32, nodes)
	for i := range idx {
		idx[i] = int32(i)
	}
	out := make([]fastpath.NodeRejection, nodes)
	for _, pattern := range []string{"none", "random-5%", "random-30%", "random-50%", "zone-in-turn", "all"} {
		r := rand.New(rand.NewPCG(uint64(len(pattern)), 1))
		frees := make([][]fw.NodeFree, sets)
		for s := range frees {
			frees[s] = make([]fw.NodeFree, nodes)
			for i := range frees[s] {
				frees[s][i] = fw.NodeFree{Pods: 10, MilliCPU: 4000, Memory: 8 << 30}
				var short bool
				switch pattern {
				case "none":
				case "all":
					short = true
				case "zone-in-turn":
					short = i%3 == 1 // one full zone of three, its nodes listed in turn
				default:
					var pct int
					fmt.Sscanf(pattern, "random-%d%%", &pct)
					short = r.IntN(100) < pct
				}
				if short {
					frees[s][i].MilliCPU = 100
				}
			}
		}
		for _, loop := range []struct {
			name string
			run  func(out []fastpath.NodeRejection, free []fw.NodeFree) int
		}{
			{"dense", func(out []fastpath.NodeRejection, free []fw.NodeFree) int {
				return nrfShortDense2(out, free, idx, 0, 500, 1<<30)
			}},
			{"sparse", func(out []fastpath.NodeRejection, free []fw.NodeFree) int {
				return nrfShortSparse2(out, free, idx, 0, 500, 1<<30)
			}},
			{"chosen", func(out []fastpath.NodeRejection, free []fw.NodeFree) int {
				return nrfShortNodes2(out, free, idx, 500, 1<<30)
			}},
		} {
			b.Run(pattern+"/"+loop.name, func(b *testing.B) {
				s := 0
				for b.Loop() {
					s++
					loop.run(out, frees[s%sets])
				}
			})
		}
	}
}
