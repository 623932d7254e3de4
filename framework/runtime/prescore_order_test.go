package runtime_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
)

// orderProbe is a PreScore plugin that returns status. A walking probe
// (fastpath.ClusterWalkingPreScorePlugin) closes started as its PreScore
// begins; the others wait for that, up to a deadlock guard, and fail the
// cycle when it does not come.
type orderProbe struct {
	name    string
	started chan struct{}
	status  *fw.Status
}

func (p *orderProbe) Name() string { return p.name }

func (p *orderProbe) PreScore(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) *fw.Status {
	select {
	case <-p.started:
	case <-time.After(10 * time.Second):
		return fw.AsStatus(errors.New("the walking plugin never started"))
	}
	return p.status
}

// walkingProbe is an orderProbe marked as walking the cluster.
type walkingProbe struct{ orderProbe }

func (p *walkingProbe) PreScore(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) *fw.Status {
	close(p.started)
	return p.status
}

func (p *walkingProbe) PreScoreWalksCluster() {}

var _ fastpath.ClusterWalkingPreScorePlugin = (*walkingProbe)(nil)

// A shared PreScore step starts the plugins that walk the cluster before
// the others, wherever the profile lists them: here every other plugin
// waits for the walking one, which the profile lists last, so the step
// only completes when the walking plugin was claimed first. The statuses
// are still read in profile order: the first failing plugin in the
// profile is the one reported, not the first to run.
func TestPreScoreStepStartsWalkingPluginsFirst(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	for _, workers := range []int{2, 3} {
		started := make(chan struct{})
		walker := &walkingProbe{orderProbe{name: "Walker", started: started, status: fw.AsStatus(errors.New("walker failed"))}}
		plugins := []fw.Plugin{
			&orderProbe{name: "Cheap1", started: started},
			&orderProbe{name: "Cheap2", started: started, status: fw.AsStatus(errors.New("cheap2 failed"))},
			&orderProbe{name: "Cheap3", started: started},
			walker,
		}
		reg := fw.NewRegistry()
		var names []string
		for _, pl := range plugins {
			if err := reg.Register(pl.Name(), func(any, fw.Handle) (fw.Plugin, error) { return pl, nil }); err != nil {
				t.Fatal(err)
			}
			names = append(names, pl.Name())
		}
		w, err := runtime.NewTestWorkers(workers)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		f, err := runtime.NewFramework(reg, fw.Profile{PreScore: names}, runtime.WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		st := f.RunPreScorePlugins(context.Background(), fw.NewCycleState(), pod, snap.Nodes())
		if st.IsSuccess() || st.Plugin() != "Cheap2" || !strings.Contains(st.Message(), "cheap2 failed") {
			t.Errorf("%d workers: status %v from %q, want cheap2's failure", workers, st, st.Plugin())
		}
	}
}

// The claim order puts the walking plugins first, then the preparers,
// then the other plugins, each group in profile order.
func TestPreScoreOrder(t *testing.T) {
	walk := func(name string) fw.PreScorePlugin { return &walkingProbe{orderProbe{name: name}} }
	plain := func(name string) fw.PreScorePlugin { return &orderProbe{name: name} }
	for _, tc := range []struct {
		plugins   []fw.PreScorePlugin
		preparers int
		want      []int
	}{
		{nil, 0, []int{}},
		{nil, 2, []int{0, 1}},
		{[]fw.PreScorePlugin{plain("a"), plain("b")}, 0, []int{0, 1}},
		{[]fw.PreScorePlugin{plain("a"), walk("b"), plain("c"), walk("d")}, 1, []int{2, 4, 0, 1, 3}},
		{[]fw.PreScorePlugin{walk("a"), plain("b")}, 2, []int{2, 0, 1, 3}},
	} {
		if got := runtime.PreScoreOrder(tc.plugins, tc.preparers); !slices.Equal(got, tc.want) {
			t.Errorf("%d plugins, %d preparers: order %v, want %v", len(tc.plugins), tc.preparers, got, tc.want)
		}
	}
}
