package whatif

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// wiGenTemplate draws a pod shape: cpu and memory requests and, maybe,
// preferred or required hostname anti-affinity against its own app and a
// zone spread constraint.
func wiGenTemplate(t *rapid.T, name, app string) *api.Pod {
	cpu := rapid.SampledFrom([]string{"100m", "250m", "500m", "1", "1500m", "2"}).Draw(t, name+".cpu")
	w := st.MakePod().Name(name).Namespace("default").Label("app", app).
		Req(map[string]string{"cpu": cpu, "memory": rapid.SampledFrom([]string{"128Mi", "1Gi", "3Gi"}).Draw(t, name+".mem")}).
		Owner("apps/v1", "ReplicaSet", app)
	term := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: hostnameLabel}
	switch rapid.IntRange(0, 2).Draw(t, name+".anti") {
	case 1:
		w.Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: term}}}})
	case 2:
		w.Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{term}}})
	}
	if rapid.Bool().Draw(t, name+".spread") {
		w.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}})
	}
	if rapid.Bool().Draw(t, name+".tolerates") {
		w.Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists})
	}
	return w.Obj()
}

// wiGenCluster draws 2–6 nodes in two zones (some tainted), placed pods
// that fit (some covered by a PodDisruptionBudget, a DaemonSet pod per
// node), and pending pods.
func wiGenCluster(t *rapid.T) *WhatIf {
	var nodes []*api.Node
	for i := range rapid.IntRange(2, 6).Draw(t, "nodes") {
		name := fmt.Sprintf("n%d", i)
		w := st.MakeNode().Name(name).Label(hostnameLabel, name).Label("zone", fmt.Sprintf("z%d", i%2)).
			Capacity(map[string]string{"cpu": rapid.SampledFrom([]string{"1", "2", "4", "8"}).Draw(t, name+".cpu"), "memory": "8Gi", "pods": fmt.Sprint(rapid.IntRange(3, 12).Draw(t, name+".pods"))})
		if rapid.IntRange(0, 4).Draw(t, name+".taint") == 0 {
			w.Taint("dedicated", "x", api.TaintEffectNoSchedule)
		}
		nodes = append(nodes, w.Obj())
	}
	c, err := cluster.NewFrom(nodes, nil, framework.WithDisruptionBudgets(
		st.PDB("default", "pdb-a", "app", "a", int32(rapid.IntRange(0, 2).Draw(t, "pdbA"))),
		st.PDB("default", "pdb-b", "app", "b", int32(rapid.IntRange(0, 2).Draw(t, "pdbB")))))
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(rapid.Uint64().Draw(t, "seed")))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range rapid.IntRange(0, 14).Draw(t, "placed") {
		app := rapid.SampledFrom([]string{"a", "a", "b", "c"}).Draw(t, fmt.Sprintf("placed%d.app", i))
		p := wiGenTemplate(t, fmt.Sprintf("%s-%d", app, i), app)
		if rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("placed%d.naked", i)) == 0 {
			p.OwnerReferences = nil
		}
		// Placed by the scheduler itself, so that the cluster is one it
		// could have produced; a pod that does not fit stays pending.
		if _, err := w.s.SchedulePod(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range nodes {
		if i%2 == 0 {
			ds := st.MakePod().Name("agent-"+n.Name).Namespace("default").Node(n.Name).Owner("apps/v1", "DaemonSet", "agent").Obj()
			if err := w.s.AddPod(ds); err != nil { // bound as the DaemonSet controller binds it, fit or not
				t.Fatal(err)
			}
		}
	}
	return w
}

// wiFits reports whether pod passes its profile's filters on node now.
func wiFits(t *rapid.T, w *WhatIf, pod *api.Pod, node string) *framework.Status {
	f, err := w.s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Revert(); err != nil {
			t.Fatal(err)
		}
	}()
	st, err := f.FitsNode(context.Background(), pod, node)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func wiBound(p *api.Pod, node string) *api.Pod {
	b := *p
	b.Spec.NodeName = node
	return &b
}

