package noderesources

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scoring/imagelocality"
)

// memoPlugins returns NodeResourcesFit with its memo, the same plugin
// without one, and BalancedAllocation and ImageLocality, whose scores
// NodeResourcesFit adds in its own pass.
func memoPlugins(t interface{ Fatal(...any) }) (memoed, fresh *NodeResourcesFit, others []fastpath.AddingBatchScorePlugin) {
	mk := func() *NodeResourcesFit {
		pl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return pl.(*NodeResourcesFit)
	}
	memoed, fresh = mk(), mk()
	fresh.memo = nil
	ba, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	il, err := imagelocality.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return memoed, fresh, []fastpath.AddingBatchScorePlugin{ba.(fastpath.AddingBatchScorePlugin), il.(fastpath.AddingBatchScorePlugin)}
}

// memoCycle runs NodeResourcesFit's fused pass as a cycle does (PreScore
// of every plugin, then ScoreBatchAddWith at weight 1 over idx, in chunks
// of chunk positions), and returns whether it added and the totals.
func memoCycle(t interface{ Fatal(...any) }, fit *NodeResourcesFit, others []fastpath.AddingBatchScorePlugin, snap *fw.Snapshot, pod *fw.PodInfo, idx []int32, chunk int) (bool, []int64) {
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	for _, pl := range append([]fw.Plugin{fit}, pluginsOf(others)...) {
		if ps, ok := pl.(fw.PreScorePlugin); ok {
			if s := ps.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
				t.Fatal(s)
			}
		}
	}
	nodes := make([]*fw.NodeInfo, len(idx))
	for i, k := range idx {
		nodes[i] = snap.Nodes()[k]
	}
	totals := make([]int64, len(idx))
	out := make([]int64, len(idx))
	ws := slices.Repeat([]int64{1}, len(others))
	added := true
	for lo := 0; lo < len(idx); lo += chunk {
		hi := min(lo+chunk, len(idx))
		added = fit.ScoreBatchAddWith(ctx, state, pod, nodes[lo:hi], idx[lo:hi], out[lo:hi], 1, others, ws, totals[lo:hi]) && added
	}
	return added, totals
}

