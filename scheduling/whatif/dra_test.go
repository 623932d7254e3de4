package whatif_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/kubegen"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// gpuDump reads the GPU sample (internal/kubegen): twelve nodes whose
// GPUs DRA hands out; owned gives every pod a ReplicaSet as controller,
// so that a drain evicts it.
func gpuDump(t testing.TB, owned bool) *kubeload.Dump {
	t.Helper()
	var buf bytes.Buffer
	if err := kubegen.WriteGPU(&buf); err != nil {
		t.Fatal(err)
	}
	l := kubeload.NewLoader(kubeload.Options{})
	if err := l.ReadBytes(buf.Bytes(), "gpu sample"); err != nil {
		t.Fatal(err)
	}
	d, err := l.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if owned {
		for _, p := range d.Pods {
			p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: p.Name + "-rs", UID: p.Name + "-rs", Controller: true}}
		}
	}
	return d
}

// gpuWhatIf is a WhatIf on the GPU sample with the default profile.
func gpuWhatIf(t testing.TB, owned bool) (*whatif.WhatIf, *kubeload.Dump) {
	t.Helper()
	d := gpuDump(t, owned)
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()})
	if err != nil {
		t.Fatal(err)
	}
	return w, d
}

// accelerators tolerates the GPU nodes' taint.
var accelerators = api.Toleration{Key: "example.com/accelerator", Operator: api.TolerationOpExists}

// gpuPod is a pod of namespace ml asking for the devices of a claim
// template of the sample.
func gpuPod(name, template string) *api.Pod {
	return builder.MakePod().Name(name).Namespace("ml").Req(map[string]string{"cpu": "8", "memory": "16Gi"}).
		Toleration(accelerators).ResourceClaimTemplate("gpus", template).Obj()
}

// freeDevices counts, per node, the pods of n GPUs (on one PCIe root when
// sameRoot is set) that the free devices of the models take: the count a
// capacity question with such a template must find when CPU and memory
// are plentiful.
func freeDevices(d *kubeload.Dump, models []string, n int, sameRoot bool) map[string]int {
	taken := map[api.DeviceID]bool{}
	for _, c := range d.DRA.ResourceClaims {
		if c.Status.Allocation != nil {
			for _, r := range c.Status.Allocation.Devices.Results {
				taken[api.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}] = true
			}
		}
	}
	out := map[string]int{}
	for _, s := range d.DRA.ResourceSlices {
		free := map[string]int{}
		for _, dev := range s.Spec.Devices {
			if slices.Contains(models, *dev.Attributes["model"].StringValue) && !taken[api.DeviceID{Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: dev.Name}] {
				root := ""
				if sameRoot {
					root = *dev.Attributes["resource.kubernetes.io/pcieRoot"].StringValue
				}
				free[root]++
			}
		}
		for _, k := range free {
			if k/n > 0 {
				out[*s.Spec.NodeName] += k / n
			}
		}
	}
	return out
}

