package imagelocality

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/frameworktest"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

const ilMiB = 1024 * 1024

// The nodes of kube-scheduler v1.36 imagelocality/image_locality_test.go:
// node403002000 holds gcr.io/40 (40 MiB, also as :v1), gcr.io/300 (300 MiB,
// also :v1) and gcr.io/2000 (2000 MiB); node25010 holds gcr.io/250 (250 MiB)
// and gcr.io/10 (10 MiB, also :v1).
func ilNodes() []*api.Node {
	return []*api.Node{
		st.MakeNode().Name("node1").Image(40*ilMiB, "gcr.io/40:latest", "gcr.io/40:v1").
			Image(300*ilMiB, "gcr.io/300:latest", "gcr.io/300:v1").Image(2000*ilMiB, "gcr.io/2000:latest").Obj(),
		st.MakeNode().Name("node2").Image(250*ilMiB, "gcr.io/250:latest").Image(10*ilMiB, "gcr.io/10:latest", "gcr.io/10:v1").Obj(),
	}
}

// ilHandle is a handle naming a kube-scheduler release.
func ilHandle(v fw.KubeVersion) fw.Handle { return fw.NewHandle(fw.RealClock{}, 1, v) }

// ilNewFor builds ImageLocality for release v.
func ilNewFor(t st.Fataler, v fw.KubeVersion) fw.Plugin {
	pl, err := New(nil, ilHandle(v))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return pl
}

// The kube nodes node300600900 and node400030 of
// imagelocality/image_locality_test.go (sizes in MiB, kube's "mb").
func ilVolumeNodes() []*api.Node {
	return []*api.Node{
		st.MakeNode().Name("node1").Image(300*ilMiB, "gcr.io/300:latest").Image(600*ilMiB, "gcr.io/600:latest").Image(900*ilMiB, "gcr.io/900:latest").Obj(),
		st.MakeNode().Name("node2").Image(4000*ilMiB, "gcr.io/4000:latest").Image(30*ilMiB, "gcr.io/30:latest").Obj(),
	}
}

