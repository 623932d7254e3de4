package st

import (
	"fmt"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// Label keys of BatchCluster.
const (
	BatchZoneKey = "topology.kubernetes.io/zone"
	BatchHostKey = "kubernetes.io/hostname"
	BatchRackKey = "rack"
)

// BatchCluster draws a small random cluster and an incoming pod that
// exercise every default plugin's filter and score paths: nodes with or
// without zone, rack and hostname labels, taints of every effect, cordons,
// extended resources, images and host ports in use; assigned pods with
// labels, requests, host ports, required and preferred pod
// (anti-)affinity and spread constraints; and an incoming pod drawing from
// the same features plus tolerations, a nodeSelector, required and
// preferred node affinity and now and then a nodeName. Batch-versus-Filter
// and batch-versus-Score property tests use it.
func BatchCluster(t *rapid.T) (nodes []*api.Node, pods []*api.Pod, incoming *api.Pod) {
	n := rapid.IntRange(1, 24).Draw(t, "nodes")
	zones := rapid.IntRange(1, 4).Draw(t, "zones")
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		w := MakeNode().Name(name).Capacity(map[string]string{
			"cpu":               fmt.Sprint(rapid.IntRange(0, 8).Draw(t, "cpu")),
			"memory":            fmt.Sprintf("%dGi", rapid.IntRange(0, 16).Draw(t, "mem")),
			"pods":              fmt.Sprint(rapid.IntRange(0, 6).Draw(t, "pods")),
			"ephemeral-storage": fmt.Sprintf("%dGi", rapid.IntRange(0, 4).Draw(t, "eph")),
			"example.com/gpu":   fmt.Sprint(rapid.IntRange(0, 2).Draw(t, "gpu")),
		})
		if rapid.IntRange(0, 9).Draw(t, "hasHost") > 0 {
			w = w.Label(BatchHostKey, name)
		}
		if rapid.IntRange(0, 5).Draw(t, "hasZone") > 0 {
			w = w.Label(BatchZoneKey, fmt.Sprintf("z%d", rapid.IntRange(0, zones-1).Draw(t, "zone")))
		}
		if rapid.Bool().Draw(t, "hasRack") {
			w = w.Label(BatchRackKey, fmt.Sprintf("r%d", rapid.IntRange(0, 2).Draw(t, "rack")))
		}
		for range rapid.IntRange(0, 2).Draw(t, "taints") {
			w = w.Taint(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "taintKey"), "x",
				rapid.SampledFrom([]api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute, api.TaintEffectPreferNoSchedule}).Draw(t, "effect"))
		}
		if rapid.IntRange(0, 7).Draw(t, "cordon") == 0 {
			w = w.Unschedulable()
		}
		if rapid.IntRange(0, 2).Draw(t, "hasImage") == 0 {
			w = w.Image(int64(rapid.IntRange(0, 2000).Draw(t, "imageMiB"))<<20, rapid.SampledFrom([]string{"app:v1", "app", "side:latest"}).Draw(t, "image"))
		}
		nodes = append(nodes, w.Obj())
	}
	for k := range rapid.IntRange(0, 3*n).Draw(t, "pods") {
		node := nodes[rapid.IntRange(0, n-1).Draw(t, "podNode")].Name
		w := batchPod(t, fmt.Sprintf("p%d", k)).Node(node)
		pods = append(pods, w.Obj())
	}
	w := batchPod(t, "incoming")
	for range rapid.IntRange(0, 2).Draw(t, "tolerations") {
		w = w.Toleration(api.Toleration{Key: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "tolKey"), Operator: api.TolerationOpExists,
			Effect: rapid.SampledFrom([]api.TaintEffect{"", api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule}).Draw(t, "tolEffect")})
	}
	switch rapid.IntRange(0, 5).Draw(t, "nodeConstraint") {
	case 0:
		w = w.NodeSelector(map[string]string{BatchZoneKey: "z0"})
	case 1:
		w = w.RequiredNodeAffinity(LabelIn(BatchZoneKey, "z0", "z1"))
	case 2:
		w = w.PreferredNodeAffinity(rapid.Int32Range(1, 10).Draw(t, "naWeight"), LabelIn(BatchRackKey, "r1"))
	case 3:
		if rapid.IntRange(0, 3).Draw(t, "nodeName") == 0 {
			w = w.Node(nodes[rapid.IntRange(0, n-1).Draw(t, "nodeNameIdx")].Name)
		}
	}
	return nodes, pods, w.Obj()
}

