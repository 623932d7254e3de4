package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// scriptedExtender answers Filter with a fixed verdict per node name:
// "pass", "fail:<msg>", "unresolvable:<msg>", or absent (dropped). extra are
// failures it reports for nodes it was not asked about; copies makes it
// return pod-less copies of the nodes it passes.
type scriptedExtender struct {
	fakeExtender
	verdict map[string]string
	extra   map[string]string
	copies  bool
	asked   [][]string
}

func (e *scriptedExtender) Filter(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, map[string]string, map[string]string, error) {
	if e.filterErr != nil {
		return nil, nil, nil, e.filterErr
	}
	e.asked = append(e.asked, names(nodes))
	var out []*framework.NodeInfo
	failed, unres := map[string]string{}, map[string]string{}
	for k, v := range e.extra {
		failed[k] = v
	}
	for _, n := range nodes {
		v := e.verdict[n.Name()]
		switch {
		case v == "pass":
			if e.copies {
				c, err := framework.NewNodeInfo(n.Node())
				if err != nil {
					return nil, nil, nil, err
				}
				out = append(out, c)
			} else {
				out = append(out, n)
			}
		case len(v) > 5 && v[:5] == "fail:":
			failed[n.Name()] = v[5:]
		case len(v) > 13 && v[:13] == "unresolvable:":
			unres[n.Name()] = v[13:]
		}
	}
	return out, failed, unres, nil
}

// TestNodeToStatusOfExtenderRejections: a cycle that starts at an offset
// records the extender's rejections after the plugins', at positions
// below theirs. Each node's status before the map lists them (GetNode)
// and NodesWithCode still match the statuses listed.
func TestNodeToStatusOfExtenderRejections(t *testing.T) {
	rejectN0 := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if n.Name() == "n0" {
			return framework.NewStatus(framework.Unschedulable, "too small")
		}
		return nil
	}}
	for _, start := range []int{0, 1, 2, 3} {
		for _, lean := range []bool{false, true} {
			t.Run(fmt.Sprintf("start=%d/rejectionsOnFailure=%v", start, lean), func(t *testing.T) {
				ext := &scriptedExtender{fakeExtender: fakeExtender{name: "ext", interested: true, noPrio: true},
					verdict: map[string]string{"n1": "fail:too hot", "n2": "unresolvable:no gpu"}}
				f, err := NewFramework(registryOf(rejectN0), framework.Profile{Filter: []string{"A"}}, WithExtenders(ext))
				if err != nil {
					t.Fatal(err)
				}
				snap := framework.MustSnapshot(testNodes(4), nil)
				res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), RejectionsOnFailure: lean, StartIndex: start})
				if err == nil {
					t.Fatal("the pod fits, want no node")
				}
				m := res.NodeToStatus()
				for name, want := range map[string]string{"n0": "A", "n1": "ext", "n2": "ext", "n3": ""} {
					ni, _ := snap.Get(name)
					if st := m.GetNode(snap, ni); st.Plugin() != want {
						t.Errorf("GetNode(%s) names %q, want %q", name, st.Plugin(), want)
					}
				}
				checkNodesWithCode(t, res)
			})
		}
	}
}

