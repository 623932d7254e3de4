package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/replay"
)

// TestBuiltinSmoke runs the built-in comparison on a small cluster: every
// profile gets a row, the chart is written and named, the decision logs
// are written (in a directory the program creates), and no progress bar
// appears when stdout is not a terminal.
func TestBuiltinSmoke(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "chart.svg")
	dir := filepath.Join(t.TempDir(), "logs", "new")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-nodes", "40", "-pods", "400", "-seed", "3", "-svg", svg, "-log-dir", dir}, &out, &errb, nil)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	got := out.String()
	for _, s := range []string{"cluster: 40 nodes; workload: 400 pods", "PROFILE", "LeastAllocated", "MostAllocated", "BalancedAllocation", "LoadAware", "chart: " + svg} {
		if !strings.Contains(got, s) {
			t.Errorf("output lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "\r") {
		t.Errorf("progress bar printed to a non-terminal")
	}
	data, err := os.ReadFile(svg)
	if err != nil || !bytes.HasPrefix(data, []byte("<svg")) || !bytes.Contains(data, []byte("MostAllocated")) {
		t.Errorf("chart: %v, %d bytes", err, len(data))
	}
	log, err := os.ReadFile(filepath.Join(dir, "LeastAllocated.log"))
	if err != nil || !bytes.HasPrefix(log, []byte("+0.000000s #1 default/")) {
		t.Errorf("decision log: %v %.80q", err, log)
	}
}

// TestSameSeedSameLog: the decision log is byte-identical across
// parallelism settings.
func TestSameSeedSameLog(t *testing.T) {
	logs := map[string][]byte{}
	for _, par := range []string{"1", "4"} {
		dir := t.TempDir()
		var out bytes.Buffer
		if err := run(context.Background(), []string{"-nodes", "150", "-pods", "600", "-parallelism", par, "-profiles", "MostAllocated",
			"-svg", filepath.Join(dir, "c.svg"), "-log-dir", dir}, &out, &out, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "MostAllocated.log"))
		if err != nil {
			t.Fatal(err)
		}
		logs[par] = b
	}
	if !bytes.Equal(logs["1"], logs["4"]) || len(logs["1"]) == 0 {
		t.Errorf("decision logs differ between parallelism 1 and 4")
	}
}

// TestJSONInputAndConfig reads the sample files and a KubeSchedulerConfiguration.
func TestJSONInputAndConfig(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"-cluster", "testdata/cluster.json", "-workload", "testdata/workload.json", "-svg", filepath.Join(dir, "c.svg"), "-config", "testdata/config.yaml"}
	if err := run(context.Background(), args, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"cluster: 7 nodes; workload: 85 pods, 2 node events", "default-scheduler", "bin-packing"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}

