package runtime

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// TestPropRecorderAddAsEntryByEntry: filterRecorder.add records every
// list (rejections, failures and nil statuses, shared or not, at climbing
// or scattered positions) as recording each entry on its own does: a
// rejection as it is, and from the first entry that is not one on,
// addRest's record (a failure as the filter's Error).
func TestPropRecorderAddAsEntryByEntry(t *testing.T) {
	const n = 300
	filters := []framework.FilterPlugin{&fake{name: "F0"}, &fake{name: "F1"}}
	rapid.Check(t, func(t *rapid.T) {
		pool := []*framework.Status{
			framework.NewStatus(framework.Unschedulable, "u"),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "uu"),
			framework.NewStatus(framework.Pending, "p"),
			framework.NewStatus(framework.Error, "e"),
			framework.NewStatus(framework.Success),
			nil,
		}
		weights := rapid.SliceOfN(rapid.IntRange(0, 9), len(pool), len(pool)).Draw(t, "weights")
		pick := func(label string) *framework.Status {
			total := 0
			for _, w := range weights {
				total += w
			}
			if total == 0 {
				return pool[0]
			}
			r := rapid.IntRange(0, total-1).Draw(t, label)
			for i, w := range weights {
				if r < w {
					return pool[i]
				}
				r -= w
			}
			return pool[0]
		}
		positions := rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 1, 80, rapid.ID[int]).Draw(t, "positions")
		rl := make([]fastpath.NodeRejection, len(positions))
		for i, p := range positions {
			rl[i] = fastpath.NodeRejection{Node: int32(p), Status: pick(fmt.Sprint("status", i))}
		}
		pi := int16(rapid.IntRange(0, len(filters)-1).Draw(t, "filter"))

		var sc, ref scratch
		got, want := sc.filterBuffers(n, filters), ref.filterBuffers(n, filters)
		got.add(append([]fastpath.NodeRejection(nil), rl...), pi)
		for k, x := range rl {
			if !x.Rejects() {
				want.addRest(rl[k:], pi, false)
				break
			}
			want.add1(int(x.Node), x.Status, pi)
		}
		if got.failed.Load() != want.failed.Load() || got.failedAt.Load() != want.failedAt.Load() {
			t.Fatalf("failure %v at %d, entry by entry %v at %d", got.failed.Load(), got.failedAt.Load(), want.failed.Load(), want.failedAt.Load())
		}
		for p := range n {
			g, w := got.rejected[p>>6]>>(p&63)&1, want.rejected[p>>6]>>(p&63)&1
			if g != w {
				t.Fatalf("position %d: bit %d, entry by entry %d", p, g, w)
			}
			if g == 0 {
				continue
			}
			if got.plugins[p] != want.plugins[p] {
				t.Fatalf("position %d: filter %d, entry by entry %d", p, got.plugins[p], want.plugins[p])
			}
			gs, ws := got.statuses[p], want.statuses[p]
			if gs.Code() != ws.Code() || gs.Message() != ws.Message() || gs.Plugin() != ws.Plugin() {
				t.Fatalf("position %d: status %v, entry by entry %v", p, gs, ws)
			}
			if ws.IsRejected() && gs != ws {
				t.Fatalf("position %d: a rejection recorded as %p, not its own status %p", p, gs, ws)
			}
		}
	})
}
