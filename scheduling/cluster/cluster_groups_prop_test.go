package cluster

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
)

// TestPropGangIndexMatchesPods: after any sequence of cluster events,
// forks, commits and reverts, the gang index (PodGroupCounts and the count
// of gated pods) equals a count over every pod.
func TestPropGangIndexMatchesPods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, _ := New()
		forks := 0
		for i := rapid.IntRange(0, 60).Draw(t, "steps"); i > 0; i-- {
			switch rapid.IntRange(0, 9).Draw(t, "branch") {
			case 0:
				c.Fork()
				forks++
			case 1:
				if forks > 0 {
					_ = c.Revert()
					forks--
				}
			case 2:
				if forks > 0 {
					_ = c.Commit()
					forks--
				}
			default:
				_ = clDrawOp(t).apply(c)
			}
		}
		want := map[string][3]int{}
		for _, r := range c.Pods() {
			if k := api.PodGroupKey(r.Pod); k != "" {
				v := want[k]
				v[0]++
				if r.State != StatePending {
					v[1]++
				}
				if len(r.Pod.Spec.SchedulingGates) > 0 {
					v[2]++
				}
				want[k] = v
			}
		}
		got := map[string][3]int{}
		for k := range c.groups {
			ns, name, _ := strings.Cut(k, "/")
			total, assigned := c.PodGroupCounts(ns, name)
			got[k] = [3]int{total, assigned, c.PodGroupGated(ns, name)}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("gang index (-recount +index):\n%s", diff)
		}
	})
}
