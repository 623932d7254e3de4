package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
)

// stateWatch is a PreFilter and Filter plugin that records the cycle
// state it is given and whether the state already held its key, then
// writes the key; Filter passes every node whose state holds it.
type stateWatch struct {
	seen []*fw.CycleState
	held []bool
}

type watchValue struct{}

func (watchValue) Clone() fw.StateData { return watchValue{} }

const watchKey fw.StateKey = "PreFilterStateWatch"

func (w *stateWatch) Name() string { return "StateWatch" }

func (w *stateWatch) PreFilter(_ context.Context, st *fw.CycleState, _ *fw.PodInfo, _ []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	_, err := st.Read(watchKey)
	w.seen, w.held = append(w.seen, st), append(w.held, err == nil)
	st.Write(watchKey, watchValue{})
	return nil, nil
}

func (w *stateWatch) PreFilterExtensions() fw.PreFilterExtensions { return nil }

func (w *stateWatch) Filter(_ context.Context, st *fw.CycleState, _ *fw.PodInfo, _ *fw.NodeInfo) *fw.Status {
	if _, err := st.Read(watchKey); err != nil {
		return fw.AsStatus(errors.New("no PreFilter state"))
	}
	return nil
}

// A cycle that reuses a Result and makes its own state gets back the
// state the Result's last such cycle emptied, and each cycle's state
// starts empty; cycles with another Result, or none, get other states.
func TestReusedResultKeepsItsEmptiedState(t *testing.T) {
	w := &stateWatch{}
	f := frameworkOf(t, map[string]fw.Plugin{"StateWatch": w},
		fw.Profile{PreFilter: []string{"StateWatch"}, Filter: []string{"StateWatch"}}, 1)
	var nodes []*api.Node
	for i := range 3 {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "4"}).Obj())
	}
	snap, pod := fw.MustSnapshot(nodes, nil), fw.MustPodInfo(builder.MakePod().Name("p").Obj())
	a, b := &runtime.Result{}, &runtime.Result{}
	run := func(reuse *runtime.Result) {
		t.Helper()
		r, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), Reuse: reuse})
		if err != nil || r.NumFeasibleNodes() != 3 {
			t.Fatalf("cycle %d: %d feasible nodes, %v; want 3", len(w.seen), r.NumFeasibleNodes(), err)
		}
	}
	for _, reuse := range []*runtime.Result{a, a, b, a, b, nil, a} {
		run(reuse)
	}
	for i, held := range w.held {
		if held {
			t.Errorf("cycle %d: the state held the last cycle's value", i)
		}
	}
	s := w.seen
	if s[1] != s[0] || s[3] != s[0] || s[6] != s[0] {
		t.Errorf("the cycles reusing Result a had states %p %p %p %p; want one", s[0], s[1], s[3], s[6])
	}
	if s[4] != s[2] || s[2] == s[0] {
		t.Errorf("Result b's cycles had states %p and %p (a's %p); want one of b's own", s[2], s[4], s[0])
	}
	if s[5] == s[0] || s[5] == s[2] {
		t.Errorf("a cycle without a Result had a Result's state")
	}
}
