package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
)

// perfTotals are a generated scheduler_perf workload's counts.
type perfTotals struct {
	init, measured, churnPods, namespaces, tainted int
	// extra is how many nodes the cluster has beyond the size asked for;
	// special how many are not node-default.yaml's.
	extra, special int
	// services are the workload's Services, deleted its first pods being
	// deleted.
	services, deleted int
	zones             map[string]int
	events            []churnEvent
	// claims, volumes and csiNodes are the workload's storage objects;
	// slices and resourceClaims (allocated of them) its DRA objects.
	claims, volumes, csiNodes               int
	slices, resourceClaims, allocatedClaims int
}

func totalsOf(t *testing.T, w *workload, stream string, nodes int) perfTotals {
	t.Helper()
	got := perfTotals{init: len(w.pods), namespaces: len(w.namespaces), services: len(w.services), zones: map[string]int{}, events: w.events[stream], extra: len(w.nodes) - nodes,
		claims: len(w.storage.PersistentVolumeClaims), volumes: len(w.storage.PersistentVolumes), csiNodes: len(w.storage.CSINodes),
		slices: len(w.dra.ResourceSlices), resourceClaims: len(w.dra.ResourceClaims)}
	for _, c := range w.dra.ResourceClaims {
		if c.Status.Allocation != nil {
			got.allocatedClaims++
		}
	}
	for _, p := range w.pods {
		if p.DeletionTimestamp != nil {
			got.deleted++
		}
	}
	plain := perfNode("n", "")
	for _, p := range w.streams[stream] {
		if strings.HasPrefix(p.Name, "churn-") {
			got.churnPods++
		} else {
			got.measured++
		}
	}
	for _, n := range w.nodes {
		if z, ok := n.Labels[perfZoneKey]; ok {
			got.zones[z]++
		}
		if len(n.Spec.Taints) > 0 {
			got.tainted++
		}
		if len(n.Spec.Taints) > 0 || len(n.Labels) > 2 || !cmp.Equal(n.Status, plain.Status, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })) {
			got.special++
		}
		if n.Labels[perfHostKey] != n.Name {
			t.Errorf("node %s: hostname label %q", n.Name, n.Labels[perfHostKey])
		}
	}
	return got
}

