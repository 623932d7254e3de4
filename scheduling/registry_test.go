package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// probedPoints lists the extension points pl implements, as PluginSpec
// lists them: PointPreEnqueue, then ExtensionPoints, then the placement
// points.
func probedPoints(pl framework.Plugin) []string {
	var out []string
	if _, ok := pl.(framework.PreEnqueuePlugin); ok {
		out = append(out, PointPreEnqueue)
	}
	out = append(out, ExtensionPoints(pl)...)
	if _, ok := pl.(framework.PlacementGeneratePlugin); ok {
		out = append(out, PointPlacementGenerate)
	}
	if _, ok := pl.(framework.PlacementScorePlugin); ok {
		out = append(out, PointPlacementScore)
	}
	return out
}

// releaseHandle is a Handle of one kube-scheduler release.
func releaseHandle(v framework.KubeVersion) framework.Handle {
	return framework.NewHandle(framework.RealClock{}, 1, v)
}

// TestPluginsForMatchPlugins: in each release, every plugin of the table
// builds with its default args under its own name, refuses args of
// another type, and implements exactly the extension points the table
// declares for it, which DefaultProfileFor and configuration loading
// expand multiPoint with. NodeUnschedulable, NodeName and
// TaintToleration implement PreFilter from kube-scheduler v1.37
// (node_name.go, node_unschedulable.go, taint_toleration.go: PreFilter).
func TestPluginsForMatchPlugins(t *testing.T) {
	for _, v := range []framework.KubeVersion{framework.KubeV136, framework.KubeV137} {
		specs := PluginsFor(v)
		if len(specs) < 30 {
			t.Fatalf("%s: %d plugins", v, len(specs))
		}
		for _, spec := range specs {
			var args any
			if spec.DefaultArgs != nil {
				args = spec.DefaultArgs()
			}
			pl, err := spec.Factory(args, releaseHandle(v))
			if err != nil {
				t.Fatalf("%s %s with default args: %v", v, spec.Name, err)
			}
			if pl.Name() != spec.Name {
				t.Fatalf("%s: plugin %q reports name %q", v, spec.Name, pl.Name())
			}
			if d := cmp.Diff(spec.Points, probedPoints(pl)); d != "" {
				t.Errorf("%s %s: declared extension points (-declared +implemented):\n%s", v, spec.Name, d)
			}
			if _, err := spec.Factory(struct{}{}, releaseHandle(v)); err == nil && spec.Name != config.DefaultBinderName {
				t.Errorf("%s %s accepted args of the wrong type", v, spec.Name)
			}
		}
	}
	pre := func(v framework.KubeVersion, name string) bool {
		for _, s := range PluginsFor(v) {
			if s.Name == name {
				return slices.Contains(s.Points, PointPreFilter)
			}
		}
		t.Fatalf("%s: no %s", v, name)
		return false
	}
	for _, name := range []string{config.NodeNameName, config.NodeUnschedulableName, config.TaintTolerationName} {
		if pre(framework.KubeV136, name) || !pre(framework.KubeV137, name) {
			t.Errorf("%s: PreFilter in v1.36 %v, in v1.37 %v; want only in v1.37", name, pre(framework.KubeV136, name), pre(framework.KubeV137, name))
		}
	}
}

