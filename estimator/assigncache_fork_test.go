package estimator

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropAssignCacheForkRevert: after any Assign, Unassign, pod add,
// update and delete events, NodeMetric updates and deletions inside nested
// branches (each inner one committed or reverted), Revert leaves every
// node's state (NodeState) and view as before the Fork, and the cache
// keeps working: the same later change gives the same state as on a cache
// that never forked.
func TestPropAssignCacheForkRevert(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := []string{"n0", "n1", "n2"}
		metric := func(n string) *api.NodeMetric {
			m := st.MakeNodeMetric(n).UpdateTime(testNow.Add(-time.Duration(rapid.IntRange(0, 300).Draw(t, "age")) * time.Second)).
				Usage(map[string]string{"cpu": fmt.Sprint(rapid.IntRange(0, 64).Draw(t, "ucpu")), "memory": "8Gi"})
			for i := range rapid.IntRange(0, 3).Draw(t, "reported") {
				m = m.Pod("default", fmt.Sprintf("p%d", i), rapid.SampledFrom([]string{"koord-prod", ""}).Draw(t, "mprio"),
					map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 4000).Draw(t, "pcpu"))})
			}
			return m.Obj()
		}
		pod := func() *api.Pod {
			i := rapid.IntRange(0, 7).Draw(t, "pod")
			w := st.MakePod().UID(fmt.Sprintf("u%d", i)).Name(fmt.Sprintf("p%d", i)).Node(rapid.SampledFrom(nodes).Draw(t, "node")).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(100, 4000).Draw(t, "rcpu"))})
			if rapid.Bool().Draw(t, "prod") {
				w = w.Priority(9500)
			}
			return w.Obj()
		}
		change := func(caches ...*AssignCache) {
			var apply func(c *AssignCache) error
			switch rapid.IntRange(0, 6).Draw(t, "op") {
			case 0:
				p := pod()
				apply = func(c *AssignCache) error { return c.Assign(p.Spec.NodeName, p) }
			case 1:
				p := pod()
				apply = func(c *AssignCache) error { c.Unassign(p.Spec.NodeName, p); return nil }
			case 2:
				p := pod()
				apply = func(c *AssignCache) error { return c.UpdatePod(p) }
			case 3:
				p := pod()
				apply = func(c *AssignCache) error { c.DeletePod(p); return nil }
			case 4:
				n := rapid.SampledFrom(nodes).Draw(t, "metricNode")
				apply = func(c *AssignCache) error { c.DeleteNodeMetric(n); return nil }
			default:
				m := metric(rapid.SampledFrom(nodes).Draw(t, "metricNode"))
				apply = func(c *AssignCache) error { return c.UpdateNodeMetric(m) }
			}
			for _, c := range caches {
				if err := apply(c); err != nil {
					t.Fatal(err)
				}
			}
		}
		forked, _ := newTestCache(t, f100, CacheOptions{})
		plain, _ := newTestCache(t, f100, CacheOptions{})
		for range rapid.IntRange(0, 8).Draw(t, "prefix") {
			change(forked, plain)
		}
		before := forked.States()
		views := map[string]*NodeView{}
		for _, n := range nodes {
			views[n] = forked.View(n)
		}
		forked.Fork()
		nested := false
		for range rapid.IntRange(1, 8).Draw(t, "branch") {
			if !nested && rapid.IntRange(0, 3).Draw(t, "nest") == 0 {
				forked.Fork()
				nested = true
			}
			change(forked)
		}
		if nested {
			if rapid.Bool().Draw(t, "commitInner") {
				forked.Commit()
			} else {
				forked.Revert()
			}
		}
		forked.Revert()
		if d := cmp.Diff(before, forked.States()); d != "" {
			t.Fatalf("after Revert (-before +after):\n%s", d)
		}
		for _, n := range nodes {
			if forked.View(n) != views[n] {
				t.Fatalf("node %s: the view after Revert is not the one before the Fork", n)
			}
		}
		for range rapid.IntRange(1, 4).Draw(t, "suffix") {
			change(forked, plain)
		}
		if d := cmp.Diff(plain.States(), forked.States()); d != "" {
			t.Fatalf("after the same changes (-never forked +forked):\n%s", d)
		}
	})
}

// TestAssignCacheCommitKeeps: Commit keeps the branch's changes, and a
// Revert after the last Commit does nothing.
func TestAssignCacheCommitKeeps(t *testing.T) {
	c, _ := newTestCache(t, f100, CacheOptions{})
	if err := c.UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(testNow).Usage(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()); err != nil {
		t.Fatal(err)
	}
	p := st.MakePod().UID("u").Name("p").Req(map[string]string{"cpu": "2"}).Obj()
	c.Fork()
	if err := c.Assign("n", p); err != nil {
		t.Fatal(err)
	}
	after := c.States()
	c.Commit()
	c.Revert()
	if d := cmp.Diff(after, c.States()); d != "" {
		t.Errorf("after Commit (-branch +now):\n%s", d)
	}
	if s, _ := c.NodeState("n"); len(s.Pods) != 1 {
		t.Errorf("pods after Commit: %+v, want p", s.Pods)
	}
}
