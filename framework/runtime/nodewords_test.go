package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

// TestNodeWordsViews: the two views of a buffer of node words are the
// same entries, lengths and capacities, and a store through the words is
// seen through the nodes.
func TestNodeWordsViews(t *testing.T) {
	if nodeWords(nil).nodes() != nil || wordsOf(nil) != nil {
		t.Fatal("empty views are not nil")
	}
	a, b := &framework.NodeInfo{}, &framework.NodeInfo{}
	w := make(nodeWords, 3, 5)
	copy(w, wordsOf([]*framework.NodeInfo{a, b, a}))
	nodes := w.nodes()
	if len(nodes) != 3 || cap(nodes) != 5 || nodes[0] != a || nodes[1] != b || nodes[2] != a {
		t.Fatalf("nodes view: len %d cap %d, entries %p %p %p", len(nodes), cap(nodes), nodes[0], nodes[1], nodes[2])
	}
	w[2] = w[1]
	if nodes[2] != b {
		t.Fatal("a store through the words is not seen through the nodes")
	}
	if back := wordsOf(nodes); len(back) != 3 || cap(back) != 5 || &back[0] != &w[0] {
		t.Fatal("wordsOf does not view the same array")
	}
}

// TestCycleNodesEndWithTheCycle: the feasible nodes a cycle places as
// words (scattered feasible positions, so neither a view of the order nor
// runs of it) are what its score plugin scores; once Schedule returns the
// Result holds no view of those words, and FeasibleNodes looks the nodes
// up again, the same ones, even after the words are overwritten by the
// next cycle on the same Result and a collection.
func TestCycleNodesEndWithTheCycle(t *testing.T) {
	const n = 300
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			mod := 3
			reject := &fake{name: "R", filter: func(ni *framework.NodeInfo) *framework.Status {
				if ni.Index()%mod == 0 {
					return framework.NewStatus(framework.Unschedulable, "every third")
				}
				return nil
			}}
			var scored []string
			var mu sync.Mutex // the workers score their chunks at once
			score := &fake{name: "S", score: func(ni *framework.NodeInfo) (int64, *framework.Status) {
				mu.Lock()
				defer mu.Unlock()
				scored = append(scored, ni.Name())
				return int64(ni.Index() % 7), nil
			}}
			opts := []Option{WithParallelism(workers)}
			if workers > 1 {
				w, err := NewWorkers(workers, WithMinChunk(64))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(w.Close)
				opts = []Option{WithWorkers(w)}
			}
			f, err := NewFramework(registryOf(reject, score), framework.Profile{Filter: []string{"R"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			snap := framework.MustSnapshot(testNodes(n), nil)
			res := &Result{}
			var firstWant []string
			for cycle, m := range []int{3, 4} {
				mod, scored = m, nil
				var want []string
				for p := range n {
					if k := (17 + p) % n; k%m != 0 {
						want = append(want, fmt.Sprintf("n%d", k))
					}
				}
				if cycle == 0 {
					firstWant = want
				}
				got, err := f.Schedule(context.Background(), nil, snap, testPod("p"),
					CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: 17, Reuse: res})
				if err != nil {
					t.Fatal(err)
				}
				if got != res {
					t.Fatal("Schedule did not reuse the Result")
				}
				if res.cycleNodes != nil || res.inCycle {
					t.Fatalf("cycle %d: the Result keeps its cycle's views after Schedule returned", cycle)
				}
				slices.Sort(scored)
				sortedWant := slices.Sorted(slices.Values(want))
				if d := cmp.Diff(sortedWant, scored); d != "" {
					t.Fatalf("cycle %d: scored nodes (-want +got):\n%s", cycle, d)
				}
				runtime.GC()
				if d := cmp.Diff(want, names(res.FeasibleNodes())); d != "" {
					t.Fatalf("cycle %d: FeasibleNodes (-want +got):\n%s", cycle, d)
				}
			}
			if slices.Equal(firstWant, names(res.FeasibleNodes())) {
				t.Fatal("the second cycle kept the first cycle's feasible nodes")
			}
		})
	}
}

// TestWordNodesOnlyWithCycleScopedPreScore: the default profile, whose
// PreScore plugins all use their nodes within the cycle, reads the
// feasible nodes as words during the cycle; a profile with a PreScore
// plugin that does not say so gets a list of the Result's own, which
// outlives the cycle, and the same feasible nodes.
func TestWordNodesOnlyWithCycleScopedPreScore(t *testing.T) {
	def, err := NewFramework(registryOf(), framework.Profile{})
	if err != nil {
		t.Fatal(err)
	}
	if !def.wordNodes {
		t.Fatal("a profile without PreScore plugins does not read the nodes as words")
	}
	const n = 120
	reject := &fake{name: "R", filter: func(ni *framework.NodeInfo) *framework.Status {
		if ni.Index()%3 == 0 {
			return framework.NewStatus(framework.Unschedulable, "every third")
		}
		return nil
	}}
	var kept []*framework.NodeInfo
	keeper := &fake{name: "K", preScore: func(nodes []*framework.NodeInfo) *framework.Status {
		kept = nodes // kept past the cycle, as a plain PreScore plugin may
		return nil
	}, score: func(ni *framework.NodeInfo) (int64, *framework.Status) { return int64(ni.Index() % 5), nil }}
	f, err := NewFramework(registryOf(reject, keeper), framework.Profile{Filter: []string{"R"}, PreScore: []string{"K"}, Score: []string{"K"}, Weights: map[string]int64{"K": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if f.wordNodes {
		t.Fatal("a PreScore plugin that does not say it keeps its nodes within the cycle: the nodes are read as words")
	}
	snap := framework.MustSnapshot(testNodes(n), nil)
	res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for k := range n {
		if k%3 != 0 {
			want = append(want, fmt.Sprintf("n%d", k))
		}
	}
	runtime.GC()
	if d := cmp.Diff(want, names(kept)); d != "" {
		t.Fatalf("the nodes PreScore kept (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, names(res.FeasibleNodes())); d != "" {
		t.Fatalf("FeasibleNodes (-want +got):\n%s", d)
	}
	if len(res.feasibleWords) > 0 && len(kept) > 0 && &kept[0] == &res.feasibleWords.nodes()[0] {
		t.Fatal("PreScore was given the words")
	}
}
