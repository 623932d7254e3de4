// Package st holds the helpers tests share: the object builders of package
// framework/builder under their kube-style names (st.MakePod() is
// builder.MakePod()), random clusters for property tests, and fakes.
package st

import (
	"context"
	"slices"
	"strconv"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// PodWrapper is builder.PodWrapper.
type PodWrapper = builder.PodWrapper

// NodeWrapper is builder.NodeWrapper.
type NodeWrapper = builder.NodeWrapper

// MakePod is builder.MakePod.
func MakePod() *PodWrapper { return builder.MakePod() }

// MakeNode is builder.MakeNode: the node gets pods: 110 unless its
// capacity or allocatable names pods.
func MakeNode() *NodeWrapper { return builder.MakeNode() }

func itoa(i int) string { return strconv.Itoa(i) }

// NodeInfo returns the NodeInfo of a node name with capacity (and
// allocatable) alloc, holding pods, each placed on it (their
// spec.nodeName is set); it fails the test on an error.
func NodeInfo(t interface{ Fatal(args ...any) }, name string, alloc map[string]string, pods ...*api.Pod) *fw.NodeInfo {
	node := MakeNode().Name(name).Capacity(alloc).Obj()
	infos := make([]*fw.PodInfo, len(pods))
	for i, p := range pods {
		p.Spec.NodeName = name
		infos[i] = fw.MustPodInfo(p)
	}
	ni, err := fw.NewNodeInfo(node, infos...)
	if err != nil {
		t.Fatal(err)
	}
	return ni
}

// Fataler is what test helpers need of a *testing.T or a *rapid.T, so
// that a property that calls them keeps rapid's shrinking.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// RawScores builds a snapshot of nodes and existing pods, runs pl's
// PreScore (when runPreScore) and Score over every node in order, and
// returns the raw scores. It fails the test on a non-success status.
func RawScores(t Fataler, pl fw.Plugin, pod *api.Pod, nodes []*api.Node, existing []*api.Pod, runPreScore bool) []int64 {
	t.Helper()
	snap := fw.MustSnapshot(nodes, existing)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(pod)
	if runPreScore {
		if s := pl.(fw.PreScorePlugin).PreScore(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("PreScore: %v", s)
		}
	}
	out := make([]int64, 0, len(nodes))
	for _, ni := range snap.Nodes() {
		v, s := pl.(fw.ScorePlugin).Score(context.Background(), state, pi, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score(%s): %v", ni.Name(), s)
		}
		out = append(out, v)
	}
	return out
}

// SameStatus reports whether two filter statuses say the same thing: both
// successes, or the same code, plugin, reasons and error.
func SameStatus(a, b *fw.Status) bool {
	if a.IsSuccess() || b.IsSuccess() {
		return a.IsSuccess() && b.IsSuccess()
	}
	return a.Code() == b.Code() && a.Plugin() == b.Plugin() && slices.Equal(a.Reasons(), b.Reasons()) &&
		a.AsError().Error() == b.AsError().Error()
}
