package scheduling

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
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
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 5, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: api.DoNotSchedule,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj()
	other := builder.MakePod().Name("b").Label("app", "api").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
	for _, tc := range []struct {
		name  string
		pod   *api.Pod
		reuse bool
	}{
		{"same signature", replica("b"), true},
		{"unsignable", spread, false},
		{"another signature", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clock, _ := reuseEnv(t, nodesOf("1", "1", "1"), reuseProfile(noderesources.LeastAllocated))
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
			qp := s.queue.Detached(new(queue.DetachedPod), framework.MustPodInfo(tc.pod), tc.pod.Key(), clock.Now())
			got := s.reusedNode(ctx, prof, &cycleHandle{s: s, prof: prof}, qp, s.cluster.Snapshot())
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

// TestSignRefusersAgree: a profile signs no pod with topology spread
// constraints or pod (anti-)affinity and, under system spread defaults, no
// pod at all (kube's PodTopologySpread and InterPodAffinity SignPod); and
// every plugin that says cheaply
// whether it refuses to sign a pod says so exactly when its SignPod
// refuses it, so that Framework.SignPod asking the refusers first signs as
// before.
func TestSignRefusersAgree(t *testing.T) {
	ctx := context.Background()
	web := func() *builder.PodWrapper {
		return builder.MakePod().Name("p").Label("app", "web").Container("nginx:1", map[string]string{"cpu": "1"})
	}
	unsignable := map[string]bool{"spread": true, "affinity": true, "anti-affinity": true, "preferred affinity": true}
	pods := map[string]*framework.PodInfo{
		"plain": framework.MustPodInfo(web().Obj()),
		"spread": framework.MustPodInfo(web().SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone",
			WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj()),
		"affinity":           framework.MustPodInfo(web().PodAffinityIn("app", "zone", []string{"db"}, builder.PodAffinityWithRequiredReq).Obj()),
		"anti-affinity":      framework.MustPodInfo(web().PodAntiAffinityIn("app", "zone", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).Obj()),
		"preferred affinity": framework.MustPodInfo(web().PodAffinityIn("app", "zone", []string{"db"}, builder.PodAffinityWithPreferredReq).Obj()),
	}
	refusers := 0
	for pname, p := range map[string]framework.Profile{"system defaults": DefaultProfile(), "listed defaults": reuseProfile(noderesources.LeastAllocated)} {
		f, err := runtime.NewFramework(NewDefaultRegistry(), p)
		if err != nil {
			t.Fatal(err)
		}
		for podName, pi := range pods {
			want := unsignable[podName] || pname == "system defaults"
			if got := f.SignPod(ctx, pi) == ""; got != want {
				t.Errorf("%s, %s pod: unsignable %v, want %v", pname, podName, got, want)
			}
		}
		for _, names := range [][]string{p.PreFilter, p.Filter, p.PreScore, p.Score} {
			for _, name := range names {
				pl, _ := f.Plugin(name)
				r, isRef := pl.(framework.SignRefuser)
				s, isSign := pl.(framework.SignPlugin)
				if !isRef || !isSign {
					continue
				}
				refusers++
				for podName, pi := range pods {
					var want bool
					switch pl.Name() {
					case config.PodTopologySpreadName:
						want = podName == "spread" || pname == "system defaults"
					case config.InterPodAffinityName:
						want = strings.Contains(podName, "affinity")
					} // the others sign every pod
					_, st := s.SignPod(ctx, pi)
					if got := r.RefusesSign(pi); got != want || st.IsSuccess() == want {
						t.Errorf("%s, %s (%T), %s pod: RefusesSign %v, SignPod refuses %v; want both %v", pname, name, pl, podName, got, !st.IsSuccess(), want)
					}
				}
			}
		}
	}
	if refusers == 0 {
		t.Fatal("no plugin of the default profiles is a SignRefuser")
	}
}