// TestBadInput: errors name the file, line and pod; bad flags are errors.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"invalid JSON", []string{"-workload", write("a.json", "{\"pods\": [\n  {\"arrival\": }\n]}")}, "a.json:2:"},
		{"invalid quantity", []string{"-workload", write("b.json", `{"pods": [{"pod": {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "x1"}}}]}}}]}`)}, "pods[0] (pod web)"},
		{"negative duration", []string{"-workload", write("c.json", `{"pods": [{"duration": "-1m", "pod": {"metadata": {"name": "web"}}}]}`)}, "pod web: duration=-1m0s"},
		{"missing node", []string{"-workload", write("d.json", `{"pods": [{"pod": {"metadata": {"name": "web"}, "spec": {"nodeName": "ghost"}}}]}`)}, `pod default/web: node "ghost" not found`},
		{"missing file", []string{"-cluster", filepath.Join(dir, "none.json")}, "none.json"},
		{"bad flag", []string{"-nodes", "0"}, "-nodes=0"},
		{"too many objects", []string{"-cluster", write("e.json", `{"nodeGroups": [{"count": 10000000, "namePrefix": "n-", "node": {"status": {"allocatable": {"cpu": "1"}}}}]}`)},
			fmt.Sprintf("e.json:1:17: nodeGroups[0] (n-*): count=10000000: the file would define more than %d objects", replay.DefaultMaxObjects)},
		{"raised limit", []string{"-max-objects", "10", "-cluster", write("f.json", `{"nodeGroups": [{"count": 11, "namePrefix": "n-", "node": {}}]}`)}, "more than 10 objects"},
		{"bad limit", []string{"-max-objects", "0"}, "-max-objects=0: must be positive"},
		{"cycle limit", []string{"-nodes", "5", "-pods", "50", "-profiles", "MostAllocated", "-max-cycles", "20"},
			"replay: Replay: the replay ran past 20 scheduling cycles (Options.MaxCycles)"},
		{"bad cycle limit", []string{"-max-cycles", "-1"}, "-max-cycles=-1: must not be negative"},
		{"unknown profile", []string{"-nodes", "5", "-pods", "5", "-profiles", "Nope"},
			`-profiles="Nope": no such profile "Nope" (valid: LeastAllocated, MostAllocated, BalancedAllocation, LoadAware, TargetLoadPacking, LoadVariationRiskBalancing, `},
		{"one unknown profile among known ones", []string{"-nodes", "5", "-pods", "5", "-profiles", "MostAllocated,Nope"},
			`-profiles="MostAllocated,Nope": no such profile "Nope" (valid: LeastAllocated, MostAllocated, `},
		{"unknown profile of a configuration", []string{"-nodes", "5", "-pods", "5", "-config", "config.yaml", "-profiles", "Nope"},
			`-profiles="Nope": no such profile "Nope" (valid: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			args := append([]string{"-svg", filepath.Join(dir, "x.svg")}, tc.args...)
			err := run(context.Background(), args, &out, &out, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestBuiltinProfilesKeepDefaultFilters: every built-in profile is kube's
// default profile with only the score changed, so it keeps the filters of
// PodTopologySpread and InterPodAffinity. Four pods with required hostname
// anti-affinity on two nodes: two are placed and two stay pending (kube's
// InterPodAffinity Filter, pkg/scheduler/framework/plugins/interpodaffinity/
// filtering.go, satisfyPodAntiAffinity); a DoNotSchedule spread constraint
// on a topology key no node has leaves its pod pending (PodTopologySpread
// Filter, plugins/podtopologyspread/filtering.go: a node without the key is
// UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch).
func TestBuiltinProfilesKeepDefaultFilters(t *testing.T) {
	const cluster = `{"nodes": [
		{"metadata": {"name": "n-0", "labels": {"kubernetes.io/hostname": "n-0"}}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}},
		{"metadata": {"name": "n-1", "labels": {"kubernetes.io/hostname": "n-1"}}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}]}`
	const workload = `{"podGroups": [{"count": 4, "namePrefix": "db-", "interval": "1s", "pod": {
		"metadata": {"labels": {"app": "db"}},
		"spec": {
			"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
				{"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}},
			"containers": [{"name": "db", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}],
	"pods": [{"arrival": "10s", "pod": {
		"metadata": {"name": "spread", "labels": {"app": "spread"}},
		"spec": {
			"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "example.com/rack", "whenUnsatisfiable": "DoNotSchedule",
				"labelSelector": {"matchLabels": {"app": "spread"}}}],
			"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}]}`
	w := &replay.Scenario{}
	if err := replay.ReadCluster(strings.NewReader(cluster), "cluster.json", w); err != nil {
		t.Fatal(err)
	}
	if err := replay.ReadArrivals(strings.NewReader(workload), "workload.json", w); err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := builtinProfiles(framework.DefaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	if len(profiles) != 4 {
		t.Fatalf("%d built-in profiles, want 4", len(profiles))
	}
	def := scheduling.DefaultProfile()
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			for _, point := range []struct {
				name      string
				got, want []string
			}{
				{"QueueSort", p.profile.QueueSort, def.QueueSort}, {"PreFilter", p.profile.PreFilter, def.PreFilter},
				{"Filter", p.profile.Filter, def.Filter}, {"PostFilter", p.profile.PostFilter, def.PostFilter},
				{"Bind", p.profile.Bind, def.Bind},
			} {
				if !slices.Equal(point.got[:min(len(point.got), len(point.want))], point.want) {
					t.Errorf("%s = %v, want the default profile's %v first", point.name, point.got, point.want)
				}
			}
			res, err := replay.Replay(context.Background(), w, replayOptions(o, p, nil))
			if err != nil {
				t.Fatal(err)
			}
			nodeOf := map[string]string{}
			for _, po := range res.Pods {
				nodeOf[po.Pod] = po.Node
				if po.Pod == "default/spread" && po.Fate != replay.FatePending {
					t.Errorf("spread pod: %s on %q, want Pending (no node has the topology key)", po.Fate, po.Node)
				}
			}
			c := res.Count()
			if c[replay.FateRunning] != 2 || c[replay.FatePending] != 3 {
				t.Errorf("fates %v, want 2 Running (the anti-affinity pods, one per node) and 3 Pending", c)
			}
			if nodeOf["default/db-0"] == nodeOf["default/db-1"] {
				t.Errorf("db-0 and db-1 share node %q despite required anti-affinity", nodeOf["default/db-0"])
			}
		})
	}
}

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestHelp: simulate -h prints the usage and exits 0 without running.
func TestHelp(t *testing.T) {
	code, stdout, stderr := exampletest.Run(t, "-h")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "Usage of simulate") || !strings.Contains(stderr, "-log-dir") {
		t.Errorf("simulate -h: exit %d, stdout %q, stderr %q; want exit 0 and the usage on stderr", code, stdout, stderr)
	}
}

// TestBadOutputFailsFirst: an unwritable -log-dir or -svg is reported before
// any profile runs (no progress bar, no table).
func TestBadOutputFailsFirst(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-log-dir", filepath.Join(file, "logs"), "-svg", filepath.Join(t.TempDir(), "c.svg")}, "-log-dir: mkdir " + file},
		{[]string{"-svg", filepath.Join(missing, "c.svg")}, "-svg: open " + missing},
	} {
		var out bytes.Buffer
		bar := newProgress(&out, func() time.Time { return simStart })
		err := run(context.Background(), append([]string{"-nodes", "40", "-pods", "400"}, tc.args...), &out, &out, bar)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.args, err, tc.want)
		}
		if s := out.String(); strings.Contains(s, "LeastAllocated") || strings.Contains(s, "cluster: 40 nodes") {
			t.Errorf("%v: the simulation ran before the error:\n%q", tc.args, s)
		}
	}
}

// TestProgressThrottled: on a clock that advances 1 ms per report, 10,000
// reports redraw the bar at the first report, every 100 ms after it, and
// at completion: 1 + 99 + 1 times.
func TestProgressThrottled(t *testing.T) {
	var out bytes.Buffer
	now := simStart
	bar := newProgress(&out, func() time.Time { now = now.Add(time.Millisecond); return now })
	for i := 1; i <= 10000; i++ {
		bar.update("LeastAllocated", "pods", i, 10000)
	}
	if bar.draws != 101 || strings.Count(out.String(), "\r") != 101 {
		t.Errorf("%d draws, %d carriage returns; want 101", bar.draws, strings.Count(out.String(), "\r"))
	}
	if !strings.HasSuffix(out.String(), "[##############################] 10000/10000 pods") {
		t.Errorf("last draw %q, want the completed bar", out.String()[max(0, out.Len()-80):])
	}
	var nilBar *progress
	nilBar.update("x", "pods", 1, 2) // a nil bar draws nothing and does not panic
	nilBar.clear()
}

// TestProgressInRun: with a terminal, the bar shows the cluster and
// workload being built and each profile setting up, and on a clock that
// never advances it redraws only when its task changes and at completion
// (not once per arrival batch).
func TestProgressInRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	bar := newProgress(&out, func() time.Time { return simStart })
	if err := run(context.Background(), []string{"-nodes", "40", "-pods", "400", "-svg", filepath.Join(dir, "c.svg")}, &out, &out, bar); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"building cluster", "40/40 nodes", "building workload", "400/400 pods", "0/400 pods (setting up 40 nodes)", "MostAllocated"} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal output lacks %q", want)
		}
	}
	// building cluster and workload: first and last report; each of the
	// four profiles: setting up, first batch, last batch.
	if bar.draws > 2+2+4*3 {
		t.Errorf("%d redraws for 400 pods under 4 profiles, want at most 16", bar.draws)
	}
}

