package runtime

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestRunFilterPluginsNamesSharedRejections: RunFilterPlugins names the
// rejecting plugin whatever status it returns, the same shared status
// again and again, another shared status after it, or one that already
// names it, and a shared status comes back as the same named copy.
func TestRunFilterPluginsNamesSharedRejections(t *testing.T) {
	cpu, mem := framework.NewStatus(framework.Unschedulable, "Insufficient cpu"), framework.NewStatus(framework.Unschedulable, "Insufficient memory")
	named := framework.NewStatus(framework.Unschedulable, "Insufficient pods").WithPlugin("Fit")
	var next *framework.Status
	pass := &fake{name: "Pass", filter: func(*framework.NodeInfo) *framework.Status { return nil }}
	fit := &fake{name: "Fit", filter: func(*framework.NodeInfo) *framework.Status { return next }}
	f, err := NewFramework(registryOf(pass, fit), framework.Profile{Filter: []string{"Pass", "Fit"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pi := framework.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}})
	node := framework.MustSnapshot([]*api.Node{{ObjectMeta: api.ObjectMeta{Name: "n"}}}, nil).Nodes()[0]
	state := framework.NewCycleState()
	var firstCPU *framework.Status
	for i, s := range []*framework.Status{cpu, cpu, mem, cpu, named, named, nil} {
		next = s
		got := f.RunFilterPlugins(context.Background(), state, pi, node)
		if s == nil {
			if got != nil {
				t.Fatalf("call %d: %v, want success", i, got)
			}
			continue
		}
		if got.Plugin() != "Fit" || got.Code() != s.Code() || got.Message() != s.Message() {
			t.Fatalf("call %d: %q by %q (%v), want %q by Fit", i, got.Message(), got.Plugin(), got.Code(), s.Message())
		}
		switch {
		case s == named && got != named:
			t.Errorf("call %d: a status naming the plugin was copied", i)
		case s == cpu && firstCPU == nil:
			firstCPU = got
		case s == cpu && i == 1 && got != firstCPU:
			t.Errorf("call %d: the same shared status was copied again", i)
		}
	}
}
