package framework_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// drawStatusNodes draws from least to 12 nodes, with their
// snapshot.
func drawStatusNodes(t *rapid.T, least int) ([]*api.Node, *fw.Snapshot) {
	nodes := make([]*api.Node, rapid.IntRange(least, 12).Draw(t, "nodes"))
	for i := range nodes {
		nodes[i] = omTestNode(fmt.Sprintf("n%d", i))
	}
	return nodes, fw.MustSnapshot(nodes, nil)
}

// names lists the nodes' names.
func names(ns []*fw.NodeInfo) []string {
	var out []string
	for _, ni := range ns {
		out = append(out, ni.Name())
	}
	return out
}

// TestNodeToStatusRecordedMatchesNames checks NodeToStatus recorded by
// NodeInfo (SetNode, the runtime's way) against the same statuses recorded
// by name: Get, GetNode, Len and NodesWithCode answer alike whatever the
// order, repeats, nodes of another snapshot, Set calls mixed in, reads
// between the writes and absent status.
func TestNodeToStatusRecordedMatchesNames(t *testing.T) {
	codes := []fw.Code{fw.Unschedulable, fw.UnschedulableAndUnresolvable, fw.Error}
	rapid.Check(t, func(t *rapid.T) {
		nodes, snap := drawStatusNodes(t, 0)
		n := len(nodes)
		// The same names in the other order, as other NodeInfos.
		reversed := slices.Clone(nodes)
		slices.Reverse(reversed)
		other := fw.MustSnapshot(reversed, nil)
		otherOf := func(k int) *fw.NodeInfo { return other.Nodes()[n-1-k] }
		var absent *fw.Status
		if rapid.Bool().Draw(t, "absentUnschedulable") {
			absent = fw.NewStatus(fw.Unschedulable, "absent")
		}
		got, want := fw.NewNodeToStatus(absent), fw.NewNodeToStatus(absent)
		ops := rapid.IntRange(0, 20).Draw(t, "ops")
		if n == 0 {
			ops = 0
		}
		got.Grow(ops)
		for i := 0; i < ops; i++ {
			k := rapid.IntRange(0, n-1).Draw(t, "node")
			if rapid.IntRange(0, 4).Draw(t, "read") == 0 {
				if g, w := got.GetNode(snap, snap.Nodes()[k]), want.Get(nodes[k].Name); g != w {
					t.Fatalf("after %d writes: GetNode(%s) = %v, want %v", i, nodes[k].Name, g, w)
				}
				continue
			}
			st := fw.NewStatus(codes[rapid.IntRange(0, len(codes)-1).Draw(t, "code")], fmt.Sprintf("r%d", i))
			switch rapid.IntRange(0, 5).Draw(t, "how") {
			case 0:
				got.Set(nodes[k].Name, st)
			case 1:
				got.SetNode(otherOf(k), st)
			default:
				got.SetNode(snap.Nodes()[k], st)
			}
			want.Set(nodes[k].Name, st)
		}
		for _, code := range codes {
			if d := cmp.Diff(names(want.NodesWithCode(snap, code)), names(got.NodesWithCode(snap, code))); d != "" {
				t.Fatalf("NodesWithCode(%v) (-by name +by node):\n%s", code, d)
			}
		}
		for k, nd := range nodes {
			w := want.Get(nd.Name)
			if g := got.GetNode(snap, snap.Nodes()[k]); g != w {
				t.Fatalf("GetNode(%s) = %v, want %v", nd.Name, g, w)
			}
			if g := got.GetNode(other, otherOf(k)); g != w {
				t.Fatalf("GetNode(%s) of the other snapshot = %v, want %v", nd.Name, g, w)
			}
			if g := got.Get(nd.Name); g != w {
				t.Fatalf("Get(%s) = %v, want %v", nd.Name, g, w)
			}
		}
		if got.Len() != want.Len() {
			t.Fatalf("Len = %d, want %d", got.Len(), want.Len())
		}
	})
}

