package whatif

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// tableExtender scores every node by the length of its name, to give the
// score table an extender column.
type tableExtender struct{}

func (tableExtender) Name() string                         { return "name-length" }
func (tableExtender) IsInterested(*framework.PodInfo) bool { return true }
func (tableExtender) IsIgnorable() bool                    { return false }
func (tableExtender) IsFilter() bool                       { return false }
func (tableExtender) IsPrioritizer() bool                  { return true }
func (tableExtender) Filter(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, map[string]string, map[string]string, error) {
	return nodes, nil, nil, nil
}
func (tableExtender) Prioritize(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]framework.HostPriority, int64, error) {
	out := make([]framework.HostPriority, len(nodes))
	for i, n := range nodes {
		out[i] = framework.HostPriority{Host: n.Name(), Score: int64(len(n.Name()) % 10)}
	}
	return out, 2, nil
}

// The explanation of a Place answer prints each score under its own
// plugin's name, in cycles where some plugins' PreScore returned Skip
// (a pod without affinity or spreading: InterPodAffinity, NodeAffinity and
// PodTopologySpread skip), with and without an extender.
func TestPlaceAnswerScoreTableColumns(t *testing.T) {
	nodes := []*api.Node{
		wiNode("n1", "4").Obj(), wiNode("n22", "8").Obj(), wiNode("n333", "16").Obj(),
		wiNode("n4444", "4").Taint("dedicated", "x", api.TaintEffectPreferNoSchedule).Obj(),
	}
	pods := []*api.Pod{
		wiPod("a", "1").Node("n1").Obj(), wiPod("b", "3").Node("n22").Obj(), wiPod("c", "2").Node("n4444").Obj(),
	}
	for _, tc := range []struct {
		name string
		opts []scheduling.Option
	}{
		{"plugins only", nil},
		{"with an extender", []scheduling.Option{scheduling.WithExtenders(tableExtender{})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cluster.NewFrom(nodes, pods)
			if err != nil {
				t.Fatal(err)
			}
			w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, append([]scheduling.Option{scheduling.WithSeed(7)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			ans, err := w.Place(context.Background(), wiPod("new", "1").Obj())
			if err != nil {
				t.Fatal(err)
			}
			r := ans.Decision.Result
			if len(r.SkippedScore) == 0 {
				t.Fatalf("no plugin's PreScore returned Skip (scored by %v): the case tests nothing", r.ScorePlugins)
			}
			var b strings.Builder
			if err := ans.Write(&b, ExplainOptions{Top: 10}); err != nil {
				t.Fatal(err)
			}
			rows, err := st.CheckScoreTable(b.String(), r)
			if err != nil {
				t.Fatalf("%v\nin:\n%s", err, b.String())
			}
			if rows != len(nodes) {
				t.Errorf("%d rows checked, want %d:\n%s", rows, len(nodes), b.String())
			}
		})
	}
}
