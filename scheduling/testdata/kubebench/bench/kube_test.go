package bench

import (
	"testing"

	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// TestKubeProfileNoTopology: the notopology profile is the default one
// with PodTopologySpread's defaulting List and no default constraints
// (scheduler-config-no-topology.yaml), the other plugins' args as the
// defaults give them.
func TestKubeProfileNoTopology(t *testing.T) {
	def, _, err := kubeProfile(profileDefault)
	if err != nil {
		t.Fatal(err)
	}
	nt, _, err := kubeProfile(profileNoTopology)
	if err != nil {
		t.Fatal(err)
	}
	args := func(p schedulerapi.KubeSchedulerProfile) map[string]any {
		out := map[string]any{}
		for _, c := range p.PluginConfig {
			out[c.Name] = c.Args
		}
		return out
	}
	da, na := args(def), args(nt)
	if len(da) != len(na) {
		t.Fatalf("%d plugin args, the default profile's %d", len(na), len(da))
	}
	for name, a := range na {
		pts, ok := a.(*schedulerapi.PodTopologySpreadArgs)
		if name != names.PodTopologySpread {
			continue
		}
		if !ok || pts.DefaultingType != schedulerapi.ListDefaulting || len(pts.DefaultConstraints) != 0 {
			t.Errorf("PodTopologySpread args %+v, want defaulting List and no constraints", a)
		}
		if d := da[name].(*schedulerapi.PodTopologySpreadArgs); d.DefaultingType != schedulerapi.SystemDefaulting {
			t.Errorf("the default profile's PodTopologySpread defaulting %q, want System", d.DefaultingType)
		}
	}
	if _, ok := na[names.PodTopologySpread]; !ok {
		t.Error("no PodTopologySpread args")
	}
	if len(nt.Plugins.MultiPoint.Enabled) != len(def.Plugins.MultiPoint.Enabled) {
		t.Errorf("%d plugins, the default profile's %d", len(nt.Plugins.MultiPoint.Enabled), len(def.Plugins.MultiPoint.Enabled))
	}
}