// TestCapacityDRA: each replica of a template with a resource claim
// template gets a claim of its own, so the replicas compete for the
// devices: as many fit on each node as its free devices allow (an
// independent count from the dump), and the question leaves the
// cluster's claims as they were.
func TestCapacityDRA(t *testing.T) {
	for _, tc := range []struct {
		template string
		models   []string
		gpus     int
		sameRoot bool
	}{
		{"a100-pair", []string{"A100"}, 2, true},              // two A100s on one PCIe root
		{"h100-x8", []string{"H100"}, 8, false},               // a whole H100 node
		{"mi300x-x4", []string{"MI300X"}, 4, true},            // four MI300Xs on one PCIe root
		{"any-gpu", []string{"L4", "A100", "H100"}, 1, false}, // the first available of an L4, an A100, an H100
	} {
		t.Run(tc.template, func(t *testing.T) {
			w, d := gpuWhatIf(t, false)
			before := draState(w.Cluster())
			ans, err := w.Capacity(context.Background(), gpuPod("job", tc.template), whatif.CapacityOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, nc := range ans.PerNode() {
				got[nc.Node] = nc.Count
			}
			if want := freeDevices(d, tc.models, tc.gpus, tc.sameRoot); !cmp.Equal(got, want) {
				t.Errorf("replicas per node %v, want %v", got, want)
			}
			if ans.Stop == nil || ans.FitError == nil {
				t.Errorf("no explained stop: %+v", ans)
			}
			if diff := cmp.Diff(before, draState(w.Cluster())); diff != "" {
				t.Errorf("DRA state changed by the question (-before +after):\n%s", diff)
			}
		})
	}
}

// TestScaleUpDRA: the pending training pod needs two A100s on one PCIe
// root; with every A100 taken it stays pending until a node like an A100
// node, with its ResourceSlice, is added. Without the slice the new node
// has no devices and cannot help.
func TestScaleUpDRA(t *testing.T) {
	for _, tc := range []struct {
		name       string
		withSlices bool
		wantNodes  int
		unhelpable bool
	}{
		{"node with its slice", true, 1, false},
		{"node without devices", false, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, d := gpuWhatIf(t, false)
			// Fill every A100 pair first, so that only a new node helps.
			fill, err := w.Scheduler().Fork()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = fill.Revert() }()
			on := w.On(fill)
			for i := range 8 {
				if dec, err := fill.SchedulePod(context.Background(), gpuPod(fmt.Sprintf("fill-%d", i), "a100-pair")); err != nil || dec.Node == "" {
					t.Fatalf("filling pod %d: %v %+v", i, err, dec)
				}
			}
			node, _ := w.Cluster().Node("gpu-a100-0")
			var opts whatif.ScaleUpOptions
			opts.Pods = []string{"ml/train-vision-2"}
			if tc.withSlices {
				for _, s := range d.DRA.ResourceSlices {
					if *s.Spec.NodeName == node.Name {
						opts.ResourceSlices = append(opts.ResourceSlices, s)
					}
				}
			}
			before := draState(fill.Cluster())
			ans, err := on.ScaleUp(context.Background(), node, opts)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Nodes != tc.wantNodes || (len(ans.Unhelpable) == 1) != tc.unhelpable {
				t.Errorf("nodes %d, unhelpable %v; want %d nodes, unhelpable %v", ans.Nodes, ans.Unhelpable, tc.wantNodes, tc.unhelpable)
			}
			if tc.withSlices && (len(ans.Answer.Placements) != 1 || ans.Answer.Placements[0].Node != "gpu-a100-0-1") {
				t.Errorf("placements %+v, want the pod on gpu-a100-0-1", ans.Answer.Placements)
			}
			if diff := cmp.Diff(before, draState(fill.Cluster())); diff != "" {
				t.Errorf("DRA state changed by the question (-before +after):\n%s", diff)
			}
		})
	}
}

