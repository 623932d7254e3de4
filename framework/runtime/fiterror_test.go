package runtime

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
)

// TestFitErrorPostFilterMessage: the PostFilter message follows the
// histogram after a space, with no period of its own (kube-scheduler
// v1.36.4 framework/types.go FitError.Error appends " %v").
func TestFitErrorPostFilterMessage(t *testing.T) {
	a := &fake{name: "A", filter: func(*framework.NodeInfo) *framework.Status {
		return framework.NewStatus(framework.Unschedulable, "Insufficient cpu")
	}}
	res, err := schedule(t, framework.Profile{Filter: []string{"A"}}, []*fake{a}, 2, CycleOptions{})
	if err == nil {
		t.Fatal("no FitError")
	}
	fe := res.FitError()
	fe.Diagnosis.PostFilterMsg = "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	want := "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	if got := fe.Error(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
