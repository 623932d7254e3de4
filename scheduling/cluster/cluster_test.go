package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// clOps is what both cluster implementations offer.
type clOps interface {
	AddNode(*api.Node) error
	UpdateNode(*api.Node) error
	RemoveNode(string) ([]*api.Pod, error)
	AddPod(*api.Pod) error
	DeletePod(ns, name string) (*api.Pod, error)
	Assume(ns, name, node string) error
	Forget(ns, name string) error
	Bind(ns, name, node string) error
	UpdateNodeMetric(*api.NodeMetric) error
	UpdatePendingPod(*api.Pod) error
	Fork()
	Commit() error
	Revert() error
	dump() clDump
}

var (
	_ clOps = (*Cluster)(nil)
	_ clOps = (*clRefCluster)(nil)
)

func newClOps(t interface{ Fatal(...any) }, ref bool) clOps {
	if ref {
		return newClRefCluster()
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func clNode(name, cpu, mem string) *api.Node {
	return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": mem, "pods": "10"}).Obj()
}

func clPod(name, cpu, mem string) *api.Pod {
	return st.MakePod().Name(name).Req(map[string]string{"cpu": cpu, "memory": mem}).Obj()
}

// clStep is one operation of a table case; err says whether it must fail.
type clStep struct {
	op  func(c clOps) error
	err bool
}

func clStepOK(op func(c clOps) error) clStep  { return clStep{op: op} }
func clStepErr(op func(c clOps) error) clStep { return clStep{op: op, err: true} }

func clAddNode(n *api.Node) func(c clOps) error {
	return func(c clOps) error { return c.AddNode(n) }
}
func clAddPod(p *api.Pod) func(c clOps) error {
	return func(c clOps) error { return c.AddPod(p) }
}
func clDelPod(name string) func(c clOps) error {
	return func(c clOps) error { _, err := c.DeletePod("default", name); return err }
}
func clAssume(name, node string) func(c clOps) error {
	return func(c clOps) error { return c.Assume("default", name, node) }
}
func clForget(name string) func(c clOps) error {
	return func(c clOps) error { return c.Forget("default", name) }
}
func clBind(name, node string) func(c clOps) error {
	return func(c clOps) error { return c.Bind("default", name, node) }
}
func clRmNode(name string) func(c clOps) error {
	return func(c clOps) error { _, err := c.RemoveNode(name); return err }
}
func clFork(c clOps) error   { c.Fork(); return nil }
func clCommit(c clOps) error { return c.Commit() }
func clRevert(c clOps) error { return c.Revert() }

func clVec(cpuMilli int64, mem int64) resource.Vector {
	return resource.Vector{MilliCPU: cpuMilli, Memory: mem}
}

// TestClusterTable runs one table against the journaled Cluster and the
// deep-copy reference (the cluster-autoscaler pattern,
// clustersnapshot/predicate_snapshot_test.go), checking each step's error
// and the final state, including hand-computed requested totals.
func TestClusterTable(t *testing.T) {
	const gi = 1 << 30
	tests := []struct {
		name  string
		steps []clStep
		// want: node name → requested (cpu milli, memory bytes) and pod keys.
		wantReq  map[string]resource.Vector
		wantPods []string
	}{
		{
			name: "bound pods count on their node",
			steps: []clStep{
				clStepOK(clAddNode(clNode("n1", "4", "8Gi"))), clStepOK(clAddNode(clNode("n2", "2", "4Gi"))),
				clStepOK(clAddPod(st.MakePod().Name("a").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Node("n1").Obj())),
				clStepOK(clAddPod(st.MakePod().Name("b").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).Node("n1").Obj())),
				clStepOK(clAddPod(clPod("c", "1", "1Gi"))),
			},
			wantReq:  map[string]resource.Vector{"n1": clVec(1500, 2*gi), "n2": {}},
			wantPods: []string{"default/a Bound n1 ", "default/b Bound n1 ", "default/c Pending  "},
		},
		{
			name: "bad input is an error and changes nothing",
			steps: []clStep{
				clStepOK(clAddNode(clNode("n1", "4", "8Gi"))),
				clStepErr(clAddNode(clNode("n1", "8", "8Gi"))),
				clStepErr(clAddNode(nil)),
				clStepErr(clAddPod(st.MakePod().Name("x").Node("missing").Obj())),
				clStepErr(clAddPod(nil)),
				clStepOK(clAddPod(clPod("a", "1", "1Gi"))),
				clStepErr(clAddPod(clPod("a", "1", "1Gi"))),
				clStepErr(clAddPod(st.MakePod().Name("other").UID("a").Obj())),
				clStepErr(clDelPod("nope")),
				clStepErr(clRmNode("nope")),
				clStepErr(clAssume("a", "nope")),
				clStepErr(clForget("a")),
				clStepErr(clBind("a", "n1")),
				clStepErr(clCommit), clStepErr(clRevert),
			},
			wantReq:  map[string]resource.Vector{"n1": {}},
			wantPods: []string{"default/a Pending  "},
		},
		{
			name: "assume, bind, forget move a pod between states",
			steps: []clStep{
				clStepOK(clAddNode(clNode("n1", "4", "8Gi"))), clStepOK(clAddNode(clNode("n2", "4", "8Gi"))),
				clStepOK(clAddPod(clPod("a", "1", "1Gi"))), clStepOK(clAddPod(clPod("b", "2", "2Gi"))), clStepOK(clAddPod(clPod("c", "3", "1Gi"))),
				clStepOK(clAssume("a", "n1")), clStepOK(clAssume("b", "n1")), clStepOK(clAssume("c", "n2")),
				clStepErr(clAssume("a", "n2")),
				clStepOK(clBind("a", "n1")), clStepErr(clBind("b", "n2")), clStepErr(clForget("a")),
				clStepOK(clForget("c")),
			},
			wantReq:  map[string]resource.Vector{"n1": clVec(3000, 3*gi), "n2": {}},
			wantPods: []string{"default/a Bound n1 ", "default/b Assumed n1 ", "default/c Pending  "},
		},
		{
			name: "revert undoes everything since fork, nested",
			steps: []clStep{
				clStepOK(clAddNode(clNode("n1", "4", "8Gi"))),
				clStepOK(clAddPod(st.MakePod().Name("a").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Node("n1").Obj())),
				clStepOK(clFork),
				clStepOK(clAddNode(clNode("n2", "4", "8Gi"))),
				clStepOK(clAddPod(clPod("b", "2", "2Gi"))), clStepOK(clAssume("b", "n2")),
				clStepOK(clFork),
				clStepOK(clDelPod("a")), clStepOK(clRmNode("n2")),
				clStepOK(clRevert),
				clStepOK(clBind("b", "n2")),
				clStepOK(clRevert),
				clStepErr(clRevert),
			},
			wantReq:  map[string]resource.Vector{"n1": clVec(1000, gi)},
			wantPods: []string{"default/a Bound n1 "},
		},
		{
			name: "commit keeps changes; an outer revert still undoes them",
			steps: []clStep{
				clStepOK(clAddNode(clNode("n1", "4", "8Gi"))),
				clStepOK(clFork),
				clStepOK(clAddPod(clPod("a", "1", "1Gi"))),
				clStepOK(clFork), clStepOK(clAssume("a", "n1")), clStepOK(clCommit),
				clStepOK(clCommit),
				clStepOK(clFork), clStepOK(clAddPod(clPod("b", "1", "1Gi"))), clStepOK(clFork), clStepOK(clAssume("b", "n1")), clStepOK(clCommit), clStepOK(clRevert),
			},
			wantReq:  map[string]resource.Vector{"n1": clVec(1000, gi)},
			wantPods: []string{"default/a Assumed n1 "},
		},
		{
			name: "removing a node deletes its pods and keeps the order of the others",
			steps: []clStep{
				clStepOK(clAddNode(clNode("n1", "4", "8Gi"))), clStepOK(clAddNode(clNode("n2", "4", "8Gi"))), clStepOK(clAddNode(clNode("n3", "4", "8Gi"))),
				clStepOK(clAddPod(st.MakePod().Name("a").Req(map[string]string{"cpu": "1"}).Node("n2").Obj())),
				clStepOK(clAddPod(clPod("b", "1", "1Gi"))), clStepOK(clAssume("b", "n2")),
				clStepOK(clAddPod(st.MakePod().Name("c").Req(map[string]string{"cpu": "2"}).Node("n3").Obj())),
				clStepOK(clRmNode("n2")),
				clStepErr(clBind("b", "n2")),
			},
			wantReq:  map[string]resource.Vector{"n1": {}, "n3": clVec(2000, 0)},
			wantPods: []string{"default/c Bound n3 "},
		},
	}
	for _, tc := range tests {
		for _, ref := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/reference=%v", tc.name, ref), func(t *testing.T) {
				c := newClOps(t, ref)
				for i, s := range tc.steps {
					err := s.op(c)
					if (err != nil) != s.err {
						t.Fatalf("step %d: err = %v, want error %v", i, err, s.err)
					}
				}
				d := c.dump()
				gotReq := map[string]resource.Vector{}
				var gotPods []string
				for _, n := range d.Nodes {
					gotReq[n.Name] = n.Requested
				}
				gotPods = d.Pods
				if diff := cmp.Diff(tc.wantReq, gotReq, clVecCmp); diff != "" {
					t.Errorf("requested (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantPods, gotPods); diff != "" {
					t.Errorf("pods (-want +got):\n%s", diff)
				}
			})
		}
	}
}

