package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropRevertWithNodeAndPodChanges: a fork that, besides placing pods
// (bound on add, assumed, bound later; with and without UID, gang or
// affinity terms), forgets and deletes pods, deletes and re-adds them,
// removes, adds and updates nodes, updates bound pods' labels, and nests
// forks that it commits or reverts, leaves the cluster after each Revert
// exactly as it was at that Fork: its exact state, every node's pods in
// order with their sums, ports, affinity lists and resource rows, the
// affinity groups and their counts, the pod records; and in every step the
// snapshot's pod index and resource rows equal those of a snapshot built
// afresh from its nodes and pods.
func TestPropRevertWithNodeAndPodChanges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, nn := revertDrawCluster(t)
		mk := revertNode
		pod := func(name string) *st.PodWrapper { return revertDrawPod(t, name) }
		node := func(label string) string { return fmt.Sprintf("n%d", rapid.IntRange(0, nn+1).Draw(t, label)) }
		var names []string
		for i := range rapid.IntRange(0, 8).Draw(t, "old") {
			n := fmt.Sprintf("old%d", i)
			if c.AddPod(pod(n).Node(node("old.node")).Obj()) == nil {
				names = append(names, n)
			}
		}
		for i := range rapid.IntRange(0, 10).Draw(t, "pend") {
			n := fmt.Sprintf("p%d", i)
			if c.AddPod(pod(n).Obj()) == nil {
				names = append(names, n)
			}
		}
		pick := func(l string) string {
			if len(names) == 0 {
				return "none"
			}
			return names[rapid.IntRange(0, len(names)-1).Draw(t, l)]
		}
		before, dBefore := c.exact(), revertDigest(c)
		c.Fork()
		type fr struct {
			e clExact
			d string
		}
		var forks []fr
		for i := range rapid.IntRange(0, 80).Draw(t, "steps") {
			switch rapid.IntRange(0, 13).Draw(t, "op") {
			case 0, 1, 2:
				n := fmt.Sprintf("new%d", i)
				if c.AddPod(pod(n).Node(node("new.node")).Obj()) == nil {
					names = append(names, n)
				}
			case 3:
				n := fmt.Sprintf("new%d", i)
				if c.AddPod(pod(n).Obj()) == nil {
					names = append(names, n)
				}
			case 4, 5:
				_ = c.Assume("default", pick("assume"), node("assume.node"))
			case 6:
				k := pick("bind")
				if r, ok := c.Pod("default", k); ok {
					_ = c.Bind("default", k, r.Pod.Spec.NodeName)
				}
			case 7:
				_ = c.Forget("default", pick("forget"))
			case 8:
				_, _ = c.DeletePod("default", pick("del"))
			case 9:
				k := pick("again")
				if r, err := c.DeletePod("default", k); err == nil {
					p := pod(k)
					if rapid.Bool().Draw(t, "again.bound") && r.Spec.NodeName != "" {
						p = p.Node(r.Spec.NodeName)
					}
					_ = c.AddPod(p.Obj())
				}
			case 10:
				_, _ = c.RemoveNode(node("rm"))
			case 11:
				if rapid.Bool().Draw(t, "addnode") {
					_ = c.AddNode(mk(nn + rapid.IntRange(0, 1).Draw(t, "an")))
				} else {
					n := mk(rapid.IntRange(0, nn+1).Draw(t, "un"))
					n.Labels["x"] = "y"
					_ = c.UpdateNode(n)
				}
			case 12:
				k := pick("upd")
				if r, ok := c.Pod("default", k); ok && r.State == StateBound {
					p := *r.Pod
					p.Labels = map[string]string{"app": "web", "v": fmt.Sprint(i)}
					_ = c.UpdatePod(&p)
				}
			case 13:
				if rapid.Bool().Draw(t, "push") || len(forks) == 0 {
					forks = append(forks, fr{c.exact(), revertDigest(c)})
					c.Fork()
				} else {
					at := forks[len(forks)-1]
					forks = forks[:len(forks)-1]
					if rapid.Bool().Draw(t, "commit") {
						_ = c.Commit()
						continue
					}
					if err := c.Revert(); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(at.e, c.exact(), clVecCmp); diff != "" {
						t.Fatalf("nested: %s", diff)
					}
					if d := revertDigest(c); d != at.d {
						t.Fatalf("nested digest:\n%s\n---\n%s", at.d, d)
					}
					if m := rebuiltMismatch(c); m != "" {
						t.Fatal(m)
					}
				}
			}
			if m := rebuiltMismatch(c); m != "" {
				t.Fatalf("in fork: %s", m)
			}
		}
		for d := len(forks) + 1; d > 0; d-- {
			if err := c.Revert(); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(before, c.exact(), clVecCmp); diff != "" {
			t.Fatalf("%s", diff)
		}
		if d := revertDigest(c); d != dBefore {
			t.Fatalf("digest:\n%s\n---\n%s", dBefore, d)
		}
		if m := rebuiltMismatch(c); m != "" {
			t.Fatal(m)
		}
	})
}

// revertNode is the revert tests' node n<i>, in zone z<i mod 2>.
func revertNode(i int) *api.Node {
	return st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).Label(hostLabel, fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "100", "memory": "100Gi", "pods": "500"}).Obj()
}