// TestPerfWorkloadCounts: at 5,000 nodes each case has the counts of its
// 5000Nodes workload in kube's performance-config.yaml (written out here
// by hand), its zones in turn, and its churn every so many measured pods;
// at 1,000 nodes the counts are a fifth.
func TestPerfWorkloadCounts(t *testing.T) {
	devops100 := 101 // init-ns-0..99 and measure-ns-0
	tests := []struct {
		name  string
		nodes int
		want  perfTotals
	}{
		{"SchedulingBasic", 5000, perfTotals{init: 1000, measured: 1000, namespaces: 2, zones: map[string]int{}}},
		{"SchedulingNodeAffinity", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{"zone1": 5000}}},
		{"SchedulingPodAffinity", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{"zone1": 5000}}},
		{"SchedulingPodAntiAffinity", 5000, perfTotals{init: 1000, measured: 1000, namespaces: 2, zones: map[string]int{}}},
		{"SchedulingPodMatchingAntiAffinity", 5000, perfTotals{init: 1000, measured: 5000, namespaces: 2, zones: map[string]int{}}},
		{"SchedulingPreferredPodAffinity", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{}}},
		{"SchedulingPreferredPodAntiAffinity", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{}}},
		{"MixedSchedulingBasePod", 5000, perfTotals{init: 10000, measured: 1000, namespaces: 2, zones: map[string]int{"zone1": 5000}}},
		{"SchedulingPreferredAntiAffinityWithNSSelector", 5000, perfTotals{init: 4000, measured: 1000, namespaces: devops100, zones: map[string]int{}}},
		{"SchedulingRequiredPodAntiAffinityWithNSSelector", 5000, perfTotals{init: 4000, measured: 1000, namespaces: devops100, zones: map[string]int{}}},
		{"SchedulingRequiredPodAffinityWithNSSelector", 5000, perfTotals{init: 5000, measured: 1000, namespaces: devops100, zones: map[string]int{"zone1": 5000}}},
		{"SchedulingPreferredAffinityWithNSSelector", 5000, perfTotals{init: 5000, measured: 1000, namespaces: devops100, zones: map[string]int{}}},
		{"TopologySpreading", 5000, perfTotals{init: 5000, measured: 2000, namespaces: 2, zones: map[string]int{"moon-1": 1667, "moon-2": 1667, "moon-3": 1666}}},
		{"SchedulingWithNodeInclusionPolicy", 5000, perfTotals{measured: 4000, namespaces: 1, tainted: 1000, special: 1000, zones: map[string]int{}}},
		// 15000Nodes at a third: the named node beside the 5,000.
		{"SchedulingDaemonset", 5000, perfTotals{measured: 10000, namespaces: 1, extra: 1, special: 1, zones: map[string]int{}}},
		{"SchedulingWithExtendedResource", 5000, perfTotals{measured: 5000, namespaces: 1, special: 5000, zones: map[string]int{}}},
		{"SchedulingSecrets", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{}}},
		// A claim and a volume for every pod; with the attach limit, every
		// node's allocatable has it and every node has a CSINode.
		{"SchedulingInTreePVs", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{}, claims: 6000, volumes: 6000}},
		{"SchedulingMigratedInTreePVs", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{}, claims: 6000, volumes: 6000,
			special: 5000, csiNodes: 5000}},
		{"SchedulingCSIPVs", 5000, perfTotals{init: 5000, measured: 1000, namespaces: 2, zones: map[string]int{}, claims: 6000, volumes: 6000,
			special: 5000, csiNodes: 5000}},
		{"SchedulingCSIPVs", 1000, perfTotals{init: 1000, measured: 200, namespaces: 2, zones: map[string]int{}, claims: 1200, volumes: 1200,
			special: 1000, csiNodes: 1000}},
		// 500 nodes of devices whatever the size asked for, 2,500 of
		// their devices allocated, and a claim for every measured pod.
		{"SchedulingWithResourceClaimTemplate", 5000, perfTotals{measured: 2500, namespaces: 2, extra: 500 - 5000, zones: map[string]int{},
			slices: 500, resourceClaims: 5000, allocatedClaims: 2500}},
		{"DefaultTopologySpreading", 5000, perfTotals{init: 5000, measured: 10000, namespaces: 2, services: 1,
			zones: map[string]int{"moon-1": 1667, "moon-2": 1667, "moon-3": 1666}}},
		{"SchedulingDeletedPodsWithFinalizers", 5000, perfTotals{init: 5000, deleted: 5000, measured: 5000, namespaces: 2, zones: map[string]int{}}},
		// 20000Nodes at a quarter.
		{"HostPortConflict", 5000, perfTotals{measured: 5000, namespaces: 1, zones: map[string]int{}}},
		{"ResourceSaturation", 5000, perfTotals{measured: 5000, namespaces: 1, zones: map[string]int{}}},
		// One node whatever the size asked for.
		{"SchedulingWhileGated", 5000, perfTotals{init: 20000, measured: 20000, namespaces: 2, extra: 1 - 5000, special: 1, zones: map[string]int{}}},
		{"SchedulingWhileGated", 1000, perfTotals{init: 4000, measured: 4000, namespaces: 2, extra: 1 - 1000, special: 1, zones: map[string]int{}}},
		{"PreferredTopologySpreading", 5000, perfTotals{init: 5000, measured: 2000, namespaces: 2, zones: map[string]int{"moon-1": 1667, "moon-2": 1667, "moon-3": 1666}}},
		// A tick every 710 measured pods: the node and its pod at 710,
		// the node's removal at 1,420.
		{"SchedulingWithMixedChurn", 5000, perfTotals{measured: 2000, churnPods: 1, namespaces: 2, zones: map[string]int{},
			events: []churnEvent{{710, opAddNode, "node-churn-1"}, {1421, opRemoveNode, "node-churn-1"}}}},
		// 1,000 nodes whatever the size asked for, four first pods on
		// each.
		{"PreemptionBasic", 5000, perfTotals{init: 4000, measured: 1000, namespaces: 2, extra: 1000 - 5000, zones: map[string]int{}}},
		// A preemptor every 114 measured pods: 43 in 5,000.
		{"PreemptionAsync", 5000, perfTotals{init: 20000, measured: 5000, churnPods: 43, namespaces: 3, zones: map[string]int{}}},
		// A pod every 118 measured pods: 8 in 1,000.
		{"Unschedulable", 5000, perfTotals{init: 100, measured: 1000, churnPods: 8, namespaces: 3, zones: map[string]int{}}},
		{"SchedulingRequiredPodAntiAffinityWithNSSelector", 1000, perfTotals{init: 800, measured: 200, namespaces: devops100, zones: map[string]int{}}},
		{"TopologySpreading", 1000, perfTotals{init: 1000, measured: 400, namespaces: 2, zones: map[string]int{"moon-1": 334, "moon-2": 333, "moon-3": 333}}},
		{"SchedulingWithNodeInclusionPolicy", 1000, perfTotals{measured: 800, namespaces: 1, tainted: 200, special: 200, zones: map[string]int{}}},
		{"DefaultTopologySpreading", 1000, perfTotals{init: 1000, measured: 2000, namespaces: 2, services: 1,
			zones: map[string]int{"moon-1": 334, "moon-2": 333, "moon-3": 333}}},
		{"SchedulingDaemonset", 1000, perfTotals{measured: 2000, namespaces: 1, extra: 1, special: 1, zones: map[string]int{}}},
		{"SchedulingWithExtendedResource", 1000, perfTotals{measured: 1000, namespaces: 1, special: 1000, zones: map[string]int{}}},
		// Every 142 measured pods at a fifth of the size: two ticks in 400.
		{"SchedulingWithMixedChurn", 1000, perfTotals{measured: 400, churnPods: 1, namespaces: 2, zones: map[string]int{},
			events: []churnEvent{{142, opAddNode, "node-churn-1"}, {285, opRemoveNode, "node-churn-1"}}}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		seen[tc.name] = true
		t.Run(fmt.Sprintf("%s/%d", tc.name, tc.nodes), func(t *testing.T) {
			w, err := generate(workloadOptions{workload: tc.name, nodes: tc.nodes, seed: defaultSeed, order: orderKube})
			if err != nil {
				t.Fatal(err)
			}
			got := totalsOf(t, w, tc.name, tc.nodes)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(perfTotals{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, c := range perfCases {
		if !seen[c.name] {
			t.Errorf("case %s: no expected counts", c.name)
		}
	}
}

// TestPerfFirstPodsFitWhereTheyAre: each pod the workload creates before
// the measured ones, added in order, sits on a node the default profile
// finds feasible for it given the pods before it (so the cluster is one
// kube-scheduler could have produced), and with each measured pod placed
// before the next, every measured pod finds a node (the required
// anti-affinity cases fill the cluster exactly), and a preempting case's
// churn pods one by preemption.
func TestPerfFirstPodsFitWhereTheyAre(t *testing.T) {
	const nodes = 100
	for _, c := range perfCases {
		t.Run(c.name, func(t *testing.T) {
			w, err := generate(workloadOptions{workload: c.name, nodes: nodes, seed: defaultSeed, order: orderKube})
			if err != nil {
				t.Fatal(err)
			}
			f, err := fwruntime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
			if err != nil {
				t.Fatal(err)
			}
			snap, err := framework.NewSnapshot(w.nodes, nil, framework.WithNamespaces(w.namespaces...), framework.WithStorage(w.storage.Each()...))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range w.pods {
				unplaced := *p
				unplaced.Spec.NodeName = ""
				pi, err := framework.NewPodInfo(&unplaced)
				if err != nil {
					t.Fatal(err)
				}
				r, err := f.Schedule(context.Background(), nil, snap, pi, fwruntime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
				if err != nil {
					t.Fatalf("pod %s fits nowhere: %v", p.Name, err)
				}
				if !slices.ContainsFunc(r.FeasibleNodes(), func(n *framework.NodeInfo) bool { return n.Name() == p.Spec.NodeName }) {
					t.Fatalf("pod %s is on %s, which the default profile rejects for it", p.Name, p.Spec.NodeName)
				}
				if err := snap.AddPod(p); err != nil {
					t.Fatal(err)
				}
			}
			o := runOptions{workloadOptions: workloadOptions{nodes: nodes, seed: defaultSeed, order: orderKube}, stream: c.name,
				assumed: true, workers: 1, profile: profileDefault, tieSeed: 1}
			res, recs, err := measure(o)
			if err != nil {
				t.Fatal(err)
			}
			churn := 0
			for _, r := range recs {
				if strings.HasPrefix(r.Pod, "churn-") {
					churn++
					switch {
					case r.Feasible != 0:
						t.Errorf("churn pod %s: %d feasible nodes, want none", r.Pod, r.Feasible)
					case c.preempt && (r.Victims == 0 || r.Node == ""):
						t.Errorf("churn pod %s of a preempting case placed on %q with %d victims: want a node by preemption", r.Pod, r.Node, r.Victims)
					case !c.preempt && r.Node != "":
						t.Errorf("churn pod %s placed on %q: it fits no node", r.Pod, r.Node)
					}
				} else if r.Node == "" {
					t.Errorf("measured pod %s found no node", r.Pod)
				}
			}
			placed := len(recs) - churn
			if c.preempt {
				placed = len(recs) // the churn pods by preemption
			}
			if res.Timed != len(recs) || res.Placed != placed {
				t.Errorf("%d timed, %d placed of %d records (%d churn): want every pod timed, and every measured pod and a preempting case's churn pods placed", res.Timed, res.Placed, len(recs), churn)
			}
		})
	}
}

// TestPerfChurnReachesTheCycles: the churn node is there for the cycles
// between its addition and its removal (one more node evaluated, none of
// them feasible for the churn pod), and gone after.
func TestPerfChurnReachesTheCycles(t *testing.T) {
	const nodes = 1000
	o := runOptions{workloadOptions: workloadOptions{nodes: nodes, seed: defaultSeed, order: orderKube}, stream: "SchedulingWithMixedChurn",
		workers: 1, profile: profileDefault, tieSeed: 1}
	_, recs, err := measure(o)
	if err != nil {
		t.Fatal(err)
	}
	w, err := generate(workloadOptions{workload: o.stream, nodes: nodes, seed: defaultSeed, order: orderKube})
	if err != nil {
		t.Fatal(err)
	}
	evs := w.events[o.stream]
	if len(evs) != 2 || evs[0].Op != opAddNode || evs[1].Op != opRemoveNode {
		t.Fatalf("events %+v: want an addition and a removal", evs)
	}
	for i, r := range recs {
		want := nodes
		if i >= evs[0].Before && i < evs[1].Before {
			want++
		}
		if r.Evaluated != want {
			t.Errorf("pod %d (%s): %d nodes evaluated, want %d", i, r.Pod, r.Evaluated, want)
		}
		if i == evs[0].Before && (r.Pod != "churn-1" || r.Feasible != 0 || r.Node != "") {
			t.Errorf("pod %d: %+v, want the churn pod, fitting nowhere", i, r)
		}
	}
}

// TestWorkersKeepDecisions: schedkit's side reaches the same outcome for
// every pod, node chosen included, at 1 and 2 workers, on the varied
// stream and on scheduler_perf streams (churn included), over every node
// and with kube's sampling, each pod assumed.
func TestWorkersKeepDecisions(t *testing.T) {
	for _, stream := range []string{streamVaried, "SchedulingPodAntiAffinity", "TopologySpreading", "SchedulingWithMixedChurn"} {
		for _, sampled := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sampled=%v", stream, sampled), func(t *testing.T) {
				o := runOptions{workloadOptions: workloadOptions{nodes: 600, seed: defaultSeed, order: orderKube}, stream: stream,
					sampled: sampled, assumed: true, warm: 5, workers: 1, profile: profileDefault, tieSeed: 1}
				if stream == streamVaried {
					o.timed = 60
				}
				_, one, err := measure(o)
				if err != nil {
					t.Fatal(err)
				}
				o.workers = 2
				res, two, err := measure(o)
				if err != nil {
					t.Fatal(err)
				}
				if res.Workers != 2 {
					t.Errorf("result says %d workers, want 2", res.Workers)
				}
				if diff := cmp.Diff(one, two); diff != "" {
					t.Errorf("1 worker (-) and 2 workers (+) differ:\n%s", diff)
				}
				tied := 0
				for _, r := range one {
					if r.Ties > 1 {
						tied++
					}
				}
				if len(one) < 60 || tied == 0 {
					t.Errorf("%d records, %d with ties: the comparison is too thin", len(one), tied)
				}
			})
		}
	}
}

// perfSource is kube v1.37.2's scheduler_perf directory in the module
// cache, or "" when it is not there.
func perfSource(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "k8s.io", "kubernetes@v1.37.2", "test", "integration", "scheduler_perf")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// readYAML decodes a YAML file of the scheduler_perf sources into v.
func readYAML(t *testing.T, path string, v any) { t.Helper(); readTemplate(t, path, 0, v) }

// readTemplate decodes a template of the scheduler_perf sources into v,
// its {{.Index}} (the object's index in its op) set to index.
func readTemplate(t *testing.T, path string, index int, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.ReplaceAll(string(b), "{{.Index}}", strconv.Itoa(index)))
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkVolumes checks v's claim and volume against the case's templates
// (in dir), as runners.go's CreatePodWithPersistentVolume completes them
// for the index-th pod of an op in namespace ns: named pvc-<index> and
// <ns>-vol-<index>, the volume's AWS EBS ID vol-<index> or CSI handle its
// name, each bound to the other.
func checkVolumes(t *testing.T, dir string, v *perfVolumes) {
	t.Helper()
	const index, ns = 7, "namespace-1"
	var pv api.PersistentVolume
	readYAML(t, filepath.Join(dir, v.file), &pv)
	var pvc api.PersistentVolumeClaim
	readYAML(t, filepath.Join(dir, "../templates/pvc.yaml"), &pvc)
	pvc.Name, pvc.Namespace = fmt.Sprintf("pvc-%d", index), ns
	pv.Name = fmt.Sprintf("%s-vol-%d", ns, index)
	switch {
	case pv.Spec.CSI != nil:
		pv.Spec.CSI.VolumeHandle = pv.Name
	case pv.Spec.AWSElasticBlockStore != nil:
		pv.Spec.AWSElasticBlockStore.VolumeID = fmt.Sprintf("vol-%d", index)
	}
	pv.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: pvc.Name, APIVersion: "v1"}
	pv.Status.Phase = api.VolumeBound
	pvc.Spec.VolumeName, pvc.Status.Phase = pv.Name, api.ClaimBound
	p := pausePod("p", ns)
	gotPVC, gotPV := v.claim(p, index)
	ignoreUID := cmpopts.IgnoreFields(api.ObjectMeta{}, "UID")
	quantities := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
	if diff := cmp.Diff(&pvc, gotPVC, ignoreUID, quantities); diff != "" {
		t.Errorf("claims against pvc.yaml (-source +translation):\n%s", diff)
	}
	if diff := cmp.Diff(&pv, gotPV, ignoreUID, quantities); diff != "" {
		t.Errorf("volumes against %s (-source +translation):\n%s", v.file, diff)
	}
	want := []api.Volume{{Name: "vol", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name}}}}
	if diff := cmp.Diff(want, p.Spec.Volumes); diff != "" {
		t.Errorf("pod volumes (-runners.go +translation):\n%s", diff)
	}
}