var clVecCmp = cmp.Comparer(func(a, b resource.Vector) bool { return a.Equal(b) })

func TestClusterCopiesOnEntry(t *testing.T) {
	c, _ := New()
	n := clNode("n1", "4", "8Gi")
	if err := c.AddNode(n); err != nil {
		t.Fatal(err)
	}
	p := clPod("a", "1", "1Gi")
	if err := c.AddPod(p); err != nil {
		t.Fatal(err)
	}
	if err := c.Assume("default", "a", "n1"); err != nil {
		t.Fatal(err)
	}
	c.SetNominated("default/a", "n1")
	if p.Spec.NodeName != "" || p.Status.NominatedNodeName != "" {
		t.Errorf("caller's pod was mutated: nodeName %q nominated %q", p.Spec.NodeName, p.Status.NominatedNodeName)
	}
	n.Name = "renamed"
	if _, ok := c.Node("n1"); !ok {
		t.Errorf("renaming the caller's node renamed the cluster's")
	}
	r, _ := c.Pod("default", "a")
	if r.Pod == p || r.State != StateAssumed || r.Pod.Spec.NodeName != "n1" {
		t.Errorf("pod record = %+v (same pointer %v)", r, r.Pod == p)
	}
}

func TestClusterNodeMetric(t *testing.T) {
	c, _ := New()
	m := st.MakeNodeMetric("n1").Usage(map[string]string{"cpu": "1"}).Obj()
	c.Fork()
	if err := c.UpdateNodeMetric(m); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.NodeMetric("n1"); !ok || got == m {
		t.Fatalf("NodeMetric = %v, %v; want a copy", got, ok)
	}
	if err := c.Revert(); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.NodeMetric("n1"); ok {
		t.Errorf("revert kept the metric")
	}
	bad := st.MakeNodeMetric("n1").Usage(map[string]string{"cpu": "-1"}).Obj()
	if err := c.UpdateNodeMetric(bad); err == nil {
		t.Errorf("negative usage accepted")
	}
}

