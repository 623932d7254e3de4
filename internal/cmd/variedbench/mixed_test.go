package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/kubeload"
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
	type bound struct {
		name   string
		get    func(mixedCounts) float64
		lo, hi float64
	}
	bounds := []bound{
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
	for _, tc := range []struct {
		nodes, pods int
		seed        uint64
		apps        [2]int
	}{
		{5000, 320, defaultSeed, [2]int{330, 420}},
		{3000, 320, 7, [2]int{200, 250}},
		{3000, 320, 2024, [2]int{200, 250}},
	} {
		t.Run(fmt.Sprintf("nodes=%d/seed=%d", tc.nodes, tc.seed), func(t *testing.T) {
			w, err := generate(workloadOptions{workload: workloadMixed, nodes: tc.nodes, seed: tc.seed, pods: tc.pods, order: orderKube})
			if err != nil {
				t.Fatal(err)
			}
			c := countMixed(w)
			t.Log(c)
			if c.nodes != tc.nodes || c.stream != tc.pods {
				t.Errorf("%d nodes, %d incoming pods: want %d, %d", c.nodes, c.stream, tc.nodes, tc.pods)
			}
			if c.apps < tc.apps[0] || c.apps > tc.apps[1] {
				t.Errorf("%d apps with existing pods, want %d–%d", c.apps, tc.apps[0], tc.apps[1])
			}
			for _, b := range bounds {
				if v := b.get(c); v < b.lo || v > b.hi {
					t.Errorf("%s: %.3f, want %.3f–%.3f", b.name, v, b.lo, b.hi)
				}
			}
		})
	}
}

// TestMixedIsDeterministic: one seed gives the same workload, node order
// included, a longer stream starts with the shorter one's pods, and
// another seed gives another workload.
func TestMixedIsDeterministic(t *testing.T) {
	opts := []cmp.Option{cmp.AllowUnexported(workload{}), cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }), cmpopts.EquateEmpty()}
	gen := func(seed uint64, pods int, order string) *workload {
		w, err := generate(workloadOptions{workload: workloadMixed, nodes: 400, seed: seed, pods: pods, order: order})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	tests := []struct {
		name  string
		a, b  *workload
		equal bool
	}{
		{"same seed", gen(5, 60, orderKube), gen(5, 60, orderKube), true},
		{"same seed, generated order", gen(5, 60, orderGenerated), gen(5, 60, orderGenerated), true},
		{"another seed", gen(5, 60, orderKube), gen(6, 60, orderKube), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.equal {
				if diff := cmp.Diff(tc.a, tc.b, opts...); diff != "" {
					t.Errorf("two generations differ:\n%s", diff)
				}
				return
			}
			// Names and places, not cmp: comparing two unrelated
			// workloads field by field takes seconds.
			if slices.Equal(placements(tc.a.nodes, nil), placements(tc.b.nodes, nil)) ||
				slices.Equal(placements(nil, tc.a.pods), placements(nil, tc.b.pods)) ||
				slices.Equal(placements(nil, tc.a.streams[streamMixed]), placements(nil, tc.b.streams[streamMixed])) {
				t.Error("two seeds give the same nodes, existing pods or stream")
			}
		})
	}
	short, long := gen(5, 25, orderKube), gen(5, 60, orderKube)
	if diff := cmp.Diff(short.streams[streamMixed], long.streams[streamMixed][:25], opts...); diff != "" {
		t.Errorf("the stream's first pods depend on its length:\n%s", diff)
	}
	if diff := cmp.Diff(short.pods, long.pods, opts...); diff != "" {
		t.Errorf("the existing pods depend on the stream's length:\n%s", diff)
	}
}

// placements lists the nodes' names and the pods' names with their nodes.
func placements(nodes []*api.Node, pods []*api.Pod) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	for _, p := range pods {
		out = append(out, p.Key()+" "+p.Spec.NodeName)
	}
	return out
}

