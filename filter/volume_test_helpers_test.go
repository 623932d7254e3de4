package filter

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// volSnap builds a snapshot of nodes, placed pods and storage objects.
func volSnap(t testing.TB, nodes []*api.Node, pods []*api.Pod, objs api.StorageObjects) *fw.Snapshot {
	t.Helper()
	s, err := fw.NewSnapshot(nodes, pods, fw.WithStorage(objs.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// volRun runs pl's PreFilter on snap and, unless it skipped or failed,
// its Filter on every node; it returns the PreFilter status, the Filter
// statuses in node order and the state.
func volRun(t testing.TB, pl fw.Plugin, snap *fw.Snapshot, pod *api.Pod) (*fw.Status, []*fw.Status, *fw.CycleState) {
	t.Helper()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(pod)
	var pre *fw.Status
	if pf, ok := pl.(fw.PreFilterPlugin); ok {
		_, pre = pf.PreFilter(context.Background(), state, pi, snap.Nodes())
		if !pre.IsSuccess() {
			return pre, nil, state
		}
	}
	out := make([]*fw.Status, snap.NumNodes())
	for i, n := range snap.Nodes() {
		out[i] = pl.(fw.FilterPlugin).Filter(context.Background(), state, pi, n)
	}
	return pre, out, state
}

func statusEq(a, b *fw.Status) bool { return a.Equal(b) }
