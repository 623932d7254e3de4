package configfile

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// TestLoadedConfigRuns: every plugin of the default registry enabled
// through multiPoint, under each release and each combination of the
// workload gates: what Load accepts, New runs with the options it
// returns.
func TestLoadedConfigRuns(t *testing.T) {
	feats := []framework.WorkloadFeatures{{}, {GenericWorkload: true}, gsFeatures,
		{GenericWorkload: true, TopologyAwareWorkloadScheduling: true}, allWorkloadFeatures}
	for _, v := range []framework.KubeVersion{framework.KubeV136, framework.KubeV137} {
		for _, f := range feats {
			for _, spec := range scheduling.DefaultPlugins() {
				in := cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: " + spec.Name + "}]\n"
				cfg, err := Load([]byte(in), WithKubeVersion(v), WithWorkloadFeatures(f))
				if err != nil {
					continue // refused at load: nothing to run
				}
				if _, err := scheduling.New(emptyCluster(t), cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions()...); err != nil {
					t.Errorf("%s, gates %+v, multiPoint %s: loads, but New refuses its options: %v", v, f, spec.Name, err)
				}
			}
		}
	}
}
