package scoring_test

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scoring"
)

// TestAddedOnSnapshot: only pods on the snapshot's own NodeInfos, at their
// positions, are on the snapshot.
func TestAddedOnSnapshot(t *testing.T) {
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()}, nil)
	other := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()}, nil)
	pod := fw.MustPodInfo(st.MakePod().Name("p").Obj())
	n1, n2 := snap.Nodes()[0], snap.Nodes()[1]
	for _, tc := range []struct {
		name  string
		added []fastpath.AddedPod
		want  bool
	}{
		{"none", nil, true},
		{"on its nodes", []fastpath.AddedPod{{Pod: pod, Node: n1}, {Pod: pod, Node: n2}}, true},
		{"another snapshot's node", []fastpath.AddedPod{{Pod: pod, Node: n1}, {Pod: pod, Node: other.Nodes()[1]}}, false},
		{"a copy of its node", []fastpath.AddedPod{{Pod: pod, Node: n2.Clone()}}, false},
		{"no node", []fastpath.AddedPod{{Pod: pod}}, false},
		{"no pod", []fastpath.AddedPod{{Node: n1}}, false},
		{"no pod object", []fastpath.AddedPod{{Pod: &fw.PodInfo{}, Node: n1}}, false},
	} {
		if got := scoring.AddedOnSnapshot(snap, tc.added); got != tc.want {
			t.Errorf("%s: AddedOnSnapshot = %v, want %v", tc.name, got, tc.want)
		}
	}
}