// TestExtenderFilterOutcomes reproduces kube-scheduler v1.36.4's
// findNodesThatPassExtenders (pkg/scheduler/schedule_one.go) and
// FitError.Error (framework/types.go): failed nodes get Unschedulable,
// failed-and-unresolvable ones UnschedulableAndUnresolvable, a node the
// extender leaves out without a reason gets no status at all (the message
// does not count it), and names the extender adds for nodes it was not sent
// are ignored (kube would record them: a deliberate difference). The
// plugins' rejections are kept with RejectionsOnFailure too: the
// extender filters after them, so the plugins cannot know the pod fails.
func TestExtenderFilterOutcomes(t *testing.T) {
	rejectN0 := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if n.Name() == "n0" {
			return framework.NewStatus(framework.Unschedulable, "too small")
		}
		return nil
	}}
	tests := []struct {
		name      string
		verdict   map[string]string
		extra     map[string]string
		wantErr   string
		wantNodes []string
		wantCodes map[string]framework.Code // NodeToStatus explicit entries
	}{
		{name: "all dropped without reasons", verdict: map[string]string{},
			wantErr: "0/4 nodes are available: 1 too small.", wantCodes: map[string]framework.Code{"n0": framework.Unschedulable}},
		{name: "failed, unresolvable and dropped",
			verdict:   map[string]string{"n1": "fail:too hot", "n2": "unresolvable:no gpu"},
			wantErr:   "0/4 nodes are available: 1 no gpu, 1 too hot, 1 too small.",
			wantCodes: map[string]framework.Code{"n0": framework.Unschedulable, "n1": framework.Unschedulable, "n2": framework.UnschedulableAndUnresolvable}},
		{name: "names it was not sent are ignored",
			verdict:   map[string]string{"n1": "fail:too hot"},
			extra:     map[string]string{"n0": "overwritten?", "ghost": "not a node"},
			wantErr:   "0/4 nodes are available: 1 too hot, 1 too small.",
			wantCodes: map[string]framework.Code{"n0": framework.Unschedulable, "n1": framework.Unschedulable}},
		{name: "some pass", verdict: map[string]string{"n1": "pass", "n3": "pass", "n2": "fail:x"}, wantNodes: []string{"n1", "n3"}},
	}
	for _, tc := range tests {
		for _, lean := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/rejectionsOnFailure=%v", tc.name, lean), func(t *testing.T) {
				ext := &scriptedExtender{fakeExtender: fakeExtender{name: "ext", interested: true, noPrio: true}, verdict: tc.verdict, extra: tc.extra}
				f, err := NewFramework(registryOf(rejectN0), framework.Profile{Filter: []string{"A"}}, WithExtenders(ext))
				if err != nil {
					t.Fatal(err)
				}
				snap := framework.MustSnapshot(testNodes(4), nil)
				res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), RejectionsOnFailure: lean})
				if d := cmp.Diff([][]string{{"n1", "n2", "n3"}}, ext.asked); d != "" {
					t.Fatalf("nodes sent to the extender (-want +got):\n%s", d)
				}
				if tc.wantErr != "" {
					if err == nil || err.Error() != tc.wantErr {
						t.Fatalf("err = %v\nwant  %s", err, tc.wantErr)
					}
					nts := res.NodeToStatus()
					got := map[string]framework.Code{}
					for _, n := range []string{"n0", "n1", "n2", "n3", "ghost"} {
						if s := nts.Get(n); s != nts.AbsentStatus() {
							got[n] = s.Code()
						}
					}
					if d := cmp.Diff(tc.wantCodes, got); d != "" {
						t.Fatalf("explicit statuses (-want +got):\n%s", d)
					}
					for _, code := range []framework.Code{framework.Unschedulable, framework.UnschedulableAndUnresolvable} {
						var want, gotNodes []string
						for _, n := range []string{"n0", "n1", "n2", "n3"} {
							c, ok := tc.wantCodes[n]
							if !ok {
								c = nts.AbsentStatus().Code()
							}
							if c == code {
								want = append(want, n)
							}
						}
						for _, ni := range nts.NodesWithCode(snap, code) {
							gotNodes = append(gotNodes, ni.Name())
						}
						if d := cmp.Diff(want, gotNodes); d != "" {
							t.Fatalf("NodesWithCode(%v) (-want +got):\n%s", code, d)
						}
					}
					if d := cmp.Diff([]string{"A", ExtenderName}, res.Diagnosis.UnschedulablePlugins); d != "" {
						t.Fatalf("unschedulable plugins (-want +got):\n%s", d)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tc.wantNodes, names(res.FeasibleNodes())); d != "" {
					t.Fatalf("feasible (-want +got):\n%s", d)
				}
			})
		}
	}
}

// TestExtenderDroppedNodeVerdict: the explanation still says which extender
// dropped a node, though the node has no status.
func TestExtenderDroppedNodeVerdict(t *testing.T) {
	ext := &scriptedExtender{fakeExtender: fakeExtender{name: "ext", interested: true, noPrio: true}, verdict: map[string]string{"n0": "pass"}}
	f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithExtenders(ext))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(2), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	v := res.NodeVerdicts()[1]
	if v.Verdict != VerdictRejected || v.Plugin != "ext" || v.Code != framework.UnschedulableAndUnresolvable || len(v.Reasons) != 1 {
		t.Fatalf("verdict of the dropped node = %+v", v)
	}
}

