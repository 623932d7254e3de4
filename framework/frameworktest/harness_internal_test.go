package frameworktest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// recorder is a rapid.TB that records a failure instead of failing the
// test, so that a test can check that the harness fails.
type recorder struct {
	*testing.T
	failed bool
	msgs   []string
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.failed = true; r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recorder) FailNow()          { r.failed = true }
func (r *recorder) Fail()             { r.failed = true }
func (r *recorder) Failed() bool      { return r.failed }

// zoned rejects nodes without a zone label; its fast forms are broken
// as each test asks.
type zoned struct {
	batchAcceptsAll bool // FilterBatch accepts every node
	rejectsSkipLast bool // FilterRejects leaves the last rejection out
	scoreOffByOne   bool // ScoreBatch adds one
	localLies       bool // NodeLocal though Filter counts the cluster's pods
	signIgnoresApp  bool // SignPod though Filter reads the pod's app label
}

func (zoned) Name() string { return "Zoned" }

func (z zoned) Filter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if _, ok := n.Node().Labels[st.BatchZoneKey]; !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "no zone")
	}
	if z.localLies && state.Snapshot() != nil && len(state.Snapshot().Nodes()) > 0 {
		total := 0
		for _, m := range state.Snapshot().Nodes() {
			total += len(m.Pods)
		}
		if total%2 == 1 {
			return framework.NewStatus(framework.Unschedulable, "odd")
		}
	}
	if z.signIgnoresApp && pod.Pod.Labels["app"] == "db" {
		return framework.NewStatus(framework.Unschedulable, "db")
	}
	return nil
}

func (z zoned) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	for i, n := range nodes {
		if !z.batchAcceptsAll {
			out[i] = z.Filter(ctx, state, pod, n)
		}
	}
}

func (z zoned) FilterRejects(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	start := len(rejected)
	for i, n := range nodes {
		if s := z.Filter(ctx, state, pod, n); !s.IsSuccess() {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: s})
		}
	}
	if z.rejectsSkipLast && len(rejected) > start {
		rejected = rejected[:len(rejected)-1]
	}
	return rejected
}

func (zoned) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return int64(len(n.Pods)), nil
}

func (z zoned) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	for i, n := range nodes {
		out[i], _ = z.Score(ctx, state, pod, n)
		if z.scoreOffByOne {
			out[i]++
		}
	}
	return nil
}

func (zoned) ScoreExtensions() framework.ScoreExtensions { return nil }

func (zoned) NodeLocal(*framework.PodInfo) bool { return true }

func (zoned) SignPod(context.Context, *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return nil, nil
}

// TestHarnessCatchesBrokenForms: each broken fast form fails the harness,
// with a message naming the form; the correct plugin passes.
func TestHarnessCatchesBrokenForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		pl   framework.Plugin
		want string
	}{
		{"FilterBatch", zoned{batchAcceptsAll: true}, "FilterBatch"},
		{"FilterRejects", zoned{rejectsSkipLast: true}, "FilterRejects"},
		{"ScoreBatch", zoned{scoreOffByOne: true}, "ScoreBatch"},
		{"NodeLocal", zoned{localLies: true}, "node-local"},
		{"SignPod", zoned{signIgnoresApp: true}, "sign alike"},
		{"AllNodes", allNodesLies{}, "over all nodes"},
		{"correct", zoned{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{T: t}
			runCases(r, func(rt *rapid.T) Case {
				c := DefaultCase(rt)
				c.Plugin = tc.pl
				return c
			})
			if tc.want == "" {
				if r.failed {
					t.Fatalf("the correct plugin fails: %v", r.msgs)
				}
				return
			}
			if !r.failed || !strings.Contains(strings.Join(r.msgs, "\n"), tc.want) {
				t.Fatalf("failed %v, messages %v; want a failure naming %q", r.failed, r.msgs, tc.want)
			}
		})
	}
}

// allNodesLies is zoned whose PreFilter, told that its nodes are the
// snapshot's own list, makes Filter reject every node that holds a pod.
type allNodesLies struct{ zoned }

type allNodesSaid bool

func (a allNodesSaid) Clone() framework.StateData { return a }

func (allNodesLies) PreFilter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write("AllNodesLies", allNodesSaid(state.AllNodes()))
	return nil, nil
}

func (allNodesLies) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func (a allNodesLies) Filter(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if v, err := state.Read("AllNodesLies"); err == nil && bool(v.(allNodesSaid)) && len(n.Pods) > 0 {
		return framework.NewStatus(framework.Unschedulable, "a pod")
	}
	return a.zoned.Filter(ctx, state, pod, n)
}

// refusing implements PreFilterAfterAdd but its PreFilter rejects every
// pod, so no case ever reaches the incremental check.
type refusing struct{ zoned }

func (refusing) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "never")
}

func (refusing) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func (refusing) PreFilterAfterAdd(context.Context, *framework.CycleState, *framework.PodInfo, []fastpath.AddedPod) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, "never")
}

// TestHarnessFailsUnreachedForms: a form the plugin implements that no
// case compares fails the harness.
func TestHarnessFailsUnreachedForms(t *testing.T) {
	r := &recorder{T: t}
	runCases(r, func(rt *rapid.T) Case {
		c := DefaultCase(rt)
		c.Plugin = refusing{}
		return c
	})
	if !r.failed || !strings.Contains(strings.Join(r.msgs, "\n"), "PreFilterAfterAdd but no case compared it") {
		t.Fatalf("failed %v, messages %v; want the unreached PreFilterAfterAdd reported", r.failed, r.msgs)
	}
}