// TestImageLocalityScore: scores in both releases; want136, when set, is
// v1.36's where it differs from v1.37's want. The threshold's image count
// is len(init)+len(containers) in v1.36.4
// (imagelocality/image_locality.go:Score) and adds every image volume in
// v1.37.2 (image_locality.go:sumImageScores, which returns the count);
// calculatePriority is 100·(clamp(sum, 23 MiB, 1000 MiB·count) − 23 MiB) /
// (1000 MiB·count − 23 MiB) in both.
func TestImageLocalityScore(t *testing.T) {
	pod := func(images ...string) *st.PodWrapper {
		w := st.MakePod().Name("p")
		for _, im := range images {
			w = w.Container(im, nil)
		}
		return w
	}
	tests := []struct {
		name    string
		pod     *api.Pod
		nodes   []*api.Node
		want    []int64
		want136 []int64
	}{
		// node1: 40 MiB·½ = 20 MiB < 23 MiB → 0; node2: 250 MiB·½ = 125 MiB,
		// max 2000 MiB → 100·(125−23)/(2000−23) = 5.
		{name: "two images spread on two nodes, prefer the larger image one", pod: pod("gcr.io/40", "gcr.io/250").Obj(), nodes: ilNodes(), want: []int64{0, 5}},
		// node1: (300+2000)·½ = 1150 MiB → 100·1127/1977 = 57; node2 0.
		{name: "two images on one node, prefer this node", pod: pod("gcr.io/300", "gcr.io/2000").Obj(), nodes: ilNodes(), want: []int64{57, 0}},
		// 3·2000 MiB·½ = 3000 MiB reaches the 3·1000 MiB limit → 100.
		{name: "if exceed limit, use limit", pod: pod("gcr.io/2000", "gcr.io/2000", "gcr.io/2000").Obj(), nodes: ilNodes(), want: []int64{100, 0}},
		// :v1 is an explicit tag on both nodes: node1 40·½ = 20 MiB → 0; node2 10·½ = 5 MiB → 0.
		{name: "explicit tags", pod: pod("gcr.io/40:v1", "gcr.io/10:v1").Obj(), nodes: ilNodes(), want: []int64{0, 0}},
		// Init containers count in the sum and the container count:
		// (2000+40)·½ = 1020 MiB, max 2000 → 100·997/1977 = 50.
		{name: "init container image", pod: pod("gcr.io/40").InitImage("gcr.io/2000").Obj(), nodes: ilNodes(), want: []int64{50, 0}},
		// Image volumes add to the sum: node2 (10+250)·½ = 130 MiB. v1.37:
		// 2 images, max 2000 → 100·107/1977 = 5; v1.36: 1 container, max
		// 1000 → 100·107/977 = 10.
		{name: "image volume", pod: pod("gcr.io/10").ImageVolume("gcr.io/250").Obj(), nodes: ilNodes(), want: []int64{0, 5}, want136: []int64{0, 10}},
		// kube's "pod with ImageVolume" (v1.37.2 image_locality_test.go;
		// 12 in v1.36.4's): node1 300·½ = 150 MiB → 100·127/1977 = 6 (v1.37),
		// 100·127/977 = 12 (v1.36); node2 30·½ = 15 MiB < 23 MiB → 0.
		{name: "kube pod with ImageVolume", pod: pod("gcr.io/30").ImageVolume("gcr.io/300").Obj(), nodes: ilVolumeNodes(), want: []int64{6, 0}, want136: []int64{12, 0}},
		// kube's "same images as ImageVolume pod but as regular container
		// images": the same in both releases.
		{name: "kube same images as containers", pod: pod("gcr.io/30", "gcr.io/300").Obj(), nodes: ilVolumeNodes(), want: []int64{6, 0}},
		// node1 a:1 and b:1 (500 MiB each), node2 nothing: (250+250) MiB.
		// v1.37 100·477/1977 = 24; v1.36 100·477/977 = 48.
		{name: "image volume on the node", pod: pod("a:1").ImageVolume("b:1").Obj(), nodes: []*api.Node{
			st.MakeNode().Name("n1").Image(500*ilMiB, "a:1").Image(500*ilMiB, "b:1").Obj(), st.MakeNode().Name("n2").Obj()}, want: []int64{24, 0}, want136: []int64{48, 0}},
		// An image volume on no node still counts in v1.37: node1
		// 2000·½ = 1000 MiB; v1.37 max 2000 → 100·977/1977 = 49; v1.36 max
		// 1000 → 100.
		{name: "absent image volume", pod: pod("gcr.io/2000").ImageVolume("absent:v1").Obj(), nodes: ilNodes(), want: []int64{49, 0}, want136: []int64{100, 0}},
		// A reference repeated by two volumes counts (and sums) twice:
		// node1 3·300·½ = 450 MiB; v1.37 3 images → 100·427/2977 = 14; v1.36
		// 1 container → 100·427/977 = 43.
		{name: "repeated image volume", pod: pod("gcr.io/300").ImageVolume("gcr.io/300").ImageVolume("gcr.io/300").Obj(), nodes: ilNodes(), want: []int64{14, 0}, want136: []int64{43, 0}},
		// Only an image volume: v1.36 counts no image, so maxThreshold is 0:
		// node1's 1000 MiB is clamped to 0 and scores 100·(0−23)/(0−23) =
		// 100, node2's 0 is raised to 23 MiB and scores 0; v1.37 counts 1:
		// 100·977/977 = 100 and 0.
		{name: "only an image volume", pod: st.MakePod().Name("p").ImageVolume("gcr.io/2000").Obj(), nodes: ilNodes(), want: []int64{100, 0}},
		// The spread counts every node of the snapshot: gcr.io/2000 on 2 of
		// 4 nodes → 1000 MiB → 100 on both holders.
		{name: "spread over all nodes", pod: pod("gcr.io/2000").Obj(), nodes: append(ilNodes(),
			st.MakeNode().Name("node3").Image(2000*ilMiB, "gcr.io/2000:latest").Obj(), st.MakeNode().Name("node4").Obj()), want: []int64{100, 0, 100, 0}},
		// A digest reference is not given ":latest".
		{name: "digest", pod: pod("gcr.io/x@sha256:abc").Obj(), nodes: []*api.Node{st.MakeNode().Name("n").Image(2000*ilMiB, "gcr.io/x@sha256:abc").Obj()}, want: []int64{100}},
		{name: "no images anywhere", pod: pod("busybox").Obj(), nodes: []*api.Node{st.MakeNode().Name("n").Obj()}, want: []int64{0}},
		{name: "pod without containers", pod: st.MakePod().Name("p").Obj(), nodes: ilNodes(), want: []int64{0, 0}},
	}
	for _, v := range fw.KubeVersions() {
		pl := ilNewFor(t, v)
		for _, tc := range tests {
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				want := tc.want
				if tc.want136 != nil && !v.AtLeast(fw.KubeV137) {
					want = tc.want136
				}
				if diff := cmp.Diff(want, st.RawScores(t, pl, tc.pod, tc.nodes, nil, false)); diff != "" {
					t.Errorf("(-want,+got):\n%s", diff)
				}
			})
		}
	}
}

