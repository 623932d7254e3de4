package schedulinggates

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// TestSchedulingGatesPreEnqueue is kube-scheduler v1.36
// schedulinggates/scheduling_gates_test.go TestPreEnqueue.
func TestSchedulingGatesPreEnqueue(t *testing.T) {
	pl, _ := New(nil, nil)
	pe := pl.(fw.PreEnqueuePlugin)
	if got := pe.PreEnqueue(context.Background(), st.MakePod().Name("p").Obj()); got != nil {
		t.Errorf("pod without gates: %v, want nil", got)
	}
	want := fw.NewStatus(fw.UnschedulableAndUnresolvable, "waiting for scheduling gates: [foo bar]")
	if got := pe.PreEnqueue(context.Background(), st.MakePod().Name("p").SchedulingGates("foo", "bar").Obj()); !got.Equal(want) {
		t.Errorf("pod with gates: %v, want %v", got, want)
	}
}