// clOp is one random operation for the property tests.
type clOp struct {
	kind       int
	node, pod  int
	cpu, mem   int64
	affinity   bool
	port       bool
	nodeNamed  bool
	metricCPU  int64
	withImages bool
	gated      bool
}

func clDrawOp(t *rapid.T) clOp {
	return clOp{
		kind: rapid.IntRange(0, 12).Draw(t, "kind"), node: rapid.IntRange(0, 4).Draw(t, "node"), pod: rapid.IntRange(0, 9).Draw(t, "pod"),
		cpu: rapid.Int64Range(0, 4000).Draw(t, "cpu"), mem: rapid.Int64Range(0, 8).Draw(t, "mem"),
		affinity: rapid.Bool().Draw(t, "affinity"), port: rapid.Bool().Draw(t, "port"), nodeNamed: rapid.Bool().Draw(t, "nodeNamed"),
		metricCPU: rapid.Int64Range(0, 4).Draw(t, "metric"), withImages: rapid.Bool().Draw(t, "images"),
		gated: rapid.Bool().Draw(t, "gated"),
	}
}

func (o clOp) apply(c clOps) error {
	node := fmt.Sprintf("n%d", o.node)
	pod := fmt.Sprintf("p%d", o.pod)
	switch o.kind {
	case 0, 1:
		w := st.MakeNode().Name(node).Capacity(map[string]string{"cpu": fmt.Sprintf("%dm", 1000+o.cpu), "memory": fmt.Sprintf("%dGi", 1+o.mem), "pods": "10"})
		if o.withImages {
			w = w.Image(100, "img"+node, "shared")
		}
		return c.AddNode(w.Obj())
	case 2:
		return c.UpdateNode(st.MakeNode().Name(node).Capacity(map[string]string{"cpu": fmt.Sprintf("%dm", 2000+o.cpu), "pods": "5"}).Label("v", "2").Obj())
	case 3:
		_, err := c.RemoveNode(node)
		return err
	case 4, 5, 6:
		w := st.MakePod().Name(pod).Req(map[string]string{"cpu": fmt.Sprintf("%dm", o.cpu), "memory": fmt.Sprintf("%dMi", o.mem*100), "example.com/gpu": fmt.Sprint(o.mem % 2)})
		if o.affinity {
			w = w.PodAntiAffinityExists("app", "zone", st.PodAntiAffinityWithRequiredReq).Label("app", "x")
		}
		if o.port {
			w = w.HostPort("", api.ProtocolTCP, 8080)
		}
		if o.nodeNamed {
			w = w.Node(node)
		}
		if o.pod%3 == 0 {
			w = w.Label(api.PodGroupLabel, fmt.Sprintf("g%d", o.pod%2)) // gang index
		}
		if o.gated && !o.nodeNamed {
			w = w.SchedulingGates("example.com/gate")
		}
		return c.AddPod(w.Obj())
	case 7:
		_, err := c.DeletePod("default", pod)
		return err
	case 8:
		return c.Assume("default", pod, node)
	case 9:
		return c.Forget("default", pod)
	case 10:
		return c.Bind("default", pod, node)
	case 11:
		return c.UpdateNodeMetric(st.MakeNodeMetric(node).UpdateTime(time.Unix(0, 0)).Usage(map[string]string{"cpu": fmt.Sprint(o.metricCPU)}).Obj())
	case 12: // a pending pod gains or loses its gate (and its gang label follows pod%3)
		w := st.MakePod().Name(pod).Req(map[string]string{"cpu": fmt.Sprintf("%dm", o.cpu)})
		if o.pod%3 == 0 {
			w = w.Label(api.PodGroupLabel, fmt.Sprintf("g%d", o.pod%2))
		}
		if o.gated {
			w = w.SchedulingGates("example.com/gate")
		}
		return c.UpdatePendingPod(w.Obj())
	default:
		return nil
	}
}