// TestExtenderCopiesAreScored reproduces kubernetes/kubernetes#141781: the
// nodes an extender returns are the ones scored, so pod-less copies score as
// empty nodes (kube-scheduler v1.36.4 HTTPExtender.Filter builds new
// NodeInfos from the returned nodes).
func TestExtenderCopiesAreScored(t *testing.T) {
	podsOn := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(10 * len(n.Pods)), nil }}
	nodes := testNodes(3)
	var pods []*api.Pod
	for i, n := range []string{"n0", "n0", "n1"} {
		pods = append(pods, &api.Pod{ObjectMeta: api.ObjectMeta{Name: string(rune('a' + i)), Namespace: "default", UID: string(rune('a' + i))}, Spec: api.PodSpec{NodeName: n}})
	}
	snap := framework.MustSnapshot(nodes, pods)
	for _, c := range []struct{ copies, totalsOnly bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		copies := c.copies
		ext := &scriptedExtender{fakeExtender: fakeExtender{name: "ext", interested: true, noPrio: true},
			verdict: map[string]string{"n0": "pass", "n1": "pass", "n2": "pass"}, copies: copies}
		f, err := NewFramework(registryOf(podsOn), framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithExtenders(ext))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), TotalsOnly: c.totalsOnly})
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{20, 10, 0}
		if copies {
			want = []int64{0, 0, 0}
		}
		if d := cmp.Diff(want, res.Totals); d != "" {
			t.Fatalf("copies=%v totalsOnly=%v: totals (-want +got):\n%s", copies, c.totalsOnly, d)
		}
		if got := res.FeasibleNodes()[0] == snap.Nodes()[0]; got == copies {
			t.Fatalf("copies=%v: FeasibleNodes returns the snapshot's NodeInfo: %v", copies, got)
		}
	}
}

// TestTotalsOnlyAddsExtenderScores: a cycle that keeps totals only adds
// the prioritizing extenders' scaled, weighted scores to the plugins'
// weighted scores, as a cycle that keeps every score does.
func TestTotalsOnlyAddsExtenderScores(t *testing.T) {
	podsOn := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(10 * len(n.Pods)), nil }}
	pods := []*api.Pod{{ObjectMeta: api.ObjectMeta{Name: "a", Namespace: "default", UID: "a"}, Spec: api.PodSpec{NodeName: "n1"}}}
	snap := framework.MustSnapshot(testNodes(3), pods)
	ext := &fakeExtender{name: "ext", interested: true, noFilter: true, scores: map[string]int64{"n0": 4, "n2": 1}, weight: 3}
	f, err := NewFramework(registryOf(podsOn), framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 2}}, WithExtenders(ext))
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{4 * 3 * 10, 2 * 10, 1 * 3 * 10}
	for _, totalsOnly := range []bool{false, true} {
		res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), SkipExplanation: totalsOnly, TotalsOnly: totalsOnly})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Totals); d != "" {
			t.Fatalf("totalsOnly=%v: totals (-want +got):\n%s", totalsOnly, d)
		}
		if got := res.Scores() == nil; got != totalsOnly {
			t.Fatalf("totalsOnly=%v: Scores() nil = %v", totalsOnly, got)
		}
	}
}