// TestPropCapacity: capacity N means the N placements pass the filters one
// after the other (checked on a fork by binding each replica where the
// answer says, after checking that node's filters), and the N+1st replica
// fits nowhere with the reported message; the cluster is unchanged.
func TestPropCapacity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := wiGenCluster(t)
		before := wiCapture(w)
		tmpl := wiGenTemplate(t, "web", "web")
		ans, err := w.Capacity(context.Background(), tmpl, CapacityOptions{Max: 60})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		if ans.Replicas != len(ans.Placements) {
			t.Fatalf("replicas %d, placements %d", ans.Replicas, len(ans.Placements))
		}
		if ans.Replicas == 60 {
			return // the limit, not a failure, stopped it
		}
		if ans.Stop == nil || ans.FitError == nil {
			t.Fatalf("no reason for replica %d: %+v", ans.Replicas+1, ans)
		}
		c := w.Cluster()
		c.Fork()
		defer func() { _ = c.Revert() }()
		for _, pl := range ans.Placements {
			_, name, _ := strings.Cut(pl.Pod, "/")
			r := replicaOf(tmpl, name)
			if st := wiFits(t, w, r, pl.Node); !st.IsSuccess() {
				t.Fatalf("%s on %s: %v", pl.Pod, pl.Node, st)
			}
			if err := c.AddPod(wiBound(r, pl.Node)); err != nil {
				t.Fatal(err)
			}
		}
		next := replicaOf(tmpl, "web-next")
		for _, ni := range c.Snapshot().Nodes() {
			if st := wiFits(t, w, next, ni.Name()); st.IsSuccess() {
				t.Fatalf("replica %d fits %s, but the answer says %q", ans.Replicas+1, ni.Name(), ans.Stop.Message)
			}
		}
		var d scheduling.Decision
		_ = w.s.InMode(scheduling.FreeRoomOnly, func() error { d, err = w.s.SchedulePod(context.Background(), next); return err })
		if err != nil {
			t.Fatal(err)
		}
		if d.Outcome != scheduling.OutcomeUnschedulable || d.Message != ans.Stop.Message {
			t.Fatalf("replica %d: %s %q, answer said %q", ans.Replicas+1, d.Outcome, d.Message, ans.Stop.Message)
		}
	})
}

// TestPropDrain: every replacement the drain reports as moved passes the
// filters on its node when placed in the reported order (checked on a
// fork), never lands on a drained node, and no budget is overspent.
func TestPropDrain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := wiGenCluster(t)
		before := wiCapture(w)
		c := w.Cluster()
		var names []string
		for _, ni := range c.Snapshot().Nodes() {
			names = append(names, ni.Name())
		}
		drained := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 1, 3, rapid.ID[string]).Draw(t, "drain")
		atOnce := rapid.Bool().Draw(t, "atOnce")
		ans, err := w.Drain(context.Background(), drained, DrainOptions{AtOnce: atOnce})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		var onNodes int
		for _, n := range drained {
			ni, _ := c.NodeInfo(n)
			onNodes += len(ni.Pods)
		}
		if len(ans.Pods) != onNodes {
			t.Fatalf("%d pods reported, %d on the nodes", len(ans.Pods), onNodes)
		}
		c.Fork()
		defer func() { _ = c.Revert() }()
		for _, n := range drained {
			node, _ := c.Node(n)
			cordoned := *node
			cordoned.Spec.Unschedulable = true
			if err := c.UpdateNode(&cordoned); err != nil {
				t.Fatal(err)
			}
		}
		spent := map[string]int32{}
		for _, dp := range ans.Pods {
			ns, name, _ := strings.Cut(dp.Pod, "/")
			rec, ok := c.Pod(ns, name)
			if !ok {
				t.Fatalf("%s not in the cluster", dp.Pod)
			}
			switch dp.Outcome {
			case DrainMoved, DrainUnschedulable:
				for _, b := range c.Snapshot().DisruptionBudgets {
					if sel := b.Selector.MustCompile(); b.Namespace == ns && sel.Matches(rec.Pod.Labels) {
						spent[b.Name]++
						if dp.Outcome == DrainMoved && !atOnce {
							spent[b.Name]-- // given back once the replacement runs
						}
						if spent[b.Name] > b.DisruptionsAllowed {
							t.Fatalf("%s: budget %s overspent (%d > %d)", dp.Pod, b.Name, spent[b.Name], b.DisruptionsAllowed)
						}
					}
				}
				if _, err := c.DeletePod(ns, name); err != nil {
					t.Fatal(err)
				}
				if dp.Outcome == DrainUnschedulable {
					continue
				}
				if slices.Contains(drained, dp.To) {
					t.Fatalf("%s moved to drained node %s", dp.Pod, dp.To)
				}
				r := replacementOf(rec.Pod)
				if st := wiFits(t, w, r, dp.To); !st.IsSuccess() {
					t.Fatalf("%s does not fit %s: %v", dp.Pod, dp.To, st)
				}
				if err := c.AddPod(wiBound(r, dp.To)); err != nil {
					t.Fatal(err)
				}
			case DrainStays:
				if ref := rec.Pod.ControllerRef(); (ref == nil || ref.Kind != "DaemonSet") && rec.Pod.DeletionTimestamp == nil {
					t.Fatalf("%s stays but is no DaemonSet pod", dp.Pod)
				}
			case DrainDeleted:
				if rec.Pod.ControllerRef() != nil {
					t.Fatalf("%s deleted but has a controller", dp.Pod)
				}
			}
		}
		if ans.Drainable != (ans.Count(DrainBlocked) == 0 && ans.Count(DrainUnschedulable) == 0) {
			t.Fatalf("drainable %v with %d blocked, %d unschedulable", ans.Drainable, ans.Count(DrainBlocked), ans.Count(DrainUnschedulable))
		}
	})
}