// perfSourceCase is what TestPerfCasesMatchTheSource reads of a case:
// where its performance-config.yaml is, which workload it translates, and
// the templates of its pods (before the measured ones, measured, churn).
// initTmpl is the template of the first pods, or a comma-separated list
// of each op's when several ops create them.
type perfSourceCase struct {
	dir, workload                 string
	initTmpl, measureTmpl, churnT string
}

// perfConfigOp is what the test reads of an op of a workloadTemplate.
type perfConfigOp struct {
	Opcode                   string `json:"opcode"`
	Namespace                string `json:"namespace"`
	CollectMetrics           bool   `json:"collectMetrics"`
	LabelNodePrepareStrategy *struct {
		LabelKey    string   `json:"labelKey"`
		LabelValues []string `json:"labelValues"`
	} `json:"labelNodePrepareStrategy"`
	NodeTemplatePath string `json:"nodeTemplatePath"`
	PodTemplatePath  string `json:"podTemplatePath"`
	// TemplatePath is a createAny op's object template, TemplateParams
	// its parameters.
	TemplatePath   string         `json:"templatePath"`
	TemplateParams map[string]any `json:"templateParams"`
	// Count or CountParam ($name of a workload parameter) is how many
	// objects the op creates; a createPodSets op's CreatePodsOp creates
	// that many pods in each of its namespaces.
	Count        int           `json:"count"`
	CountParam   string        `json:"countParam"`
	CreatePodsOp *perfConfigOp `json:"createPodsOp"`
	// A createPods op's volume and claim templates, and a createNodes
	// op's nodeAllocatableStrategy.
	PersistentVolumeTemplatePath      string `json:"persistentVolumeTemplatePath"`
	PersistentVolumeClaimTemplatePath string `json:"persistentVolumeClaimTemplatePath"`
	NodeAllocatableStrategy           *struct {
		NodeAllocatable    map[string]string `json:"nodeAllocatable"`
		CSINodeAllocatable map[string]struct {
			Count int `json:"count"`
		} `json:"csiNodeAllocatable"`
		MigratedPlugins []string `json:"migratedPlugins"`
	} `json:"nodeAllocatableStrategy"`
}

