package nodeunschedulable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// Cases of kube-scheduler v1.36 nodeunschedulable/node_unschedulable_test.go.
func TestNodeUnschedulableFilter(t *testing.T) {
	reject := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonUnschedulable)
	tol := api.Toleration{Key: TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}
	tests := []struct {
		name          string
		unschedulable bool
		tols          []api.Toleration
		want          *fw.Status
	}{
		{"does not fit unschedulable node", true, nil, reject},
		{"fits schedulable node", false, nil, nil},
		{"fits unschedulable node with the toleration", true, []api.Toleration{tol}, nil},
		{"Exists with empty key tolerates", true, []api.Toleration{{Operator: api.TolerationOpExists}}, nil},
		{"NoExecute toleration does not", true, []api.Toleration{{Key: TaintNodeUnschedulable, Effect: api.TaintEffectNoExecute}}, reject},
	}
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := st.MakeNode().Name("n")
			if tc.unschedulable {
				w = w.Unschedulable()
			}
			ni, _ := fw.NewNodeInfo(w.Obj())
			pod := st.MakePod().Name("p")
			for _, tl := range tc.tols {
				pod = pod.Toleration(tl)
			}
			got := pl.(fw.FilterPlugin).Filter(context.Background(), nil, fw.MustPodInfo(pod.Obj()), ni)
			if !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
	got := pl.(fw.FilterPlugin).Filter(context.Background(), nil, fw.MustPodInfo(st.MakePod().Obj()), &fw.NodeInfo{})
	if want := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonUnknownCondition); !got.Equal(want) {
		t.Errorf("nil node: %v, want %v", got, want)
	}
}

func BenchmarkNodeUnschedulableFilter(b *testing.B) {
	pl, _ := New(nil, nil)
	st.BenchFilter(b, pl, fw.MustPodInfo(st.MakePod().Name("bench").Obj()))
}

// TestPropNodeUnschedulableRuns: through the runner, which hands
// NodeUnschedulable runs of snapshot positions (Snapshot.IndexRun) that it
// answers from the cordoned nodes' list, every node gets Filter's verdict,
// for any round-robin start (runs wrapping around the end), sampling and
// parallelism.
func TestPropNodeUnschedulableRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 1200).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range n {
			w := st.MakeNode().Name(fmt.Sprintf("n%04d", i))
			if rapid.IntRange(0, 9).Draw(t, "cordon") == 0 {
				w = w.Unschedulable()
			}
			nodes = append(nodes, w.Obj())
		}
		snap := fw.MustSnapshot(nodes, nil)
		pl, err := New(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := fw.NewRegistry()
		if err := r.Register(pl.Name(), func(any, fw.Handle) (fw.Plugin, error) { return pl, nil }); err != nil {
			t.Fatal(err)
		}
		f, err := runtime.NewFramework(r, fw.Profile{Filter: []string{pl.Name()}}, runtime.WithParallelism(rapid.IntRange(1, 3).Draw(t, "workers")))
		if err != nil {
			t.Fatal(err)
		}
		pod := fw.MustPodInfo(st.MakePod().Name("p").Obj())
		opts := runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: rapid.IntRange(0, n-1).Draw(t, "start"),
			NumFeasibleToFind: rapid.IntRange(0, n).Draw(t, "toFind")}
		res, _ := f.Schedule(context.Background(), nil, snap, pod, opts)
		for _, v := range res.NodeVerdicts() {
			ni, _ := snap.Get(v.Node)
			want := pl.(fw.FilterPlugin).Filter(context.Background(), nil, pod, ni)
			switch v.Verdict {
			case runtime.VerdictFeasible:
				if want != nil {
					t.Fatalf("%s feasible, Filter says %v", v.Node, want)
				}
			case runtime.VerdictRejected:
				if want == nil || v.Plugin != pl.Name() || v.Reasons[0] != want.Reasons()[0] {
					t.Fatalf("%s rejected by %s %v, Filter says %v", v.Node, v.Plugin, v.Reasons, want)
				}
			}
		}
	})
}

var unschedulableToleration = api.Toleration{Key: TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}

// nodeunschedulable/node_unschedulable_test.go TestIsSchedulableAfterNodeChange
// and TestIsSchedulableAfterPodTolerationChange.
func TestNodeUnschedulableHints(t *testing.T) {
	pl := st.HintPlugin[*NodeUnschedulable](t)(New(nil, nil))
	cordoned := builder.MakeNode().Name("n").Unschedulable().Obj()
	open := builder.MakeNode().Name("n").Obj()
	cordonedNotReady := builder.MakeNode().Name("n").Unschedulable().Taint("node.kubernetes.io/not-ready", "", api.TaintEffectNoExecute).Obj()
	openNotReady := builder.MakeNode().Name("n").Taint("node.kubernetes.io/not-ready", "", api.TaintEffectNoExecute).Obj()
	st.RunHints(t, pl.afterNodeChange, nil, []st.HintCase{
		{Name: "error-wrong-new-object", New: "not-a-node", Want: fw.Queue, WantErr: true},
		{Name: "error-wrong-old-object", New: cordoned, Old: "not-a-node", Want: fw.Queue, WantErr: true},
		{Name: "skip-queue-on-unschedulable-node-added", New: cordoned, Want: fw.QueueSkip},
		{Name: "queue-on-schedulable-node-added", New: open, Want: fw.Queue},
		{Name: "skip-unrelated-change-unschedulable-true", Old: cordoned, New: cordonedNotReady, Want: fw.QueueSkip},
		{Name: "skip-unrelated-change-unschedulable-false", Old: open, New: openNotReady, Want: fw.QueueSkip},
		{Name: "queue-on-unschedulable-field-change", Old: cordoned, New: open, Want: fw.Queue},
	})
	p := builder.MakePod().Name("p").UID("uid").Obj()
	st.RunHints(t, pl.afterPodTolerationChange, nil, []st.HintCase{
		{Name: "error-wrong-new-object", Pod: p, New: "not-a-pod", Want: fw.Queue, WantErr: true},
		{Name: "error-wrong-old-object", Pod: p, Old: "not-a-pod", New: st.HintPod(t, p), Want: fw.Queue, WantErr: true},
		{Name: "skip-different-pod-update", Pod: p,
			Old: st.HintPod(t, builder.MakePod().Name("q").UID("different-uid").Obj()),
			New: st.HintPod(t, builder.MakePod().Name("q").UID("different-uid").Toleration(unschedulableToleration).Obj()), Want: fw.QueueSkip},
		{Name: "queue-when-the-unsched-pod-gets-toleration", Pod: p,
			Old: st.HintPod(t, p), New: st.HintPod(t, builder.MakePod().Name("p").UID("uid").Toleration(unschedulableToleration).Obj()), Want: fw.Queue},
		{Name: "skip-when-the-unsched-pod-gets-unrelated-toleration", Pod: p,
			Old: st.HintPod(t, p), New: st.HintPod(t, builder.MakePod().Name("p").UID("uid").Toleration(api.Toleration{Key: "unrelated-key", Operator: api.TolerationOpExists}).Obj()), Want: fw.QueueSkip},
	})
}

// TestConformance holds NodeUnschedulable's fast forms to its Filter on
// the harness's random clusters.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, nil) })
}

// TestEventsToRegister pins NodeUnschedulable's registered events: a node
// added or its taints updated, a pod's tolerations updated
// (nodeunschedulable/node_unschedulable.go, SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourceNode, ActionType: fw.Add | fw.UpdateNodeTaint}, {Resource: fw.ResourcePod, ActionType: fw.UpdatePodToleration}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
