package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// The scheduler's tests compare a cluster before and after a Revert (or a
// timeout, a preemption undone) through what the cluster shows: its pods
// and their records, every node's aggregate, the metrics, loads, groups
// and workloads. Package cluster checks its own undo journal and indexes.

// vecCmp compares resource vectors by value.
var vecCmp = cmp.Comparer(func(a, b resource.Vector) bool { return a.Equal(b) })

// Storage-class annotations naming the default class (as kube's
// storage/util.IsDefaultAnnotation reads them).
const (
	testAnnDefaultClass     = "storageclass.kubernetes.io/is-default-class"
	testAnnBetaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
)

// clusterView is a cluster's state as its reads show it.
type clusterView struct {
	Nodes      []clusterViewNode
	Pods       map[string]string
	Metrics    []*api.NodeMetric
	Images     map[string]int
	PDBs       []api.PodDisruptionBudget
	Groups     map[string]string
	PodGroups  []*api.PodGroup
	WPodGroups []*api.WorkloadPodGroup
	Workloads  []*api.Workload
	Loads      []*api.NodeLoad
	Forked     int
}

type clusterViewNode struct {
	Node                                  *api.Node
	Pods, WithAffinity, WithRequiredAnti  []string
	Requested, NonZeroRequested, Allocate resource.Vector
	UsedPorts                             framework.HostPortInfo
	ImageSizes                            map[string]int64
}

// clusterViewOf reads c's state: every pod's record (state, node,
// nomination and the PodInfo the cluster holds), every node's aggregate,
// the gang counts of every pod group its pods name, and the objects the
// cluster keeps.
func clusterViewOf(c *cluster.Cluster) clusterView {
	keys := func(s []*framework.PodInfo) []string {
		out := make([]string, len(s))
		for i, p := range s {
			out[i] = p.Pod.Key() + "@" + p.Pod.Spec.NodeName
		}
		return out
	}
	snap := c.Snapshot()
	v := clusterView{Pods: map[string]string{}, Images: map[string]int{}, Groups: map[string]string{},
		Metrics: c.NodeMetrics(), PDBs: slices.Clone(snap.DisruptionBudgets), PodGroups: c.PodGroups(),
		WPodGroups: c.WorkloadPodGroups(), Workloads: c.Workloads(), Loads: c.NodeLoads(), Forked: c.Forked()}
	for _, ni := range snap.Nodes() {
		v.Nodes = append(v.Nodes, clusterViewNode{
			Node: ni.Node(), Pods: keys(ni.Pods), WithAffinity: keys(ni.PodsWithAffinity), WithRequiredAnti: keys(ni.PodsWithRequiredAntiAffinity),
			Requested: ni.Requested.Clone(), NonZeroRequested: ni.NonZeroRequested.Clone(), Allocate: ni.Allocatable.Clone(),
			UsedPorts: ni.UsedPorts.Clone(), ImageSizes: maps.Clone(ni.ImageSizes),
		})
		for name := range ni.ImageSizes {
			v.Images[name] = snap.ImageNumNodes(name)
		}
		if got, ok := snap.Get(ni.Name()); !ok || got != ni {
			v.Images["!index "+ni.Name()] = -1
		}
	}
	for _, r := range c.Pods() {
		key := r.Pod.Key()
		pi, st, _ := c.PodInfo(key)
		v.Pods[key] = fmt.Sprintf("%s %s %s uid=%s %p", st, pi.Pod.Spec.NodeName, pi.Pod.Status.NominatedNodeName, pi.Pod.UID, pi)
		if g := api.PodGroupKey(r.Pod); g != "" {
			ns, name, _ := strings.Cut(g, "/")
			total, assigned := c.PodGroupCounts(ns, name)
			v.Groups[g] = fmt.Sprintf("total=%d assigned=%d gated=%d", total, assigned, c.PodGroupGated(ns, name))
		}
	}
	return v
}