// perfConfigWorkload is one workload of a case: its name and parameters
// (counts, and some that are not).
type perfConfigWorkload struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
}

// count is the workload's count parameter name, 0 when absent.
func (w perfConfigWorkload) count(t *testing.T, name string) int {
	t.Helper()
	v, ok := w.Params[name]
	if !ok {
		return 0
	}
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) {
		t.Fatalf("workload %s: %s=%v: not a count", w.Name, name, v)
	}
	return int(f)
}

// opCount is how many objects op o creates in workload w.
func (w perfConfigWorkload) opCount(t *testing.T, o perfConfigOp) int {
	t.Helper()
	if o.CountParam != "" {
		return w.count(t, strings.TrimPrefix(o.CountParam, "$"))
	}
	return o.Count
}

// perfConfigCase is a test case of a performance-config.yaml.
type perfConfigCase struct {
	Name             string               `json:"name"`
	SchedulerConfig  string               `json:"schedulerConfigPath"`
	WorkloadTemplate []perfConfigOp       `json:"workloadTemplate"`
	Workloads        []perfConfigWorkload `json:"workloads"`
}

// TestPerfCasesMatchTheSource reads kube v1.37.2's scheduler_perf
// configuration and templates (when the module cache holds them) and
// checks the translation against them: the 5000Nodes workload's counts,
// the zones the nodes are labelled with, the measured pods' namespace,
// and each pod template field for field (names aside); the node template
// is node-default.yaml with its allocatable defaulted to its capacity.
func TestPerfCasesMatchTheSource(t *testing.T) {
	src := perfSource(t)
	if src == "" {
		t.Skip("kube v1.37.2's scheduler_perf sources are not in the module cache")
	}
	tmpl := func(s string) string { return filepath.Join(src, "templates", s) }
	sources := map[string]perfSourceCase{
		"SchedulingBasic":           {"misc", "5000Nodes", "pod-default.yaml", "pod-default.yaml", ""},
		"SchedulingNodeAffinity":    {"affinity", "5000Nodes", "pod-with-node-affinity.yaml", "pod-with-node-affinity.yaml", ""},
		"SchedulingPodAffinity":     {"affinity", "5000Nodes", "pod-with-pod-affinity.yaml", "pod-with-pod-affinity.yaml", ""},
		"SchedulingPodAntiAffinity": {"affinity", "5000Nodes", "pod-with-pod-anti-affinity.yaml", "pod-with-pod-anti-affinity.yaml", ""},
		"SchedulingPodMatchingAntiAffinity": {"affinity", "5000Nodes_5000Pods", "pod-with-pod-anti-affinity.yaml",
			"pod-with-pod-anti-affinity-label.yaml", ""},
		"SchedulingPreferredPodAffinity": {"affinity", "5000Nodes", "pod-with-preferred-pod-affinity.yaml",
			"pod-with-preferred-pod-affinity.yaml", ""},
		"SchedulingPreferredPodAntiAffinity": {"affinity", "5000Nodes", "pod-with-preferred-pod-anti-affinity.yaml",
			"pod-with-preferred-pod-anti-affinity.yaml", ""},
		"MixedSchedulingBasePod": {"affinity", "5000Nodes", "pod-default.yaml,pod-with-pod-affinity.yaml,pod-with-pod-anti-affinity.yaml," +
			"pod-with-preferred-pod-affinity.yaml,pod-with-preferred-pod-anti-affinity.yaml", "pod-default.yaml", ""},
		"SchedulingPreferredAntiAffinityWithNSSelector": {"affinity", "5000Nodes", "pod-preferred-anti-affinity-ns-selector.yaml",
			"pod-preferred-anti-affinity-ns-selector.yaml", ""},
		"SchedulingRequiredPodAntiAffinityWithNSSelector": {"affinity", "5000Nodes", "pod-anti-affinity-ns-selector.yaml",
			"pod-anti-affinity-ns-selector.yaml", ""},
		"SchedulingRequiredPodAffinityWithNSSelector": {"affinity", "5000Nodes", "pod-affinity-ns-selector.yaml", "pod-affinity-ns-selector.yaml", ""},
		"SchedulingPreferredAffinityWithNSSelector": {"affinity", "5000Nodes", "pod-preferred-affinity-ns-selector.yaml",
			"pod-preferred-affinity-ns-selector.yaml", ""},
		"SchedulingDaemonset": {"misc", "15000Nodes", "", "daemonset-pod.yaml", ""},
		"SchedulingWithExtendedResource": {"misc", "5000pods_5000nodes_DRAExtendedResourceEnabled", "",
			"../misc/templates/pod-with-extended-resource.yaml", ""},
		"SchedulingSecrets": {"volumes", "5000Nodes", "pod-with-secret-volume.yaml", "pod-with-secret-volume.yaml", ""},
		// Their pods are util.go's makeBasePod, pod-default.yaml in Go,
		// each given its claim by the op.
		"SchedulingInTreePVs":                 {"volumes", "5000Nodes", "", "pod-default.yaml", ""},
		"SchedulingMigratedInTreePVs":         {"volumes", "5000Nodes", "", "pod-default.yaml", ""},
		"SchedulingCSIPVs":                    {"volumes", "5000Nodes", "", "pod-default.yaml", ""},
		"DefaultTopologySpreading":            {"topology_spreading", "5000Nodes_10000Pods", "pod-default.yaml", "pod-with-label.yaml", ""},
		"SchedulingDeletedPodsWithFinalizers": {"misc", "5000Node_5000DeletingPods", "pod-with-finalizer.yaml", "light-pod.yaml", ""},
		"SchedulingWhileGated":                {"misc", "1Node_10000GatedPods", "light-pod.yaml", "light-pod.yaml", ""},
		"HostPortConflict":                    {"batching", "20000Nodes_20000Pods_OpportunisticBatchingDisabled", "", "pod-hostport-80.yaml", ""},
		"ResourceSaturation":                  {"batching", "20000Nodes_20000Pods_OpportunisticBatchingDisabled", "", "pod-saturation.yaml", ""},
		"TopologySpreading":                   {"topology_spreading", "5000Nodes", "pod-default.yaml", "pod-with-topology-spreading.yaml", ""},
		"SchedulingWithNodeInclusionPolicy":   {"topology_spreading", "5000Nodes", "", "pod-with-node-inclusion-policy.yaml", ""},
		"PreferredTopologySpreading":          {"topology_spreading", "5000Nodes", "pod-default.yaml", "pod-with-preferred-topology-spreading.yaml", ""},
		"SchedulingWithMixedChurn":            {"misc", "5000Nodes", "", "pod-default.yaml", "pod-high-priority-large-cpu.yaml"},
		// Its first pods are util.go's makeBasePod, pod-default.yaml's
		// resources in Go.
		"Unschedulable":   {"default_preemption", "5kNodes/100Init/1kPods", "", "pod-default.yaml", "pod-high-priority-large-cpu.yaml"},
		"PreemptionBasic": {"default_preemption", "1000Nodes", "pod-low-priority.yaml", "../default_preemption/templates/pod-high-priority.yaml", ""},
		"PreemptionAsync": {"default_preemption", "5000Nodes", "pod-low-priority.yaml", "pod-default.yaml", "../default_preemption/templates/pod-high-priority.yaml"},
		// Its pods name a claim template, whose claim the translation
		// makes with the pod (checked against the template below).
		"SchedulingWithResourceClaimTemplate": {"dra", "5000pods_500nodes", "", "../dra/templates/pod-with-claim-template.yaml", ""},
	}
	// A template has no deletion timestamp: a deletePods op sets it,
	// checked against the op.
	ignoreNames := cmpopts.IgnoreFields(api.ObjectMeta{}, "Name", "Namespace", "UID", "DeletionTimestamp")
	quantities := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
	checkPod := func(t *testing.T, what, file string, tp perfTemplate) {
		t.Helper()
		if file == "" {
			return
		}
		var want api.Pod
		readTemplate(t, tmpl(file), 7, &want)
		if diff := cmp.Diff(&want, tp("p", "ns", 7), ignoreNames, quantities, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s pods against %s (-source +translation):\n%s", what, file, diff)
		}
	}
	var nodeDefault api.Node
	readYAML(t, tmpl("node-default.yaml"), &nodeDefault)
	nodeDefault.Status.Allocatable = nodeDefault.Status.Capacity
	if diff := cmp.Diff(nodeDefault.Status, perfNode("n", "").Status, quantities); diff != "" {
		t.Errorf("nodes against node-default.yaml (-source +translation):\n%s", diff)
	}
	var churnDefault api.Node
	readYAML(t, tmpl("churn/node-default.yaml"), &churnDefault)
	churnDefault.Status.Allocatable = churnDefault.Status.Capacity
	if diff := cmp.Diff(churnDefault.Status, churnNode("n").Status, quantities); diff != "" {
		t.Errorf("churn node against churn/node-default.yaml (-source +translation):\n%s", diff)
	}
	configs := map[string][]perfConfigCase{}
	for _, c := range perfCases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := sources[c.name]
			if !ok {
				t.Fatalf("no source for %s", c.name)
			}
			cfg, ok := configs[s.dir]
			if !ok {
				readYAML(t, filepath.Join(src, s.dir, "performance-config.yaml"), &cfg)
				configs[s.dir] = cfg
			}
			i := slices.IndexFunc(cfg, func(tc perfConfigCase) bool { return tc.Name == c.name })
			if i < 0 {
				t.Fatalf("%s/performance-config.yaml has no case %s", s.dir, c.name)
			}
			tc := cfg[i]
			if tc.SchedulerConfig != c.config {
				t.Errorf("scheduler configuration %q, the source's %q", c.config, tc.SchedulerConfig)
			}
			if _, ok := perfConfigProfiles[c.config]; !ok {
				t.Errorf("no profile reproduces the configuration %q", c.config)
			}
			j := slices.IndexFunc(tc.Workloads, func(w perfConfigWorkload) bool { return w.Name == s.workload })
			if j < 0 {
				t.Fatalf("case %s has no workload %s", c.name, s.workload)
			}
			wl := tc.Workloads[j]
			// The first pods are those of every op that creates pods
			// before the measured ones; the nodes those of every
			// createNodes op.
			init, measured, nodes, special := 0, 0, 0, 0
			for _, o := range tc.WorkloadTemplate {
				switch {
				case o.Opcode == "createNodes":
					nodes += wl.opCount(t, o)
					if c.special != nil && o.NodeTemplatePath == c.special.file {
						special += wl.opCount(t, o)
					}
				case o.Opcode == "createPods" && o.CollectMetrics:
					measured = wl.opCount(t, o)
				case o.Opcode == "createPods" && filepath.Base(o.PodTemplatePath) == "gated-pod.yaml":
					// Gated pods stay in the queue: no cycle sees them.
				case o.Opcode == "createPods":
					init += wl.opCount(t, o)
				case o.Opcode == "createPodSets" && o.CreatePodsOp != nil:
					init += wl.opCount(t, o) * wl.opCount(t, *o.CreatePodsOp)
				}
			}
			gotInit := 0
			for _, g := range c.init {
				gotInit += g.count
			}
			// A workload larger than 5,000 nodes is translated at
			// 5,000 nodes, its counts divided by the same scale, bar a
			// group of a fixed count added to the cluster.
			extra, wantSpecial := 0, 0
			if g := c.special; g != nil {
				wantSpecial = g.count
				if g.extra {
					extra = g.count
				}
			}
			scale := (nodes - extra) / perfNodes
			switch {
			case c.special != nil && c.special.alone:
				// The group is the cluster: the counts are the source's.
				scale = 1
				if nodes != c.special.count {
					t.Errorf("the source's %s has %d nodes, the translation's group alone %d", s.workload, nodes, c.special.count)
				}
			case scale < 1 || (nodes-extra)%perfNodes != 0:
				t.Fatalf("the source's %s has %d nodes: not 5,000 or a multiple", s.workload, nodes)
			case extra == 0:
				wantSpecial *= scale
			}
			if special != wantSpecial || gotInit*scale != init || c.measure.count*scale != measured {
				t.Errorf("%d special nodes, %d first pods, %d measured at a scale of 1/%d; the source's %s: %v",
					wantSpecial, gotInit, c.measure.count, scale, s.workload, wl.Params)
			}
			if g := c.special; g != nil && g.file != "" {
				// (A group without a file is util.go's nodes, checked
				// against node-default.yaml above.)
				var want api.Node
				readTemplate(t, filepath.Join(src, s.dir, g.file), 7, &want)
				want.Status.Allocatable = want.Status.Capacity
				got := g.node("n", 7)
				if want.Name == "" {
					want.Name = got.Name // a generated name
				}
				if want.Labels == nil {
					want.Labels = map[string]string{}
				}
				want.Labels[perfHostKey] = want.Name // node_util.go labels every node so
				if diff := cmp.Diff(&want, got, quantities); diff != "" {
					t.Errorf("nodes against %s (-source +translation):\n%s", g.file, diff)
				}
			}
			var services []api.Service
			for k, o := range tc.WorkloadTemplate {
				switch {
				case o.Opcode == "createAny" && c.dra != nil:
					var head struct {
						Kind string `json:"kind"`
					}
					renderTemplate(t, filepath.Join(src, s.dir, o.TemplatePath), 0, draTemplateParams(t, o, wl), &head)
					checkDRAObjects(t, filepath.Join(src, s.dir), o, wl, c.dra, head.Kind)
				case o.Opcode == "allocResourceClaims":
					if c.dra == nil || o.Namespace != "init" {
						t.Errorf("allocResourceClaims in %s: the translation's init claims are in init (%+v)", o.Namespace, c.dra)
					}
				case o.Opcode == "createAny":
					var svc struct {
						Kind string `json:"kind"`
						Spec struct {
							Selector map[string]string `json:"selector"`
						} `json:"spec"`
					}
					readYAML(t, filepath.Join(src, s.dir, o.TemplatePath), &svc)
					if svc.Kind != "Service" {
						t.Errorf("createAny of a %s: not translated", svc.Kind)
					}
					for range max(o.Count, 1) { // no count: one object
						services = append(services, api.Service{Namespace: o.Namespace, Selector: svc.Spec.Selector})
					}
				case o.Opcode == "deletePods":
					// Pods with a finalizer stay, being deleted: the first
					// pods of the namespace it deletes from are so, the
					// others not. Pods without one go as the op deletes
					// them, while the case measures: they are all kept.
					finalized := false
					for k2, o2 := range tc.WorkloadTemplate[:k] {
						if o2.Opcode == "createPods" && (o2.Namespace == o.Namespace || fmt.Sprintf("namespace-%d", k2) == o.Namespace) {
							finalized = filepath.Base(o2.PodTemplatePath) == "pod-with-finalizer.yaml"
						}
					}
					for _, p := range generatePerf(&c, workloadOptions{nodes: perfNodes, seed: defaultSeed}).pods {
						if (p.DeletionTimestamp != nil) != (finalized && p.Namespace == o.Namespace) {
							t.Errorf("first pod %s/%s: deleted %v; the source deletes those of %s (with a finalizer: %v)", p.Namespace, p.Name, p.DeletionTimestamp != nil, o.Namespace, finalized)
							break
						}
					}
				case o.Opcode == "createPods" && (o.PersistentVolumeTemplatePath != "") != (c.volumes != nil):
					t.Errorf("createPods op %d with volume template %q: the translation's volumes %+v", k, o.PersistentVolumeTemplatePath, c.volumes)
				case o.Opcode == "createPods" && c.volumes != nil:
					if o.PersistentVolumeTemplatePath != c.volumes.file || o.PersistentVolumeClaimTemplatePath != "../templates/pvc.yaml" {
						t.Errorf("createPods op %d with volumes of %s and claims of %s; the translation's volumes of %s", k,
							o.PersistentVolumeTemplatePath, o.PersistentVolumeClaimTemplatePath, c.volumes.file)
					}
					checkVolumes(t, filepath.Join(src, s.dir), c.volumes)
				case o.Opcode == "createNodes":
					if s := o.NodeAllocatableStrategy; (s != nil) != (c.volumes != nil && c.volumes.limits) {
						t.Errorf("nodeAllocatableStrategy %+v; the translation's volumes %+v", s, c.volumes)
					} else if s != nil {
						if !maps.Equal(s.NodeAllocatable, map[string]string{perfEBSAttachLimit: strconv.Itoa(perfEBSLimit)}) ||
							len(s.CSINodeAllocatable) != 1 || s.CSINodeAllocatable[perfEBSDriver].Count != perfEBSLimit || !slices.Equal(s.MigratedPlugins, c.volumes.migrated) {
							t.Errorf("nodeAllocatableStrategy %+v; the translation's: %s %d, migrated %v", s, perfEBSAttachLimit, perfEBSLimit, c.volumes.migrated)
						}
					}
					var zones []string
					if o.LabelNodePrepareStrategy != nil {
						if o.LabelNodePrepareStrategy.LabelKey != perfZoneKey {
							t.Errorf("nodes labelled %s, not the zone", o.LabelNodePrepareStrategy.LabelKey)
						}
						zones = o.LabelNodePrepareStrategy.LabelValues
					}
					if !slices.Equal(zones, c.zones) {
						t.Errorf("zones %v, the source's %v", c.zones, zones)
					}
					if o.NodeTemplatePath != "" && o.NodeTemplatePath != "../templates/node-default.yaml" && (c.special == nil || o.NodeTemplatePath != c.special.file) {
						t.Errorf("node template %s: not translated", o.NodeTemplatePath)
					}
				case o.Opcode == "createPods" && o.CollectMetrics:
					ns := o.Namespace
					if ns == "" {
						ns = fmt.Sprintf("namespace-%d", k)
					}
					if ns != c.measure.namespace {
						t.Errorf("measured pods in %s, the source's in %s", c.measure.namespace, ns)
					}
				case o.Opcode == "churn":
					ns := o.Namespace
					if ns == "" {
						ns = fmt.Sprintf("namespace-%d", k)
					}
					if c.churn == nil || ns != c.churn.namespace {
						t.Errorf("churn %+v, the source's in %s", c.churn, ns)
					}
				}
			}
			// The first pods' groups, runs of groups whose template
			// makes the same pod taken as one, each against its op's
			// template in turn.
			var firsts []perfTemplate
			for _, g := range c.init {
				if k := len(firsts); k == 0 || !cmp.Equal(firsts[k-1]("p", "ns", 0), g.template("p", "ns", 0), quantities) {
					firsts = append(firsts, g.template)
				}
			}
			var want []string
			if s.initTmpl != "" {
				want = strings.Split(s.initTmpl, ",")
			}
			switch {
			case s.initTmpl == "" && len(firsts) > 0:
				// The first pods are util.go's, not a template's.
			case len(firsts) != len(want):
				t.Errorf("first pods of %d templates, the source's of %d (%s)", len(firsts), len(want), s.initTmpl)
			}
			for i := range min(len(firsts), len(want)) {
				checkPod(t, fmt.Sprintf("first (op %d)", i+1), want[i], firsts[i])
			}
			measure := c.measure.template
			if c.dra != nil {
				// The source's pods name the claim template.
				measure = func(name, ns string, i int) *api.Pod {
					p := c.measure.template(name, ns, i)
					for j := range p.Spec.ResourceClaims {
						tmpl := "test-claim-template"
						p.Spec.ResourceClaims[j].ResourceClaimName, p.Spec.ResourceClaims[j].ResourceClaimTemplateName = nil, &tmpl
					}
					return p
				}
			}
			checkPod(t, "measured", s.measureTmpl, measure)
			if c.churn != nil {
				checkPod(t, "churn", s.churnT, c.churn.template)
			}
			if diff := cmp.Diff(services, c.services, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(api.Service{}, "Name")); diff != "" {
				t.Errorf("Services (-source +translation):\n%s", diff)
			}
			for _, ns := range c.namespaces {
				if len(ns.Labels) > 0 && !maps.Equal(ns.Labels, map[string]string{"team": "devops"}) {
					t.Errorf("namespace %s labelled %v", ns.Name, ns.Labels)
				}
			}
		})
	}
}

