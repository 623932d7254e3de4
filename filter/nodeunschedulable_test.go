package filter

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// Cases of kube-scheduler v1.36 nodeunschedulable/node_unschedulable_test.go.
func TestNodeUnschedulableFilter(t *testing.T) {
	reject := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonNodeUnschedulable)
	tol := fw.Toleration{Key: TaintNodeUnschedulable, Effect: fw.TaintEffectNoSchedule}
	tests := []struct {
		name          string
		unschedulable bool
		tols          []fw.Toleration
		want          *fw.Status
	}{
		{"does not fit unschedulable node", true, nil, reject},
		{"fits schedulable node", false, nil, nil},
		{"fits unschedulable node with the toleration", true, []fw.Toleration{tol}, nil},
		{"Exists with empty key tolerates", true, []fw.Toleration{{Operator: fw.TolerationOpExists}}, nil},
		{"NoExecute toleration does not", true, []fw.Toleration{{Key: TaintNodeUnschedulable, Effect: fw.TaintEffectNoExecute}}, reject},
	}
	pl, _ := NewNodeUnschedulable(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := st.MakeNode().Name("n")
			if tc.unschedulable {
				w = w.Unschedulable()
			}
			ni, _ := fw.NewNodeInfo(w.Obj())
			pod := st.MakePod().Name("p")
			for _, tl := range tc.tols {
				pod = pod.Toleration(tl)
			}
			got := pl.(fw.FilterPlugin).Filter(context.Background(), nil, fw.MustPodInfo(pod.Obj()), ni)
			if !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
	got := pl.(fw.FilterPlugin).Filter(context.Background(), nil, fw.MustPodInfo(st.MakePod().Obj()), &fw.NodeInfo{})
	if want := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonNodeUnknownCondition); !got.Equal(want) {
		t.Errorf("nil node: %v, want %v", got, want)
	}
}

func BenchmarkNodeUnschedulableFilter(b *testing.B) {
	pl, _ := NewNodeUnschedulable(nil, nil)
	nrfBenchFilter(b, pl, fw.MustPodInfo(st.MakePod().Name("bench").Obj()))
}
