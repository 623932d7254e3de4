package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/kubegen"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// TestGPUSample: the GPU sample dump loads without remarks: twelve nodes,
// a slice per GPU node, a class per model, every allocated device one its
// node's slice publishes and no device allocated twice.
func TestGPUSample(t *testing.T) {
	d, err := kubeload.Load(kubeload.Options{}, "testdata/gpu-cluster.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	x := d.DRA
	if len(d.Nodes) != 12 || len(d.Pods) != 15 || len(x.ResourceSlices) != 10 || len(x.DeviceClasses) != 4 ||
		len(x.ResourceClaims) != 10 || len(x.ResourceClaimTemplates) != 4 {
		t.Fatalf("%d nodes, %d pods, %d slices, %d classes, %d claims, %d templates", len(d.Nodes), len(d.Pods),
			len(x.ResourceSlices), len(x.DeviceClasses), len(x.ResourceClaims), len(x.ResourceClaimTemplates))
	}
	if len(d.Report.Notes) != 0 || len(d.Report.Skipped) != 0 || len(d.Report.Unknown) != 0 {
		t.Errorf("notes %v, skipped %v, unknown %v", d.Report.Notes, d.Report.Skipped, d.Report.Unknown)
	}
	devices := map[[3]string]bool{}
	drivers := map[string]bool{}
	for _, s := range x.ResourceSlices {
		drivers[s.Spec.Driver] = true
		for _, dev := range s.Spec.Devices {
			devices[[3]string{s.Spec.Driver, s.Spec.Pool.Name, dev.Name}] = true
			if dev.Attributes["model"].StringValue == nil || dev.Attributes["resource.kubernetes.io/pcieRoot"].StringValue == nil || dev.Capacity["memory"].Value.IsZero() {
				t.Errorf("slice %s device %s lacks model, pcieRoot or memory", s.Name, dev.Name)
			}
		}
	}
	if !drivers[kubegen.DriverNVIDIA] || !drivers[kubegen.DriverAMD] || len(drivers) != 2 {
		t.Errorf("drivers %v", drivers)
	}
	allocated, taken := 0, map[[3]string]bool{}
	for _, c := range x.ResourceClaims {
		if c.Status.Allocation == nil {
			continue
		}
		allocated++
		for _, r := range c.Status.Allocation.Devices.Results {
			id := [3]string{r.Driver, r.Pool, r.Device}
			if !devices[id] || taken[id] {
				t.Errorf("claim %s: device %v unknown or allocated twice", c.Name, id)
			}
			taken[id] = true
		}
	}
	if allocated != 9 || len(taken) != 22 {
		t.Errorf("%d claims allocated, %d devices taken; want 9 and 22", allocated, len(taken))
	}
	if _, err := d.Cluster(); err != nil {
		t.Fatal(err)
	}
}

// TestGPUSampleIsGenerated: the shipped GPU sample is the generator's
// output (go generate ./examples/whatif rewrites it).
func TestGPUSampleIsGenerated(t *testing.T) {
	f, err := os.ReadFile("testdata/gpu-cluster.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var gen bytes.Buffer
	if err := kubegen.WriteGPU(&gen); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, gen.Bytes()) {
		t.Errorf("testdata/gpu-cluster.json.gz differs from the generator's output (%d vs %d bytes): run go generate ./examples/whatif", len(shipped), gen.Len())
	}
}

// gpuFree is a node of the GPU sample with what its pods leave free: CPU
// (millicores), memory (bytes), and the free devices of each model by
// PCIe root. It is counted from the dump alone, independently of the
// scheduler, to check the demo's answers.
type gpuFree struct {
	cpu, mem int64
	devices  map[string]map[string]int // model -> PCIe root -> free devices
	all      map[string]int            // model -> devices, free or not
}

func gpuFreeByNode(t *testing.T) map[string]*gpuFree {
	t.Helper()
	d, err := kubeload.Load(kubeload.Options{}, "testdata/gpu-cluster.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*gpuFree{}
	for _, n := range d.Nodes {
		out[n.Name] = &gpuFree{cpu: n.Status.Allocatable["cpu"].MilliValue(), mem: n.Status.Allocatable["memory"].Value(), devices: map[string]map[string]int{}, all: map[string]int{}}
	}
	for _, p := range d.Pods {
		if p.Spec.NodeName == "" {
			continue
		}
		for _, c := range p.Spec.Containers {
			out[p.Spec.NodeName].cpu -= c.Resources.Requests["cpu"].MilliValue()
			out[p.Spec.NodeName].mem -= c.Resources.Requests["memory"].Value()
		}
	}
	taken := map[[3]string]bool{}
	for _, c := range d.DRA.ResourceClaims {
		if c.Status.Allocation != nil {
			for _, r := range c.Status.Allocation.Devices.Results {
				taken[[3]string{r.Driver, r.Pool, r.Device}] = true
			}
		}
	}
	for _, s := range d.DRA.ResourceSlices {
		for _, dev := range s.Spec.Devices {
			model, root := *dev.Attributes["model"].StringValue, *dev.Attributes["resource.kubernetes.io/pcieRoot"].StringValue
			f := out[*s.Spec.NodeName]
			f.all[model]++
			if taken[[3]string{s.Spec.Driver, s.Spec.Pool.Name, dev.Name}] {
				continue
			}
			if f.devices[model] == nil {
				f.devices[model] = map[string]int{}
			}
			f.devices[model][root]++
		}
	}
	return out
}

// onNode counts the free devices of model on the node, on any root.
func (f *gpuFree) onNode(model string) int {
	n := 0
	for _, k := range f.devices[model] {
		n += k
	}
	return n
}

// TestGPUDemo runs the GPU demo (-gpu) and checks its answers against
// counts made from the dump alone: the fine-tuning pods that fit are, per
// node, the pairs of free A100s on one PCIe root (bounded by the CPU and
// memory left), and the pod asking for two H100s or else two A100s lands
// on a node with two free H100s, the nodes with room but neither pair
// being rejected by DynamicResources.
func TestGPUDemo(t *testing.T) {
	out := runArgs(t, "-gpu")
	capacity, place, ok := strings.Cut(out, "== place Pod ml/train-rl")
	if !ok {
		t.Fatalf("no placement question:\n%s", out)
	}
	contains(t, capacity,
		"cluster: 12 nodes, 14 pods placed, 1 pending",
		"== capacity of Pod ml/finetune: two A100s on one PCIe root each (claim template ml/a100-pair) ==",
		"replica 9 does not fit: 0/12 nodes are available: 3 Insufficient memory, 9 cannot allocate all claims.",
	)
	contains(t, place,
		"pod ml/train-rl (profile default-scheduler): scheduled on gpu-h100-2",
		"12 nodes: 5 feasible, 7 rejected",
	)

	free := gpuFreeByNode(t)
	// How many fine-tuning pods (cpu 16, memory 128Gi, two A100s on one
	// root) each node takes.
	want, total := map[string]int{}, 0
	for name, f := range free {
		pairs := 0
		for _, k := range f.devices["A100"] {
			pairs += k / 2
		}
		n := min(pairs, int(f.cpu/16000), int(f.mem/(128<<30)))
		if n > 0 {
			want[name] = n
			total += n
		}
	}
	if !strings.Contains(capacity, fmt.Sprintf("%d replica(s) of ml/finetune fit, on %d node(s):", total, len(want))) {
		t.Errorf("capacity answer differs from the count %d on %d nodes:\n%s", total, len(want), capacity)
	}
	for name, n := range want {
		if !strings.Contains(capacity, fmt.Sprintf("%s ×%d", name, n)) {
			t.Errorf("capacity answer lacks %s ×%d:\n%s", name, n, capacity)
		}
	}
	// DynamicResources' details on the nodes it names: an A100 node has
	// the A100s the replicas left free (fewer than a pair), another node
	// none.
	for _, name := range rejectedExamples(t, capacity) {
		f := free[name]
		detail := "no device of class nvidia-a100 on this node"
		if f.all["A100"] > 0 {
			detail = fmt.Sprintf("%d of 2 devices of class nvidia-a100 free on this node (", f.onNode("A100")-2*want[name])
		}
		if !regexp.MustCompile(`(?m)^  ` + name + ` \(DynamicResources\): claim ml/finetune-9-gpus-\S+ request gpus: ` + regexp.QuoteMeta(detail)).MatchString(capacity) {
			t.Errorf("capacity answer lacks %s's detail %q:\n%s", name, detail, capacity)
		}
	}

	// The placement: nodes with room (cpu 16, memory 96Gi) and two free
	// H100s or two free A100s are feasible, the H100 ones preferred
	// (firstAvailable); nodes with room but neither pair are
	// DynamicResources' rejections.
	var h100, feasible, noDevices []string
	for name, f := range free {
		room := f.cpu >= 16000 && f.mem >= 96<<30
		switch {
		case room && f.onNode("H100") >= 2:
			h100 = append(h100, name)
			feasible = append(feasible, name)
		case room && f.onNode("A100") >= 2:
			feasible = append(feasible, name)
		case room:
			noDevices = append(noDevices, name)
		}
	}
	node := regexp.MustCompile(`scheduled on (\S+)`).FindStringSubmatch(place)
	if node == nil || !slices.Contains(h100, node[1]) {
		t.Errorf("train-rl placed on %v, want one of the nodes with two free H100s %v", node, h100)
	}
	if !strings.Contains(place, fmt.Sprintf("12 nodes: %d feasible, %d rejected", len(feasible), 12-len(feasible))) {
		t.Errorf("placement's feasible nodes differ from the count %d (%v):\n%s", len(feasible), feasible, place)
	}
	rejected := regexp.MustCompile(`(?m)^\s+(\d+)\s+DynamicResources\s+cannot allocate all claims\s+(.*)$`).FindStringSubmatch(place)
	slices.Sort(noDevices)
	if rejected == nil || rejected[1] != fmt.Sprint(len(noDevices)) || rejected[2] != strings.Join(noDevices, ", ") {
		t.Errorf("DynamicResources rejected %v, want %v:\n%s", rejected, noDevices, place)
	}
	// Its details: neither alternative has two devices free, with the free
	// count of a model the node has.
	for _, name := range noDevices {
		alt := func(model, class string) string {
			if free[name].all[model] == 0 {
				return fmt.Sprintf("no device of class %s on this node", class)
			}
			return fmt.Sprintf("%d of 2 devices of class %s free on this node", free[name].onNode(model), class)
		}
		pat := `(?m)^  ` + name + ` \(DynamicResources\): claim ml/train-rl-gpus-\S+ request gpus: no alternative fits: gpus/h100: ` +
			regexp.QuoteMeta(alt("H100", "nvidia-h100")) + `[^;]*; gpus/a100: ` + regexp.QuoteMeta(alt("A100", "nvidia-a100"))
		if !regexp.MustCompile(pat).MatchString(place) {
			t.Errorf("placement lacks %s's detail (%s):\n%s", name, pat, place)
		}
	}
}

// rejectedExamples returns the nodes DynamicResources' row of an answer's
// rejection table names.
func rejectedExamples(t *testing.T, answer string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s+\d+\s+DynamicResources\s+cannot allocate all claims\s+(.*)$`).FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("no DynamicResources rejections:\n%s", answer)
	}
	names, _, _ := strings.Cut(m[1], ", …")
	return strings.Split(names, ", ")
}
