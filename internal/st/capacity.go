package st

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// This file generates, for the topology plugins' replica benchmarks, a
// cluster shaped like the what-if benchmark's kubectl dump
// (internal/kubegen at 5,000 nodes): three zones, a hostname per node,
// 18 pods per node from 300 deployments in six namespaces, a third of the
// deployments with preferred hostname anti-affinity to themselves, one in
// twenty with required anti-affinity, one in ten with a soft zone spread;
// and the what-if benchmark's two capacity templates.

// CapacityCluster returns n nodes and 18·n pods assigned to them, and the
// namespaces, drawn from seed.
func CapacityCluster(n int, seed uint64) ([]*api.Node, []*api.Pod, []api.Namespace) {
	rng := rand.New(rand.NewPCG(seed, 7))
	zones := []string{"europe-west1-b", "europe-west1-c", "europe-west1-d"}
	namespaces := []string{"shop", "search", "payments", "web", "batch", "infra"}
	var ns []api.Namespace
	for _, name := range namespaces {
		ns = append(ns, api.Namespace{Name: name, Labels: map[string]string{"team": name}})
	}
	nodes := make([]*api.Node, n)
	for i := range nodes {
		nodes[i] = MakeNode().Name(fmt.Sprintf("node-%05d", i)).Label(VariedZoneKey, zones[i%len(zones)]).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"}).Obj()
	}
	type app struct {
		name, ns  string
		pref, req bool
		spread    bool
	}
	apps := make([]app, 300)
	for i := range apps {
		apps[i] = app{name: fmt.Sprintf("app-%03d", i), ns: namespaces[i%len(namespaces)],
			pref: i%3 == 0, req: i%20 == 7, spread: i%10 == 1}
	}
	pods := make([]*api.Pod, 0, 18*n)
	for i := range 18 * n {
		a := &apps[rng.IntN(len(apps))]
		w := MakePod().Name(fmt.Sprintf("%s-%06d", a.name, i)).Namespace(a.ns).Label("app", a.name).
			Node(nodes[rng.IntN(n)].Name).Req(map[string]string{"cpu": "100m", "memory": "256Mi"})
		if a.pref {
			w.PodAffinityTerm(builder.PodAntiAffinityWithPreferredReq, 100, capacityHostTerm(a.name))
		}
		if a.req {
			w.PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, capacityHostTerm(a.name))
		}
		if a.spread {
			w.SpreadConstraint(PtsConstraint(1, VariedZoneKey, api.ScheduleAnyway, PtsMatchLabels("app", a.name), nil, nil, nil, nil))
		}
		pods = append(pods, w.Obj())
	}
	return nodes, pods, ns
}

// CapacitySpreadTemplate is the what-if benchmark's web deployment:
// 500m / 1Gi, preferred hostname anti-affinity (weight 100) and a soft
// zone spread.
func CapacitySpreadTemplate() *api.Pod {
	return MakePod().Name("web-v2").Namespace("shop").Label("app", "web-v2").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).
		PodAffinityTerm(builder.PodAntiAffinityWithPreferredReq, 100, capacityHostTerm("web-v2")).
		SpreadConstraint(PtsConstraint(1, VariedZoneKey, api.ScheduleAnyway, PtsMatchLabels("app", "web-v2"), nil, nil, nil, nil)).Obj()
}

// CapacityOnePerNodeTemplate is the what-if benchmark's search API: 2 /
// 6Gi, required hostname anti-affinity and a hard zone spread.
func CapacityOnePerNodeTemplate() *api.Pod {
	return MakePod().Name("search-api").Namespace("search").Label("app", "search-api").Req(map[string]string{"cpu": "2", "memory": "6Gi"}).
		PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, capacityHostTerm("search-api")).
		SpreadConstraint(PtsConstraint(1, VariedZoneKey, api.DoNotSchedule, PtsMatchLabels("app", "search-api"), nil, nil, nil, nil)).Obj()
}

