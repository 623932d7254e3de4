package scheduling

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestPropPreemptionKeptRejections: preemption answers nodes rejected by a
// plugin whose verdict removing victims cannot change without its dry run
// there; its outcome (message, nomination, victims) is the same as when
// the plugin promises nothing and every such node is dry-run — with the
// default plugins before it, nominated pods, host ports and pods with
// required (anti-)affinity, which stop the shortcut.
func TestPropPreemptionKeptRejections(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nn := rapid.IntRange(1, 6).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range nn {
			w := st.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "2", "pods": "8"}).Label("zone", fmt.Sprintf("z%d", i%2))
			if rapid.Bool().Draw(t, "hot") {
				w = w.Label("hot", "true")
			}
			nodes = append(nodes, w.Obj())
		}
		var pods []*api.Pod
		for i := range rapid.IntRange(0, 14).Draw(t, "pods") {
			w := st.MakePod().Name(fmt.Sprintf("p%d", i)).Label("app", fmt.Sprintf("a%d", i%3)).
				Priority(int32(rapid.IntRange(0, 3).Draw(t, "prio"))).StartTime(time.Unix(0, int64(i))).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 100*rapid.IntRange(1, 8).Draw(t, "cpu"))})
			if rapid.IntRange(0, 5).Draw(t, "port") == 0 {
				w = w.HostPort("", api.ProtocolTCP, 8080)
			}
			node := nodes[rapid.IntRange(0, nn-1).Draw(t, "on")].Name
			if rapid.IntRange(0, 6).Draw(t, "nominated") == 0 {
				w = w.Priority(100).NominatedNode(node)
			} else {
				w = w.Node(node)
			}
			pods = append(pods, w.Obj())
		}
		pre := st.MakePod().Name("pre").Label("app", "a0").Priority(50).
			Req(map[string]string{"cpu": fmt.Sprintf("%dm", 100*rapid.IntRange(1, 20).Draw(t, "precpu"))})
		switch rapid.IntRange(0, 3).Draw(t, "affinity") {
		case 1:
			pre = pre.PodAffinityIn("app", "zone", []string{"a1"}, builder.PodAffinityWithRequiredReq)
		case 2:
			pre = pre.PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"a2"}, builder.PodAntiAffinityWithRequiredReq)
		}
		if rapid.Bool().Draw(t, "preport") {
			pre = pre.HostPort("", api.ProtocolTCP, 8080)
		}
		pods = append(pods, pre.Obj())

		run := func(gate framework.Plugin) []Decision {
			c, err := cluster.NewFrom(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pods {
				_ = c.AddPod(p) // bound pods over capacity are still added
			}
			reg := NewDefaultRegistry()
			if err := reg.Register("HotGate", func(any, framework.Handle) (framework.Plugin, error) { return gate, nil }); err != nil {
				t.Fatal(err)
			}
			prof := DefaultProfile()
			prof.Filter = append(prof.Filter, "HotGate")
			s, err := New(c, reg, []framework.Profile{prof}, WithClock(framework.NewFakeClock(ppEpoch)))
			if err != nil {
				t.Fatal(err)
			}
			var out []Decision
			for {
				d, ok := s.ScheduleOne(context.Background())
				if !ok {
					return out
				}
				out = append(out, d)
			}
		}
		plain, kept := run(st.HotGate{}), run(st.PromisingHotGate{})
		if d := cmp.Diff(plain, kept); d != "" {
			t.Fatalf("decisions (-every node dry-run +kept rejections answered):\n%s", d)
		}
	})
}