// TestPropClusterMatchesReference: any random sequence of events, forks,
// commits and reverts leaves the journaled Cluster and the deep-copy
// reference in the same observable state, with the same errors.
func TestPropClusterMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newClOps(t, false)
		r := newClOps(t, true)
		steps := rapid.IntRange(1, 80).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			var errC, errR error
			switch rapid.IntRange(0, 9).Draw(t, "branch") {
			case 0:
				c.Fork()
				r.Fork()
			case 1:
				errC, errR = c.Commit(), r.Commit()
			case 2:
				errC, errR = c.Revert(), r.Revert()
			default:
				op := clDrawOp(t)
				errC, errR = op.apply(c), op.apply(r)
			}
			if (errC != nil) != (errR != nil) {
				t.Fatalf("step %d: cluster err %v, reference err %v", i, errC, errR)
			}
			if diff := cmp.Diff(r.dump(), c.dump(), clVecCmp); diff != "" {
				t.Fatalf("step %d: state differs (-reference +cluster):\n%s", i, diff)
			}
		}
	})
}

// TestPropForkRevertRestoresExactly: after Fork, any sequence of
// operations (with nested forks committed or reverted), then Revert, gives
// back exactly the state before the Fork, including every node's pod order
// and the image counts (NodeInfo.Generation is the only field allowed to
// move).
func TestPropForkRevertRestoresExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, _ := New()
		for i := rapid.IntRange(0, 30).Draw(t, "setup"); i > 0; i-- {
			_ = clDrawOp(t).apply(c)
		}
		before := c.exact()
		c.Fork()
		depth := 1
		for i := rapid.IntRange(0, 40).Draw(t, "steps"); i > 0; i-- {
			switch rapid.IntRange(0, 7).Draw(t, "branch") {
			case 0:
				c.Fork()
				depth++
			case 1:
				if depth > 1 {
					_ = c.Commit()
					depth--
				}
			case 2:
				if depth > 1 {
					_ = c.Revert()
					depth--
				}
			default:
				_ = clDrawOp(t).apply(c)
			}
		}
		for ; depth > 0; depth-- {
			if err := c.Revert(); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(before, c.exact(), clVecCmp); diff != "" {
			t.Fatalf("Fork+Revert changed the cluster (-before +after):\n%s", diff)
		}
	})
}

