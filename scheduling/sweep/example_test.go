package sweep_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/scheduling/sweep"
)

// A sweep of two profiles over two seeds, run in two shards and merged.
func Example() {
	spec, err := sweep.ReadSpec(strings.NewReader(`
clusters: [{name: small, generate: {nodes: 40, shapes: [{cpu: "8", memory: 32Gi}]}}]
workloads: [{name: mix, generate: {pods: 300}}]
profiles: [{builtin: LeastAllocated}, {builtin: MostAllocated}]
seeds: [1, 2]
`), "sweep.yaml", sweep.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	units, err := spec.Units()
	if err != nil {
		fmt.Println(err)
		return
	}
	var inputs []sweep.Input
	for shard := range 2 {
		var out bytes.Buffer // a shard's JSON lines, one per unit
		if _, err := sweep.Run(context.Background(), units, sweep.RunOptions{Shard: shard, Shards: 2, Parallel: 2}, &out); err != nil {
			fmt.Println(err)
			return
		}
		inputs = append(inputs, sweep.Input{Name: fmt.Sprint("shard-", shard), R: &out})
	}
	report, err := sweep.Merge(units, inputs, sweep.MergeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range report.Results {
		fmt.Printf("%-34s placed %d, pending %d, cpu %.1f%% ± %.1f%%\n", r.Name, r.Placed, r.Pending, 100*r.CPU.Mean, 100*r.CPU.StdDev)
	}
	// Output:
	// small/mix/LeastAllocated/v1.37/1   placed 280, pending 0, cpu 51.7% ± 9.2%
	// small/mix/LeastAllocated/v1.37/2   placed 288, pending 0, cpu 49.1% ± 8.3%
	// small/mix/MostAllocated/v1.37/1    placed 280, pending 0, cpu 51.7% ± 49.3%
	// small/mix/MostAllocated/v1.37/2    placed 288, pending 0, cpu 49.1% ± 49.4%
}
