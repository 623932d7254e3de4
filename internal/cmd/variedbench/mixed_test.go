package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// mixedApp names the controller of a pod of the mixed workload:
// namespace/app label (either spelling).
func mixedApp(p *api.Pod) string {
	if v, ok := p.Labels["app"]; ok {
		return p.Namespace + "/" + v
	}
	return p.Namespace + "/" + p.Labels["app.kubernetes.io/name"]
}

// mixedCounts are a mixed workload's counts and fractions, read from its
// objects (not from the generator's state).
type mixedCounts struct {
	nodes, existing, stream, namespaces, apps int
	// Fractions of the apps with existing pods (each app's first pod):
	// required and preferred pod anti-affinity, required and preferred
	// pod affinity, topology spread constraints (any; with matchLabelKeys;
	// with minDomains), node affinity, node selector, host ports, a
	// sidecar, a plain init container, no requests at all, GPUs,
	// StatefulSets, a term with a namespaceSelector.
	antiReq, antiPref, affReq, affPref, spread, spreadKeys, spreadMinDomains, nodeAffinity,
	nodeSelector, hostPorts, sidecar, initContainer, bestEffort, gpuPods, stateful, nsSelector float64
	// Fractions of the nodes: PreferNoSchedule taint, cordoned, GPUs,
	// a NoSchedule taint; images per node.
	preferNoSchedule, cordoned, gpuNodes, noSchedule float64
	minImages, maxImages                             int
	// streamNew is the fraction of the stream's pods of apps with no
	// existing pod.
	streamNew float64
}

func (c mixedCounts) String() string {
	return fmt.Sprintf("%d nodes, %d existing pods (%.2f/node), %d incoming, %d namespaces, %d apps with pods; apps: anti-affinity required %.2f preferred %.2f, "+
		"affinity required %.2f preferred %.2f, spread %.2f (matchLabelKeys %.2f, minDomains %.2f), node affinity %.2f, node selector %.2f, host ports %.2f, "+
		"sidecar %.2f, init %.2f, best-effort %.2f, GPU %.2f, StatefulSets %.2f, namespaceSelector terms %.2f; nodes: PreferNoSchedule %.3f, cordoned %.3f, "+
		"GPU %.3f, NoSchedule-tainted %.3f, images %d–%d; stream pods of new apps %.2f",
		c.nodes, c.existing, float64(c.existing)/float64(c.nodes), c.stream, c.namespaces, c.apps, c.antiReq, c.antiPref, c.affReq, c.affPref,
		c.spread, c.spreadKeys, c.spreadMinDomains, c.nodeAffinity, c.nodeSelector, c.hostPorts, c.sidecar, c.initContainer, c.bestEffort, c.gpuPods,
		c.stateful, c.nsSelector, c.preferNoSchedule, c.cordoned, c.gpuNodes, c.noSchedule, c.minImages, c.maxImages, c.streamNew)
}