// capacityHostTerm selects the pods labelled app=name, per hostname.
func capacityHostTerm(name string) api.PodAffinityTerm {
	return api.PodAffinityTerm{LabelSelector: PtsMatchLabels("app", name), TopologyKey: VariedHostKey}
}

// Replica returns a copy of tmpl named name on node (node "" for a
// pending one) that shares tmpl's PodInfo but for the Pod, as
// WhatIf.Capacity's replicas do.
func Replica(tmpl *fw.PodInfo, name, node string) *fw.PodInfo {
	p := *tmpl.Pod
	p.Name, p.UID, p.Spec.NodeName = name, name, node
	pi := *tmpl
	pi.Pod = &p
	return &pi
}

// AddedPods adds pods (each naming its node) to snap and returns them as
// framework.AddedPods whose nodes are the snapshot's NodeInfos after all
// the additions, as an incremental runner hands them to the plugins.
func AddedPods(snap *fw.Snapshot, pods []*fw.PodInfo) ([]fastpath.AddedPod, error) {
	for _, pi := range pods {
		if _, err := snap.AddPodInfo(pi, fw.PodAdd{}); err != nil {
			return nil, err
		}
	}
	added := make([]fastpath.AddedPod, len(pods))
	for i, pi := range pods {
		ni, _ := snap.Get(pi.Pod.Spec.NodeName)
		added[i] = fastpath.AddedPod{Pod: pi, Node: ni}
	}
	return added, nil
}

// CapacityRun steps a capacity question for benchmarks: each Add places
// the next replica of Tmpl on Snap (on the nodes in a fixed scattered
// order), and Window returns the next cycle's scored nodes, consecutive
// snapshot nodes from a start that advances by step (the scheduler's
// round-robin sampling).
type CapacityRun struct {
	Snap   *fw.Snapshot
	Tmpl   *fw.PodInfo
	seq    int
	start  int
	window []*fw.NodeInfo
	idx    []int32
}

// NewCapacityRun returns a run of tmpl's replicas on a snapshot of nodes,
// pods and namespaces.
func NewCapacityRun(nodes []*api.Node, pods []*api.Pod, ns []api.Namespace, tmpl *api.Pod) (*CapacityRun, error) {
	snap, err := fw.NewSnapshot(nodes, pods, fw.WithNamespaces(ns...))
	if err != nil {
		return nil, err
	}
	pi, err := fw.NewPodInfo(tmpl)
	if err != nil {
		return nil, err
	}
	return &CapacityRun{Snap: snap, Tmpl: pi}, nil
}

// Add places the next replica and returns it as added.
func (r *CapacityRun) Add() ([]fastpath.AddedPod, error) {
	r.seq++
	nodes := r.Snap.Nodes()
	node := nodes[(r.seq*7919)%len(nodes)].Name()
	return AddedPods(r.Snap, []*fw.PodInfo{Replica(r.Tmpl, fmt.Sprintf("%s-r%d", r.Tmpl.Pod.Name, r.seq), node)})
}

// Incoming returns the pending replica of the next cycle.
func (r *CapacityRun) Incoming() *fw.PodInfo {
	return Replica(r.Tmpl, fmt.Sprintf("%s-r%d", r.Tmpl.Pod.Name, r.seq+1), "")
}

// Window returns the next cycle's size scored nodes and their snapshot
// indices (reused buffers), then advances the start by step.
func (r *CapacityRun) Window(size, step int) ([]*fw.NodeInfo, []int32) {
	nodes := r.Snap.Nodes()
	size = min(size, len(nodes))
	r.window, r.idx = r.window[:0], r.idx[:0]
	for i := range size {
		k := (r.start + i) % len(nodes)
		r.window = append(r.window, nodes[k])
		r.idx = append(r.idx, int32(k))
	}
	r.start = (r.start + step) % len(nodes)
	return r.window, r.idx
}

