package cluster

import (
	"fmt"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropGroupIndexSharedLabels: pods that share their labels map (as a
// capacity question's replicas and a pod's assumed and bound copies do),
// with and without a PodGroup label or a kube scheduling group, added,
// assumed, bound, forgotten and deleted in any order, inside forks or
// not, leave the cluster's gang index equal to one rebuilt from the pod
// records with the package's groupKeys (no memory of labels maps).
func TestPropGroupIndexSharedLabels(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, nn := revertDrawCluster(t)
		if rapid.Bool().Draw(t, "memo") {
			c.MemoGroups(true) // as during a capacity question
		}
		shared := []map[string]string{
			{"app": "web"},
			{"app": "web", api.PodGroupLabel: "g"},
			{"app": "db", api.PodGroupLabel: "h"},
			{"app": "db"},
		}
		group := "wg"
		var names []string
		pick := func(l string) string {
			if len(names) == 0 {
				return "none"
			}
			return names[rapid.IntRange(0, len(names)-1).Draw(t, l)]
		}
		node := func(l string) string { return fmt.Sprintf("n%d", rapid.IntRange(0, nn-1).Draw(t, l)) }
		forks := 0
		for i := range rapid.IntRange(1, 60).Draw(t, "steps") {
			switch rapid.IntRange(0, 7).Draw(t, "op") {
			case 0, 1, 2:
				p := st.MakePod().Name(fmt.Sprintf("p%d", i)).Req(map[string]string{"cpu": "10m"}).Obj()
				p.Labels = shared[rapid.IntRange(0, len(shared)-1).Draw(t, "labels")]
				if rapid.IntRange(0, 3).Draw(t, "sg") == 0 {
					p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &group}
				}
				if rapid.Bool().Draw(t, "bound") {
					p.Spec.NodeName = node("node")
				}
				if c.AddPod(p) == nil {
					names = append(names, p.Name)
				}
			case 3:
				_ = c.Assume("default", pick("assume"), node("assume.node"))
			case 4:
				k := pick("bind")
				if r, ok := c.Pod("default", k); ok {
					_ = c.Bind("default", k, r.Pod.Spec.NodeName)
				}
			case 5:
				_ = c.Forget("default", pick("forget"))
			case 6:
				_, _ = c.DeletePod("default", pick("del"))
			case 7:
				if forks > 0 && rapid.Bool().Draw(t, "revert") {
					if err := c.Revert(); err != nil {
						t.Fatal(err)
					}
					forks--
				} else {
					c.Fork()
					forks++
				}
			}
			if diff := cmp.Diff(groupsRebuilt(c), groupsOf(c)); diff != "" {
				t.Fatalf("step %d: gang index (-rebuilt +kept):\n%s", i, diff)
			}
		}
	})
}

// groupsOf describes the cluster's gang index.
func groupsOf(c *Cluster) map[string]string {
	out := map[string]string{}
	for k, m := range c.groups {
		out[k] = fmt.Sprintf("%v assigned=%d gated=%d", m.pods, m.assigned, m.gated)
	}
	return out
}

// groupsRebuilt describes the gang index rebuilt from the pod records.
func groupsRebuilt(c *Cluster) map[string]string {
	type members struct {
		pods            map[string]PodState
		assigned, gated int
	}
	idx := map[string]*members{}
	for key, cp := range c.pods {
		label, kube := groupKeys(cp.info.Pod)
		for _, g := range []string{label, kube} {
			if g == "" {
				continue
			}
			m := idx[g]
			if m == nil {
				m = &members{pods: map[string]PodState{}}
				idx[g] = m
			}
			m.pods[key] = cp.state
			if cp.state != StatePending {
				m.assigned++
			}
			if len(cp.info.Pod.Spec.SchedulingGates) > 0 {
				m.gated++
			}
		}
	}
	out := map[string]string{}
	for k, m := range idx {
		out[k] = fmt.Sprintf("%v assigned=%d gated=%d", maps.Clone(m.pods), m.assigned, m.gated)
	}
	return out
}

// TestPropAssumeInSlab: assuming pods in memory from an assumedSlab (as a
// capacity question's detached replicas are) and binding them leaves the
// cluster as assuming them in memory of their own does (every node's
// pods, sums and rows, every record: revertDigest), each pod with its own
// copy, inside a fork, and its Revert restores the cluster as before.
func TestPropAssumeInSlab(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "nodes")
		pods := rapid.IntRange(1, 2*assumedSlabLen+3).Draw(t, "pods")
		var plan []int
		for range pods {
			plan = append(plan, rapid.IntRange(0, n-1).Draw(t, "node"))
		}
		var slab AssumedSlab
		var got []string
		for _, useSlab := range []bool{false, true} {
			c, _ := New()
			for i := range n {
				if err := c.AddNode(revertNode(i)); err != nil {
					t.Fatal(err)
				}
			}
			before := revertDigest(c)
			c.Fork()
			for i, k := range plan {
				p := st.MakePod().Name(fmt.Sprintf("r%d", i)).UID("").Req(map[string]string{"cpu": fmt.Sprintf("%dm", 10+i)}).Label("app", "web").Obj()
				if err := c.AddPod(p); err != nil {
					t.Fatal(err)
				}
				var s *AssumedSlab
				if useSlab {
					s = &slab
				}
				node := fmt.Sprintf("n%d", k)
				if _, err := c.AssumeKey(p.Key(), node, k, s); err != nil {
					t.Fatal(err)
				}
				if err := c.Bind(p.Namespace, p.Name, node); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[*framework.PodInfo]string{}
			for key, cp := range c.pods {
				if other, dup := seen[cp.info]; dup {
					t.Fatalf("pods %s and %s share their PodInfo", key, other)
				}
				seen[cp.info] = key
			}
			got = append(got, revertDigest(c))
			if err := c.Revert(); err != nil {
				t.Fatal(err)
			}
			if after := revertDigest(c); after != before {
				t.Fatalf("after Revert:\n%s\nbefore:\n%s", after, before)
			}
		}
		if got[0] != got[1] {
			t.Fatalf("own memory:\n%s\nslab:\n%s", got[0], got[1])
		}
	})
}