// batchPod draws a pod's labels, requests, host port, pod (anti-)affinity
// and spread constraints.
func batchPod(t *rapid.T, name string) *PodWrapper {
	app := rapid.SampledFrom([]string{"web", "db", "cache"}).Draw(t, "app")
	w := MakePod().Name(name).UID(name).Label("app", app)
	if rapid.IntRange(0, 4).Draw(t, "other") == 0 {
		w = w.Namespace("other")
	}
	req := map[string]string{}
	if rapid.IntRange(0, 4).Draw(t, "bestEffort") > 0 {
		req["cpu"] = fmt.Sprintf("%dm", rapid.IntRange(0, 3000).Draw(t, "reqCPU"))
		req["memory"] = fmt.Sprintf("%dMi", rapid.IntRange(0, 6000).Draw(t, "reqMem"))
	}
	if rapid.IntRange(0, 4).Draw(t, "reqEph") == 0 {
		req["ephemeral-storage"] = "1Gi"
	}
	if rapid.IntRange(0, 4).Draw(t, "reqGPU") == 0 {
		req["example.com/gpu"] = "1"
	}
	w = w.Container(rapid.SampledFrom([]string{"", "app:v1", "app", "side"}).Draw(t, "podImage"), req)
	if rapid.IntRange(0, 5).Draw(t, "hostPort") == 0 {
		w = w.HostPort(rapid.SampledFrom([]string{"", "10.0.0.1"}).Draw(t, "hostIP"), api.ProtocolTCP, int32(rapid.IntRange(80, 81).Draw(t, "port")))
	}
	keys := []string{BatchHostKey, BatchZoneKey, BatchRackKey}
	apps := []string{"web", "db", "cache"}
	for range rapid.IntRange(0, 2).Draw(t, "affinityTerms") {
		kind := rapid.SampledFrom([]PodAffinityKind{PodAffinityWithRequiredReq, PodAffinityWithPreferredReq,
			PodAntiAffinityWithRequiredReq, PodAntiAffinityWithPreferredReq}).Draw(t, "termKind")
		term := selectorTerm(rapid.SampledFrom(keys).Draw(t, "termKey"), api.LabelSelectorOpIn, "app",
			[]string{rapid.SampledFrom(apps).Draw(t, "termApp")})
		w = w.PodAffinityTerm(kind, rapid.Int32Range(1, 100).Draw(t, "termWeight"), term)
	}
	type spreadKey struct {
		key  string
		when api.UnsatisfiableConstraintAction
	}
	seen := map[spreadKey]bool{} // kube's API validation refuses a repeated {topologyKey, whenUnsatisfiable}
	for range rapid.IntRange(0, 2).Draw(t, "spread") {
		c := api.TopologySpreadConstraint{
			MaxSkew:           rapid.Int32Range(1, 3).Draw(t, "maxSkew"),
			TopologyKey:       rapid.SampledFrom(keys).Draw(t, "spreadKey"),
			WhenUnsatisfiable: rapid.SampledFrom([]api.UnsatisfiableConstraintAction{api.DoNotSchedule, api.ScheduleAnyway}).Draw(t, "when"),
			LabelSelector:     &api.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom(apps).Draw(t, "spreadApp")}},
		}
		if rapid.IntRange(0, 3).Draw(t, "minDomains") == 0 && c.WhenUnsatisfiable == api.DoNotSchedule {
			m := rapid.Int32Range(1, 4).Draw(t, "minDomainsValue")
			c.MinDomains = &m
		}
		if rapid.IntRange(0, 3).Draw(t, "honorTaints") == 0 {
			h := api.NodeInclusionPolicyHonor
			c.NodeTaintsPolicy = &h
		}
		if k := (spreadKey{c.TopologyKey, c.WhenUnsatisfiable}); !seen[k] {
			seen[k] = true
			w = w.SpreadConstraint(c)
		}
	}
	return w
}

// SnapshotIndices returns each node's index in state's snapshot, as the
// runner passes them to batch plugins, or nil when some node is not the
// snapshot's own (a copy) or state has no snapshot.
func SnapshotIndices(state *fw.CycleState, nodes []*fw.NodeInfo) []int32 {
	snap := state.Snapshot()
	if snap == nil {
		return nil
	}
	idx := make([]int32, len(nodes))
	for i, n := range nodes {
		if k := n.Index(); k < 0 || k >= snap.NumNodes() || snap.Nodes()[k] != n {
			return nil
		}
		idx[i] = int32(n.Index())
	}
	return idx
}

// BatchSnapshot draws BatchCluster's cluster and returns its snapshot,
// the incoming pod's PodInfo and the snapshot's nodes.
func BatchSnapshot(t *rapid.T) (*fw.Snapshot, *fw.PodInfo, []*fw.NodeInfo) {
	nodes, pods, incoming := BatchCluster(t)
	snap, err := fw.NewSnapshot(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	return snap, fw.MustPodInfo(incoming), snap.Nodes()
}
