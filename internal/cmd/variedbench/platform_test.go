package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// platformApp names the controller of a pod of the platform workload:
// namespace/app name.
func platformApp(p *api.Pod) string { return p.Namespace + "/" + p.Labels["app.kubernetes.io/name"] }

// platformCounts are a platform workload's counts and fractions, read
// from its objects (not from the generator's state).
type platformCounts struct {
	nodes, existing, stream, namespaces, apps, racks, blocks int
	// Fractions of the apps with existing pods (each app's first pod):
	// required anti-affinity by hostname and by rack, preferred
	// anti-affinity, required and preferred affinity, a term selecting
	// in every namespace, spread (any; three constraints), node affinity
	// comparing with Gt or Lt, host ports, FPGAs, native sidecars, jobs.
	antiHost, antiRack, antiPref, affReq, affPref, everyNamespace, spread, spread3, gtLt, hostPorts, fpga, sidecar, jobs float64
	// nfd is the mean count of feature labels on a node; fpgaNodes and
	// noExecute the fractions of nodes with FPGAs and a NoExecute taint.
	nfd, fpgaNodes, noExecute float64
	// jobClasses is the fraction of the existing job pods whose labels
	// no other pod has; streamNew the fraction of the stream's pods of
	// apps with no existing pod.
	jobClasses, streamNew float64
}

func (c platformCounts) String() string {
	return fmt.Sprintf("%d nodes, %d existing pods (%.2f/node), %d incoming, %d namespaces, %d apps with pods, %d racks, %d blocks; apps: anti-affinity "+
		"host %.2f rack %.2f preferred %.2f, affinity required %.2f preferred %.2f, every-namespace terms %.2f, spread %.2f (three %.2f), Gt/Lt %.2f, "+
		"host ports %.2f, FPGA %.3f, sidecars %.2f, jobs %.2f; nodes: features %.1f, FPGA %.3f, NoExecute %.3f; job pods of their own labels %.2f; "+
		"stream pods of new apps %.2f",
		c.nodes, c.existing, float64(c.existing)/float64(c.nodes), c.stream, c.namespaces, c.apps, c.racks, c.blocks, c.antiHost, c.antiRack, c.antiPref,
		c.affReq, c.affPref, c.everyNamespace, c.spread, c.spread3, c.gtLt, c.hostPorts, c.fpga, c.sidecar, c.jobs, c.nfd, c.fpgaNodes, c.noExecute,
		c.jobClasses, c.streamNew)
}

