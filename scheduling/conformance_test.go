package scheduling

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// conformanceCluster draws the cluster a registered plugin's conformance
// run checks it on.
type conformanceCluster int

const (
	// defaultCluster is the harness's own (frameworktest.DefaultCase):
	// nodes, placed pods and an incoming pod exercising resources, images,
	// taints, affinity and spreading.
	defaultCluster conformanceCluster = iota + 1
	// volumeCluster is st.VolumeCluster: zonal nodes with CSINodes, bound
	// and unbound claims, zonal and local volumes and in-tree disks.
	volumeCluster
)

// conformanceClusters names the cluster of every Filter or Score plugin the
// registry offers. A plugin added to PluginsFor without an entry here fails
// TestConformanceWalksRegistry: its fast forms would go unchecked.
// Each home's own tests draw further clusters for the cases these reach
// rarely.
var conformanceClusters = map[string]conformanceCluster{
	config.NodeNameName:                        defaultCluster,
	config.NodeUnschedulableName:               defaultCluster,
	config.TaintTolerationName:                 defaultCluster,
	config.NodeAffinityName:                    defaultCluster,
	config.NodePortsName:                       defaultCluster,
	config.NodeResourcesFitName:                defaultCluster,
	config.VolumeRestrictionsName:              volumeCluster,
	config.NodeVolumeLimitsName:                volumeCluster,
	config.VolumeBindingName:                   volumeCluster,
	config.VolumeZoneName:                      volumeCluster,
	config.PodTopologySpreadName:               defaultCluster,
	config.InterPodAffinityName:                defaultCluster,
	config.DynamicResourcesName:                defaultCluster,
	config.NodeResourcesBalancedAllocationName: defaultCluster,
	config.ImageLocalityName:                   defaultCluster,
	config.LoadAwareSchedulingName:             defaultCluster,
	config.EBSLimitsName:                       volumeCluster,
	config.GCEPDLimitsName:                     volumeCluster,
	config.AzureDiskLimitsName:                 volumeCluster,
	config.CinderLimitsName:                    volumeCluster,
	config.TargetLoadPackingName:               defaultCluster,
	config.LoadVariationRiskBalancingName:      defaultCluster,
}

// TestConformanceWalksRegistry runs the conformance harness
// (framework/frameworktest) on every Filter or Score plugin of each
// release's table, built as the registry builds it (default args, a
// handle of the release whose DRA manager outside a cycle reads the
// case's snapshot): each plugin's batch, rejecting, incremental,
// node-local and signature forms must answer as its plain points do.
func TestConformanceWalksRegistry(t *testing.T) {
	for _, v := range []framework.KubeVersion{framework.KubeV136, framework.KubeV137} {
		for _, spec := range PluginsFor(v) {
			if !slices.Contains(spec.Points, PointFilter) && !slices.Contains(spec.Points, PointScore) {
				continue
			}
			cluster, ok := conformanceClusters[spec.Name]
			if !ok {
				t.Errorf("%s: no conformance cluster for %s, a Filter or Score plugin of the registry", v, spec.Name)
				continue
			}
			t.Run(v.String()+"/"+spec.Name, func(t *testing.T) {
				frameworktest.RunCases(t, func(rt *rapid.T) frameworktest.Case {
					var c frameworktest.Case
					switch cluster {
					case volumeCluster:
						nodes, pods, pod, objs := st.VolumeCluster(rt)
						c = frameworktest.Case{Nodes: nodes, Pods: pods, Incoming: pod,
							SnapshotOptions: []framework.SnapshotOption{framework.WithStorage(objs.Each()...)}}
					default:
						c = frameworktest.DefaultCase(rt)
					}
					snap, err := framework.NewSnapshot(c.Nodes, c.Pods, c.SnapshotOptions...)
					if err != nil {
						rt.Fatal(err)
					}
					var args any
					if spec.DefaultArgs != nil {
						args = spec.DefaultArgs()
					}
					pl, err := spec.Factory(args, releaseDRAHandle{releaseHandle(v), snap})
					if err != nil {
						rt.Fatalf("%s: %v", spec.Name, err)
					}
					c.Plugin = pl
					return c
				})
			})
		}
	}
}

// releaseDRAHandle is a Handle of one release whose DRA manager, outside
// a cycle, reads snap (DynamicResources' PreEnqueue and event hints do).
type releaseDRAHandle struct {
	framework.Handle
	snap *framework.Snapshot
}

func (h releaseDRAHandle) DRAManager(state *framework.CycleState) framework.DRAManager {
	if state == nil {
		return h.snap.DRAManager()
	}
	return h.Handle.DRAManager(state)
}