func TestNormalizedImageName(t *testing.T) {
	for in, want := range map[string]string{
		"busybox": "busybox:latest", "busybox:1": "busybox:1", "gcr.io:5000/foo": "gcr.io:5000/foo:latest",
		"gcr.io:5000/foo:v2": "gcr.io:5000/foo:v2", "a@sha256:x": "a@sha256:x", "": ":latest",
	} {
		if got := NormalizedImageName(in); got != want {
			t.Errorf("NormalizedImageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestImageLocalityIsScoreOnly(t *testing.T) {
	pl, _ := New(nil, nil)
	if _, ok := pl.(fw.PreScorePlugin); ok {
		t.Fatal("kube-scheduler's ImageLocality has no PreScore; ours must not either")
	}
}

func TestImageLocalityWithoutSnapshot(t *testing.T) {
	pl, _ := New(nil, nil)
	ni, _ := fw.NewNodeInfo(st.MakeNode().Name("n").Obj())
	if _, s := pl.(fw.ScorePlugin).Score(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Obj()), ni); s.Code() != fw.Error {
		t.Errorf("Score without a snapshot = %v, want Error", s)
	}
}

func TestImageLocalityScoreAllocs(t *testing.T) {
	pl, _ := New(nil, nil)
	snap := fw.MustSnapshot(ilNodes(), nil)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pod := fw.MustPodInfo(st.MakePod().Container("gcr.io/300", nil).Container("gcr.io/250", nil).Obj())
	// The first Score call of a cycle caches the pod's images; later calls
	// allocate nothing.
	pl.(fw.ScorePlugin).Score(context.Background(), state, pod, snap.Nodes()[0])
	for _, ni := range snap.Nodes() {
		if a := testing.AllocsPerRun(100, func() { pl.(fw.ScorePlugin).Score(context.Background(), state, pod, ni) }); a != 0 {
			t.Errorf("%s: %v allocs, want 0", ni.Name(), a)
		}
	}
}

// TestPropImageLocalityRange: scores stay in [0, 100] and never decrease
// when a node gains one of the pod's images.
func TestPropImageLocalityRange(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pl := ilNewFor(rt, rapid.SampledFrom(fw.KubeVersions()).Draw(rt, "version"))
		n := rapid.IntRange(1, 6).Draw(rt, "nodes")
		images := []string{"a", "b", "c"}
		var nodes []*api.Node
		for i := range n {
			w := st.MakeNode().Name(fmt.Sprint("n", i))
			for _, im := range images {
				if rapid.Bool().Draw(rt, "has") {
					w = w.Image(rapid.Int64Range(0, 3000).Draw(rt, "MiB")*ilMiB, im+":latest")
				}
			}
			nodes = append(nodes, w.Obj())
		}
		w := st.MakePod().Name("p")
		for range rapid.IntRange(0, 3).Draw(rt, "containers") {
			w = w.Container(rapid.SampledFrom(images).Draw(rt, "image"), nil)
		}
		for range rapid.IntRange(0, 2).Draw(rt, "imageVolumes") {
			w = w.ImageVolume(rapid.SampledFrom(images).Draw(rt, "volumeImage"))
		}
		for _, s := range st.RawScores(rt, pl, w.Obj(), nodes, nil, false) {
			if s < 0 || s > 100 {
				rt.Fatalf("score %d outside [0,100]", s)
			}
		}
	})
}

func BenchmarkImageLocalityScore(b *testing.B) {
	pl, _ := New(nil, nil)
	st.BenchScore(b, pl, st.ScoreBenchPod())
}