// TestChart: the chart of 1,000 nodes has labelled axes with ticks, the
// snapshot time, and at most maxGroups bars and memory points per panel
// (each the mean of 5 nodes, with the band of their memory).
func TestChart(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "c.svg")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-nodes", "1000", "-pods", "2000", "-profiles", "MostAllocated", "-svg", svg}, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"nodes, sorted by cpu utilization (fullest first)", // x-axis title
		">0</text>", ">250</text>", ">500</text>", ">750</text>", ">1000</text>", // x ticks
		`rotate(-90)" text-anchor="middle">requested / allocatable</text>`, // y-axis title
		">100%</text>",
		"Node utilization at +99.95s, when the last pod arrived (1000 nodes)", // 1,996 pods (4 go to the StatefulSet) over 100 s: the last at 1995/1996 × 100 s, to the millisecond
		"mean of each group of 5 nodes",
		"<polygon points=", // the memory band
	} {
		if !strings.Contains(s, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if bars := strings.Count(s, `fill="#4a7fc1"/>`); bars != 200 {
		t.Errorf("%d cpu bars, want 200", bars)
	}
	_, line, _ := strings.Cut(s, `<polyline points="`)
	line, _, _ = strings.Cut(line, `"`)
	if pts := len(strings.Fields(line)); pts != 200 {
		t.Errorf("memory line of %d points, want 200", pts)
	}
}

// TestGroupNodes: nodes sorted by cpu (fullest first) are cut into at most
// maxGroups runs; each run's cpu and memory are its means, and memMin and
// memMax bound its memory.
func TestGroupNodes(t *testing.T) {
	per := make([]replay.NodeUtilization, 1000)
	for i := range per {
		// Snapshot order is emptiest first; memory cycles 0, .1, .2, .3, .4.
		per[i] = replay.NodeUtilization{CPU: float64(i) / 1000, Memory: float64(i%5) / 10}
	}
	g := groupNodes(per)
	if len(g) != 200 {
		t.Fatalf("%d groups, want 200", len(g))
	}
	// The first group holds the fullest nodes 999..995: cpu mean .997.
	want := nodeGroup{cpu: 0.997, mem: 0.2, memMin: 0, memMax: 0.4}
	if d := g[0]; math.Abs(d.cpu-want.cpu) > 1e-9 || math.Abs(d.mem-want.mem) > 1e-9 || d.memMin != want.memMin || d.memMax != want.memMax {
		t.Errorf("first group %+v, want %+v", d, want)
	}
	if math.Abs(g[199].cpu-0.002) > 1e-9 {
		t.Errorf("last group cpu %v, want 0.002 (nodes 0..4)", g[199].cpu)
	}
	few := groupNodes(per[:3])
	if len(few) != 3 || few[0].cpu != 0.002 || few[0].memMin != few[0].memMax {
		t.Errorf("3 nodes: %+v, want one group per node, fullest first", few)
	}
}

// TestStatefulSetFiles reads a cluster with zonal storage (two zones, one
// with room for a single 200 GiB volume) and a StatefulSet-like pod group
// with volumeClaimTemplates: the StatefulSet table shows five replicas in
// zone a, one in zone b, none pending, under every profile.
func TestStatefulSetFiles(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"-cluster", "testdata/cluster-volumes.json", "-workload", "testdata/workload-statefulset.json", "-svg", filepath.Join(dir, "c.svg")}
	if err := run(context.Background(), args, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, `StatefulSet "db": 6 replicas`) {
		t.Fatalf("no StatefulSet table:\n%s", got)
	}
	for _, p := range []string{"LeastAllocated", "MostAllocated", "BalancedAllocation", "LoadAware"} {
		row := ""
		for _, line := range strings.Split(got[strings.Index(got, "StatefulSet"):], "\n") {
			if strings.Contains(line, p) {
				row = strings.Join(strings.Fields(line), " ")
			}
		}
		if row != p+" 6 5/1/0 0" {
			t.Errorf("row %q, want %q", row, p+" 6 5/1/0 0")
		}
	}
}

