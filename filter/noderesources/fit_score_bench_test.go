package noderesources

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/internal/st"
)

func BenchmarkNodeResourcesFitScore(b *testing.B) {
	for _, strat := range []ScoringStrategyType{LeastAllocated, MostAllocated, RequestedToCapacityRatio} {
		b.Run(string(strat), func(b *testing.B) {
			args := NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(strat,
				[]config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 3}},
				[]config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})}
			pl, err := NewFit(args, nil)
			if err != nil {
				b.Fatal(err)
			}
			st.BenchScore(b, pl, st.ScoreBenchPod())
		})
	}
}
