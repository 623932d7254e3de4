package whatif

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// A scale-up answer with no node to add says how many pending pods
// schedule without new nodes and how many no node of the template helps,
// never that every pending pod schedules when some fit nowhere: two 4-cpu
// nodes, pending pods "fits" (1 cpu) and "needs-ssd" (nodeSelector
// disk=ssd, a label no node and not the template has).
func TestScaleUpSummaryCountsOnlyScheduledPods(t *testing.T) {
	nodes := []*api.Node{wiNode("n1", "4").Obj(), wiNode("n2", "4").Obj()}
	fits := wiPod("fits", "1").Obj()
	ssd := wiPod("needs-ssd", "1").NodeSelector(map[string]string{"disk": "ssd"}).Obj()
	tmpl := wiNode("pool", "4").Obj()
	for _, tc := range []struct {
		name       string
		pods       []*api.Pod
		want       []string // in the summary
		wantWrite  []string // in the written answer
		notWant    string
		scheduled  int
		unhelpable int
	}{
		{
			name:       "one fits, one fits nowhere",
			pods:       []*api.Pod{fits, ssd},
			want:       []string{"1 of the 2 pending pod(s) schedule without new nodes", "1 pod(s) cannot use such a node at all (e.g. default/needs-ssd: NodeAffinity: "},
			wantWrite:  []string{"scale-up: none needed, the 1 pod(s) schedule on the current nodes", "1 pod(s) do not fit a new pool node even alone (left out):\n  default/needs-ssd: NodeAffinity"},
			notWant:    "all 2 pending pod(s)",
			scheduled:  1,
			unhelpable: 1,
		},
		{
			name:       "only a pod that fits nowhere",
			pods:       []*api.Pod{ssd},
			want:       []string{"nodes like pool (allocatable cpu 4, memory 16Gi, pods 10) help none of the 1 pending pod(s)", "1 pod(s) cannot use such a node at all (e.g. default/needs-ssd: NodeAffinity: "},
			wantWrite:  []string{"scale-up: no node like pool helps the 1 pending pod(s)"},
			notWant:    "schedule without new nodes",
			unhelpable: 1,
		},
		{
			name:      "every pod fits",
			pods:      []*api.Pod{fits},
			want:      []string{"all 1 pending pod(s) schedule without new nodes."},
			wantWrite: []string{"scale-up: none needed, the 1 pod(s) schedule on the current nodes"},
			notWant:   "cannot use",
			scheduled: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := wiCluster(t, nodes, tc.pods)
			ans, err := w.ScaleUp(context.Background(), tmpl, ScaleUpOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !ans.Feasible || ans.Nodes != 0 || ans.Answer.Scheduled != tc.scheduled || len(ans.Unhelpable) != tc.unhelpable {
				t.Fatalf("feasible %v, %d nodes, %d scheduled, unhelpable %v; want feasible, 0 nodes, %d scheduled, %d unhelpable",
					ans.Feasible, ans.Nodes, ans.Answer.Scheduled, ans.Unhelpable, tc.scheduled, tc.unhelpable)
			}
			s := ans.Summary()
			for _, want := range tc.want {
				if !strings.Contains(s, want) {
					t.Errorf("summary lacks %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, tc.notWant) {
				t.Errorf("summary says %q:\n%s", tc.notWant, s)
			}
			var b bytes.Buffer
			if err := ans.Write(&b, ExplainOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.wantWrite {
				if !strings.Contains(b.String(), want) {
					t.Errorf("answer lacks %q:\n%s", want, b.String())
				}
			}
		})
	}
}