// TestNodeToStatusOfMatchesNames checks a NodeToStatus made from a list
// of distinct nodes of a snapshot (NewNodeToStatusOf, as a cycle hands
// its rejections over), in the order of a cycle started at an offset,
// against the same statuses recorded by name, before and after further
// writes that may repeat a node or name another snapshot's.
func TestNodeToStatusOfMatchesNames(t *testing.T) {
	codes := []fw.Code{fw.Unschedulable, fw.UnschedulableAndUnresolvable, fw.Error}
	rapid.Check(t, func(t *rapid.T) {
		nodes, snap := drawStatusNodes(t, 1)
		n := len(nodes)
		other := fw.MustSnapshot(nodes, nil)
		start := rapid.IntRange(0, n-1).Draw(t, "start")
		// A cycle no node fits records every node, often with one code.
		uniform := rapid.Bool().Draw(t, "uniform")
		want := fw.NewNodeToStatus(nil)
		var list []fw.NodeStatus
		for k := range n {
			if !uniform && rapid.IntRange(0, 3).Draw(t, "skip") == 0 {
				continue
			}
			ni := snap.Nodes()[(start+k)%n]
			c := codes[0]
			if !uniform {
				c = codes[rapid.IntRange(0, len(codes)-1).Draw(t, "code")]
			}
			st := fw.NewStatus(c, fmt.Sprintf("r%d", k))
			list = append(list, fw.NodeStatus{Node: ni, Status: st})
			want.Set(ni.Name(), st)
		}
		got := fw.NewNodeToStatusOf(nil, snap, list)
		check := func(when string) {
			for _, code := range codes {
				if d := cmp.Diff(names(want.NodesWithCode(snap, code)), names(got.NodesWithCode(snap, code))); d != "" {
					t.Fatalf("%s: NodesWithCode(%v) (-by name +as recorded):\n%s", when, code, d)
				}
				if d := cmp.Diff(names(want.NodesWithCode(other, code)), names(got.NodesWithCode(other, code))); d != "" {
					t.Fatalf("%s: NodesWithCode(%v) of another snapshot (-by name +as recorded):\n%s", when, code, d)
				}
				if d := cmp.Diff(names(want.NodesWithCode(snap, code)), names(got.NodesWithCodeReadOnly(snap, code))); d != "" {
					t.Fatalf("%s: NodesWithCodeReadOnly(%v) (-by name +as recorded):\n%s", when, code, d)
				}
			}
			for k, nd := range nodes {
				if g, w := got.GetNode(snap, snap.Nodes()[k]), want.Get(nd.Name); g != w {
					t.Fatalf("%s: GetNode(%s) = %v, want %v", when, nd.Name, g, w)
				}
			}
		}
		check("as made")
		for i := range rapid.IntRange(0, 3).Draw(t, "writes") {
			k := rapid.IntRange(0, n-1).Draw(t, "node")
			st := fw.NewStatus(codes[rapid.IntRange(0, len(codes)-1).Draw(t, "code")], fmt.Sprintf("w%d", i))
			ni := snap.Nodes()[k]
			if rapid.Bool().Draw(t, "other") {
				ni = other.Nodes()[k]
			}
			got.SetNode(ni, st)
			want.Set(nodes[k].Name, st)
		}
		check("after writes")
	})
}

// TestNodeToStatusNodesWithCodeOrder pins snapshot order for statuses
// recorded out of order, the way a cycle starting mid-list records them.
func TestNodeToStatusNodesWithCodeOrder(t *testing.T) {
	var nodes []*api.Node
	for _, name := range []string{"a", "b", "c", "d"} {
		nodes = append(nodes, omTestNode(name))
	}
	snap := fw.MustSnapshot(nodes, nil)
	m := fw.NewNodeToStatus(nil)
	un := fw.NewStatus(fw.Unschedulable, "full")
	for _, k := range []int{2, 3, 0} {
		m.SetNode(snap.Nodes()[k], un)
	}
	var got []string
	for _, ni := range m.NodesWithCode(snap, fw.Unschedulable) {
		got = append(got, ni.Name())
	}
	if d := cmp.Diff([]string{"a", "c", "d"}, got); d != "" {
		t.Fatalf("NodesWithCode (-want +got):\n%s", d)
	}
	if st := m.Get("b"); st.Code() != fw.UnschedulableAndUnresolvable {
		t.Fatalf("Get(b) = %v, want the absent status", st)
	}
}

// TestNodeToStatusConcurrentReads: readers on several goroutines, the
// first of which builds the index, all see every status (-race).
func TestNodeToStatusConcurrentReads(t *testing.T) {
	var nodes []*api.Node
	for i := range 50 {
		nodes = append(nodes, omTestNode(fmt.Sprintf("n%d", i)))
	}
	snap := fw.MustSnapshot(nodes, nil)
	m := fw.NewNodeToStatus(nil)
	st := fw.NewStatus(fw.Unschedulable, "full")
	for _, ni := range snap.Nodes() {
		m.SetNode(ni, st)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, nd := range nodes {
				if got := m.Get(nd.Name); got != st {
					t.Errorf("Get(%s) = %v", nd.Name, got)
				}
			}
			if m.Len() != len(nodes) {
				t.Errorf("Len = %d", m.Len())
			}
		}()
	}
	wg.Wait()
}

// TestNodesWithCodeReadOnlyCountsDistinctNodes: statuses recorded node by
// node, as many as the snapshot's nodes but one node twice, do not cover
// every node: the node never recorded keeps the absent status.
func TestNodesWithCodeReadOnlyCountsDistinctNodes(t *testing.T) {
	snap := fw.MustSnapshot([]*api.Node{omTestNode("n0"), omTestNode("n1"), omTestNode("n2")}, nil)
	m := fw.NewNodeToStatus(nil)
	for _, k := range []int{0, 0, 1} {
		m.SetNode(snap.Nodes()[k], fw.NewStatus(fw.Unschedulable, "full"))
	}
	if d := cmp.Diff([]string{"n0", "n1"}, names(m.NodesWithCodeReadOnly(snap, fw.Unschedulable))); d != "" {
		t.Fatalf("NodesWithCodeReadOnly (-want +got):\n%s", d)
	}
}
