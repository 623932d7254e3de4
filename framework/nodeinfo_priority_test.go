package framework_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropNodeInfoLowestPodPriority: after any sequence of additions and
// removals (by RemovePod or RemovePodInfo), LowestPodPriority is the
// minimum over Pods, PodsWithVolumes counts the Pods with volumes (also in
// a Clone), and RemovePodInfo leaves the node exactly as RemovePod does
// (same pod order, aggregates and ports).
func TestPropNodeInfoLowestPodPriority(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n"}}
		ni, err := fw.NewNodeInfo(node)
		if err != nil {
			t.Fatal(err)
		}
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for i := range steps {
			if len(ni.Pods) == 0 || rapid.Bool().Draw(t, "add") {
				prio := rapid.Int32Range(-3, 3).Draw(t, "priority")
				pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "ns", UID: fmt.Sprintf("u%d", i)}}
				pod.Spec.Priority = &prio
				if rapid.Bool().Draw(t, "volume") {
					pod.Spec.Volumes = []api.Volume{{Name: "v", VolumeSource: api.VolumeSource{EmptyDir: []byte("{}")}}}
				}
				ni.AddPodInfo(fw.MustPodInfo(pod))
			} else {
				pi := ni.Pods[rapid.IntRange(0, len(ni.Pods)-1).Draw(t, "victim")]
				want := ni.Clone()
				if err := want.RemovePod(pi.Pod); err != nil {
					t.Fatal(err)
				}
				if err := ni.RemovePodInfo(pi); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(omView(want), omView(ni)); diff != "" {
					t.Fatalf("RemovePodInfo differs from RemovePod (-RemovePod +RemovePodInfo):\n%s", diff)
				}
			}
			withVolumes := 0
			for _, p := range ni.Pods {
				if len(p.Pod.Spec.Volumes) > 0 {
					withVolumes++
				}
			}
			if got, cl := ni.PodsWithVolumes(), ni.Clone().PodsWithVolumes(); got != withVolumes || cl != withVolumes {
				t.Fatalf("PodsWithVolumes = %d (clone %d), want %d", got, cl, withVolumes)
			}
			low, ok := ni.LowestPodPriority()
			if ok != (len(ni.Pods) > 0) {
				t.Fatalf("LowestPodPriority ok = %v with %d pods", ok, len(ni.Pods))
			}
			if ok {
				prios := make([]int32, len(ni.Pods))
				for j, p := range ni.Pods {
					prios[j] = p.Pod.PriorityValue()
				}
				if m := slices.Min(prios); low != m {
					t.Fatalf("LowestPodPriority = %d, want %d", low, m)
				}
			}
		}
	})
}
