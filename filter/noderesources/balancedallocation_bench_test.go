package noderesources

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/internal/st"
)

func BenchmarkNodeResourcesBalancedAllocationScore(b *testing.B) {
	for _, mode := range []BalancedAllocationMode{BalancedAllocationDelta, BalancedAllocationStdDev, BalancedAllocationClassic} {
		b.Run(string(mode), func(b *testing.B) {
			var res []config.ResourceSpec
			if mode != BalancedAllocationClassic {
				res = []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 1}}
			}
			pl, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: mode, Resources: res}, nil)
			if err != nil {
				b.Fatal(err)
			}
			st.BenchScore(b, pl, st.ScoreBenchPod())
		})
	}
}