// TestGangs: -gangs compares the default profile with Coscheduling on the
// gang workload; without Coscheduling partly placed jobs hold pods idle,
// with it no pod is bound before its job is whole.
func TestGangs(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-gangs", "-nodes", "40", "-svg", filepath.Join(t.TempDir(), "c.svg")}, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "cluster: 40 nodes") || !strings.Contains(s, "IDLE POD-SECONDS") {
		t.Fatalf("output:\n%s", s)
	}
	idle := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 9 && (f[0] == "Default" || f[0] == "Coscheduling") {
			v, err := strconv.ParseFloat(f[7], 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			idle[f[0]] = v
			if f[1] != "8" || f[2] != "8" {
				t.Errorf("%s: %s of %s jobs ran whole, want 8 of 8", f[0], f[2], f[1])
			}
		}
	}
	if idle["Coscheduling"] != 0 || idle["Default"] <= 0 {
		t.Errorf("idle pod-seconds %v: want some without Coscheduling and none with it", idle)
	}
}

// TestTrimaranProfiles: the Trimaran profiles run when -profiles names
// them, reading the built-in cluster's NodeLoads; they are not in the
// default comparison.
func TestTrimaranProfiles(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-nodes", "30", "-pods", "300", "-profiles", "TargetLoadPacking,LoadVariationRiskBalancing",
		"-svg", filepath.Join(dir, "c.svg")}, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TargetLoadPacking", "LoadVariationRiskBalancing"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
	w := &replay.Scenario{}
	builtinCluster(5, rand.New(rand.NewPCG(1, 2)), w, nil)
	builtinLoads(w, 1)
	if len(w.NodeLoads) != 5 {
		t.Fatalf("%d NodeLoads for 5 nodes", len(w.NodeLoads))
	}
	for _, l := range w.NodeLoads {
		if _, std, ok := l.Stat("CPU"); !ok || std < 2 || std > 20 {
			t.Errorf("%s: cpu std %v (ok %v), want 2–20 %%", l.Name, std, ok)
		}
	}
	builtin, err := builtinProfiles(framework.DefaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range builtin {
		if strings.Contains(p.name, "Load") && p.name != "LoadAware" {
			t.Errorf("%s is in the default comparison", p.name)
		}
	}
}

