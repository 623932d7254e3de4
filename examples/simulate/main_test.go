package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/scheduling"
)

// TestBuiltinSmoke runs the built-in comparison on a small cluster: every
// profile gets a row, the chart is written and named, the decision logs
// are written, and no progress bar appears when stdout is not a terminal.
func TestBuiltinSmoke(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "chart.svg")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-nodes", "40", "-pods", "400", "-seed", "3", "-svg", svg, "-log-dir", dir}, &out, &errb, false)
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
			"-svg", filepath.Join(dir, "c.svg"), "-log-dir", dir}, &out, &out, false); err != nil {
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
	if err := run(context.Background(), args, &out, &out, false); err != nil {
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
		{"unknown profile", []string{"-nodes", "5", "-pods", "5", "-profiles", "Nope"}, `-profiles="Nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			args := append([]string{"-svg", filepath.Join(dir, "x.svg")}, tc.args...)
			err := run(context.Background(), args, &out, &out, false)
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
// UnschedulableAndUnresolvable).
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
	w := &scheduling.Workload{}
	if err := scheduling.ReadCluster(strings.NewReader(cluster), "cluster.json", w); err != nil {
		t.Fatal(err)
	}
	if err := scheduling.ReadWorkload(strings.NewReader(workload), "workload.json", w); err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	profiles := builtinProfiles()
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
			res, err := scheduling.Replay(context.Background(), w, replayOptions(o, p, nil))
			if err != nil {
				t.Fatal(err)
			}
			nodeOf := map[string]string{}
			for _, po := range res.Pods {
				nodeOf[po.Pod] = po.Node
				if po.Pod == "default/spread" && po.Fate != scheduling.FatePending {
					t.Errorf("spread pod: %s on %q, want Pending (no node has the topology key)", po.Fate, po.Node)
				}
			}
			c := res.Count()
			if c[scheduling.FateRunning] != 2 || c[scheduling.FatePending] != 3 {
				t.Errorf("fates %v, want 2 Running (the anti-affinity pods, one per node) and 3 Pending", c)
			}
			if nodeOf["default/db-0"] == nodeOf["default/db-1"] {
				t.Errorf("db-0 and db-1 share node %q despite required anti-affinity", nodeOf["default/db-0"])
			}
		})
	}
}
