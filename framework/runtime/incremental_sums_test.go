package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
)

// fakeLabelFailScore is a node-local Score plugin (no normalization)
// scoring 10 on every node but those labelled "scorefail", where it
// fails.
type fakeLabelFailScore struct{}

func (fakeLabelFailScore) Name() string                      { return "LabelFailScore" }
func (fakeLabelFailScore) NodeLocal(*framework.PodInfo) bool { return true }
func (fakeLabelFailScore) ScoreExtensions() framework.ScoreExtensions {
	return nil
}
func (fakeLabelFailScore) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if n.Node().Labels["scorefail"] != "" {
		return 0, framework.AsStatus(fmt.Errorf("node %s fails", n.Name()))
	}
	return 10, nil
}

var _ fastpath.NodeLocalPlugin = fakeLabelFailScore{}

// TestIncrementalScoreFailureOnRejectedNode: Incremental scores the
// stale nodes of the span its cycle covers, those the filters rejected
// too; a node-local Score plugin failing on a rejected node leaves the
// cycle to Incremental (Schedule never scores that node), failing on a
// feasible node hands it back (Schedule reports the error). Three cycles
// each, the node between the first and last feasible ones.
func TestIncrementalScoreFailureOnRejectedNode(t *testing.T) {
	tests := []struct {
		name          string
		unschedulable bool // the failing node is rejected (NodeUnschedulable)
		handled       bool
	}{
		{name: "rejected node", unschedulable: true, handled: true},
		{name: "feasible node", unschedulable: false, handled: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for i := range 12 {
				w := builder.MakeNode().Name(fmt.Sprintf("n%03d", i)).Allocatable(map[string]string{"cpu": "8", "memory": "8Gi", "pods": "110"})
				if i == 5 {
					w = w.Label("scorefail", "yes")
					if tt.unschedulable {
						w = w.Unschedulable()
					}
				}
				nodes = append(nodes, w.Obj())
			}
			snap := framework.MustSnapshot(nodes, nil)
			reg := scheduling.NewDefaultRegistry()
			if err := reg.Register("LabelFailScore", func(any, framework.Handle) (framework.Plugin, error) { return fakeLabelFailScore{}, nil }); err != nil {
				t.Fatal(err)
			}
			prof := scheduling.DefaultProfile()
			prof.Score = append(slices.Clone(prof.Score), "LabelFailScore")
			prof.Weights["LabelFailScore"] = 1
			fw, err := runtime.NewFramework(reg, prof)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := framework.NewPodInfo(builder.MakePod().Name("web").Req(map[string]string{"cpu": "100m"}).Obj())
			if err != nil {
				t.Fatal(err)
			}
			inc := fw.NewIncremental(nil)
			defer inc.Close()
			ctx := context.Background()
			opts := func() runtime.CycleOptions {
				return runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), SkipExplanation: true}
			}
			for cycle := range 3 {
				pod := *tmpl.Pod
				pod.Name = fmt.Sprintf("web-%d", cycle)
				pi := *tmpl
				pi.Pod = &pod
				got, handled := inc.Schedule(ctx, snap, &pi, opts())
				want, errS := fw.Schedule(ctx, nil, snap, &pi, opts())
				if handled != tt.handled || (errS == nil) != tt.handled {
					t.Fatalf("cycle %d: handled %v, want %v (Schedule's error: %v)", cycle, handled, tt.handled, errS)
				}
				if !handled {
					continue
				}
				if got.SelectedNode() != want.SelectedNode() || !slices.Equal(got.Totals, want.Totals) || !slices.Equal(got.Top, want.Top) {
					t.Fatalf("cycle %d: Incremental chose %s %v %v, Schedule %s %v %v", cycle,
						got.SelectedNode(), got.Totals, got.Top, want.SelectedNode(), want.Totals, want.Top)
				}
				placed := pod
				placed.Spec.NodeName = want.SelectedNode()
				ppi := *tmpl
				ppi.Pod = &placed
				if _, err := snap.AddPodInfo(&ppi, framework.PodAdd{}); err != nil {
					t.Fatal(err)
				}
				inc.Added(&ppi, placed.Spec.NodeName)
			}
		})
	}
}