// TestAssumeUnknownNodeNamesIt: assuming a pod on a node the cluster lacks
// is an error naming the pod and the node (the snapshot finds the node;
// assume names it), and the pod stays pending and off every node.
func TestAssumeUnknownNodeNamesIt(t *testing.T) {
	c, err := NewFrom([]*api.Node{clNode("n1", "4", "8Gi")}, []*api.Pod{clPod("a", "1", "1Gi")})
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"nope", ""} {
		err := c.Assume("default", "a", node)
		if want := fmt.Sprintf("cluster: assume: pod default/a: node %q not found", node); err == nil || err.Error() != want {
			t.Errorf("Assume on %q: %v, want %q", node, err, want)
		}
	}
	if r, ok := c.Pod("default", "a"); !ok || r.State != StatePending {
		t.Errorf("pod after the failed assumes: %+v", r)
	}
	if ni, _ := c.Snapshot().Get("n1"); len(ni.Pods) != 0 {
		t.Errorf("n1 holds %d pods", len(ni.Pods))
	}
}

// TestPropGrowKeepsState: Grow, at any point and inside forks, leaves
// every pod where it was: the same operations with and without it end in
// the same cluster, after a commit and after a revert alike.
func TestPropGrowKeepsState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		plain, _ := New()
		grown, _ := New()
		var zero Cluster
		zero.Grow(10, 10) // a Cluster not made by New: nothing to grow
		revert := rapid.Bool().Draw(t, "revert")
		for i := rapid.IntRange(0, 40).Draw(t, "steps"); i > 0; i-- {
			if i == 20 {
				plain.Fork()
				grown.Fork()
			}
			if rapid.IntRange(0, 4).Draw(t, "grow?") == 0 {
				grown.Grow(rapid.IntRange(-1, 50).Draw(t, "pods"), rapid.IntRange(-1, 50).Draw(t, "uids"))
			}
			op := clDrawOp(t)
			if a, b := op.apply(plain), op.apply(grown); (a == nil) != (b == nil) {
				t.Fatalf("%v: error %v without Grow, %v with", op, a, b)
			}
		}
		if plain.forking() {
			end := (*Cluster).Commit
			if revert {
				end = (*Cluster).Revert
			}
			if err := end(plain); err != nil {
				t.Fatal(err)
			}
			if err := end(grown); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(plain.dump(), grown.dump(), clVecCmp); diff != "" {
			t.Fatalf("Grow changed the cluster (-without +with):\n%s", diff)
		}
	})
}