// TestPropScaleUp: with the answer's k nodes every helpable pod schedules
// and with k−1 some does not, both checked by scheduling the pods again on
// a fork; the cluster is unchanged.
func TestPropScaleUp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := wiGenCluster(t)
		ctx := context.Background()
		for i := range rapid.IntRange(1, 8).Draw(t, "pending") {
			p := wiGenTemplate(t, fmt.Sprintf("pend-%d", i), rapid.SampledFrom([]string{"a", "b", "p"}).Draw(t, fmt.Sprintf("pend%d.app", i)))
			if err := w.s.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
		before := wiCapture(w)
		tmpl := st.MakeNode().Name("new").Label("zone", rapid.SampledFrom([]string{"z0", "z1"}).Draw(t, "tmplzone")).
			Capacity(map[string]string{"cpu": rapid.SampledFrom([]string{"2", "4"}).Draw(t, "tmplcpu"), "memory": "8Gi", "pods": "10"}).Obj()
		ans, err := w.ScaleUp(ctx, tmpl, ScaleUpOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		unhelpable := map[string]bool{}
		for _, u := range ans.Unhelpable {
			unhelpable[u.Pod] = true
		}
		var targets []*api.Pod
		for _, r := range w.Cluster().Pods() {
			if r.State == cluster.StatePending && !unhelpable[r.Pod.Key()] {
				targets = append(targets, r.Pod)
			}
		}
		slices.SortStableFunc(targets, queueOrder)
		// schedule reports how many targets stay pending with k new nodes.
		schedule := func(k int) int {
			c := w.Cluster()
			c.Fork()
			defer func() { _ = c.Revert() }()
			f := mustFork(t, w.s)
			defer func() { _ = f.Revert() }()
			for _, name := range ans.NewNodes[:k] {
				if err := c.AddNode(nodeFrom(tmpl, name)); err != nil {
					t.Fatal(err)
				}
			}
			failed := 0
			_ = w.s.InMode(scheduling.FreeRoomOnly, func() error {
				for _, p := range targets {
					if err := f.DeletePod(p.Namespace, p.Name); err != nil {
						t.Fatal(err)
					}
					d, err := f.SchedulePod(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					if d.Outcome != scheduling.OutcomeScheduled {
						failed++
					}
				}
				return nil
			})
			return failed
		}
		if !ans.Feasible {
			if schedule(ans.Nodes) == 0 {
				t.Fatalf("infeasible with %d nodes, but every pod schedules", ans.Nodes)
			}
			return
		}
		if len(ans.NewNodes) != ans.Nodes {
			t.Fatalf("%d new nodes named for %d", len(ans.NewNodes), ans.Nodes)
		}
		if f := schedule(ans.Nodes); f != 0 {
			t.Fatalf("with %d nodes %d pods stay pending", ans.Nodes, f)
		}
		if ans.Nodes > 0 {
			if f := schedule(ans.Nodes - 1); f == 0 || f != len(ans.Fewer.Failed) {
				t.Fatalf("with %d nodes %d pods stay pending, answer says %d", ans.Nodes-1, f, len(ans.Fewer.Failed))
			}
		}
		if len(ans.Answer.Placements) != len(targets) {
			t.Fatalf("%d placements for %d pods", len(ans.Answer.Placements), len(targets))
		}
	})
}

// TestPropPlace: a placed pod passes the filters on its node, an
// unschedulable one on none; the cluster is unchanged either way.
func TestPropPlace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := wiGenCluster(t)
		before := wiCapture(w)
		p := wiGenTemplate(t, "probe", rapid.SampledFrom([]string{"a", "probe"}).Draw(t, "app"))
		prio := rapid.Int32Range(-1, 1).Draw(t, "prio") * 1000
		p.Spec.Priority = &prio
		ans, err := w.Place(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		if ans.Decision.Result == nil {
			t.Fatal("no explanation")
		}
		if ans.Placed() {
			if st := wiFits(t, w, p, ans.Decision.Node); !st.IsSuccess() {
				t.Fatalf("placed on %s, which it does not fit: %v", ans.Decision.Node, st)
			}
			return
		}
		for _, ni := range w.Cluster().Snapshot().Nodes() {
			if st := wiFits(t, w, p, ni.Name()); st.IsSuccess() {
				t.Fatalf("unschedulable (%s), but fits %s", ans.FitError, ni.Name())
			}
		}
		if ans.Preemption != nil {
			for _, v := range ans.Preemption.Victims {
				if v.PriorityValue() >= prio || v.Spec.NodeName != ans.Preemption.Node {
					t.Fatalf("victim %s (priority %d on %s) for a pod of priority %d on %s", v.Key(), v.PriorityValue(), v.Spec.NodeName, prio, ans.Preemption.Node)
				}
			}
		}
	})
}

// replicaOf is a pending copy of template named name.
func replicaOf(template *api.Pod, name string) *api.Pod {
	p := *template
	p.Name, p.UID, p.Spec.NodeName = name, "", ""
	p.Status = api.PodStatus{Phase: api.PodPending}
	return &p
}
