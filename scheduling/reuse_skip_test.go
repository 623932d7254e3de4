package scheduling

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// TestReuseSignsBeforePreFilter: a pod that cannot reuse the kept ranking
// (unsignable, or signed differently) drops it before PreFilter runs, so
// the full cycle — or a capacity question's evaluator, which needs no
// PreFilter — does not pay for a PreFilter whose outcome only a reuse
// attempt would read; a pod with the ranking's signature still runs
// PreFilter and takes the hinted node.
func TestReuseSignsBeforePreFilter(t *testing.T) {
	ctx := context.Background()
	spread := builder.MakePod().Name("b").Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).
		SpreadConstraint(framework.TopologySpreadConstraint{MaxSkew: 5, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: framework.DoNotSchedule,
			LabelSelector: &framework.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj()
	other := builder.MakePod().Name("b").Label("app", "api").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
	for _, tc := range []struct {
		name  string
		pod   *framework.Pod
		reuse bool
	}{
		{"same signature", replica("b"), true},
		{"unsignable", spread, false},
		{"another signature", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clock, _ := reuseEnv(t, nodesOf("1", "1", "1"), reuseProfile(config.LeastAllocated))
			if err := s.AddPod(replica("a")); err != nil {
				t.Fatal(err)
			}
			if d, ok := s.ScheduleOne(ctx); !ok || d.Outcome != OutcomeScheduled {
				t.Fatalf("first: %+v", d)
			}
			prof := s.profiles[DefaultSchedulerName]
			if prof.batch == nil {
				t.Fatal("the first cycle kept no ranking")
			}
			s.cycle++ // as scheduleCycle does before it tries the ranking
			qp := s.queue.detached(framework.MustPodInfo(tc.pod), tc.pod.Key(), clock.Now())
			got := s.reusedNode(ctx, prof, &schedCycleHandle{s: s, prof: prof}, qp, s.cluster.Snapshot())
			if tc.reuse {
				if got.node == "" || got.pre == nil || got.state == nil || prof.batch == nil {
					t.Fatalf("same signature: node %q, PreFilter ran %v, ranking kept %v; want a node, PreFilter run, ranking kept",
						got.node, got.pre != nil, prof.batch != nil)
				}
				return
			}
			if got.node != "" || got.pre != nil || got.state != nil || prof.batch != nil {
				t.Fatalf("node %q, PreFilter ran %v, ranking kept %v; want no node, no PreFilter, ranking dropped",
					got.node, got.pre != nil, prof.batch != nil)
			}
		})
	}
}
