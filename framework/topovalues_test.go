package framework

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// fataler is what wantTopologyValues needs of a test: *testing.T or
// *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// wantTopologyValues checks tv against key's values on the snapshot's
// nodes, counted afresh: values numbered in order of first appearance by
// position, the nodes without the key at -1, and the flags and indexes
// derived from them.
func wantTopologyValues(t fataler, when string, s *Snapshot, key string, tv *api.TopologyValues) {
	var values []string
	unkeyed := 0
	byIndex := true
	for i, n := range s.Nodes() {
		v, ok := n.Node().Labels[key]
		want := int32(-1)
		if ok {
			if j := slices.Index(values, v); j >= 0 {
				want = int32(j)
			} else {
				want = int32(len(values))
				values = append(values, v)
			}
		} else {
			unkeyed++
		}
		byIndex = byIndex && want == int32(i)
		if tv.Domain[i] != want {
			t.Fatalf("%s: key %s node %d: domain %d, want %d", when, key, i, tv.Domain[i], want)
		}
		if keyed := tv.Keyed != nil && tv.Keyed[i>>6]&(1<<(i&63)) != 0; tv.Unkeyed > 0 && keyed != ok {
			t.Fatalf("%s: key %s node %d: keyed %v, want %v", when, key, i, keyed, ok)
		}
	}
	if (tv.Keyed != nil) != (unkeyed > 0) {
		t.Fatalf("%s: key %s: keyed bitmap %v with %d nodes unkeyed", when, key, tv.Keyed, unkeyed)
	}
	if len(tv.IDs) != len(values) {
		t.Fatalf("%s: key %s: %d value ids, want %d", when, key, len(tv.IDs), len(values))
	}
	if len(tv.Domain) != s.NumNodes() || !slices.Equal(tv.Values, values) || tv.Unkeyed != unkeyed || tv.ByIndex != byIndex {
		t.Fatalf("%s: key %s: %d domains, values %v, %d unkeyed, by index %v; want %d, %v, %d, %v",
			when, key, len(tv.Domain), tv.Values, tv.Unkeyed, tv.ByIndex, s.NumNodes(), values, unkeyed, byIndex)
	}
	for id, v := range values {
		if got, ok := tv.ID(v); !ok || got != int32(id) {
			t.Fatalf("%s: key %s: ID(%q) = %d, %v, want %d", when, key, v, got, ok, id)
		}
	}
}

// TestPropTopologyValuesFollowNodeUpdates: the snapshot's numbering of a
// topology key is the numbering counted afresh from its nodes' labels
// after every node change (an added node extending it); an update that
// leaves a key's value on the node as it was (its status, taints, other
// labels, or a labels map changed in place to the same values) keeps
// that key's numbering itself, on the snapshot or on a clone; and the
// changes of a clone, or of the original after it was cloned, leave the
// other side's numberings as they were, and the keys it numbers later
// are counted from its own nodes.
func TestPropTopologyValuesFollowNodeUpdates(t *testing.T) {
	keys := []string{"zone", "rack", "kubernetes.io/hostname"}
	rapid.Check(t, func(t *rapid.T) {
		label := func(labels map[string]string) {
			for _, k := range keys[:2] {
				if v := rapid.IntRange(-1, 2).Draw(t, "value"); v >= 0 {
					labels[k] = fmt.Sprint(v)
				} else {
					delete(labels, k)
				}
			}
		}
		nodes := testNodes(rapid.IntRange(1, 12).Draw(t, "nodes"))
		for _, n := range nodes {
			label(n.Labels)
		}
		s := MustSnapshot(nodes, nil)
		if rapid.Bool().Draw(t, "label rows from the first key") {
			s.labelIDs.fromMaps.Store(labelRowsAfter)
		}
		added := 0
		for step := range rapid.IntRange(1, 12).Draw(t, "steps") {
			asked := rapid.SliceOfNDistinct(rapid.SampledFrom(keys), 1, 3, func(k string) string { return k }).Draw(t, "asked")
			before := map[string]*api.TopologyValues{}
			for _, k := range asked {
				before[k] = s.TopologyValues(k)
			}
			var orig map[string]*api.TopologyValues
			var other *Snapshot // the side of a clone left as it was
			target := s
			if rapid.Bool().Draw(t, "on a clone") {
				orig = before
				target, other = s.Clone(), s
				if rapid.Bool().Draw(t, "the original changes") {
					target, other = other, target
				}
			}
			names := make([]string, 0, target.NumNodes())
			for _, n := range target.Nodes() {
				names = append(names, n.Name())
			}
			kept := map[string]bool{} // the keys whose value on the updated node stays
			switch op := rapid.IntRange(0, 4).Draw(t, "op"); {
			case op <= 2 || op == 4 && len(names) == 1: // the last node is updated, not removed
				old := target.Nodes()[rapid.IntRange(0, len(names)-1).Draw(t, "node")].Node()
				upd := *old
				before0 := map[string]string{}
				for _, k := range keys {
					if v, ok := old.Labels[k]; ok {
						before0[k] = v
					}
				}
				upd.Status.Allocatable = resource.List{resource.CPU: resource.NewMilliQuantity(int64(100*(step+1)), resource.DecimalSI)}
				upd.Spec.Unschedulable = !old.Spec.Unschedulable
				switch op {
				case 0: // the same labels, a map of its own
					upd.Labels = maps.Clone(old.Labels)
				case 1: // new values drawn, in a map of its own
					upd.Labels = maps.Clone(old.Labels)
					label(upd.Labels)
				case 2: // an unnumbered label added in place
					old.Labels["other"] = fmt.Sprint(step)
				}
				for _, k := range keys {
					a, hadA := before0[k]
					b, hasB := upd.Labels[k]
					kept[k] = a == b && hadA == hasB
				}
				if err := target.UpdateNode(&upd); err != nil {
					t.Fatal(err)
				}
			case op == 3:
				added++
				n := testNode(fmt.Sprintf("added%d", added), 1000)
				label(n.Labels)
				if err := target.AddNode(n); err != nil {
					t.Fatal(err)
				}
			default:
				if err := target.RemoveNode(names[rapid.IntRange(0, len(names)-1).Draw(t, "removed")]); err != nil {
					t.Fatal(err)
				}
			}
			when := fmt.Sprintf("step %d", step)
			for _, k := range asked {
				tv := target.TopologyValues(k)
				wantTopologyValues(t, when, target, k, tv)
				if kept[k] && tv != before[k] { // a clone starts with the original's numberings
					t.Fatalf("%s: key %s: numbered again after an update that kept its values", when, k)
				}
			}
			for k, tv := range orig {
				if other.TopologyValues(k) != tv {
					t.Fatalf("%s: one side's change replaced the other side's numbering of %s", when, k)
				}
			}
			if other != nil {
				// Keys the side left has not numbered yet are numbered from
				// its own nodes' labels.
				for _, k := range keys {
					wantTopologyValues(t, when+", the side left", other, k, other.TopologyValues(k))
				}
			}
			if orig != nil && rapid.Bool().Draw(t, "go on with the clone") {
				s = target
			}
		}
	})
}
