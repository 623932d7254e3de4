package podtopologyspread

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// TestPropPtsMembers: ptsMembers sets exactly the bits of the given
// snapshot indices, keeps the bits already set, and refuses an index
// that is not its node's, for any increasing subset of any snapshot size.
func TestPropPtsMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		all := make([]*framework.NodeInfo, n)
		for i := range all {
			all[i] = &framework.NodeInfo{}
		}
		var idx []int32
		var nodes []*framework.NodeInfo
		for i := range n {
			if rapid.Bool().Draw(t, "in") {
				idx = append(idx, int32(i))
				nodes = append(nodes, all[i])
			}
		}
		words := (n + 63) / 64
		member := make([]uint64, words)
		for w := range member {
			member[w] = rapid.Uint64().Draw(t, "before")
		}
		want := slices.Clone(member)
		for _, k := range idx {
			want[k>>6] |= 1 << (k & 63)
		}
		if len(idx) > 0 && rapid.Bool().Draw(t, "wrong") {
			// One index names another node.
			j := rapid.IntRange(0, len(idx)-1).Draw(t, "at")
			other := all[(int(idx[j])+1)%n]
			if other == nodes[j] {
				return // a snapshot of one node
			}
			nodes[j] = other
			if _, ok := ptsMembers(member, all, nodes, idx); ok {
				t.Fatalf("index %d names another node, yet accepted", idx[j])
			}
			return
		}
		got, ok := ptsMembers(member, all, nodes, idx)
		if !ok || got != len(idx) {
			t.Fatalf("ptsMembers = %d, %v; want %d, true", got, ok, len(idx))
		}
		if !slices.Equal(member, want) {
			t.Fatalf("member bits:\n got %x\nwant %x", member, want)
		}
	})
}