// DrawAdded adds to snap, on random nodes, between one and three replicas
// of tmpl (named r<seq>) and some pods drawn by other (named o<seq>; nil:
// none), and returns them as AddedPods (see AddedPods).
func DrawAdded(t *rapid.T, snap *fw.Snapshot, tmpl *fw.PodInfo, other func(name, node string) *api.Pod, seq *int) []fastpath.AddedPod {
	var pods []*fw.PodInfo
	nodes := snap.Nodes()
	for range rapid.IntRange(1, 3).Draw(t, "replicas") {
		*seq++
		node := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name()
		pods = append(pods, Replica(tmpl, fmt.Sprintf("r%d", *seq), node))
	}
	for other != nil && rapid.IntRange(0, 2).Draw(t, "other") > 0 {
		*seq++
		node := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "otherOn")].Name()
		pods = append(pods, fw.MustPodInfo(other(fmt.Sprintf("o%d", *seq), node)))
	}
	added, err := AddedPods(snap, pods)
	if err != nil {
		t.Fatal(err)
	}
	return added
}

// CapacityStep is one timed iteration of CapacityBench in the given mode:
// the cycle of pi, the next pending replica, over window (the snapshot
// nodes idx) after added were placed.
type CapacityStep func(mode string, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fastpath.AddedPod) *fw.Status

// CapacityBench runs, for 1,000 and 5,000 nodes (CapacityCluster,
// generated once per size) and the what-if templates (spread,
// one-per-node), a sub-benchmark <n>nodes/<template>/<plugin>/<mode> for
// each plugin and for AddOnly and each mode. Each starts from a
// CapacityRun with two replicas per node placed (the midst of a question),
// on which start prepares the plugin's state and returns the step; every
// iteration then places a replica and draws a 500-node window (advancing
// by 822 nodes, as the scheduler's sampling does at this size), which is
// all AddOnly does, and calls the step.
func CapacityBench(b *testing.B, plugins, modes []string, start func(b *testing.B, plugin string, run *CapacityRun) CapacityStep) {
	for _, n := range []int{1000, 5000} {
		var nodes []*api.Node
		var pods []*api.Pod
		var ns []api.Namespace
		for _, tmpl := range []struct {
			name string
			pod  *api.Pod
		}{{"spread", CapacitySpreadTemplate()}, {"one-per-node", CapacityOnePerNodeTemplate()}} {
			for _, plugin := range plugins {
				for _, mode := range append([]string{"AddOnly"}, modes...) {
					b.Run(fmt.Sprintf("%dnodes/%s/%s/%s", n, tmpl.name, plugin, mode), func(b *testing.B) {
						if nodes == nil { // generated once per size, for the sub-benchmarks run
							nodes, pods, ns = CapacityCluster(n, 1)
						}
						run, err := NewCapacityRun(nodes, pods, ns, tmpl.pod)
						if err != nil {
							b.Fatal(err)
						}
						for range 2 * n {
							if _, err := run.Add(); err != nil {
								b.Fatal(err)
							}
						}
						step := start(b, plugin, run)
						b.ReportAllocs()
						b.ResetTimer()
						for range b.N {
							added, err := run.Add()
							if err != nil {
								b.Fatal(err)
							}
							pi := run.Incoming()
							window, idx := run.Window(500, 822)
							if mode == "AddOnly" {
								continue
							}
							if s := step(mode, pi, window, idx, added); !s.IsSuccess() && !s.IsSkip() {
								b.Fatal(s)
							}
						}
					})
				}
			}
		}
	}
}

// NodesAndPods returns the node objects of snap, in its order, and the
// pods on them, node by node: what a snapshot built afresh to compare
// with snap is built from.
func NodesAndPods(snap *fw.Snapshot) ([]*api.Node, []*api.Pod) {
	var nodes []*api.Node
	var pods []*api.Pod
	for _, ni := range snap.Nodes() {
		nodes = append(nodes, ni.Node())
		for _, pi := range ni.Pods {
			pods = append(pods, pi.Pod)
		}
	}
	return nodes, pods
}
