package scheduling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scoring"
)

// Every plugin of filter, scoring and scheduling has one constructor shape,
// NewX(args, framework.Handle) (framework.Plugin, error), and one Factory:
// NewX itself for plugins without args (args must be nil), XFactory for
// plugins with args (nil args mean their defaults). Each builds from nil
// args and a nil handle, and refuses args of another type naming itself.
func TestPluginConstructorShapes(t *testing.T) {
	tests := []struct {
		name    string
		factory framework.Factory
	}{
		{config.NodeNameName, filter.NewNodeName},
		{config.NodePortsName, filter.NewNodePorts},
		{config.NodeUnschedulableName, filter.NewNodeUnschedulable},
		{config.TaintTolerationName, filter.NewTaintToleration},
		{config.NodeAffinityName, filter.NodeAffinityFactory},
		{config.NodeResourcesFitName, filter.NodeResourcesFitFactory},
		{config.PodTopologySpreadName, filter.PodTopologySpreadFactory},
		{config.InterPodAffinityName, filter.InterPodAffinityFactory},
		{config.LoadAwareSchedulingName, filter.LoadAwareFactory},
		{config.TaintTolerationName, scoring.NewTaintToleration},
		{config.ImageLocalityName, scoring.NewImageLocality},
		{config.NodeAffinityName, scoring.NodeAffinityFactory},
		{config.NodeResourcesFitName, scoring.NodeResourcesFitFactory},
		{config.NodeResourcesBalancedAllocationName, scoring.NodeResourcesBalancedAllocationFactory},
		{config.PodTopologySpreadName, scoring.PodTopologySpreadFactory},
		{config.InterPodAffinityName, scoring.InterPodAffinityFactory},
		{config.LoadAwareSchedulingName, scoring.LoadAwareFactory},
		{config.PrioritySortName, scheduling.NewPrioritySort},
		{scheduling.DefaultBinderName, scheduling.NewDefaultBinder},
		{config.DefaultPreemptionName, scheduling.DefaultPreemptionFactory},
		{config.LoadAwareSchedulingName, scheduling.LoadAwareSchedulingFactory},
		{config.LoadAwareSchedulingName, scheduling.LoadAwareSchedulingFactoryWithRegistry(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := tt.factory(nil, nil)
			if err != nil {
				t.Fatalf("factory(nil, nil): %v", err)
			}
			if pl.Name() != tt.name {
				t.Errorf("Name() = %q, want %q", pl.Name(), tt.name)
			}
			_, err = tt.factory(struct{ Bogus int }{}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.name+": ") || !strings.Contains(err.Error(), "struct { Bogus int }") {
				t.Errorf("factory(bogus args) error = %v, want one naming %s and the type", err, tt.name)
			}
		})
	}
}

// The same plugin, three ways: its constructor with typed args, its
// Factory with nil args (the defaults), and by name from the default
// registry.
func ExampleLoadAwareSchedulingFactory() {
	args := config.DefaultLoadAwareSchedulingArgs()
	a, _ := scheduling.NewLoadAwareScheduling(args, nil)
	b, _ := scheduling.LoadAwareSchedulingFactory(nil, nil)
	f, _ := scheduling.NewDefaultRegistry().Lookup(config.LoadAwareSchedulingName)
	c, _ := f(&args, nil)
	d, err := scheduling.NewPrioritySort("unexpected", nil)
	fmt.Println(a.Name(), b.Name(), c.Name(), d == nil, err)
	// Output: LoadAwareScheduling LoadAwareScheduling LoadAwareScheduling true PrioritySort: takes no args, got string
}
