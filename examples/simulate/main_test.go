package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// TestStatefulSetFiles reads a cluster with zonal storage (two zones, one
// with room for a single 200 GiB volume) and a StatefulSet-like pod group
// with volumeClaimTemplates: the StatefulSet table shows five replicas in
// zone a, one in zone b, none pending, under every profile.
func TestStatefulSetFiles(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"-cluster", "testdata/cluster-volumes.json", "-workload", "testdata/workload-statefulset.json", "-svg", filepath.Join(dir, "c.svg")}
	if err := run(context.Background(), args, &out, &out, false); err != nil {
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
