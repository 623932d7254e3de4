package filter

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// Cases of kube-scheduler v1.36 nodename/node_name_test.go.
func TestNodeNameFilter(t *testing.T) {
	reject := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonNodeName)
	tests := []struct {
		name     string
		podNode  string
		nodeName string
		want     *fw.Status
	}{
		{"no host specified", "", "foo", nil},
		{"host matches", "foo", "foo", nil},
		{"host doesn't match", "bar", "foo", reject},
	}
	pl, _ := NewNodeName(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ni, _ := fw.NewNodeInfo(st.MakeNode().Name(tc.nodeName).Obj())
			got := pl.(fw.FilterPlugin).Filter(context.Background(), nil, fw.MustPodInfo(st.MakePod().Node(tc.podNode).Obj()), ni)
			if !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

func BenchmarkNodeNameFilter(b *testing.B) {
	pl, _ := NewNodeName(nil, nil)
	st.BenchFilter(b, pl, fw.MustPodInfo(st.MakePod().Name("bench").Node("node-00042").Obj()))
}
