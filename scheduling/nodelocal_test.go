package scheduling

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// TestNodeLocalDefaultPlugins pins which of the registry's plugins
// promise node-local verdicts and scores (fastpath.NodeLocalPlugin), as
// runtime.Incremental finds them, for their filter and their score: the
// resource, taint, affinity, port and image plugins always; the volume
// plugins only for a pod without volumes; the plugins that count pods on
// other nodes (PodTopologySpread, InterPodAffinity) and the load-aware
// ones (node metrics) never.
func TestNodeLocalDefaultPlugins(t *testing.T) {
	reg := NewDefaultRegistry()
	fw, err := runtime.NewFramework(reg, DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	plain, err := framework.NewPodInfo(st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1"}).Obj())
	if err != nil {
		t.Fatal(err)
	}
	withVolume, err := framework.NewPodInfo(st.MakePod().Name("v").Namespace("default").PVC("data").Obj())
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ plain, volume bool }
	tests := []struct {
		name          string
		filter, score *want // nil: the plugin has no such point
	}{
		{name: config.NodeUnschedulableName, filter: &want{true, true}},
		{name: config.NodeNameName, filter: &want{true, true}},
		{name: config.TaintTolerationName, filter: &want{true, true}, score: &want{true, true}},
		{name: config.NodeAffinityName, filter: &want{true, true}, score: &want{true, true}},
		{name: config.NodePortsName, filter: &want{true, true}},
		{name: config.NodeResourcesFitName, filter: &want{true, true}, score: &want{true, true}},
		{name: config.NodeResourcesBalancedAllocationName, score: &want{true, true}},
		{name: config.ImageLocalityName, score: &want{true, true}},
		{name: config.VolumeRestrictionsName, filter: &want{true, false}},
		{name: config.NodeVolumeLimitsName, filter: &want{true, false}},
		{name: config.VolumeZoneName, filter: &want{true, false}},
		{name: config.VolumeBindingName, filter: &want{true, false}, score: &want{true, false}},
		{name: config.PodTopologySpreadName, filter: &want{false, false}, score: &want{false, false}},
		{name: config.InterPodAffinityName, filter: &want{false, false}, score: &want{false, false}},
		{name: config.LoadAwareSchedulingName, filter: &want{false, false}, score: &want{false, false}},
		{name: config.TargetLoadPackingName, score: &want{false, false}},
		{name: config.LoadVariationRiskBalancingName, score: &want{false, false}},
	}
	local := func(pl framework.Plugin, pod *framework.PodInfo) bool {
		nl, ok := pl.(fastpath.NodeLocalPlugin)
		return ok && nl.NodeLocal(pod)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fac, ok := reg.Lookup(tt.name)
			if !ok {
				t.Fatalf("%s is not registered", tt.name)
			}
			pl, err := fac(nil, fw)
			if err != nil {
				t.Fatal(err)
			}
			check := func(point string, target framework.Plugin, w *want) {
				if w == nil {
					return
				}
				if got := local(target, plain); got != w.plain {
					t.Errorf("%s, pod without volumes: NodeLocal = %v, want %v", point, got, w.plain)
				}
				if got := local(target, withVolume); got != w.volume {
					t.Errorf("%s, pod with a volume: NodeLocal = %v, want %v", point, got, w.volume)
				}
			}
			if _, ok := pl.(framework.FilterPlugin); ok != (tt.filter != nil) {
				t.Fatalf("Filter: %v, table says %v", ok, tt.filter != nil)
			}
			if _, ok := pl.(framework.ScorePlugin); ok != (tt.score != nil) {
				t.Fatalf("Score: %v, table says %v", ok, tt.score != nil)
			}
			check("filter", pl, tt.filter)
			check("score", pl, tt.score)
		})
	}
}
