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

// Checks the generated workloads of the varied kind (mixed, platform)
// share.

// checkExistingPodsFit checks that every existing pod of w is on a node
// of the cluster that has room for all its pods (requests counted by the
// api package, not the generator), whose NoSchedule taints and cordon it
// tolerates, whose labels its node selector and required node affinity
// match, with no host port bound twice and no two pods of an app (appOf)
// with required anti-affinity on one node; that names and UIDs are unique
// and that the pods of the stream are not on nodes.
func checkExistingPodsFit(t *testing.T, w *workload, stream string, appOf func(*api.Pod) string) {
	t.Helper()
	nodes := map[string]*api.Node{}
	for _, n := range w.nodes {
		nodes[n.Name] = n
	}
	used := map[string]resource.List{}
	ports := map[string]bool{}
	anti := map[string]bool{}
	names, uids := map[string]bool{}, map[string]bool{}
	unschedulable := api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule}
	for _, p := range slices.Concat(w.pods, w.streams[stream]) {
		if names[p.Key()] || uids[p.UID] {
			t.Fatalf("pod %s (%s): name or UID used twice", p.Key(), p.UID)
		}
		names[p.Key()], uids[p.UID] = true, true
	}
	for _, p := range w.streams[stream] {
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
			k := appOf(p) + " " + n.Name
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

// checkExportLoads checks that the export of o's workload is read by
// kubeload without error or skipped object, and reads back equal to the
// generated objects, so that kube's side (which reads the export) and
// schedkit's (which generates them) schedule the same objects.
func checkExportLoads(t *testing.T, o workloadOptions, stream string) {
	t.Helper()
	w, err := generate(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := w.export(dir, exportMeta{Workload: o.workload, Nodes: o.nodes, Seed: o.seed, Order: o.order, Existing: len(w.pods)}); err != nil {
		t.Fatal(err)
	}
	d, err := kubeload.Load(kubeload.Options{}, filepath.Join(dir, clusterFile), filepath.Join(dir, streamFile(stream)))
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
	if diff := cmp.Diff(slices.Concat(w.pods, w.streams[stream]), d.Pods, opts...); diff != "" {
		t.Errorf("pods (-generated +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(w.namespaces, d.Namespaces, opts...); diff != "" {
		t.Errorf("namespaces (-generated +loaded):\n%s", diff)
	}
}

// checkStreamSchedules runs stream on schedkit's side over every node and
// with kube's sampling, each pod assumed: leastPlaced or more of the 90
// timed pods find a node, and the nodes evaluated are what each row
// evaluates.
func checkStreamSchedules(t *testing.T, stream string, leastPlaced int) {
	t.Helper()
	for _, sampled := range []bool{false, true} {
		t.Run(fmt.Sprintf("sampled=%v", sampled), func(t *testing.T) {
			o := runOptions{workloadOptions: workloadOptions{nodes: 800, seed: defaultSeed, order: orderKube}, stream: stream,
				sampled: sampled, assumed: true, warm: 10, timed: 90, workers: 1, profile: profileDefault, tieSeed: 1}
			res, recs, err := measure(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 100 || res.Timed != 90 {
				t.Fatalf("%d records, %d timed: want 100 and 90", len(recs), res.Timed)
			}
			if res.Placed < leastPlaced {
				t.Errorf("%d of 90 timed pods placed, want %d or more", res.Placed, leastPlaced)
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

// checkDeterministic checks that one seed gives the same workload, node
// order included, that a longer stream starts with the shorter one's
// pods and leaves the cluster as it was, and that another seed gives
// another workload.
func checkDeterministic(t *testing.T, name, stream string) {
	t.Helper()
	opts := []cmp.Option{cmp.AllowUnexported(workload{}), cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }), cmpopts.EquateEmpty()}
	gen := func(seed uint64, pods int, order string) *workload {
		w, err := generate(workloadOptions{workload: name, nodes: 400, seed: seed, pods: pods, order: order})
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
				slices.Equal(placements(nil, tc.a.streams[stream]), placements(nil, tc.b.streams[stream])) {
				t.Error("two seeds give the same nodes, existing pods or stream")
			}
		})
	}
	short, long := gen(5, 25, orderKube), gen(5, 60, orderKube)
	if diff := cmp.Diff(short.streams[stream], long.streams[stream][:25], opts...); diff != "" {
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

// bound is one quantity a distributions test reads from a workload's
// counts C, and the range it must fall in.
type bound[C any] struct {
	name   string
	get    func(C) float64
	lo, hi float64
}

// distCase is a workload's size and seed, with the range of its apps
// with existing pods.
type distCase struct {
	nodes, pods int
	seed        uint64
	apps        [2]int
}

// checkDistributions generates workload name for each case, reads its
// counts (count: the counts, and the nodes, incoming pods and apps they
// hold) and checks the sizes, the apps and every bound.
func checkDistributions[C fmt.Stringer](t *testing.T, name string, cases []distCase, count func(*workload) (C, int, int, int), bounds []bound[C]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(fmt.Sprintf("nodes=%d/seed=%d", tc.nodes, tc.seed), func(t *testing.T) {
			w, err := generate(workloadOptions{workload: name, nodes: tc.nodes, seed: tc.seed, pods: tc.pods, order: orderKube})
			if err != nil {
				t.Fatal(err)
			}
			c, nodes, stream, apps := count(w)
			t.Log(c)
			if nodes != tc.nodes || stream != tc.pods {
				t.Errorf("%d nodes, %d incoming pods: want %d, %d", nodes, stream, tc.nodes, tc.pods)
			}
			if apps < tc.apps[0] || apps > tc.apps[1] {
				t.Errorf("%d apps with existing pods, want %d–%d", apps, tc.apps[0], tc.apps[1])
			}
			for _, b := range bounds {
				if v := b.get(c); v < b.lo || v > b.hi {
					t.Errorf("%s: %.3f, want %.3f–%.3f", b.name, v, b.lo, b.hi)
				}
			}
		})
	}
}