// BenchmarkImageLocalityDenseFill measures the dense scores of one cycle
// (fillDense) on 5,000 nodes where each of eight images is on three
// nodes in five at one of three sizes: pods of one and of three images,
// into the plugin's pooled arrays (released after each fill) and into a
// new cached array.
func BenchmarkImageLocalityDenseFill(b *testing.B) {
	const n = 5000
	images := []string{"a:v1", "b:v1", "c:v1", "d:v1", "e:v1", "f:v1", "g:v1", "h:v1"}
	nodes := make([]*api.Node, n)
	for i := range nodes {
		w := st.MakeNode().Name(fmt.Sprintf("n%d", i))
		for j, im := range images {
			if (i*7+j*13)%5 < 3 { // about three nodes in five
				w = w.Image(int64(100+200*((i+j)%3))*ilMiB, im)
			}
		}
		nodes[i] = w.Obj()
	}
	snap := fw.MustSnapshot(nodes, nil)
	pl := ilNewFor(b, fw.DefaultKubeVersion).(*ImageLocality)
	for _, tc := range []struct {
		name   string
		images []string
	}{{"one image", images[:1]}, {"three images", images[2:5]}} {
		w := st.MakePod().Name("p")
		for _, im := range tc.images {
			w = w.Container(im, nil)
		}
		s, err := pl.state(snap, w.Obj())
		if err != nil {
			b.Fatal(err)
		}
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/cached=%v", tc.name, cached), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s.fillDense(snap, pl.bufs, cached)
					if s.dense.delta[0] < 0 {
						b.Fatal("negative score")
					}
					s.Release()
				}
			})
		}
	}
}

