package cluster

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestClusterJournalSkipsOnlyWithinAFork: a pod record change right after
// another of the same record journals nothing only when both are in the
// innermost fork. Here a pod added and assumed in the outer fork is bound
// in an inner one: reverting the inner fork must make it assumed again
// (had the bind been folded into the outer fork's assume, the inner fork
// would have nothing to undo); within one fork, the bind folded into its
// assume is undone with it.
func TestClusterJournalSkipsOnlyWithinAFork(t *testing.T) {
	c, err := NewFrom([]*api.Node{clNode("n1", "4", "8Gi")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := func() string {
		rec, ok := c.Pod("default", "p")
		if !ok {
			return "absent"
		}
		ni, _ := c.NodeInfo("n1")
		return rec.State.String() + "/" + map[bool]string{true: "on n1", false: "off"}[len(ni.Pods) == 1]
	}
	step := func(what string, err error, want string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := state(); got != want {
			t.Fatalf("after %s: pod %s, want %s", what, got, want)
		}
	}
	c.Fork()
	step("add", c.AddPod(clPod("p", "1", "1Gi")), "Pending/off")
	step("assume", c.Assume("default", "p", "n1"), "Assumed/on n1")
	c.Fork()
	step("bind", c.Bind("default", "p", "n1"), "Bound/on n1")
	step("inner revert", c.Revert(), "Assumed/on n1")
	step("bind again", c.Bind("default", "p", "n1"), "Bound/on n1")
	step("outer revert", c.Revert(), "absent")
}

// TestClusterRevertFoldedStepsRestoreUIDs: a pod deleted and added again
// under another UID inside a fork, pending or bound (the add's record
// change is folded into the delete's step, past the snapshot add of a
// bound one), leaves after Revert the UIDs as they were: the new UID free,
// the old one taken.
func TestClusterRevertFoldedStepsRestoreUIDs(t *testing.T) {
	for _, node := range []string{"", "n1"} {
		t.Run("node="+node, func(t *testing.T) {
			c, err := NewFrom([]*api.Node{clNode("n1", "4", "8Gi")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			withUID := func(name, uid, node string) *api.Pod {
				p := clPod(name, "1", "1Gi")
				p.UID, p.Spec.NodeName = uid, node
				return p
			}
			if err := c.AddPod(withUID("p", "u1", "")); err != nil {
				t.Fatal(err)
			}
			c.Fork()
			if _, err := c.DeletePod("default", "p"); err != nil {
				t.Fatal(err)
			}
			if err := c.AddPod(withUID("p", "u2", node)); err != nil {
				t.Fatal(err)
			}
			if err := c.Revert(); err != nil {
				t.Fatal(err)
			}
			if err := c.AddPod(withUID("q", "u2", "")); err != nil {
				t.Errorf("uid u2 after Revert: %v", err)
			}
			if err := c.AddPod(withUID("r", "u1", "")); err == nil {
				t.Errorf("uid u1 after Revert: free, want used by p")
			}
		})
	}
}

// TestClusterHolds: a record added in a fork is held while it is the
// pod's record, and after an assume replaced it only when the journal
// keeps it to restore: the assume's record change folds into the add's
// step when nothing was journaled between them (the replica path of a
// capacity question, which then reuses the record's memory), and does not
// when another change came between.
func TestClusterHolds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		between bool // a NodeMetric update between add and assume
		assume  bool
		want    bool
	}{
		{name: "pending", want: true},
		{name: "assumed", assume: true, want: false},
		{name: "assumed after another change", between: true, assume: true, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewFrom([]*api.Node{clNode("n1", "4", "8Gi")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Fork()
			mark := len(c.journal)
			pi := framework.MustPodInfo(clPod("p", "1", "1Gi"))
			rec := new(Entry)
			if err := c.AddPodInfo("default/p", pi, rec, true); err != nil {
				t.Fatal(err)
			}
			if tc.between {
				if err := c.UpdateNodeMetric(&api.NodeMetric{ObjectMeta: api.ObjectMeta{Name: "n1"}}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.assume {
				if _, err := c.AssumeKey("default/p", "n1", -1, nil); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.Holds("default/p", mark, rec); got != tc.want {
				t.Errorf("holds = %v, want %v", got, tc.want)
			}
			if err := c.Revert(); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Pod("default", "p"); ok {
				t.Error("the pod is still there after Revert")
			}
		})
	}
}