// TestDefaultProfileByRelease pins each release's default profile, as
// kube-scheduler expands its default multiPoint list (without
// NodeDeclaredFeatures): v1.37 runs NodeName, NodeUnschedulable and
// TaintToleration at PreFilter too, NodeName first.
func TestDefaultProfileByRelease(t *testing.T) {
	rest := []string{config.NodeAffinityName, config.NodePortsName, config.NodeResourcesFitName,
		config.VolumeRestrictionsName, config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName,
		config.PodTopologySpreadName, config.InterPodAffinityName, config.DynamicResourcesName}
	lead136 := []string{config.NodeUnschedulableName, config.NodeNameName, config.TaintTolerationName}
	lead137 := []string{config.NodeNameName, config.NodeUnschedulableName, config.TaintTolerationName}
	for _, tc := range []struct {
		v                 framework.KubeVersion
		preFilter, filter []string
	}{
		{framework.KubeV136, rest, append(slices.Clone(lead136), rest...)},
		{framework.KubeV137, append(slices.Clone(lead137), rest...), append(slices.Clone(lead137), rest...)},
	} {
		want := framework.Profile{
			SchedulerName: DefaultSchedulerName,
			KubeVersion:   tc.v,
			PreEnqueue:    []string{config.SchedulingGatesName, config.DynamicResourcesName},
			QueueSort:     []string{config.PrioritySortName},
			PreFilter:     tc.preFilter,
			Filter:        tc.filter,
			PostFilter:    []string{config.DynamicResourcesName, config.DefaultPreemptionName},
			PreScore: []string{config.TaintTolerationName, config.NodeAffinityName, config.NodeResourcesFitName,
				config.VolumeBindingName, config.PodTopologySpreadName, config.InterPodAffinityName,
				config.NodeResourcesBalancedAllocationName},
			Score: []string{config.TaintTolerationName, config.NodeAffinityName, config.NodeResourcesFitName,
				config.VolumeBindingName, config.PodTopologySpreadName, config.InterPodAffinityName, config.DynamicResourcesName,
				config.NodeResourcesBalancedAllocationName, config.ImageLocalityName},
			Weights: map[string]int64{
				config.TaintTolerationName: 3, config.NodeAffinityName: 2, config.NodeResourcesFitName: 1, config.VolumeBindingName: 1,
				config.PodTopologySpreadName: 2, config.InterPodAffinityName: 2, config.DynamicResourcesName: 2,
				config.NodeResourcesBalancedAllocationName: 1, config.ImageLocalityName: 1,
			},
			Reserve: []string{config.VolumeBindingName, config.DynamicResourcesName},
			PreBind: []string{config.VolumeBindingName, config.DynamicResourcesName},
			Bind:    []string{config.DefaultBinderName},
		}
		if d := cmp.Diff(want, DefaultProfileFor(tc.v)); d != "" {
			t.Errorf("%s default profile (-want +got):\n%s", tc.v, d)
		}
	}
}

// TestDefaultMultiPointOrder pins each release's default multiPoint list
// (getDefaultPlugins, pkg/scheduler/apis/config/v1/default_plugins.go, of
// v1.36.4 and v1.37.2, restricted to the plugins schedkit offers): v1.37
// swaps NodeUnschedulable and NodeName.
func TestDefaultMultiPointOrder(t *testing.T) {
	tail := "TaintToleration:3 NodeAffinity:2 NodePorts NodeResourcesFit:1 VolumeRestrictions NodeVolumeLimits " +
		"VolumeBinding VolumeZone PodTopologySpread:2 InterPodAffinity:2 DynamicResources:2 DefaultPreemption NodeResourcesBalancedAllocation:1 " +
		"ImageLocality:1 DefaultBinder"
	for _, tc := range []struct {
		v    framework.KubeVersion
		want string
	}{
		{framework.KubeV136, "SchedulingGates PrioritySort NodeUnschedulable NodeName " + tail},
		{framework.KubeV137, "SchedulingGates PrioritySort NodeName NodeUnschedulable " + tail},
	} {
		var got []string
		for _, wp := range DefaultMultiPointFor(tc.v) {
			if wp.Weight != 0 {
				got = append(got, fmt.Sprintf("%s:%d", wp.Name, wp.Weight))
			} else {
				got = append(got, wp.Name)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.v, g, tc.want)
		}
	}
	if d := cmp.Diff(DefaultMultiPointFor(framework.DefaultKubeVersion), DefaultMultiPoint()); d != "" {
		t.Errorf("DefaultMultiPoint is not the newest release's (-want +got):\n%s", d)
	}
	if d := cmp.Diff(DefaultProfileFor(framework.DefaultKubeVersion), DefaultProfile()); d != "" {
		t.Errorf("DefaultProfile is not the newest release's (-want +got):\n%s", d)
	}
	// The PreFilter and Filter orders of kube v1.37.2's ExpandedPluginsV1
	// (pkg/scheduler/apis/config/testing/defaults/defaults.go) without
	// NodeDeclaredFeatures.
	p := DefaultProfileFor(framework.KubeV137)
	v137 := "NodeName NodeUnschedulable TaintToleration NodeAffinity NodePorts NodeResourcesFit VolumeRestrictions " +
		"NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread InterPodAffinity DynamicResources"
	if g := strings.Join(p.PreFilter, " "); g != v137 {
		t.Errorf("v1.37 PreFilter %s", g)
	}
	if g := strings.Join(p.Filter, " "); g != v137 {
		t.Errorf("v1.37 Filter %s", g)
	}
	p = DefaultProfileFor(framework.KubeV136)
	if g, w := strings.Join(p.PreFilter, " "), "NodeAffinity NodePorts NodeResourcesFit VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread InterPodAffinity DynamicResources"; g != w {
		t.Errorf("v1.36 PreFilter %s", g)
	}
	if g, w := strings.Join(p.Filter, " "), "NodeUnschedulable NodeName TaintToleration NodeAffinity NodePorts NodeResourcesFit VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread InterPodAffinity DynamicResources"; g != w {
		t.Errorf("v1.36 Filter %s", g)
	}
}

