package runtime

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
)

// TestPropRejectionRunsListEachRejection: a cycle's rejections, kept as
// runs of consecutive positions rejected alike, list the statuses the
// rejections give one by one (each named by its plugin, nil and dropped
// ones left out), and Status finds each node's by its position, for any
// start, gaps between positions, shared and distinct statuses, named and
// unnamed ones, and rejections out of position order (which Status is not
// used for).
func TestPropRejectionRunsListEachRejection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(1, 40).Draw(t, "nodes")
		snap := framework.MustSnapshot(testNodes(nodes), nil)
		order := snap.Nodes()
		start := rapid.IntRange(0, nodes-1).Draw(t, "start")
		fw := &Framework{filterNames: []string{"A", "B", ""}}
		shared := []*framework.Status{
			framework.NewStatus(framework.Unschedulable, "short"),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "never"),
			framework.NewStatus(framework.Unschedulable, "named").WithPlugin("C"),
			nil,
		}
		var rejections []rejection
		for pos := 0; pos < nodes; pos++ {
			if !rapid.Bool().Draw(t, "rejected") {
				continue
			}
			st := shared[rapid.IntRange(0, len(shared)-1).Draw(t, "status")]
			if rapid.IntRange(0, 4).Draw(t, "fresh") == 0 {
				st = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("own %d", pos))
			}
			rejections = append(rejections, rejection{
				pos: int32(pos), by: int16(rapid.IntRange(0, 2).Draw(t, "by")),
				dropped: st != nil && rapid.IntRange(0, 9).Draw(t, "dropped") == 0, status: st,
			})
		}
		unordered := len(rejections) > 1 && rapid.Bool().Draw(t, "unordered")
		if unordered {
			i := rapid.IntRange(1, len(rejections)-1).Draw(t, "moved")
			rejections = append(append([]rejection{rejections[i]}, rejections[:i]...), rejections[i+1:]...)
		}

		type entry struct {
			Node, Plugin, Message string
			Code                  framework.Code
		}
		var want []entry
		byNode := map[string]entry{}
		var codes uint64
		for _, x := range rejections {
			if x.status == nil || x.dropped {
				continue
			}
			plugin := x.status.Plugin()
			if plugin == "" {
				plugin = fw.filterNames[x.by]
			}
			e := entry{order[(start+int(x.pos))%nodes].Name(), plugin, x.status.Message(), x.status.Code()}
			want = append(want, e)
			byNode[e.Node] = e
			codes |= 1 << uint(e.Code)
		}

		src := &rejectionStatuses{fw: fw, order: order, start: start}
		sorted := src.runsOf(rejections)
		if sorted == unordered {
			t.Fatalf("runsOf reports sorted = %v for rejections moved out of order: %v", sorted, unordered)
		}
		var got []entry
		for _, x := range src.AppendTo(nil) {
			got = append(got, entry{x.Node.Name(), x.Status.Plugin(), x.Status.Message(), x.Status.Code()})
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("AppendTo (-each rejection +runs):\n%s", d)
		}
		if src.Len() != len(want) || src.Codes() != codes {
			t.Fatalf("Len, Codes = %d, %b; want %d, %b", src.Len(), src.Codes(), len(want), codes)
		}
		if unordered {
			return
		}
		for _, ni := range order {
			st, ok := src.Status(ni)
			e, listed := byNode[ni.Name()]
			if ok != listed {
				t.Fatalf("Status(%s) listed = %v, want %v", ni.Name(), ok, listed)
			}
			if ok && (st.Plugin() != e.Plugin || st.Message() != e.Message || st.Code() != e.Code) {
				t.Fatalf("Status(%s) = %v from %q, want %+v", ni.Name(), st, st.Plugin(), e)
			}
		}
	})
}