// countPlatform reads w's counts.
func countPlatform(w *workload) platformCounts {
	c := platformCounts{nodes: len(w.nodes), existing: len(w.pods), stream: len(w.streams[streamPlatform]), namespaces: len(w.namespaces)}
	racks, blocks := map[string]bool{}, map[string]bool{}
	for _, n := range w.nodes {
		racks[n.Labels[pfRackKey]], blocks[n.Labels[pfBlockKey]] = true, true
		for k := range n.Labels {
			if len(k) > len(pfNFDPrefix) && k[:len(pfNFDPrefix)] == pfNFDPrefix {
				c.nfd++
			}
		}
		if _, ok := n.Status.Allocatable[pfFPGA]; ok {
			c.fpgaNodes++
		}
		for _, t := range n.Spec.Taints {
			if t.Effect == api.TaintEffectNoExecute {
				c.noExecute++
			}
		}
	}
	c.racks, c.blocks = len(racks), len(blocks)
	c.nfd /= float64(c.nodes)
	c.fpgaNodes /= float64(c.nodes)
	c.noExecute /= float64(c.nodes)
	labels := map[string]int{}
	for _, p := range w.pods {
		labels[fmt.Sprint(p.Namespace, p.Labels)]++
	}
	seen := map[string]bool{}
	var jobPods, ownLabels float64
	for _, p := range w.pods {
		if p.Labels[pfIndexKey] != "" {
			jobPods++
			if labels[fmt.Sprint(p.Namespace, p.Labels)] == 1 {
				ownLabels++
			}
		}
		app := platformApp(p)
		if seen[app] {
			continue
		}
		seen[app] = true
		c.apps++
		count := func(f *float64, ok bool) {
			if ok {
				*f++
			}
		}
		if a := p.Spec.Affinity; a != nil {
			if anti := a.PodAntiAffinity; anti != nil {
				for _, t := range anti.RequiredDuringSchedulingIgnoredDuringExecution {
					count(&c.antiHost, t.TopologyKey == keyHostname && t.LabelSelector.MatchLabels["app.kubernetes.io/name"] != "")
					count(&c.antiRack, t.TopologyKey == pfRackKey)
				}
				count(&c.antiPref, len(anti.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
				every := false
				for _, t := range anti.PreferredDuringSchedulingIgnoredDuringExecution {
					ns := t.PodAffinityTerm.NamespaceSelector
					every = every || ns != nil && len(ns.MatchLabels) == 0 && len(ns.MatchExpressions) == 0
				}
				count(&c.everyNamespace, every)
			}
			if pa := a.PodAffinity; pa != nil {
				count(&c.affReq, len(pa.RequiredDuringSchedulingIgnoredDuringExecution) > 0)
				count(&c.affPref, len(pa.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
			}
			if na := a.NodeAffinity; na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
				cmpOp := false
				for _, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
					for _, e := range t.MatchExpressions {
						cmpOp = cmpOp || e.Operator == api.NodeSelectorOpGt || e.Operator == api.NodeSelectorOpLt
					}
				}
				count(&c.gtLt, cmpOp)
			}
		}
		count(&c.spread, len(p.Spec.TopologySpreadConstraints) > 0)
		count(&c.spread3, len(p.Spec.TopologySpreadConstraints) == 3)
		count(&c.jobs, p.Labels[pfIndexKey] != "")
		ports, fpga, sidecar := false, false, false
		for _, ct := range slices.Concat(p.Spec.Containers, p.Spec.InitContainers) {
			for _, port := range ct.Ports {
				ports = ports || port.HostPort != 0
			}
			_, has := ct.Resources.Requests[pfFPGA]
			fpga = fpga || has
		}
		for _, ct := range p.Spec.InitContainers {
			sidecar = sidecar || ct.IsSidecar()
		}
		count(&c.hostPorts, ports)
		count(&c.fpga, fpga)
		count(&c.sidecar, sidecar)
	}
	for _, f := range []*float64{&c.antiHost, &c.antiRack, &c.antiPref, &c.affReq, &c.affPref, &c.everyNamespace, &c.spread, &c.spread3,
		&c.gtLt, &c.hostPorts, &c.fpga, &c.sidecar, &c.jobs} {
		*f /= float64(c.apps)
	}
	if jobPods > 0 {
		c.jobClasses = ownLabels / jobPods
	}
	for _, p := range w.streams[streamPlatform] {
		if !seen[platformApp(p)] {
			c.streamNew++
		}
	}
	c.streamNew /= float64(max(c.stream, 1))
	return c
}

// TestPlatformDistributions: the platform workload has the shape its
// comment gives, at several sizes and seeds: about two existing pods per
// node from about 1,500 apps at 5,000 nodes, racks of about 20 nodes and
// blocks of five racks, a dozen feature labels a node, the affinity,
// spread and node constraints in their proportions, job pods each of its
// own labels, about a third of the stream from new apps.
func TestPlatformDistributions(t *testing.T) {
	bounds := []bound[platformCounts]{
		{"existing pods per node", func(c platformCounts) float64 { return float64(c.existing) / float64(c.nodes) }, 1.7, 2.01},
		{"nodes per rack", func(c platformCounts) float64 { return float64(c.nodes) / float64(c.racks) }, 17, 23},
		{"racks per block", func(c platformCounts) float64 { return float64(c.racks) / float64(c.blocks) }, 4, 5.1},
		{"namespaces", func(c platformCounts) float64 { return float64(c.namespaces) }, 10, 40},
		{"required anti-affinity by hostname", func(c platformCounts) float64 { return c.antiHost }, 0.18, 0.34},
		{"required anti-affinity by rack", func(c platformCounts) float64 { return c.antiRack }, 0.04, 0.12},
		{"preferred anti-affinity", func(c platformCounts) float64 { return c.antiPref }, 0.2, 0.35},
		{"required affinity", func(c platformCounts) float64 { return c.affReq }, 0.01, 0.1},
		{"preferred affinity", func(c platformCounts) float64 { return c.affPref }, 0.01, 0.12},
		{"terms over every namespace", func(c platformCounts) float64 { return c.everyNamespace }, 0.02, 0.09},
		{"spread", func(c platformCounts) float64 { return c.spread }, 0.35, 0.55},
		{"three spread constraints", func(c platformCounts) float64 { return c.spread3 }, 0.04, 0.15},
		{"node affinity with Gt or Lt", func(c platformCounts) float64 { return c.gtLt }, 0.15, 0.38},
		{"host ports", func(c platformCounts) float64 { return c.hostPorts }, 0.02, 0.08},
		{"FPGAs", func(c platformCounts) float64 { return c.fpga }, 0.01, 0.06},
		{"native sidecars", func(c platformCounts) float64 { return c.sidecar }, 0.05, 0.35},
		{"jobs", func(c platformCounts) float64 { return c.jobs }, 0.04, 0.13},
		{"feature labels per node", func(c platformCounts) float64 { return c.nfd }, 10, 16},
		{"FPGA nodes", func(c platformCounts) float64 { return c.fpgaNodes }, 0.015, 0.045},
		{"NoExecute-tainted nodes", func(c platformCounts) float64 { return c.noExecute }, 0.007, 0.025},
		{"job pods of their own labels", func(c platformCounts) float64 { return c.jobClasses }, 0.99, 1},
		{"stream pods of new apps", func(c platformCounts) float64 { return c.streamNew }, 0.15, 0.45},
	}
	checkDistributions(t, workloadPlatform, []distCase{
		{5000, 320, defaultSeed, [2]int{1200, 1500}},
		{3000, 320, 7, [2]int{700, 900}},
		{3000, 320, 2024, [2]int{700, 900}},
	}, func(w *workload) (platformCounts, int, int, int) {
		c := countPlatform(w)
		return c, c.nodes, c.stream, c.apps
	}, bounds)
}

// TestPlatformIsDeterministic: the platform workload is a function of its
// seed (checkDeterministic).
func TestPlatformIsDeterministic(t *testing.T) {
	checkDeterministic(t, workloadPlatform, streamPlatform)
}

// TestPlatformExistingPodsFit: the platform workload's existing pods fit
// their nodes (checkExistingPodsFit).
func TestPlatformExistingPodsFit(t *testing.T) {
	w, err := generate(workloadOptions{workload: workloadPlatform, nodes: 1500, seed: 3, pods: 200, order: orderKube})
	if err != nil {
		t.Fatal(err)
	}
	checkExistingPodsFit(t, w, streamPlatform, platformApp)
}

// TestPlatformExportLoads: the platform workload's export reads back as
// generated (checkExportLoads).
func TestPlatformExportLoads(t *testing.T) {
	checkExportLoads(t, workloadOptions{workload: workloadPlatform, nodes: 300, seed: defaultSeed, pods: 80, order: orderKube}, streamPlatform)
}

// TestPlatformStreamSchedules: schedkit's side runs the platform stream
// (checkStreamSchedules).
func TestPlatformStreamSchedules(t *testing.T) {
	checkStreamSchedules(t, streamPlatform, 75)
}