// TestDefaultProfileIsTheExpandedMultiPoint: DefaultProfileFor(v) is
// DefaultMultiPointFor(v) expanded to every extension point each plugin of
// release v implements, in order, with the multiPoint weights.
func TestDefaultProfileIsTheExpandedMultiPoint(t *testing.T) {
	for _, v := range framework.KubeVersions() {
		t.Run(v.String(), func(t *testing.T) { testDefaultProfileIsTheExpandedMultiPoint(t, v) })
	}
}

func testDefaultProfileIsTheExpandedMultiPoint(t *testing.T, v framework.KubeVersion) {
	reg := NewDefaultRegistry()
	got := DefaultProfileFor(v)
	h := releaseHandle(v)
	want := framework.Profile{SchedulerName: got.SchedulerName, KubeVersion: v, Weights: map[string]int64{}}
	// PreEnqueue is not one of AllPoints: the plugins implementing it.
	for _, wp := range DefaultMultiPointFor(v) {
		fac, _ := reg.Lookup(wp.Name)
		if pl, err := fac(nil, h); err == nil {
			if _, ok := pl.(framework.PreEnqueuePlugin); ok {
				want.PreEnqueue = append(want.PreEnqueue, wp.Name)
			}
		}
	}
	points := map[string]*[]string{
		PointQueueSort: &want.QueueSort, PointPreFilter: &want.PreFilter, PointFilter: &want.Filter,
		PointPostFilter: &want.PostFilter, PointPreScore: &want.PreScore, PointScore: &want.Score,
		PointReserve: &want.Reserve, PointPermit: &want.Permit, PointPreBind: &want.PreBind, PointBind: &want.Bind,
		PointPostBind: &want.PostBind,
	}
	for _, wp := range DefaultMultiPointFor(v) {
		fac, _ := reg.Lookup(wp.Name)
		pl, err := fac(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ExtensionPoints(pl) {
			*points[p] = append(*points[p], wp.Name)
			if p == PointScore {
				want.Weights[wp.Name] = max(wp.Weight, 1) // 0 means 1, as the loader resolves it
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("DefaultProfile (-expanded multiPoint +DefaultProfile):\n%s", d)
	}
	if got.Weights[config.TaintTolerationName] != 3 || got.Weights[config.InterPodAffinityName] != 2 {
		t.Fatalf("kube default weights: %v", got.Weights)
	}
	if _, err := runtime.NewFramework(reg, got, runtime.WithKubeVersion(v)); err != nil {
		t.Fatalf("default profile does not build: %v", err)
	}
}

// TestDefaultProfileCycle runs the default profile on two empty nodes and
// checks every plugin's score, derived by hand from kube-scheduler v1.36:
//
//	pod requests 1 cpu / 2Gi; n1 4 cpu / 8Gi; n2 8 cpu / 8Gi; no taints, no images.
//	TaintToleration: 0 intolerable taints everywhere → reverse-normalized 100, ×3 = 300.
//	NodeAffinity, PodTopologySpread, InterPodAffinity: PreScore Skip (nothing to score; listed as Skipped).
//	NodeResourcesFit (LeastAllocated): n1 cpu 75, mem 75 → 75; n2 cpu 7000·100/8000 = 87, mem 75 → 81.
//	BalancedAllocation (v1.36 delta): S_without = 100 on empty nodes; n1 fractions 0.25/0.25 → S_with 100
//	  → 50 + (50+100−100)/2 = 75; n2 0.125/0.25 → σ = 0.0625 → S_with 93 → 50 + 43/2 = 71.
//	ImageLocality: no images → 0.
//	VolumeBinding: no claims → 0 (v1.37 scores every pod: StorageCapacityScoring on; v1.36 skips).
//	Totals: n1 300+75+75 = 450, n2 300+81+71 = 452 → n2, margin 2.
func TestDefaultProfileCycle(t *testing.T) {
	f, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	n1 := st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}).Obj()
	n2 := st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "8", "memory": "8Gi", "pods": "110"}).Obj()
	snap := framework.MustSnapshot([]*api.Node{n1, n2}, nil)
	pod := framework.MustPodInfo(st.MakePod().Name("p").Req(map[string]string{"cpu": "1", "memory": "2Gi"}).Obj())
	res, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	want := []runtime.NodeScores{
		{Node: "n1", Total: 450, Scores: []runtime.PluginScore{
			{Plugin: "TaintToleration", Raw: 0, Normalized: 100, Weight: 3, Weighted: 300},
			{Plugin: "NodeAffinity", Weight: 2, Skipped: true},
			{Plugin: "NodeResourcesFit", Raw: 75, Normalized: 75, Weight: 1, Weighted: 75},
			{Plugin: "VolumeBinding", Weight: 1},
			{Plugin: "PodTopologySpread", Weight: 2, Skipped: true},
			{Plugin: "InterPodAffinity", Weight: 2, Skipped: true},
			{Plugin: "DynamicResources", Weight: 2},
			{Plugin: "NodeResourcesBalancedAllocation", Raw: 75, Normalized: 75, Weight: 1, Weighted: 75},
			{Plugin: "ImageLocality", Weight: 1},
		}},
		{Node: "n2", Total: 452, Scores: []runtime.PluginScore{
			{Plugin: "TaintToleration", Raw: 0, Normalized: 100, Weight: 3, Weighted: 300},
			{Plugin: "NodeAffinity", Weight: 2, Skipped: true},
			{Plugin: "NodeResourcesFit", Raw: 81, Normalized: 81, Weight: 1, Weighted: 81},
			{Plugin: "VolumeBinding", Weight: 1},
			{Plugin: "PodTopologySpread", Weight: 2, Skipped: true},
			{Plugin: "InterPodAffinity", Weight: 2, Skipped: true},
			{Plugin: "DynamicResources", Weight: 2},
			{Plugin: "NodeResourcesBalancedAllocation", Raw: 71, Normalized: 71, Weight: 1, Weighted: 71},
			{Plugin: "ImageLocality", Weight: 1},
		}},
	}
	if d := cmp.Diff(want, res.Scores()); d != "" {
		t.Fatalf("scores (-want +got):\n%s", d)
	}
	if res.SelectedNode() != "n2" || res.Margin != 2 {
		t.Fatalf("selected %s margin %d", res.SelectedNode(), res.Margin)
	}
	if d := cmp.Diff([]string{"InterPodAffinity", "NodeAffinity", "PodTopologySpread"}, res.SkippedScore); d != "" {
		t.Fatalf("skipped score plugins (-want +got):\n%s", d)
	}
}