// TestPropRecordedRunsAreRunsOf: the runs a failed cycle's filter step
// records with its rejections are the runs runsOf makes of those
// rejections, with the same count and codes, and the rejections and the
// plugins they name are those of the step's plain loop, for positions
// with gaps, shared and distinct statuses, named and unnamed ones, and
// several filters; positions out of order record no runs.
func TestPropRecordedRunsAreRunsOf(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fw := &Framework{filterNames: []string{"A", "B", "C"}}
		for _, name := range fw.filterNames {
			fw.filter = append(fw.filter, &fake{name: name})
		}
		shared := []*framework.Status{
			framework.NewStatus(framework.Unschedulable, "short"),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "never"),
			framework.NewStatus(framework.Unschedulable, "named").WithPlugin("D"),
			framework.NewStatus(framework.Pending, "later"),
		}
		n := rapid.IntRange(1, 200).Draw(t, "positions")
		statuses := make([]*framework.Status, n)
		plugins := make([]int16, n)
		var rejPos []int32
		for p := range n {
			if rapid.IntRange(0, 3).Draw(t, "gap") == 0 {
				continue
			}
			rejPos = append(rejPos, int32(p))
			statuses[p] = shared[rapid.IntRange(0, len(shared)-1).Draw(t, "status")]
			if rapid.IntRange(0, 9).Draw(t, "fresh") == 0 {
				statuses[p] = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("own %d", p))
			}
			plugins[p] = int16(rapid.IntRange(0, len(fw.filterNames)-1).Draw(t, "by"))
		}
		if len(rejPos) == 0 {
			return
		}
		unordered := len(rejPos) > 1 && rapid.IntRange(0, 4).Draw(t, "unordered") == 0
		if unordered {
			i := rapid.IntRange(1, len(rejPos)-1).Draw(t, "moved")
			rejPos = append(append([]int32{rejPos[i]}, rejPos[:i]...), rejPos[i+1:]...)
		}

		// The plain loop: each rejection, and the diagnosis's names.
		want := make([]rejection, len(rejPos))
		var wantNames diagnosisNames
		for i, p := range rejPos {
			want[i] = rejection{pos: p, by: plugins[p], status: statuses[p]}
			wantNames.add(statuses[p], plugins[p], fw.filter)
		}

		res := &Result{rejections: make([]rejection, len(rejPos))}
		var names diagnosisNames
		fw.recordRejections(res.rejections, rejPos, statuses, plugins, &names, res, true)
		if d := cmp.Diff(want, res.rejections, cmp.AllowUnexported(rejection{})); d != "" {
			t.Fatalf("rejections (-plain loop +recorded):\n%s", d)
		}
		if d := cmp.Diff(wantNames.unsched, names.unsched); d != "" {
			t.Fatalf("unschedulable plugins (-plain loop +recorded):\n%s", d)
		}
		if d := cmp.Diff(wantNames.pend, names.pend); d != "" {
			t.Fatalf("pending plugins (-plain loop +recorded):\n%s", d)
		}
		if unordered {
			if res.rejRunsOf != 0 {
				t.Fatalf("positions out of order recorded runs over %d rejections", res.rejRunsOf)
			}
			return
		}
		if res.rejRunsOf != len(rejPos) {
			t.Fatalf("runs cover %d rejections, want %d", res.rejRunsOf, len(rejPos))
		}
		var of rejectionStatuses
		if !of.runsOf(res.rejections) {
			t.Fatalf("runsOf finds climbing positions out of order")
		}
		recorded := rejectionStatuses{runs: res.rejRuns}
		recorded.tally()
		if d := cmp.Diff(of.runs, recorded.runs, cmp.AllowUnexported(rejectionRun{})); d != "" {
			t.Fatalf("runs (-runsOf +recorded):\n%s", d)
		}
		if recorded.n != of.n || recorded.codes != of.codes {
			t.Fatalf("count, codes = %d, %b; runsOf's %d, %b", recorded.n, recorded.codes, of.n, of.codes)
		}
	})
}
