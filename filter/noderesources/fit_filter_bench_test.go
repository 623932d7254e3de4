package noderesources

import (
	"testing"

	"github.com/schedkit/schedkit/filter/internal/loopchoice/looptest"
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
// suggest), given the nodes as a list of indices (chosen) or as the run
// they are (chosen-run: a block of 64 nodes whose minimum has room is
// passed unread, the others' nodes go through a dense loop reading the
// free amounts in order).
func BenchmarkShortNodeLoops(b *testing.B) {
	const nodes, sets = 5000, 64
	idx := make([]int32, nodes)
	for i := range idx {
		idx[i] = int32(i)
	}
	out := make([]fastpath.NodeRejection, nodes)
	// One full zone of three short, its nodes listed in turn.
	for _, p := range looptest.Standard(looptest.InTurn("zone-in-turn", func(i int) bool { return i%3 == 1 })) {
		pattern := p.Name
		frees, mins := make([][]fw.NodeFree, sets), make([][]fw.NodeFree, sets)
		for s, v := range p.Sets(sets, nodes) {
			frees[s] = make([]fw.NodeFree, nodes)
			for i, short := range v {
				frees[s][i] = fw.NodeFree{Pods: 10, MilliCPU: 4000, Memory: 8 << 30}
				if short {
					frees[s][i].MilliCPU = 100
				}
			}
			mins[s] = testFreeMins(frees[s])
		}
		for _, loop := range []struct {
			name string
			run  func(out []fastpath.NodeRejection, free, mins []fw.NodeFree) int
		}{
			{"dense", func(out []fastpath.NodeRejection, free, _ []fw.NodeFree) int {
				return nrfShortDense2(out, free, idx, 0, 500, 1<<30)
			}},
			{"sparse", func(out []fastpath.NodeRejection, free, _ []fw.NodeFree) int {
				return nrfShortSparse2(out, free, idx, 0, 500, 1<<30)
			}},
			{"chosen", func(out []fastpath.NodeRejection, free, mins []fw.NodeFree) int {
				return nrfShortNodes2(out, free, mins, idx, -1, 500, 1<<30)
			}},
			{"chosen-run", func(out []fastpath.NodeRejection, free, mins []fw.NodeFree) int {
				return nrfShortNodes2(out, free, mins, idx, 0, 500, 1<<30)
			}},
		} {
			b.Run(pattern+"/"+loop.name, func(b *testing.B) {
				s := 0
				for b.Loop() {
					s++
					loop.run(out, frees[s%sets], mins[s%sets])
				}
			})
		}
	}
}