// TestExtenderErrorIsItsOwn: a non-ignorable filter error fails the cycle
// with the extender's error itself, as kube-scheduler's schedulePod returns
// it unwrapped.
func TestExtenderErrorIsItsOwn(t *testing.T) {
	boom := errors.New(`Post "http://127.0.0.1:1/filter": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)
	ext := &fakeExtender{name: "ext", interested: true, filterErr: boom}
	f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithExtenders(ext))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(2), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != boom {
		t.Fatalf("err = %v, want the extender's own error", err)
	}
}

// TestExtenderScoresNotClampedNorErrorsCounted: scores beyond 10 are scaled
// as they are, hosts not asked about are ignored, and a prioritize error
// (even of a non-ignorable extender) just adds nothing (kube-scheduler
// v1.36.4 prioritizeNodes).
func TestExtenderScoresNotClampedNorErrorsCounted(t *testing.T) {
	big := &fakeExtender{name: "big", interested: true, noFilter: true, scores: map[string]int64{"n0": 25, "n1": -3}, weight: 2}
	down := &fakeExtender{name: "down", interested: true, noFilter: true, prioErr: errors.New("down")}
	f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithExtenders(big, down))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(2), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{25 * 2 * 10, -3 * 2 * 10}, res.Totals); d != "" {
		t.Fatalf("totals (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"big"}, res.Extenders); d != "" {
		t.Fatalf("extenders that scored (-want +got):\n%s", d)
	}
}

// TestExtenderOneFeasibleNodeNotPrioritized: with one feasible node left,
// no extender is asked to prioritize (kube's schedulePod returns early).
func TestExtenderOneFeasibleNodeNotPrioritized(t *testing.T) {
	ext := &countingPrioritizer{fakeExtender: fakeExtender{name: "ext", interested: true, noFilter: true, weight: 1}}
	f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithExtenders(ext))
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]int{1: 0, 2: 1} {
		ext.calls = 0
		if _, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(n), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))}); err != nil {
			t.Fatal(err)
		}
		if ext.calls != want {
			t.Fatalf("%d nodes: %d prioritize calls, want %d", n, ext.calls, want)
		}
	}
}

type countingPrioritizer struct {
	fakeExtender
	calls int
}

func (e *countingPrioritizer) Prioritize(p *framework.PodInfo, nodes []*framework.NodeInfo) ([]framework.HostPriority, int64, error) {
	e.calls++
	return e.fakeExtender.Prioritize(p, nodes)
}

// TestScoreNodesMatchesSchedule: ScoreNodes gives the totals Schedule gives
// for the same nodes, for the snapshot's NodeInfos and for copies of them.
func TestScoreNodesMatchesSchedule(t *testing.T) {
	s := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(10 * nodeNum(n)), nil },
		normalize: func(l framework.NodeScoreList) *framework.Status {
			for i := range l {
				l[i].Score = 100 - l[i].Score
			}
			return nil
		}}
	f, err := NewFramework(registryOf(s), framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 3}})
	if err != nil {
		t.Fatal(err)
	}
	snap := framework.MustSnapshot(testNodes(5), nil)
	res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	got, err := f.ScoreNodes(context.Background(), state, testPod("p"), snap.Nodes())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res.Totals, got); d != "" {
		t.Fatalf("ScoreNodes vs Schedule (-want +got):\n%s", d)
	}
	sub := []*framework.NodeInfo{snap.Nodes()[3], snap.Nodes()[1]}
	if c, err := framework.NewNodeInfo(snap.Nodes()[4].Node()); err == nil {
		sub = append(sub, c)
	}
	got, err = f.ScoreNodes(context.Background(), state, testPod("p"), sub)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{3 * 70, 3 * 90, 3 * 60}, got); d != "" {
		t.Fatalf("ScoreNodes of a subset with a copy (-want +got):\n%s", d)
	}
}

// reorderingPrioritizer reverses, in place, the node list it is asked to
// score, and scores nothing.
type reorderingPrioritizer struct{ fakeExtender }

func (e *reorderingPrioritizer) Prioritize(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]framework.HostPriority, int64, error) {
	slices.Reverse(nodes)
	return nil, 1, nil
}

// TestExtenderPrioritizeGetsACopy: every node passes, so the feasible
// list is a view of the snapshot's node order; a prioritizer that
// reorders the list it is given must not reorder the snapshot, for one
// extender and for two running concurrently.
func TestExtenderPrioritizeGetsACopy(t *testing.T) {
	nodes := testNodes(4)
	for _, count := range []int{1, 2} {
		var exts []framework.Extender
		for i := range count {
			exts = append(exts, &reorderingPrioritizer{fakeExtender{name: fmt.Sprintf("ext%d", i), interested: true, noFilter: true}})
		}
		snap := framework.MustSnapshot(nodes, nil)
		f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithExtenders(exts...))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))}); err != nil {
			t.Fatal(err)
		}
		for k, ni := range snap.Nodes() {
			if ni.Name() != nodes[k].Name || ni.Index() != k {
				t.Fatalf("%d extenders: snapshot node %d is %s (index %d) after the cycle, want %s", count, k, ni.Name(), ni.Index(), nodes[k].Name)
			}
		}
	}
}