// TestMixedExistingPodsFit: every existing pod is on a node of the
// cluster that has room for all its pods (requests counted by the api
// package, not the generator), whose NoSchedule taints and cordon it
// tolerates, whose labels its node selector and required node affinity
// match, with no host port bound twice and no two pods of an app with
// required anti-affinity by hostname; names and UIDs are unique and the
// incoming pods are not on nodes.
func TestMixedExistingPodsFit(t *testing.T) {
	w, err := generate(workloadOptions{workload: workloadMixed, nodes: 1500, seed: 3, pods: 200, order: orderKube})
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]*api.Node{}
	for _, n := range w.nodes {
		nodes[n.Name] = n
	}
	used := map[string]resource.List{}
	ports := map[string]bool{}
	anti := map[string]bool{}
	names, uids := map[string]bool{}, map[string]bool{}
	unschedulable := api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule}
	for _, p := range slices.Concat(w.pods, w.streams[streamMixed]) {
		if names[p.Key()] || uids[p.UID] {
			t.Fatalf("pod %s (%s): name or UID used twice", p.Key(), p.UID)
		}
		names[p.Key()], uids[p.UID] = true, true
	}
	for _, p := range w.streams[streamMixed] {
		if p.Spec.NodeName != "" || p.Status.Phase != api.PodPending {
			t.Errorf("incoming pod %s: on node %q, phase %q", p.Key(), p.Spec.NodeName, p.Status.Phase)
		}
	}
	for _, p := range w.pods {
		n := nodes[p.Spec.NodeName]
		if n == nil {
			t.Fatalf("pod %s: node %q is not in the cluster", p.Key(), p.Spec.NodeName)
		}
		for _, taint := range n.Spec.Taints {
			if taint.Effect != api.TaintEffectPreferNoSchedule && !api.TolerationsTolerateTaint(p.Spec.Tolerations, &taint) {
				t.Errorf("pod %s on %s: does not tolerate %+v", p.Key(), n.Name, taint)
			}
		}
		if n.Spec.Unschedulable && !api.TolerationsTolerateTaint(p.Spec.Tolerations, &unschedulable) {
			t.Errorf("pod %s on cordoned %s", p.Key(), n.Name)
		}
		if r := api.GetRequiredNodeAffinity(p); !r.Match(n) {
			t.Errorf("pod %s on %s: node selector or affinity does not match", p.Key(), n.Name)
		}
		u := used[n.Name]
		if u == nil {
			u = resource.List{}
		}
		used[n.Name] = u.Add(api.PodRequests(p, api.RequestOptions{}).Add(resource.List{resource.Pods: resource.MustParse("1")}))
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				if port.HostPort == 0 {
					continue
				}
				k := fmt.Sprintf("%s %d/%s", n.Name, port.HostPort, port.Protocol)
				if ports[k] {
					t.Errorf("pod %s: host port %s bound twice", p.Key(), k)
				}
				ports[k] = true
			}
		}
		if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			k := mixedApp(p) + " " + n.Name
			if anti[k] {
				t.Errorf("pod %s: another pod of its app on %s despite its anti-affinity", p.Key(), n.Name)
			}
			anti[k] = true
		}
	}
	for name, u := range used {
		alloc := nodes[name].Status.Allocatable
		for r, q := range u {
			if a, ok := alloc[r]; q.Sign() > 0 && (!ok || q.Cmp(a) > 0) {
				t.Errorf("node %s: %s %s requested, %s allocatable", name, r, q.String(), a.String())
			}
		}
	}
}

// TestMixedExportLoads: the exported cluster and stream are read by
// kubeload without error or skipped object, and read back equal to the
// generated objects, so that kube's side (which reads the export) and
// schedkit's (which generates them) schedule the same objects.
func TestMixedExportLoads(t *testing.T) {
	o := workloadOptions{workload: workloadMixed, nodes: 300, seed: defaultSeed, pods: 80, order: orderKube}
	w, err := generate(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := w.export(dir, exportMeta{Workload: o.workload, Nodes: o.nodes, Seed: o.seed, Order: o.order, Existing: len(w.pods)}); err != nil {
		t.Fatal(err)
	}
	d, err := kubeload.Load(kubeload.Options{}, filepath.Join(dir, clusterFile), filepath.Join(dir, streamFile(streamMixed)))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Report.Skipped) > 0 {
		t.Errorf("kubeload skipped objects: %+v", d.Report.Skipped)
	}
	opts := []cmp.Option{cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }), cmpopts.EquateEmpty()}
	if diff := cmp.Diff(w.nodes, d.Nodes, opts...); diff != "" {
		t.Errorf("nodes (-generated +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Concat(w.pods, w.streams[streamMixed]), d.Pods, opts...); diff != "" {
		t.Errorf("pods (-generated +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(w.namespaces, d.Namespaces, opts...); diff != "" {
		t.Errorf("namespaces (-generated +loaded):\n%s", diff)
	}
}

// TestMixedStreamSchedules: schedkit's side runs the mixed stream over
// every node and with kube's sampling, each pod assumed; most pods find a
// node, some are rejected everywhere or tie, and the nodes evaluated are
// what each row evaluates.
func TestMixedStreamSchedules(t *testing.T) {
	for _, sampled := range []bool{false, true} {
		t.Run(fmt.Sprintf("sampled=%v", sampled), func(t *testing.T) {
			o := runOptions{workloadOptions: workloadOptions{nodes: 800, seed: defaultSeed, order: orderKube}, stream: streamMixed,
				sampled: sampled, assumed: true, warm: 10, timed: 90, workers: 1, profile: profileDefault, tieSeed: 1}
			res, recs, err := measure(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 100 || res.Timed != 90 {
				t.Fatalf("%d records, %d timed: want 100 and 90", len(recs), res.Timed)
			}
			if res.Placed < 75 {
				t.Errorf("%d of 90 timed pods placed, want most", res.Placed)
			}
			for _, r := range recs {
				if !sampled && r.Evaluated != 0 && r.Evaluated != 800 {
					t.Errorf("pod %d %s: %d nodes evaluated over every node of 800", r.I, r.Pod, r.Evaluated)
				}
				if r.Feasible > r.Evaluated {
					t.Errorf("pod %d %s: %d feasible of %d evaluated", r.I, r.Pod, r.Feasible, r.Evaluated)
				}
			}
		})
	}
}
