package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
)

// BenchmarkSelectHost ranks 500 totals (kube's adaptive sample on 5,000
// nodes), as Incremental's cycles do: "distinct"
// totals spread over a wide range (a few ties), "tied" totals over four
// values (a quarter of the nodes tie for the lead).
func BenchmarkSelectHost(b *testing.B) {
	const nf = 500
	nodes := make([]*framework.NodeInfo, nf)
	feasible := make([]int32, nf)
	for i := range nodes {
		nodes[i], _ = framework.NewNodeInfo(testNode(fmt.Sprintf("n%d", i), 1000))
		feasible[i] = int32(i)
	}
	for _, tc := range []struct {
		name   string
		spread int64
	}{{"distinct", 100000}, {"tied", 4}} {
		b.Run(tc.name, func(b *testing.B) {
			src := rand.New(rand.NewPCG(3, 4))
			base := make([]int64, nf)
			for j := range base {
				base[j] = src.Int64N(tc.spread)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			r := &Result{order: nodes, feasible: feasible, Totals: make([]int64, nf)}
			for b.Loop() {
				copy(r.Totals, base)
				r.selectHost(rng, 3)
			}
		})
	}
}