// TestScaleUpDRABadSlices: a template slice that is not a node's is an
// error naming it.
func TestScaleUpDRABadSlices(t *testing.T) {
	w, _ := gpuWhatIf(t, false)
	node, _ := w.Cluster().Node("gpu-a100-0")
	for _, tc := range []struct {
		name  string
		slice *api.ResourceSlice
		want  string
	}{
		{"nil", nil, "ResourceSlices[0]: nil"},
		{"all nodes", builder.MakeResourceSlice("", "gpu.example.com").Name("fabric").AllNodes().Pool("fabric", 1, 1).Obj(), "spec.nodeName unset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.ScaleUp(context.Background(), node, whatif.ScaleUpOptions{ResourceSlices: []*api.ResourceSlice{tc.slice}})
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDrainDRA: draining a node frees the devices of the pods evicted
// from it, as the resource claim controller does on their deletion: the
// notebooks share one claim on gpu-a100-2; the first one's replacement
// still finds the claim allocated on the cordoned node, the second one's
// eviction leaves the claim reserved for nobody, so it is deallocated and
// the replacement gets a GPU elsewhere. The training pods' template claims
// go with them and their replacements get new ones.
func TestDrainDRA(t *testing.T) {
	for _, tc := range []struct {
		node string
		want map[string]whatif.DrainOutcome
	}{
		{"gpu-a100-2", map[string]whatif.DrainOutcome{"ml/notebook-0": whatif.DrainUnschedulable, "ml/notebook-1": whatif.DrainMoved}},
		{"gpu-a100-0", map[string]whatif.DrainOutcome{"ml/train-vision-0": whatif.DrainMoved, "ml/train-vision-1": whatif.DrainMoved}},
	} {
		t.Run(tc.node, func(t *testing.T) {
			w, _ := gpuWhatIf(t, true)
			before := draState(w.Cluster())
			ans, err := w.Drain(context.Background(), []string{tc.node}, whatif.DrainOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]whatif.DrainOutcome{}
			for _, p := range ans.Pods {
				got[p.Pod] = p.Outcome
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("outcomes %v, want %v (%+v)", got, tc.want, ans.Pods)
			}
			if diff := cmp.Diff(before, draState(w.Cluster())); diff != "" {
				t.Errorf("DRA state changed by the question (-before +after):\n%s", diff)
			}
		})
	}
}

// draSnapshot is a cluster's DRA state, for comparison.
type draSnapshot struct {
	Claims    []*api.ResourceClaim
	Slices    []*api.ResourceSlice
	Allocated []api.DeviceID
	InFlight  []*api.ResourceClaim
	Pods      []string
}

func draState(c *cluster.Cluster) draSnapshot {
	v := c.Snapshot().DRA()
	s := draSnapshot{Claims: v.ResourceClaims(), Slices: v.ResourceSlices(), InFlight: v.InFlightClaims()}
	v.AllocatedDevices(func(id api.DeviceID) { s.Allocated = append(s.Allocated, id) })
	slices.SortFunc(s.Allocated, func(a, b api.DeviceID) int {
		return strings.Compare(a.Driver+"/"+a.Pool+"/"+a.Device, b.Driver+"/"+b.Pool+"/"+b.Device)
	})
	for _, r := range c.Pods() {
		s.Pods = append(s.Pods, r.Pod.Key()+"@"+r.Pod.Spec.NodeName)
	}
	slices.Sort(s.Pods)
	return s
}

// TestPropDRAQuestionsRevert: whatever question is asked (capacity of a
// device template, placing a pod with claims, draining GPU nodes, adding
// nodes with their slices), the cluster's DRA state (claims with their
// allocations and reservations, slices, allocated devices, in-flight
// allocations) and its pods are as before.
func TestPropDRAQuestionsRevert(t *testing.T) {
	w, d := gpuWhatIf(t, true)
	before := draState(w.Cluster())
	templates := []string{"a100-pair", "h100-x8", "mi300x-x4", "any-gpu"}
	var nodes []string
	for _, n := range d.Nodes {
		nodes = append(nodes, n.Name)
	}
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		var err error
		switch rapid.IntRange(0, 3).Draw(t, "question") {
		case 0:
			_, err = w.Capacity(ctx, gpuPod("cap", rapid.SampledFrom(templates).Draw(t, "template")),
				whatif.CapacityOptions{Max: rapid.IntRange(0, 5).Draw(t, "max")})
		case 1:
			_, err = w.Place(ctx, gpuPod("one", rapid.SampledFrom(templates).Draw(t, "template")))
		case 2:
			drained := rapid.SliceOfNDistinct(rapid.SampledFrom(nodes), 1, 3, rapid.ID[string]).Draw(t, "nodes")
			_, err = w.Drain(ctx, drained, whatif.DrainOptions{AtOnce: rapid.Bool().Draw(t, "atOnce")})
		case 3:
			name := rapid.SampledFrom(nodes[:10]).Draw(t, "template node")
			node, _ := w.Cluster().Node(name)
			var opts whatif.ScaleUpOptions
			for _, s := range d.DRA.ResourceSlices {
				if *s.Spec.NodeName == name {
					opts.ResourceSlices = append(opts.ResourceSlices, s)
				}
			}
			_, err = w.ScaleUp(ctx, node, opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, draState(w.Cluster())); diff != "" {
			t.Fatalf("DRA state changed by the question (-before +after):\n%s", diff)
		}
	})
}
