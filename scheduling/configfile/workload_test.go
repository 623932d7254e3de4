package configfile

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

var allWorkloadFeatures = framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, TopologyAwareWorkloadScheduling: true, WorkloadAwarePreemption: true}

type cfgPlacementLists struct {
	PreEnqueue, Permit, Generate, Score []string
	Weights                             map[string]int64
}

func cfgPlacementOf(p framework.Profile) cfgPlacementLists {
	return cfgPlacementLists{p.PreEnqueue, p.Permit, p.PlacementGenerate, p.PlacementScore, p.PlacementWeights}
}

// TestConfigWorkloadDefaults: with kube-scheduler v1.36's workload gates on,
// the default plugins gain GangScheduling, TopologyPlacementGenerator and
// PodGroupPodsCount (weight 1) at the end of multiPoint
// (apis/config/v1/default_plugins.go applyGangScheduling,
// applyTopologyAwareWorkloadScheduling), which expandMultiPointPlugins
// (framework/runtime/framework.go) spreads to preEnqueue and permit, to
// placementGenerate, and to placementScore after NodeResourcesFit (which
// implements it, weight 1 from multiPoint). EnableWorkloadScheduling gives
// the same profile; without the gates only NodeResourcesFit reaches
// placementScore (kube expands it there too; the cycle never asks it).
func TestConfigWorkloadDefaults(t *testing.T) {
	c, err := Load([]byte(cfgHead), WithWorkloadFeatures(allWorkloadFeatures))
	if err != nil {
		t.Fatal(err)
	}
	want := cfgPlacementLists{
		PreEnqueue: []string{config.SchedulingGatesName, config.DynamicResourcesName, config.GangSchedulingName},
		Permit:     []string{config.GangSchedulingName},
		Generate:   []string{config.TopologyPlacementGeneratorName},
		Score:      []string{config.NodeResourcesFitName, config.PodGroupPodsCountName},
		Weights:    map[string]int64{config.NodeResourcesFitName: 1, config.PodGroupPodsCountName: 1},
	}
	if d := cmp.Diff(want, cfgPlacementOf(c.Profiles[0])); d != "" {
		t.Errorf("profile with the gates (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, cfgPlacementOf(scheduling.EnableWorkloadScheduling(scheduling.DefaultProfile(), allWorkloadFeatures))); d != "" {
		t.Errorf("EnableWorkloadScheduling (-want +got):\n%s", d)
	}
	cfgDiffLists(t, "other extension points", cfgListsOf(scheduling.EnableWorkloadScheduling(scheduling.DefaultProfile(), allWorkloadFeatures)), cfgListsOf(c.Profiles[0]))
	out := cfgWriteString(t, c)
	if !strings.Contains(out, "- name: GangScheduling\n") || !strings.Contains(out, "- name: PodGroupPodsCount\n        weight: 1\n") {
		t.Errorf("written configuration lacks the workload plugins:\n%s", out)
	}
	c2, err := Load([]byte(out), WithWorkloadFeatures(allWorkloadFeatures))
	if err != nil {
		t.Fatal(err)
	}
	if d := cfgSame(c, c2); d != "" {
		t.Errorf("reloaded configuration differs:\n%s", d)
	}
	off, err := Load([]byte(cfgHead))
	if err != nil {
		t.Fatal(err)
	}
	wantOff := cfgPlacementLists{PreEnqueue: []string{config.SchedulingGatesName, config.DynamicResourcesName}, Score: []string{config.NodeResourcesFitName},
		Weights: map[string]int64{config.NodeResourcesFitName: 1}}
	if d := cmp.Diff(wantOff, cfgPlacementOf(off.Profiles[0])); d != "" {
		t.Errorf("profile without the gates (-want +got):\n%s", d)
	}
}

// TestConfigPlacementSets: the placement plugin sets as kube-scheduler
// v1.36 resolves them: a weight at placementScore beats multiPoint's, "*"
// disabled leaves the point empty, a plugin enabled only at a placement
// point is instantiated there, negative weights are allowed, two
// placementGenerate plugins and a running total that wraps around are
// refused (NewFramework's "at most one placement generate plugin is
// allowed" and getValidScoreWeights).
func TestConfigPlacementSets(t *testing.T) {
	second := scheduling.PluginSpec{Name: "SecondGenerator", Factory: func(any, framework.Handle) (framework.Plugin, error) {
		return &pgPlacementFake{name: "SecondGenerator"}, nil
	}}
	opts := []Option{WithWorkloadFeatures(allWorkloadFeatures), WithPlugins(append(scheduling.DefaultPlugins(), second)...)}
	for _, tc := range []struct {
		name, in string
		want     cfgPlacementLists
		wantErr  string
	}{
		{name: "placementScore weight beats multiPoint's", in: "profiles:\n- plugins:\n    placementScore:\n      enabled:\n      - name: PodGroupPodsCount\n        weight: 3\n",
			want: cfgPlacementLists{Generate: []string{config.TopologyPlacementGeneratorName}, Score: []string{config.PodGroupPodsCountName, config.NodeResourcesFitName},
				Weights: map[string]int64{config.NodeResourcesFitName: 1, config.PodGroupPodsCountName: 3}}},
		{name: "all placement scorers disabled", in: "profiles:\n- plugins:\n    placementScore:\n      disabled:\n      - name: '*'\n",
			want: cfgPlacementLists{Generate: []string{config.TopologyPlacementGeneratorName}}},
		{name: "the generator replaced", in: "profiles:\n- plugins:\n    placementGenerate:\n      enabled:\n      - name: SecondGenerator\n      disabled:\n      - name: TopologyPlacementGenerator\n",
			want: cfgPlacementLists{Generate: []string{"SecondGenerator"}, Score: []string{config.NodeResourcesFitName, config.PodGroupPodsCountName},
				Weights: map[string]int64{config.NodeResourcesFitName: 1, config.PodGroupPodsCountName: 1}}},
		{name: "two generators", in: "profiles:\n- plugins:\n    placementGenerate:\n      enabled:\n      - name: SecondGenerator\n",
			wantErr: `at most one placement generate plugin is allowed, got ["TopologyPlacementGenerator" "SecondGenerator"]`},
		// kube's running total wraps around once it is negative: the next
		// plugin checked fails.
		{name: "a negative placement weight, then another plugin", in: "profiles:\n- plugins:\n    placementScore:\n      enabled:\n      - name: PodGroupPodsCount\n        weight: -5\n",
			wantErr: `placement score plugins: plugin "PodGroupPodsCount" weight -5 is negative and takes the total of Score weights below zero, which kube-scheduler refuses (its overflow check for plugin "NodeResourcesFit" weight 1, running total -500, wraps around)`},
		{name: "a negative placement weight counted last", in: "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: PodGroupPodsCount\n        weight: -5\n",
			want: cfgPlacementLists{Generate: []string{config.TopologyPlacementGeneratorName}, Score: []string{config.NodeResourcesFitName, config.PodGroupPodsCountName},
				Weights: map[string]int64{config.NodeResourcesFitName: 1, config.PodGroupPodsCountName: -5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load([]byte(cfgHead+tc.in), opts...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := cfgPlacementOf(c.Profiles[0])
			got.PreEnqueue, got.Permit = nil, nil
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestConfigGangSchedulingRuns: KubeSchedulerConfigurations that enable
// GangScheduling, by the gates' defaults or through multiPoint, load and
// run: the scheduler built from cfg.Profiles and cfg.SchedulerOptions
// (which carry the workload features) places a zone-constrained gang whole
// in the one zone that holds it, and refuses a gang too large for any zone
// with kube's "0/2 placements are available" condition.
func TestConfigGangSchedulingRuns(t *testing.T) {
	refused := "0/2 placements are available, first placement status: pod group is unschedulable"
	for _, tc := range []struct {
		name, in string
		feats    framework.WorkloadFeatures
		want     string // big's condition
	}{
		// With WorkloadAwarePreemption the refused group also says why it did
		// not preempt (runWorkloadAwarePreemption's reason appended).
		{"the gates' defaults", cfgHead, allWorkloadFeatures, refused + ", workload aware preemption is not supported for pod groups with scheduling constraints"},
		{"multiPoint", cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: GangScheduling\n      - name: TopologyPlacementGenerator\n      - name: PodGroupPodsCount\n        weight: 2\n",
			framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, TopologyAwareWorkloadScheduling: true}, refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load([]byte(tc.in), WithWorkloadFeatures(tc.feats))
			if err != nil {
				t.Fatal(err)
			}
			nodes := []*api.Node{plZoneNode("a1", "a"), plZoneNode("b1", "b"), plZoneNode("b2", "b")}
			var pods []*api.Pod
			for i := range 4 {
				p := gsPod("ns", fmt.Sprintf("w%d", i), "job")
				p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "2"})
				pods = append(pods, p)
			}
			for i := range 3 {
				p := gsPod("ns", fmt.Sprintf("big%d", i), "big")
				p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "3"})
				pods = append(pods, p)
			}
			c, err := cluster.NewFrom(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scheduling.New(c, cfg.Registry(), cfg.Profiles, append(cfg.SchedulerOptions(), scheduling.WithClock(framework.NewFakeClock(csNow)))...)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range []*api.WorkloadPodGroup{plZoned("ns", "job", 4), plZoned("ns", "big", 3)} {
				if err := s.AddWorkloadPodGroup(g); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range pods {
				if err := s.AddPod(p); err != nil {
					t.Fatal(err)
				}
			}
			s.RunUntilIdle(context.Background())
			for i := range 4 {
				if r, _ := c.Pod("ns", fmt.Sprintf("w%d", i)); r.State != cluster.StateBound || !strings.HasPrefix(r.Pod.Spec.NodeName, "b") {
					t.Errorf("w%d: %s on %q, want bound in zone b", i, r.State, r.Pod.Spec.NodeName)
				}
			}
			g, _ := c.WorkloadPodGroup("ns", "big")
			if cond := api.FindCondition(g.Status.Conditions, api.PodGroupScheduled); cond == nil || cond.Message != tc.want {
				t.Errorf("big's conditions %+v, want message %q", g.Status.Conditions, tc.want)
			}
		})
	}
}
