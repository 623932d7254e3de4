package cluster

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropRevertUndoesRunsOfAdds: a fork that places many pods (bound on
// arrival, or assumed and bound, as a capacity question's replicas are),
// with deletions, failed operations and nested forks among them, is
// reverted exactly: Revert undoes each run of placements together
// (undoAdds), and the cluster ends as it was at the Fork, pod order
// included.
func TestPropRevertUndoesRunsOfAdds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, nodes := revertDrawCluster(t)
		pod := func(name string) *st.PodWrapper { return revertDrawPod(t, name) }
		node := func(label string) string { return fmt.Sprintf("n%d", rapid.IntRange(0, nodes-1).Draw(t, label)) }
		for i := range rapid.IntRange(0, 8).Draw(t, "old") {
			if err := c.AddPod(pod(fmt.Sprintf("old%d", i)).Node(node("old.node")).Obj()); err != nil {
				t.Fatal(err)
			}
		}
		var pending []string // pods that may be pending
		for i := range rapid.IntRange(0, 40).Draw(t, "pending") {
			name := fmt.Sprintf("p%d", i)
			if err := c.AddPod(pod(name).Obj()); err != nil {
				t.Fatal(err)
			}
			pending = append(pending, name)
		}
		pick := func(label string) string { return pending[rapid.IntRange(0, len(pending)-1).Draw(t, label)] }
		before := c.exact()
		c.Fork()
		var forks []clExact // the state at each nested Fork
		for i := range rapid.IntRange(0, 120).Draw(t, "steps") {
			switch rapid.IntRange(0, 11).Draw(t, "op") {
			case 0, 1, 2:
				_ = c.AddPod(pod(fmt.Sprintf("new%d", i)).Node(node("new.node")).Obj())
			case 3, 4, 5:
				if len(pending) > 0 {
					_ = c.Assume("default", pick("assume"), node("assume.node"))
				}
			case 6:
				if len(pending) > 0 {
					// The pod may have been assumed several steps ago.
					k := pick("bind")
					if r, ok := c.Pod("default", k); ok {
						_ = c.Bind("default", k, r.Pod.Spec.NodeName)
					}
				}
			case 7:
				name := fmt.Sprintf("new%d", i)
				if c.AddPod(pod(name).Obj()) == nil {
					pending = append(pending, name)
				}
			case 8:
				_, _ = c.DeletePod("default", fmt.Sprintf("old%d", rapid.IntRange(0, 8).Draw(t, "delete")))
			case 11:
				if len(pending) > 0 {
					// Deleted and added again, maybe with another UID or
					// gang: both fold into the step that added it.
					k := pick("again")
					if _, err := c.DeletePod("default", k); err == nil {
						_ = c.AddPod(pod(k).Obj())
					}
				}
			case 9:
				forks = append(forks, c.exact())
				c.Fork()
			case 10:
				if len(forks) > 0 {
					at := forks[len(forks)-1]
					forks = forks[:len(forks)-1]
					if rapid.Bool().Draw(t, "commit") {
						_ = c.Commit()
						continue
					}
					if err := c.Revert(); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(at, c.exact(), clVecCmp); diff != "" {
						t.Fatalf("nested Fork+Revert changed the cluster (-before +after):\n%s", diff)
					}
				}
			}
		}
		depth := len(forks) + 1
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

// TestRevertKeyAddedThenReplaced: a pod added on a fork without UID or
// gang, deleted, and added again with a UID and a gang (every change
// folded into the step that added the key) leaves no trace after Revert:
// neither its UID nor its gang membership.
func TestRevertKeyAddedThenReplaced(t *testing.T) {
	for _, second := range []*api.Pod{
		st.MakePod().Name("x").UID("uid-x").Obj(),
		st.MakePod().Name("x").UID("").Label(api.PodGroupLabel, "g").Obj(),
	} {
		c, _ := New()
		before := c.exact()
		c.Fork()
		if err := c.AddPod(st.MakePod().Name("x").UID("").Obj()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeletePod("default", "x"); err != nil {
			t.Fatal(err)
		}
		if err := c.AddPod(second); err != nil {
			t.Fatal(err)
		}
		if err := c.Revert(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, c.exact(), clVecCmp); diff != "" {
			t.Errorf("UID %q, labels %v: Fork+Revert changed the cluster (-before +after):\n%s", second.UID, second.Labels, diff)
		}
	}
}