// countMixed reads w's counts.
func countMixed(w *workload) mixedCounts {
	c := mixedCounts{nodes: len(w.nodes), existing: len(w.pods), stream: len(w.streams[streamMixed]), namespaces: len(w.namespaces), minImages: 1 << 30}
	for _, n := range w.nodes {
		for _, t := range n.Spec.Taints {
			switch {
			case t.Effect == api.TaintEffectPreferNoSchedule:
				c.preferNoSchedule++
			case t.Effect == api.TaintEffectNoSchedule && t.Key != "node.kubernetes.io/unschedulable":
				c.noSchedule++
			}
		}
		if n.Spec.Unschedulable {
			c.cordoned++
		}
		if _, ok := n.Status.Allocatable["nvidia.com/gpu"]; ok {
			c.gpuNodes++
		}
		c.minImages, c.maxImages = min(c.minImages, len(n.Status.Images)), max(c.maxImages, len(n.Status.Images))
	}
	for _, f := range []*float64{&c.preferNoSchedule, &c.cordoned, &c.gpuNodes, &c.noSchedule} {
		*f /= float64(c.nodes)
	}
	seen := map[string]bool{}
	count := func(f *float64, ok bool) {
		if ok {
			*f++
		}
	}
	for _, p := range w.pods {
		if seen[mixedApp(p)] {
			continue
		}
		seen[mixedApp(p)] = true
		c.apps++
		a := p.Spec.Affinity
		if a == nil {
			a = &api.Affinity{}
		}
		pa, anti := a.PodAffinity, a.PodAntiAffinity
		if pa == nil {
			pa = &api.PodAffinity{}
		}
		if anti == nil {
			anti = &api.PodAntiAffinity{}
		}
		count(&c.antiReq, len(anti.RequiredDuringSchedulingIgnoredDuringExecution) > 0)
		count(&c.antiPref, len(anti.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
		count(&c.affReq, len(pa.RequiredDuringSchedulingIgnoredDuringExecution) > 0)
		count(&c.affPref, len(pa.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
		nsSel := false
		for _, t := range slices.Concat(pa.RequiredDuringSchedulingIgnoredDuringExecution, anti.RequiredDuringSchedulingIgnoredDuringExecution) {
			nsSel = nsSel || t.NamespaceSelector != nil
		}
		for _, t := range slices.Concat(pa.PreferredDuringSchedulingIgnoredDuringExecution, anti.PreferredDuringSchedulingIgnoredDuringExecution) {
			nsSel = nsSel || t.PodAffinityTerm.NamespaceSelector != nil
		}
		count(&c.nsSelector, nsSel)
		keys, minDomains := false, false
		for _, t := range p.Spec.TopologySpreadConstraints {
			keys = keys || len(t.MatchLabelKeys) > 0
			minDomains = minDomains || t.MinDomains != nil
		}
		count(&c.spread, len(p.Spec.TopologySpreadConstraints) > 0)
		count(&c.spreadKeys, keys)
		count(&c.spreadMinDomains, minDomains)
		count(&c.nodeAffinity, a.NodeAffinity != nil)
		count(&c.nodeSelector, len(p.Spec.NodeSelector) > 0)
		ports, sidecar, init, requests := false, false, false, false
		for _, ct := range slices.Concat(p.Spec.Containers, p.Spec.InitContainers) {
			for _, port := range ct.Ports {
				ports = ports || port.HostPort != 0
			}
			requests = requests || len(ct.Resources.Requests) > 0
		}
		for _, ct := range p.Spec.InitContainers {
			sidecar = sidecar || ct.IsSidecar()
			init = init || !ct.IsSidecar()
		}
		count(&c.hostPorts, ports)
		count(&c.sidecar, sidecar)
		count(&c.initContainer, init)
		count(&c.bestEffort, !requests)
		_, gpu := api.PodRequests(p, api.RequestOptions{})["nvidia.com/gpu"]
		count(&c.gpuPods, gpu)
		count(&c.stateful, p.OwnerReferences[0].Kind == "StatefulSet")
	}
	for _, f := range []*float64{&c.antiReq, &c.antiPref, &c.affReq, &c.affPref, &c.spread, &c.spreadKeys, &c.spreadMinDomains, &c.nodeAffinity,
		&c.nodeSelector, &c.hostPorts, &c.sidecar, &c.initContainer, &c.bestEffort, &c.gpuPods, &c.stateful, &c.nsSelector} {
		*f /= float64(c.apps)
	}
	for _, p := range w.streams[streamMixed] {
		if !seen[mixedApp(p)] {
			c.streamNew++
		}
	}
	c.streamNew /= float64(c.stream)
	return c
}

// TestMixedDistributions: the generated cluster and stream have the
// shape mixed.go promises, at several sizes and seeds: fractions of the
// apps with each feature, of the nodes with each taint, two existing pods
// per node on average, 12–20 namespaces, 3 or more images per node, about
// a fifth of the stream from new apps.
func TestMixedDistributions(t *testing.T) {
	bounds := []bound[mixedCounts]{
		{"existing pods per node", func(c mixedCounts) float64 { return float64(c.existing) / float64(c.nodes) }, 1.8, 2.05},
		{"namespaces", func(c mixedCounts) float64 { return float64(c.namespaces) }, 12, 20},
		{"required anti-affinity", func(c mixedCounts) float64 { return c.antiReq }, 0.25, 0.45},
		{"preferred anti-affinity", func(c mixedCounts) float64 { return c.antiPref }, 0.12, 0.28},
		{"required affinity", func(c mixedCounts) float64 { return c.affReq }, 0.04, 0.15},
		{"preferred affinity", func(c mixedCounts) float64 { return c.affPref }, 0.04, 0.16},
		{"namespaceSelector terms", func(c mixedCounts) float64 { return c.nsSelector }, 0.05, 0.4},
		{"spread", func(c mixedCounts) float64 { return c.spread }, 0.28, 0.48},
		{"spread with matchLabelKeys", func(c mixedCounts) float64 { return c.spreadKeys }, 0.1, 0.35},
		{"spread with minDomains", func(c mixedCounts) float64 { return c.spreadMinDomains }, 0.02, 0.15},
		{"node affinity", func(c mixedCounts) float64 { return c.nodeAffinity }, 0.22, 0.42},
		{"host ports", func(c mixedCounts) float64 { return c.hostPorts }, 0.015, 0.1},
		{"sidecars", func(c mixedCounts) float64 { return c.sidecar }, 0.08, 0.22},
		{"init containers", func(c mixedCounts) float64 { return c.initContainer }, 0.17, 0.33},
		{"best-effort", func(c mixedCounts) float64 { return c.bestEffort }, 0.004, 0.07},
		{"StatefulSets", func(c mixedCounts) float64 { return c.stateful }, 0.06, 0.2},
		{"PreferNoSchedule nodes", func(c mixedCounts) float64 { return c.preferNoSchedule }, 0.02, 0.04},
		{"cordoned nodes", func(c mixedCounts) float64 { return c.cordoned }, 0.005, 0.016},
		{"GPU nodes", func(c mixedCounts) float64 { return c.gpuNodes }, 0.035, 0.065},
		{"NoSchedule-tainted nodes", func(c mixedCounts) float64 { return c.noSchedule }, 0.19, 0.27},
		{"fewest images on a node", func(c mixedCounts) float64 { return float64(c.minImages) }, 3, 12},
		{"most images on a node", func(c mixedCounts) float64 { return float64(c.maxImages) }, 5, 50},
		{"stream pods of new apps", func(c mixedCounts) float64 { return c.streamNew }, 0.1, 0.35},
	}
	checkDistributions(t, workloadMixed, []distCase{
		{5000, 320, defaultSeed, [2]int{330, 420}},
		{3000, 320, 7, [2]int{200, 250}},
		{3000, 320, 2024, [2]int{200, 250}},
	}, func(w *workload) (mixedCounts, int, int, int) {
		c := countMixed(w)
		return c, c.nodes, c.stream, c.apps
	}, bounds)
}

// TestMixedIsDeterministic: the mixed workload is a function of its seed
// (checkDeterministic).
func TestMixedIsDeterministic(t *testing.T) {
	checkDeterministic(t, workloadMixed, streamMixed)
}

// TestMixedExistingPodsFit: the mixed workload's existing pods fit their
// nodes (checkExistingPodsFit).
func TestMixedExistingPodsFit(t *testing.T) {
	w, err := generate(workloadOptions{workload: workloadMixed, nodes: 1500, seed: 3, pods: 200, order: orderKube})
	if err != nil {
		t.Fatal(err)
	}
	checkExistingPodsFit(t, w, streamMixed, mixedApp)
}

// TestMixedExportLoads: the mixed workload's export reads back as
// generated (checkExportLoads).
func TestMixedExportLoads(t *testing.T) {
	checkExportLoads(t, workloadOptions{workload: workloadMixed, nodes: 300, seed: defaultSeed, pods: 80, order: orderKube}, streamMixed)
}

// TestMixedStreamSchedules: schedkit's side runs the mixed stream
// (checkStreamSchedules).
func TestMixedStreamSchedules(t *testing.T) {
	checkStreamSchedules(t, streamMixed, 75)
}