// TestPropImageLocalityDenseScores: with the runner's snapshot indices,
// ScoreBatch scores every node from the holders of the pod's images
// (ilDense), and gives what Score gives node by node, cycle after cycle on
// one plugin whose released score arrays are reused and whose cache
// serves a pod running the images of an earlier one (snapshots of any
// size, several pods on each, a node changing its images between them,
// pods whose images repeat, are untagged or are on no node, with image
// volumes), in both releases; ScoreBatchAdd adds those scores, weighted;
// a clone of the state taken before Release scores the same without
// them.
func TestPropImageLocalityDenseScores(t *testing.T) {
	catalogue := []string{"a:v1", "a", "b:latest", "c:v2", "d", "reg.io/e:v1"}
	plugins := map[fw.KubeVersion]*ImageLocality{}
	for _, v := range fw.KubeVersions() {
		plugins[v] = ilNewFor(t, v).(*ImageLocality)
	}
	rapid.Check(t, func(t *rapid.T) {
		pl := plugins[rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version")]
		for round := range 3 {
			n := rapid.IntRange(1, 150).Draw(t, "nodes")
			nodes := make([]*api.Node, n)
			for i := range nodes {
				w := st.MakeNode().Name(fmt.Sprintf("n%d", i))
				for range rapid.IntRange(0, 4).Draw(t, "numImages") {
					w = w.Image(int64(rapid.IntRange(0, 3000).Draw(t, "MiB"))*ilMiB, rapid.SampledFrom(catalogue).Draw(t, "image"))
				}
				nodes[i] = w.Obj()
			}
			snap := fw.MustSnapshot(nodes, nil)
			// Pods in turn on the same snapshot: a pod may run the images of
			// the one before (the plugin's cache of dense scores), and a
			// node may change its images in between (a new image table).
			var prev *fw.PodInfo
			for pi := range rapid.IntRange(1, 6).Draw(t, "pods") {
				if pi > 0 && rapid.Bool().Draw(t, "updateNode") {
					k := rapid.IntRange(0, n-1).Draw(t, "updated")
					w := st.MakeNode().Name(fmt.Sprintf("n%d", k))
					for range rapid.IntRange(0, 4).Draw(t, "numImages") {
						w = w.Image(int64(rapid.IntRange(0, 3000).Draw(t, "MiB"))*ilMiB, rapid.SampledFrom(catalogue).Draw(t, "image"))
					}
					if err := snap.UpdateNode(w.Obj()); err != nil {
						t.Fatal(err)
					}
				}
				pw := st.MakePod().Name(fmt.Sprintf("p%d-%d", round, pi))
				for range rapid.IntRange(1, 4).Draw(t, "containers") {
					pw = pw.Container(rapid.SampledFrom(append(catalogue, "absent:v1")).Draw(t, "podImage"), nil)
				}
				for range rapid.IntRange(0, 2).Draw(t, "imageVolumes") {
					pw = pw.ImageVolume(rapid.SampledFrom(append(catalogue, "absent:v1")).Draw(t, "volumeImage"))
				}
				pod := fw.MustPodInfo(pw.Obj())
				if prev != nil && rapid.Bool().Draw(t, "sameImages") {
					pod = prev
				}
				all := snap.Nodes()
				// Some of the nodes, in round-robin order from any start.
				start := rapid.IntRange(0, n-1).Draw(t, "start")
				var list []*fw.NodeInfo
				for i := range n {
					if ni := all[(start+i)%n]; rapid.IntRange(0, 3).Draw(t, "skip") > 0 {
						list = append(list, ni)
					}
				}
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				idx := st.SnapshotIndices(state, list)
				// The runner's PreScore step may prepare the state first
				// (PrepareScore); outside it, PrepareScore does nothing.
				if rapid.Bool().Draw(t, "prepared") {
					state.SetScoredNodes(len(list))
					pl.PrepareScore(context.Background(), state, pod)
					if _, _, ok := readILState(state); ok {
						t.Fatal("PrepareScore without ScoredIndices wrote a state")
					}
					state.SetScoredIndices(idx)
					pl.PrepareScore(context.Background(), state, pod)
					state.SetScoredIndices(nil)
					if _, _, ok := readILState(state); !ok {
						t.Fatal("PrepareScore in the PreScore step wrote no state")
					}
				}
				got := make([]int64, len(list))
				if s := pl.ScoreBatch(context.Background(), state, pod, list, idx, got); !s.IsSuccess() {
					t.Fatalf("ScoreBatch: %v", s)
				}
				plain := fw.NewCycleState()
				plain.SetSnapshot(snap)
				want := make([]int64, len(list))
				for i, ni := range list {
					v, s := pl.Score(context.Background(), plain, pod, ni)
					if !s.IsSuccess() {
						t.Fatalf("Score: %v", s)
					}
					want[i] = v
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("round %d: ScoreBatch (-Score +ScoreBatch):\n%s", round, d)
				}
				// ScoreBatchAdd on the same state adds the weighted scores.
				w := rapid.Int64Range(1, 5).Draw(t, "weight")
				totals, wantTotals := make([]int64, len(list)), make([]int64, len(list))
				for i := range totals {
					totals[i] = int64(i) * 3
					wantTotals[i] = totals[i] + w*want[i]
				}
				if !pl.ScoreBatchAdd(context.Background(), state, pod, list, idx, make([]int64, len(list)), w, totals) {
					t.Fatalf("round %d: ScoreBatchAdd refused scores in range %v", round, want)
				}
				if d := cmp.Diff(wantTotals, totals); d != "" {
					t.Fatalf("round %d: ScoreBatchAdd totals (-want +got):\n%s", round, d)
				}
				clone := state.Clone()
				state.Release()
				clear(got)
				if s := pl.ScoreBatch(context.Background(), clone, pod, list, idx, got); !s.IsSuccess() {
					t.Fatalf("ScoreBatch on the clone: %v", s)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("round %d: clone after Release (-Score +ScoreBatch):\n%s", round, d)
				}
				prev = pod
			}
		}
	})
}

// TestImageLocalityDenseCacheBounds: the cache keeps at most
// ilCacheEntries image sets, and no more than ilCacheBytes of scores
// (one set when a set's scores alone pass it), dropping the oldest first;
// another image table empties it.
func TestImageLocalityDenseCacheBounds(t *testing.T) {
	var tables [2]fw.ImageTable
	cases := []struct {
		name  string
		nodes int
		keep  int
	}{
		{"by entries", 100, ilCacheEntries},
		{"by bytes", ilCacheBytes / 3, 3}, // a byte a node
		{"one set past the bytes", ilCacheBytes, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cache ilDenseCache
			sets := c.keep + 2
			ds := make([]*ilDense, sets)
			for k := range sets {
				ds[k] = &ilDense{cached: true}
				cache.add(&tables[0], []int32{int32(k)}, 1, ds[k], c.nodes)
			}
			if len(cache.entries) != c.keep {
				t.Fatalf("%d entries kept, want %d", len(cache.entries), c.keep)
			}
			for k := range sets {
				got, want := cache.find(&tables[0], []int32{int32(k)}, 1), ds[k]
				if k < sets-c.keep {
					want = nil // dropped, the oldest
				}
				if got != want {
					t.Fatalf("set %d: found %p, want %p", k, got, want)
				}
			}
			if d := cache.find(&tables[0], []int32{int32(sets - 1)}, 2); d != nil {
				t.Fatal("found the scores of another threshold count")
			}
			if d := cache.find(&tables[1], []int32{int32(sets - 1)}, 1); d != nil {
				t.Fatal("found the scores of another image table")
			}
			cache.add(&tables[1], []int32{0}, 1, ds[0], c.nodes)
			if len(cache.entries) != 1 {
				t.Fatalf("another table left %d entries, want 1", len(cache.entries))
			}
		})
	}
}