func pluginsOf(ps []fastpath.AddingBatchScorePlugin) []fw.Plugin {
	out := make([]fw.Plugin, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// TestPropLeastBalancedMemoEqualsFresh: NodeResourcesFit's fused pass
// with its memo of the nodes' addends gives the totals and the verdict of
// the same plugin without one, over a sequence of cycles of pods of a few
// request shapes (so that requests repeat) between which the cluster
// changes: pods added and removed, nodes' allocatable updated, nodes
// added, removed or replaced, snapshots cloned and cycles moved between
// them; the nodes scored are any of them in any order, or a run of them
// in snapshot order (a view of Snapshot.IndexRuns, as the runner's); the
// pods' images join the pass (ImageLocality) or not. It also checks that
// the memo was read: some cycles found the entries of their nodes kept
// from an earlier cycle.
func TestPropLeastBalancedMemoEqualsFresh(t *testing.T) {
	// Requests of pods: ordinary ones, none (kube's non-zero defaults;
	// BalancedAllocation's scores are all 0) and 4 EiB of memory, which
	// summed with another such request overflows BalancedAllocation's
	// sums into a score out of range.
	shapes := []map[string]string{
		{"cpu": "100m", "memory": "200Mi"},
		{"cpu": "1", "memory": "1Gi"},
		{},
		{"cpu": "1", "memory": "4Ei"},
	}
	var kept, cycles, runCycles int
	rapid.Check(t, func(t *rapid.T) {
		memoed, fresh, others := memoPlugins(t)
		node := func(name string) *api.Node {
			w := st.MakeNode().Name(name).Capacity(map[string]string{
				"cpu":    rapid.SampledFrom([]string{"0", "1", "2", "4", "8"}).Draw(t, "cpu"),
				"memory": rapid.SampledFrom([]string{"0", "1Gi", "4Gi", "16Gi"}).Draw(t, "memory"),
				"pods":   "110",
			})
			if rapid.Bool().Draw(t, "image") {
				w = w.Image(rapid.Int64Range(1, 2000).Draw(t, "image MiB")<<20, "app:1")
			}
			return w.Obj()
		}
		var nodes []*api.Node
		for i := range rapid.IntRange(1, 8).Draw(t, "nodes") {
			nodes = append(nodes, node(fmt.Sprintf("n%d", i)))
		}
		snaps := []*fw.Snapshot{fw.MustSnapshot(nodes, nil)}
		placed := map[*fw.Snapshot][]*api.Pod{}
		cur, made := 0, 0
		var lastTag uint32
		shape := 0 // the last cycle's requests, which the next mostly repeats
		for range rapid.IntRange(10, 60).Draw(t, "steps") {
			snap := snaps[cur]
			names := func() []string {
				var ns []string
				for _, ni := range snap.Nodes() {
					ns = append(ns, ni.Name())
				}
				return ns
			}
			switch rapid.IntRange(0, 9).Draw(t, "step") {
			case 0: // a pod added
				if snap.NumNodes() == 0 {
					continue
				}
				made++
				p := st.MakePod().Name(fmt.Sprintf("p%d", made)).Namespace("default").
					Node(rapid.SampledFrom(names()).Draw(t, "on")).Req(rapid.SampledFrom(shapes).Draw(t, "shape")).Obj()
				if err := snap.AddPod(p); err != nil {
					continue // the node's requests would overflow
				}
				placed[snap] = append(placed[snap], p)
			case 1: // a pod removed
				ps := placed[snap]
				if len(ps) == 0 {
					continue
				}
				k := rapid.IntRange(0, len(ps)-1).Draw(t, "removed")
				if err := snap.RemovePod(ps[k]); err != nil {
					t.Fatal(err)
				}
				placed[snap] = slices.Delete(ps, k, k+1)
			case 2: // a node's allocatable changed
				if snap.NumNodes() == 0 {
					continue
				}
				if err := snap.UpdateNode(node(rapid.SampledFrom(names()).Draw(t, "updated"))); err != nil {
					t.Fatal(err)
				}
			case 3: // a clone, where the next cycles run
				c := snap.Clone()
				placed[c] = slices.Clone(placed[snap])
				snaps = append(snaps, c)
				cur = len(snaps) - 1
			case 4: // cycles move to another snapshot
				cur = rapid.IntRange(0, len(snaps)-1).Draw(t, "snapshot")
			case 5: // a node removed, added or both (the same number of nodes, renumbered)
				what := rapid.IntRange(0, 2).Draw(t, "node change")
				if snap.NumNodes() > 1 && what > 0 {
					name := rapid.SampledFrom(names()).Draw(t, "removed node")
					if err := snap.RemoveNode(name); err != nil {
						t.Fatal(err)
					}
					placed[snap] = slices.DeleteFunc(placed[snap], func(p *api.Pod) bool { return p.Spec.NodeName == name })
					if what == 1 {
						continue
					}
				}
				made++
				if err := snap.AddNode(node(fmt.Sprintf("m%d", made))); err != nil {
					t.Fatal(err)
				}
			default: // a cycle
				if snap.NumNodes() == 0 {
					continue
				}
				pw := st.MakePod().Name("incoming").Namespace("default")
				if rapid.IntRange(0, 3).Draw(t, "other requests") == 0 {
					shape = rapid.IntRange(0, len(shapes)-1).Draw(t, "incoming shape")
				}
				req := shapes[shape]
				if rapid.Bool().Draw(t, "runs the image") {
					pw = pw.Container("app:1", req)
				} else {
					pw = pw.Req(req)
				}
				pod := fw.MustPodInfo(pw.Obj())
				all := make([]int32, snap.NumNodes())
				for i := range all {
					all[i] = int32(i)
				}
				idx := rapid.Permutation(all).Draw(t, "order")
				idx = idx[:rapid.IntRange(1, len(idx)).Draw(t, "scored")]
				if rapid.Bool().Draw(t, "run") {
					// The nodes in snapshot order from some node on,
					// wrapping past the last or not, as the runner hands
					// them over (a view of Snapshot.IndexRuns).
					start := rapid.IntRange(0, len(all)-1).Draw(t, "start")
					idx = snap.IndexRuns()[start : start+len(idx)]
					runCycles++
				}
				ots := others[:rapid.IntRange(1, 2).Draw(t, "others")]
				chunk := rapid.IntRange(1, len(idx)).Draw(t, "chunk")
				gotAdded, got := memoCycle(t, memoed, ots, snap, pod, idx, chunk)
				wantAdded, want := memoCycle(t, fresh, ots, snap, pod, idx, len(idx))
				if gotAdded != wantAdded || gotAdded && !slices.Equal(got, want) {
					t.Fatalf("nodes %v: with the memo added %v, totals %v; without added %v, totals %v", idx, gotAdded, got, wantAdded, want)
				}
				cycles++
				m := memoed.memo
				if m.tag == lastTag && m.snap == snap && m.n == snap.NumNodes() {
					for _, x := range idx {
						if m.entries[x].Load()>>32 == uint64(m.tag) {
							kept++ // the cycle before left entries this one read
							break
						}
					}
				}
				lastTag = m.tag
			}
		}
	})
	t.Logf("%d cycles, %d of them read kept entries, %d over a run of nodes", cycles, kept, runCycles)
	if kept == 0 || runCycles == 0 {
		t.Fatalf("of %d cycles, %d read a kept entry and %d went over a run of nodes: the property compared too little", cycles, kept, runCycles)
	}
}

// TestLeastBalancedMemoConcurrentCycles: cycles on one plugin at the same
// time, on two snapshots and with two request shapes, each give the
// totals of the plugin without a memo (go test -race: the entries are
// shared).
func TestLeastBalancedMemoConcurrentCycles(t *testing.T) {
	memoed, fresh, others := memoPlugins(t)
	var nodes []*api.Node
	for i := range 300 {
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).
			Capacity(map[string]string{"cpu": fmt.Sprint(2 + i%7), "memory": fmt.Sprintf("%dGi", 4+i%5), "pods": "110"}).Obj())
	}
	a := fw.MustSnapshot(nodes, nil)
	b := a.Clone()
	for i := range 100 {
		p := st.MakePod().Name(fmt.Sprintf("b%d", i)).Namespace("default").Node(fmt.Sprintf("n%d", i*3)).
			Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
		if err := b.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	pods := []*fw.PodInfo{
		fw.MustPodInfo(st.MakePod().Name("x").Namespace("default").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).Obj()),
		fw.MustPodInfo(st.MakePod().Name("y").Namespace("default").Req(map[string]string{"cpu": "2", "memory": "512Mi"}).Obj()),
	}
	idx := make([]int32, len(nodes))
	for i := range idx {
		idx[i] = int32(i)
	}
	want := map[[2]int][]int64{}
	for s, snap := range []*fw.Snapshot{a, b} {
		for p, pod := range pods {
			_, want[[2]int{s, p}] = memoCycle(t, fresh, others[:1], snap, pod, idx, len(idx))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			snap := []*fw.Snapshot{a, b}[g%2]
			for r := range 200 {
				p := (r / 3) % 2 // runs of equal requests
				added, got := memoCycle(t, memoed, others[:1], snap, pods[p], idx, 64)
				if !added || !slices.Equal(got, want[[2]int{g % 2, p}]) {
					errs <- fmt.Sprintf("goroutine %d, cycle %d: added %v, totals differ from the plugin without a memo", g, r, added)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestLeastBalancedMemoClonedStateOnAnotherSnapshot: a cycle state whose
// memo view was taken on one snapshot, cloned into a cycle on another
// (where a pod was added to a node), scores that snapshot as the plugin
// without a memo does.
func TestLeastBalancedMemoClonedStateOnAnotherSnapshot(t *testing.T) {
	memoed, fresh, others := memoPlugins(t)
	var nodes []*api.Node
	for i := range 4 {
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).
			Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}).Obj())
	}
	a := fw.MustSnapshot(nodes, nil)
	b := a.Clone()
	if err := b.AddPod(st.MakePod().Name("q").Namespace("default").Node("n2").Req(map[string]string{"cpu": "3", "memory": "1Gi"}).Obj()); err != nil {
		t.Fatal(err)
	}
	pod := fw.MustPodInfo(st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj())
	idx := []int32{0, 1, 2, 3}
	for range 2 { // the second cycle on a stores every node's addend
		memoCycle(t, memoed, others[:1], a, pod, idx, len(idx))
	}
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(a)
	for _, pl := range []fw.Plugin{memoed, others[0]} {
		if s := pl.(fw.PreScorePlugin).PreScore(ctx, state, pod, a.Nodes()); !s.IsSuccess() {
			t.Fatal(s)
		}
	}
	ws := []int64{1}
	if !memoed.ScoreBatchAddWith(ctx, state, pod, a.Nodes(), idx, make([]int64, 4), 1, others[:1], ws, make([]int64, 4)) {
		t.Fatal("the cycle on a does not add")
	}
	if v := memoed.memo.view(a, memoed.memo.key); v.entries == nil {
		t.Fatal("the memo is off on a: the test does not test what it says")
	}
	cloned := state.Clone()
	cloned.SetSnapshot(b)
	got := make([]int64, 4)
	if !memoed.ScoreBatchAddWith(ctx, cloned, pod, b.Nodes(), idx, make([]int64, 4), 1, others[:1], ws, got) {
		t.Fatal("the cloned state's cycle on b does not add")
	}
	_, want := memoCycle(t, fresh, others[:1], b, pod, idx, len(idx))
	if !slices.Equal(got, want) {
		t.Fatalf("cloned state on b: totals %v, the plugin without a memo %v", got, want)
	}
}

// BenchmarkLeastBalancedMemo times NodeResourcesFit's fused pass with
// BalancedAllocation over 5,000 nodes in chunks of 1,024, one cycle per
// iteration, with a pod placed on one node between cycles (the journal
// lists it): pods of one shape of requests (the memo read), pods whose
// requests change every cycle (the memo off), and the plugin without a
// memo.
func BenchmarkLeastBalancedMemo(b *testing.B) {
	memoed, fresh, others := memoPlugins(b)
	var nodes []*api.Node
	for i := range 5000 {
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).
			Capacity(map[string]string{"cpu": fmt.Sprint(8 << (i % 4)), "memory": fmt.Sprintf("%dGi", 32<<(i%3)), "pods": "110"}).Obj())
	}
	idx := make([]int32, len(nodes))
	for i := range idx {
		idx[i] = int32(i)
	}
	pod := func(k int) *fw.PodInfo {
		return fw.MustPodInfo(st.MakePod().Name("p").Namespace("default").
			Req(map[string]string{"cpu": fmt.Sprintf("%dm", 100+k%50), "memory": "1Gi"}).Obj())
	}
	for _, c := range []struct {
		name   string
		fit    *NodeResourcesFit
		varied bool
	}{
		{"repeated/memo", memoed, false},
		{"repeated/none", fresh, false},
		{"varied/memo", memoed, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			snap := fw.MustSnapshot(nodes, nil)
			pods := []*fw.PodInfo{pod(0)}
			if c.varied {
				for k := 1; k < 50; k++ {
					pods = append(pods, pod(k))
				}
			}
			k := 0
			for b.Loop() {
				if _, totals := memoCycle(b, c.fit, others[:1], snap, pods[k%len(pods)], idx, 1024); totals[0] == 0 {
					b.Fatal("node 0 scores 0")
				}
				k++
				b.StopTimer()
				p := st.MakePod().Name(fmt.Sprintf("q%d", k)).Namespace("default").Node(fmt.Sprintf("n%d", k*7%5000)).
					Req(map[string]string{"cpu": "100m", "memory": "100Mi"}).Obj()
				if err := snap.AddPod(p); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(idx)), "ns/node")
		})
	}
}
