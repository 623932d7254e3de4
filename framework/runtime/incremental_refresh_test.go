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
	"github.com/schedkit/schedkit/framework/runtime"
	"pgregory.net/rapid"
)

// TestPropIncrementalRefreshMatchesSchedule runs one evaluator for pods
// that share only what the node-local plugins read (each cycle's pod is a
// PodInfo of its own, labelled app=web or app=db, which the spread and
// pod affinity plugins read), with Refresh before every cycle and, between
// cycles, changes Added never reports: pods added elsewhere, pods removed,
// node objects replaced (labels, taints, images), nodes added or removed.
// Each cycle must decide as Schedule does on the same snapshot.
func TestPropIncrementalRefreshMatchesSchedule(t *testing.T) {
	handled, refreshed, signed := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		c := drawIncCase(t)
		ctx := context.Background()
		inc := c.fw.NewIncremental(nil)
		defer inc.Close()
		ra, rb := rand.New(rand.NewPCG(c.seed, 1)), rand.New(rand.NewPCG(c.seed, 1))
		start := c.start
		extra := 0
		for i := range c.repl {
			pod := *c.tmpl.Pod
			pod.Name = fmt.Sprintf("web-%d", i)
			pod.UID = pod.Name
			pod.Labels = map[string]string{"app": rapid.SampledFrom([]string{"web", "db"}).Draw(t, "app")}
			pi, err := framework.NewPodInfo(&pod)
			if err != nil {
				t.Fatal(err)
			}
			// Where every node-local plugin signs (the test's fakes do
			// not), the copy is the template's class.
			if a, ok := c.fw.NodeLocalFragments(ctx, pi, nil); ok {
				signed++
				if tf, _ := c.fw.NodeLocalFragments(ctx, c.tmpl, nil); !framework.SameFragments(a, tf) {
					t.Fatalf("a copy of the template with other labels is another class:\n%v\n%v", a, tf)
				}
			}
			opts := func(r *rand.Rand) runtime.CycleOptions {
				return runtime.CycleOptions{Rand: r, StartIndex: start, NumFeasibleToFind: c.k, SkipExplanation: true}
			}
			inc.Refresh()
			ra2, ok := inc.Schedule(ctx, c.snap, pi, opts(ra))
			var errA error
			if ok {
				handled++
				if i > 0 {
					refreshed++
				}
			} else {
				ra2, errA = c.fw.Schedule(ctx, nil, c.snap, pi, opts(ra))
			}
			rb2, errB := c.fw.Schedule(ctx, nil, c.snap, pi, opts(rb))
			where := fmt.Sprintf("pod %d (%s, app=%s, k=%d, incremental=%v)", i, c.explain, pod.Labels["app"], c.k, ok)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s: errors differ: %v vs %v", where, errA, errB)
			}
			if ra2.EvaluatedNodes() != rb2.EvaluatedNodes() || ra2.NumFeasibleNodes() != rb2.NumFeasibleNodes() {
				t.Fatalf("%s: evaluated %d/%d feasible %d/%d", where, ra2.EvaluatedNodes(), rb2.EvaluatedNodes(), ra2.NumFeasibleNodes(), rb2.NumFeasibleNodes())
			}
			if errA != nil {
				return
			}
			if ra2.SelectedNode() != rb2.SelectedNode() || !slices.Equal(ra2.Totals, rb2.Totals) || !slices.Equal(ra2.Top, rb2.Top) ||
				ra2.Margin != rb2.Margin || ra2.Ties != rb2.Ties || !slices.Equal(ra2.SkippedScore, rb2.SkippedScore) {
				t.Fatalf("%s: outcomes differ:\nincremental %s %v top %v\nschedule    %s %v top %v",
					where, ra2.SelectedNode(), ra2.Totals, ra2.Top, rb2.SelectedNode(), rb2.Totals, rb2.Top)
			}
			if a, b := ra2.FeasibleNodes(), rb2.FeasibleNodes(); !slices.Equal(a, b) {
				t.Fatalf("%s: feasible nodes differ:\nincremental %v\nschedule    %v", where, a, b)
			}
			if a, b := ra.Uint64(), rb.Uint64(); a != b {
				t.Fatalf("%s: random streams differ after the cycle", where)
			}
			start = (start + ra2.EvaluatedNodes()) % c.snap.NumNodes()
			placed := pod
			placed.Spec.NodeName = ra2.SelectedNode()
			if err := c.snap.AddPod(&placed); err != nil {
				t.Fatal(err)
			}
			for range rapid.IntRange(0, 3).Draw(t, "changes") {
				changeSnapshot(t, c.snap, &extra)
			}
			start %= c.snap.NumNodes()
		}
	})
	if handled == 0 || refreshed == 0 || signed == 0 {
		t.Fatalf("Incremental handled %d cycles, %d after a Refresh, and %d pods were signed: the property compared Schedule with itself", handled, refreshed, signed)
	}
}

// changeSnapshot makes one random change to snap that an Incremental is
// not told of: a pod added (app=web or db) or removed, a node's object
// replaced (zone label, a taint, unschedulable, an image), or a node added
// or removed (never the last). extra numbers the pods and nodes it adds.
func changeSnapshot(t *rapid.T, snap *framework.Snapshot, extra *int) {
	nodes := snap.Nodes()
	ni := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "changed")]
	*extra++
	switch rapid.IntRange(0, 5).Draw(t, "change") {
	case 0, 1:
		p := builder.MakePod().Name(fmt.Sprintf("x%d", *extra)).Label("app", rapid.SampledFrom([]string{"web", "db"}).Draw(t, "xapp")).
			Node(ni.Name()).Req(map[string]string{"cpu": "200m"}).Obj()
		if err := snap.AddPod(p); err != nil {
			t.Fatal(err)
		}
	case 2:
		if len(ni.Pods) > 0 {
			p := ni.Pods[rapid.IntRange(0, len(ni.Pods)-1).Draw(t, "removed")].Pod
			if err := snap.RemovePod(p); err != nil {
				t.Fatal(err)
			}
		}
	case 3, 4:
		n := *ni.Node()
		n.Labels = map[string]string{"zone": fmt.Sprintf("z%d", rapid.IntRange(0, 3).Draw(t, "zone")), "kubernetes.io/hostname": n.Name}
		n.Spec.Taints, n.Spec.Unschedulable = nil, false
		switch rapid.IntRange(0, 3).Draw(t, "nodeChange") {
		case 0:
			n.Spec.Taints = []api.Taint{{Key: "soft", Value: "x", Effect: api.TaintEffectPreferNoSchedule}}
		case 1:
			n.Spec.Taints = []api.Taint{{Key: "hard", Value: "x", Effect: api.TaintEffectNoSchedule}}
		case 2:
			n.Spec.Unschedulable = true
		}
		if rapid.Bool().Draw(t, "flipImage") {
			n.Status.Images = nil
			if len(ni.Node().Status.Images) == 0 {
				n.Status.Images = []api.ContainerImage{{Names: []string{"web:1"}, SizeBytes: 300 << 20}}
			}
		}
		if err := snap.UpdateNode(&n); err != nil {
			t.Fatal(err)
		}
	default:
		if rapid.Bool().Draw(t, "addNode") || len(nodes) == 1 {
			n := builder.MakeNode().Name(fmt.Sprintf("m%03d", *extra)).Label("zone", "z0").
				Allocatable(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}).Obj()
			if err := snap.AddNode(n); err != nil {
				t.Fatal(err)
			}
		} else if err := snap.RemoveNode(ni.Name()); err != nil {
			t.Fatal(err)
		}
	}
}