// TestPreemptingStreamPlacesByPreemption: each PreemptionBasic pod fits
// no node until PostFilter evicts the four first pods of one, and is then
// placed there; with each pod assumed, no node gets two.
func TestPreemptingStreamPlacesByPreemption(t *testing.T) {
	o := runOptions{workloadOptions: workloadOptions{nodes: perfNodes, seed: defaultSeed, order: orderKube}, stream: "PreemptionBasic",
		workers: 1, profile: profileDefault, tieSeed: 1, timed: 60, assumed: true}
	res, recs, err := measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Placed != o.timed {
		t.Errorf("%d of %d timed pods placed", res.Placed, o.timed)
	}
	used := map[string]bool{}
	for i, r := range recs {
		if r.Evaluated != res.Nodes || r.Feasible != 0 || r.Victims != 4 || r.Node == "" || used[r.Node] {
			t.Errorf("pod %d: %+v, want %d nodes evaluated, none feasible, 4 victims and a node of its own", i, r, res.Nodes)
		}
		used[r.Node] = true
	}
	// Following records that nominate other nodes, each pod is placed
	// on the node followed, with its victims there.
	follow := slices.Clone(recs)
	for i := range follow {
		follow[i].Node = fmt.Sprintf("scheduler-perf-%05d", i)
	}
	dir := t.TempDir()
	o.follow = filepath.Join(dir, "follow.json")
	if err := writeFile(o.follow, func(w io.Writer) error { return writeRecords(w, follow) }); err != nil {
		t.Fatal(err)
	}
	_, followed, err := measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(follow, followed); d != "" {
		t.Errorf("following (-followed +run):\n%s", d)
	}
	// A node followed that is no candidate here (pod 0's preemptor holds
	// it): the pod preempts where this side's own search says.
	follow[1].Node = follow[0].Node
	if err := writeFile(o.follow, func(w io.Writer) error { return writeRecords(w, follow) }); err != nil {
		t.Fatal(err)
	}
	_, followed, err = measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if r := followed[1]; r.Victims != 4 || r.Node == "" || r.Node == follow[0].Node {
		t.Errorf("pod 1 following a node that is no candidate: %+v, want 4 victims on another node", r)
	}
}
