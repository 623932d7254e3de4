package scheduling_test

import (
	"fmt"
	"github.com/schedkit/schedkit/scoring/trimaran"
	"reflect"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/scoring/imagelocality"

	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/filter/volumebinding"

	"github.com/schedkit/schedkit/filter/tainttoleration"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/coscheduling"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/gangscheduling"
	"github.com/schedkit/schedkit/filter/loadaware"
	"github.com/schedkit/schedkit/filter/nodename"
	"github.com/schedkit/schedkit/filter/nodeports"
	"github.com/schedkit/schedkit/filter/nodeunschedulable"
	"github.com/schedkit/schedkit/filter/nodevolumelimits"
	"github.com/schedkit/schedkit/filter/schedulinggates"
	"github.com/schedkit/schedkit/filter/volumerestrictions"
	"github.com/schedkit/schedkit/filter/volumezone"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/defaultbinder"
	"github.com/schedkit/schedkit/scoring/podgrouppodscount"
	"github.com/schedkit/schedkit/scoring/queuesort"
	"github.com/schedkit/schedkit/scoring/topologyaware"
)

// shapePlugin is a plugin's constructor and Factory: for a plugin with
// args, NewX(args A, framework.Handle, options...) with A a struct of
// package config, and XFactory; for a plugin without, NewX(args any,
// framework.Handle), itself the Factory.
type shapePlugin struct {
	name    string
	ctor    any
	factory framework.Factory
	noArgs  bool // the plugin takes no args
}

// shapePlugins lists every plugin constructor of filter, scoring, their
// homes and scheduling, and the optional ones.
func shapePlugins() []shapePlugin {
	noArgs := func(name string, f func(any, framework.Handle) (framework.Plugin, error)) shapePlugin {
		return shapePlugin{name, f, f, true}
	}
	// home is a plugin home's New, its Factory, which takes the args type
	// of its home.
	home := func(name string, f func(any, framework.Handle) (framework.Plugin, error)) shapePlugin {
		return shapePlugin{name, f, f, false}
	}
	return []shapePlugin{
		noArgs(config.SchedulingGatesName, schedulinggates.New),
		noArgs(config.NodeNameName, nodename.New),
		noArgs(config.NodePortsName, nodeports.New),
		noArgs(config.NodeUnschedulableName, nodeunschedulable.New),
		noArgs(config.TaintTolerationName, tainttoleration.New),
		noArgs(config.VolumeRestrictionsName, volumerestrictions.New),
		noArgs(config.NodeVolumeLimitsName, nodevolumelimits.New),
		noArgs(config.VolumeZoneName, volumezone.New),
		noArgs(config.EBSLimitsName, nodevolumelimits.NewEBSLimits),
		noArgs(config.GCEPDLimitsName, nodevolumelimits.NewGCEPDLimits),
		noArgs(config.AzureDiskLimitsName, nodevolumelimits.NewAzureDiskLimits),
		noArgs(config.CinderLimitsName, nodevolumelimits.NewCinderLimits),
		home(config.NodeAffinityName, nodeaffinity.New),
		home(config.InterPodAffinityName, interpodaffinity.New),
		home(config.VolumeBindingName, volumebinding.New),
		noArgs(config.ImageLocalityName, imagelocality.New),
		home(config.NodeResourcesFitName, noderesources.NewFit),
		home(config.NodeResourcesBalancedAllocationName, noderesources.NewBalancedAllocation),
		home(config.PodTopologySpreadName, podtopologyspread.New),
		home(config.TargetLoadPackingName, trimaran.NewTargetLoadPacking),
		home(config.TargetLoadPackingName, trimaran.TargetLoadPackingFactoryWith(trimaran.WithNodeLoadSource(trimaran.NodeLoads{}))),
		home(config.LoadVariationRiskBalancingName, trimaran.NewLoadVariationRiskBalancing),
		home(config.LoadVariationRiskBalancingName, trimaran.LoadVariationRiskBalancingFactoryWith(trimaran.WithNodeLoadSource(trimaran.NodeLoads{}))),
		noArgs(config.PrioritySortName, queuesort.New),
		noArgs(config.DefaultBinderName, defaultbinder.New),
		noArgs(config.GangSchedulingName, gangscheduling.New),
		noArgs(config.TopologyPlacementGeneratorName, topologyaware.New),
		noArgs(config.PodGroupPodsCountName, podgrouppodscount.New),
		home(config.DefaultPreemptionName, defaultpreemption.New),
		home(config.CoschedulingName, coscheduling.New),
		home(config.LoadAwareSchedulingName, loadaware.New),
		{name: config.LoadAwareSchedulingName, factory: loadaware.FactoryWith(loadaware.WithEstimators(nil))},
	}
}