// TestDRAClusterFile: a cluster file with ResourceSlices, a DeviceClass, a
// claim template and an allocated claim is read and validated, and pods
// with resource claims are simulated (placed as if they had none: no
// profile here allocates devices).
func TestDRAClusterFile(t *testing.T) {
	dir := t.TempDir()
	cluster := `{
  "nodeGroups": [{"count": 2, "namePrefix": "gpu-", "node": {"status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}}],
  "deviceClasses": [{"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]}}],
  "resourceSlices": [
    {"metadata": {"name": "gpu-0-gpus"}, "spec": {"driver": "gpu.example.com", "nodeName": "gpu-0", "pool": {"name": "gpu-0", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "g0"}, {"name": "g1"}]}},
    {"metadata": {"name": "gpu-1-gpus"}, "spec": {"driver": "gpu.example.com", "nodeName": "gpu-1", "pool": {"name": "gpu-1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "g0"}, {"name": "g1"}]}}
  ],
  "resourceClaimTemplates": [{"metadata": {"name": "one-gpu"}, "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}]
}`
	workload := `{"podGroups": [{"count": 3, "namePrefix": "infer-", "pod": {"spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
  "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "gpu"}]}}]}}}]}`
	for name, data := range map[string]string{"cluster.json": cluster, "workload.json": workload} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	args := []string{"-cluster", filepath.Join(dir, "cluster.json"), "-workload", filepath.Join(dir, "workload.json"), "-svg", filepath.Join(dir, "c.svg")}
	if err := run(context.Background(), args, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "cluster: 2 nodes; workload: 3 pods") {
		t.Errorf("output:\n%s", out.String())
	}
	bad := strings.Replace(cluster, `"nodeName": "gpu-1"`, `"nodeName": "gpu-9"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), args, &out, &out, nil)
	if err == nil || !strings.Contains(err.Error(), `resourceSlices[1]: ResourceSlice gpu-1-gpus: spec.nodeName "gpu-9" is not a node of the scenario`) {
		t.Errorf("slice of an unknown node: %v", err)
	}
}