// TestConformance holds ImageLocality's fast forms to its Score on the
// harness's random clusters, in both releases.
func TestConformance(t *testing.T) {
	for _, v := range fw.KubeVersions() {
		t.Run(v.String(), func(t *testing.T) {
			frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, ilHandle(v)) })
		})
	}
}

// TestConformanceImageVolumes: incoming pods with image volumes (present
// on some node, on none, repeated), in both releases.
func TestConformanceImageVolumes(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		c := frameworktest.DefaultCase(t)
		pod := c.Incoming.DeepCopy()
		for i := range rapid.IntRange(0, 3).Draw(t, "imageVolumes") {
			ref := rapid.SampledFrom([]string{"app:v1", "app", "side:latest", "absent:v1"}).Draw(t, "volumeImage")
			pod.Spec.Volumes = append(pod.Spec.Volumes, api.Volume{Name: fmt.Sprint("image", i), VolumeSource: api.VolumeSource{Image: &api.ImageVolumeSource{Reference: ref}}})
		}
		c.Incoming = pod
		c.Plugin = ilNewFor(t, rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version"))
		return c
	})
}

// TestImageLocalityDenseCacheSeen: an image set is seen before at its
// second look on one image table, not at its first nor after a look on
// another table, and the looks kept are bounded.
func TestImageLocalityDenseCacheSeen(t *testing.T) {
	var tables [2]fw.ImageTable
	var c ilDenseCache
	steps := []struct {
		table int
		key   []int32
		count int
		want  bool
	}{
		{0, []int32{1, 2}, 2, false},
		{0, []int32{1, 2}, 3, false}, // another threshold count
		{0, []int32{1, 2}, 2, true},
		{0, []int32{1, 2}, 2, false}, // the second look was taken
		{1, []int32{1, 2}, 2, false}, // another table forgets the looks
		{0, []int32{1, 2}, 2, false},
	}
	for i, s := range steps {
		if got := c.seen(&tables[s.table], s.key, s.count); got != s.want {
			t.Fatalf("step %d: seen %v, want %v", i, got, s.want)
		}
	}
	for k := range 3 * ilCacheEntries {
		c.seen(&tables[0], []int32{int32(k)}, 1)
		if len(c.looked) > ilCacheEntries {
			t.Fatalf("%d looks kept, want at most %d", len(c.looked), ilCacheEntries)
		}
	}
}

// TestPropSignPodListsEachImageOnce: SignPod's value is the pod's
// normalized image names, each once, sorted, whatever the containers and
// init containers repeat, with few images and with more than SignPod
// dedupes linearly (a set-based reference, the names NormalizedImageName
// gives).
func TestPropSignPodListsEachImageOnce(t *testing.T) {
	images := []string{"nginx", "nginx:latest", "nginx:1.27", "gcr.io/app", "gcr.io/app:v2", "host:5000/app", "host:5000/app:v1", "busybox"}
	pl := &ImageLocality{}
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) []api.Container {
			var cs []api.Container
			for i := range rapid.IntRange(0, 24).Draw(t, label) {
				image := rapid.SampledFrom(images).Draw(t, "image")
				if rapid.Bool().Draw(t, "many") {
					// Past linearImages distinct images, the set's path.
					image = fmt.Sprintf("img%d:%d", rapid.IntRange(0, 40).Draw(t, "n"), rapid.IntRange(0, 1).Draw(t, "tag"))
				}
				cs = append(cs, api.Container{Name: fmt.Sprintf("%s%d", label, i), Image: image})
			}
			return cs
		}
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}}
		pod.Spec.Containers, pod.Spec.InitContainers = draw("c"), draw("i")
		frags, st := pl.SignPod(context.Background(), &fw.PodInfo{Pod: pod})
		if !st.IsSuccess() || len(frags) != 1 || frags[0].Key != fw.SignerImageNames {
			t.Fatalf("SignPod = %v, %v", frags, st)
		}
		set := map[string]bool{}
		for _, c := range append(append([]api.Container(nil), pod.Spec.Containers...), pod.Spec.InitContainers...) {
			set[NormalizedImageName(c.Image)] = true
		}
		var want []string
		for n := range set {
			want = append(want, n)
		}
		slices.Sort(want)
		if got, _ := frags[0].Value.([]string); !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("names %q, want %q", got, want)
		}
	})
}