// checkFactory: the factory builds the plugin from nil args and a nil
// handle, and refuses args of another type naming the plugin and the type.
func checkFactory(t *testing.T, name string, factory framework.Factory) {
	t.Helper()
	pl, err := factory(nil, nil)
	if err != nil {
		t.Fatalf("factory(nil, nil): %v", err)
	}
	if pl.Name() != name {
		t.Errorf("Name() = %q, want %q", pl.Name(), name)
	}
	_, err = factory(struct{ Bogus int }{}, nil)
	if err == nil || !strings.Contains(err.Error(), name+": ") || !strings.Contains(err.Error(), "struct { Bogus int }") {
		t.Errorf("factory(bogus args) error = %v, want one naming %s and the type", err, name)
	}
}

// Every plugin of filter, scoring, their homes and scheduling has one
// constructor shape, NewX(args, framework.Handle[, options...])
// (framework.Plugin, error), and one Factory: a home's New (args of the
// home's args type or nil, its defaults), NewX itself for plugins without
// args (args is any and must be nil), XFactory for plugins with args (a
// struct of package config; nil args mean its defaults),
// XFactoryWith(options...) for those whose options supply a dependency.
// Each builds from nil args and a nil handle, and refuses args of another
// type naming itself.
func TestPluginConstructorShapes(t *testing.T) {
	var (
		handleT = reflect.TypeFor[framework.Handle]()
		pluginT = reflect.TypeFor[framework.Plugin]()
		errorT  = reflect.TypeFor[error]()
		anyT    = reflect.TypeFor[any]()
		configP = reflect.TypeFor[config.ResourceSpec]().PkgPath()
	)
	for _, sp := range shapePlugins() {
		if sp.ctor == nil {
			t.Run(sp.name, func(t *testing.T) { checkFactory(t, sp.name, sp.factory) })
			continue
		}
		ct := reflect.TypeOf(sp.ctor)
		t.Run(fmt.Sprintf("%s/%s", sp.name, ct), func(t *testing.T) {
			fixed := ct.NumIn()
			if ct.IsVariadic() {
				fixed-- // options
			}
			if fixed != 2 || ct.In(1) != handleT || ct.NumOut() != 2 || ct.Out(0) != pluginT || ct.Out(1) != errorT {
				t.Fatalf("constructor %s, want func(args, framework.Handle[, options...]) (framework.Plugin, error)", ct)
			}
			switch args := ct.In(0); {
			case args == anyT && !sp.noArgs: // a home's New: its Factory, checked below
			case args == anyT: // a plugin without args: NewX refuses any
				out := reflect.ValueOf(sp.ctor).Call([]reflect.Value{reflect.ValueOf(struct{}{}), reflect.Zero(handleT)})
				if err, _ := out[1].Interface().(error); err == nil || !strings.Contains(err.Error(), "takes no args") {
					t.Errorf("NewX(struct{}{}, nil) error = %v, want \"takes no args\" (a plugin with args takes them typed)", err)
				}
			case args.Kind() != reflect.Struct || args.PkgPath() != configP:
				t.Errorf("args of type %s, want a struct of package config (or any for a plugin without args)", args)
			}
			checkFactory(t, sp.name, sp.factory)
		})
	}
}

// Every plugin of the default registry builds from nil args (its defaults)
// and from its DefaultArgs, names itself as registered, and refuses args
// of another type naming itself; a plugin without DefaultArgs takes none.
func TestDefaultPluginsShapes(t *testing.T) {
	for _, spec := range scheduling.DefaultPlugins() {
		t.Run(spec.Name, func(t *testing.T) {
			checkFactory(t, spec.Name, spec.Factory)
			if spec.DefaultArgs == nil {
				return
			}
			args := spec.DefaultArgs()
			if reflect.TypeOf(args).Kind() != reflect.Struct {
				t.Errorf("DefaultArgs() is a %T, want a struct", args)
			}
			if _, err := spec.Factory(args, nil); err != nil {
				t.Errorf("factory(DefaultArgs()): %v", err)
			}
		})
	}
}
