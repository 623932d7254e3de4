package scheduling_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

// Enabling kube's default multiPoint plugins of a release one call each,
// with their weights, in a profile of that release rebuilds the release's
// default profile exactly (Enable probes the plugins of the profile's
// release: NodeName has a PreFilter from v1.37).
func TestProfileEnableRebuildsDefaultProfile(t *testing.T) {
	reg := scheduling.NewDefaultRegistry()
	for _, v := range framework.KubeVersions() {
		p := framework.Profile{SchedulerName: scheduling.DefaultSchedulerName, KubeVersion: v}
		for _, wp := range scheduling.DefaultMultiPointFor(v) {
			if err := p.Enable(reg, wp.Name, wp.Weight); err != nil {
				t.Fatal(err)
			}
		}
		if d := cmp.Diff(scheduling.DefaultProfileFor(v), p); d != "" {
			t.Errorf("%s: enabled profile (-DefaultProfileFor +Enable):\n%s", v, d)
		}
	}
}

const profilesConfig = `
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: spread
- schedulerName: bin-packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`

// Each profile of one configuration, renamed to the scheduler the pods
// name, schedules the same pods its own way.
func TestConfigurationProfileAs(t *testing.T) {
	cfg, err := configfile.Load([]byte(profilesConfig))
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*api.Node{
		builder.MakeNode().Name("big").Capacity(map[string]string{"cpu": "8", "memory": "16Gi"}).Obj(),
		builder.MakeNode().Name("small").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj(),
	}
	placed := map[string]string{}
	for _, name := range []string{"spread", "bin-packing"} {
		p, err := cfg.ProfileAs(name, scheduling.DefaultSchedulerName)
		if err != nil {
			t.Fatal(err)
		}
		if p.SchedulerName != scheduling.DefaultSchedulerName {
			t.Fatalf("ProfileAs(%q).SchedulerName = %q", name, p.SchedulerName)
		}
		cluster, err := cluster.NewFrom(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scheduling.New(cluster, cfg.Registry(), []framework.Profile{p},
			scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))), scheduling.WithSeed(1))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddPod(builder.MakePod().Name("web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()); err != nil {
			t.Fatal(err)
		}
		d, ok := s.ScheduleOne(context.Background())
		if !ok || d.Node == "" {
			t.Fatalf("profile %s: decision %+v", name, d)
		}
		placed[name] = d.Node
	}
	if want := map[string]string{"spread": "big", "bin-packing": "small"}; !cmp.Equal(want, placed) {
		t.Errorf("placements = %v, want %v", placed, want)
	}

	// The copy shares nothing with the configuration.
	p, _ := cfg.ProfileAs("bin-packing", "x")
	p.Filter[0], p.Weights["NodeResourcesFit"] = "Changed", 99
	delete(p.Args, "NodeResourcesFit")
	orig := cfg.Profiles[1]
	if orig.SchedulerName != "bin-packing" || orig.Filter[0] == "Changed" || orig.Weights["NodeResourcesFit"] == 99 || orig.Args["NodeResourcesFit"] == nil {
		t.Errorf("changing the copy changed the configuration: %+v", orig)
	}

	_, err = cfg.ProfileAs("nope", "x")
	if err == nil || !strings.Contains(err.Error(), `no profile "nope"`) || !strings.Contains(err.Error(), `"spread" "bin-packing"`) {
		t.Errorf("ProfileAs(nope) error = %v, want one naming nope and the profiles", err)
	}
}

// Two identical nodes tie; the decision counts the tie and its log line
// says so.
func TestDecisionTies(t *testing.T) {
	n := builder.MakeNode().Capacity(map[string]string{"cpu": "4", "memory": "8Gi"})
	cluster, err := cluster.NewFrom([]*api.Node{n.Name("a").Obj(), n.Name("b").Obj(), n.Name("c").Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(0, 0)
	s, err := scheduling.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()},
		scheduling.WithClock(framework.NewFakeClock(start)), scheduling.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(builder.MakePod().Name("web").Req(map[string]string{"cpu": "1"}).Obj()); err != nil {
		t.Fatal(err)
	}
	d, _ := s.ScheduleOne(context.Background())
	if d.Ties != 3 || d.Margin != 0 {
		t.Errorf("decision ties=%d margin=%d, want 3 and 0", d.Ties, d.Margin)
	}
	var b strings.Builder
	scheduling.FormatDecision(&b, &d, start)
	if !strings.Contains(b.String(), " margin=0 ties=3 ") {
		t.Errorf("log line %q lacks ties=3", b.String())
	}
}