// revertDrawCluster draws a cluster of 1–5 revertNodes and returns it with
// their count.
func revertDrawCluster(t *rapid.T) (*Cluster, int) {
	c, _ := New()
	nn := rapid.IntRange(1, 5).Draw(t, "nodes")
	for i := range nn {
		if err := c.AddNode(revertNode(i)); err != nil {
			t.Fatal(err)
		}
	}
	return c, nn
}

// revertDrawPod draws the pod name: a CPU request, an app label, with or
// without UID (as a capacity question's replicas are), sometimes in a
// gang, and with required hostname anti-affinity, preferred zone affinity
// or neither.
func revertDrawPod(t *rapid.T, name string) *st.PodWrapper {
	w := st.MakePod().Name(name).Req(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 300).Draw(t, name+".cpu"))}).Label("app", rapid.SampledFrom([]string{"web", "a"}).Draw(t, name+".app"))
	if rapid.Bool().Draw(t, name+".uid") {
		w = w.UID("")
	}
	if rapid.IntRange(0, 3).Draw(t, name+".group") == 0 {
		w = w.Label(api.PodGroupLabel, "g")
	}
	switch rapid.IntRange(0, 3).Draw(t, name+".aff") {
	case 0:
		w = w.PodAntiAffinityExists("app", hostLabel, st.PodAntiAffinityWithRequiredReq)
	case 1:
		w = w.PodAffinityTerm(st.PodAffinityWithPreferredReq, 5, api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "zone"})
	}
	return w
}

// revertPodKeys names each pod and its node.
func revertPodKeys(ps []*framework.PodInfo) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Pod.Namespace + "/" + p.Pod.Name + "@" + p.Pod.Spec.NodeName
	}
	return out
}

// revertGroupLines describes the snapshot's affinity groups that count
// some node, with the pod counts of their terms, sorted.
func revertGroupLines(s *framework.Snapshot) []string {
	var out []string
	for _, g := range s.AffinityGroups() {
		type nc struct {
			n, c int32
			w    int64
		}
		var ncs []nc
		for i := range g.Nodes {
			x := nc{n: g.Nodes[i], c: g.Count[i]}
			if i < len(g.Weight) {
				x.w = g.Weight[i]
			}
			if x.c != 0 || x.w != 0 {
				ncs = append(ncs, x)
			}
		}
		slices.SortFunc(ncs, func(a, b nc) int { return int(a.n - b.n) })
		counts := s.PodCounts(framework.PodQuery{Terms: []framework.PodTerm{framework.PodTermOf(g.Term)}})
		if len(ncs) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("G %d %s %v %v %v counts=%v", g.Kind, g.Term.TopologyKey, g.Term.Selector, g.Term.Namespaces, ncs, counts))
	}
	slices.Sort(out)
	return out
}

// revertDigest describes the cluster's state: every node's pods in order, its
// requested resources, ports, affinity lists, its Resources/Free rows, the
// snapshot's affinity node lists and groups, and the cluster's pod records.
func revertDigest(c *Cluster) string {
	var b strings.Builder
	s := c.Snapshot()
	for i, ni := range s.Nodes() {
		fmt.Fprintf(&b, "N %s idx=%d pods=%v req=%+v nz=%+v ports=%v aff=%v anti=%v res=%+v free=%+v\n", ni.Node().Name, ni.Index(),
			revertPodKeys(ni.Pods), ni.Requested, ni.NonZeroRequested, ni.UsedPorts, revertPodKeys(ni.PodsWithAffinity), revertPodKeys(ni.PodsWithRequiredAntiAffinity),
			s.Resources()[i], s.Free()[i])
	}
	var wa, wr []string
	for _, ni := range s.NodesWithPodAffinity() {
		wa = append(wa, ni.Node().Name)
	}
	for _, ni := range s.NodesWithRequiredAntiAffinity() {
		wr = append(wr, ni.Node().Name)
	}
	fmt.Fprintf(&b, "WA %v\nWR %v\n", wa, wr)
	for _, g := range revertGroupLines(s) {
		fmt.Fprintln(&b, g)
	}
	for _, r := range c.Pods() {
		fmt.Fprintf(&b, "P %s/%s %v %s uid=%s\n", r.Pod.Namespace, r.Pod.Name, r.State, r.Pod.Spec.NodeName, r.Pod.UID)
	}
	p, a, bd := c.NumPods()
	fmt.Fprintf(&b, "NP %d %d %d forked=%d\n", p, a, bd, c.Forked())
	return b.String()
}

// rebuiltMismatch rebuilds a snapshot from the live one's nodes and pods and
// reports where its pod index differs from the live one.
func rebuiltMismatch(c *Cluster) string {
	s := c.Snapshot()
	f, err := framework.NewSnapshot(st.NodesAndPods(s))
	if err != nil {
		return "fresh err " + err.Error()
	}
	live, fresh := revertGroupLines(s), revertGroupLines(f)
	if !slices.Equal(live, fresh) {
		return fmt.Sprintf("FRESH MISMATCH\nlive %v\nfresh %v", live, fresh)
	}
	for i, ni := range s.Nodes() {
		fi := f.Nodes()[i]
		if fmt.Sprint(ni.Requested, ni.NonZeroRequested, s.Resources()[i], s.Free()[i]) != fmt.Sprint(fi.Requested, fi.NonZeroRequested, f.Resources()[i], f.Free()[i]) {
			return "FRESH RES MISMATCH " + ni.Node().Name
		}
	}
	return ""
}

// hostLabel is the node label kube sets to the name of the node.
const hostLabel = "kubernetes.io/hostname"
