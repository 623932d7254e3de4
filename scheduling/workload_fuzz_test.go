package scheduling

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wlFuzzSeeds adds examples/simulate's files and a few edge cases.
func wlFuzzSeeds(f *testing.F, file string) {
	b, err := os.ReadFile(filepath.Join("..", "examples", "simulate", "testdata", file))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{"", "{}", "[]", "null", `{"nodes": [], "nodes": []}`, `{"pods": [{"pod": {"metadata": {"name": "a", "name": "b"}}}]}`,
		`{"podGroups": [{"count": 2, "namePrefix": "w-", "interval": "1s", "pod": {"spec": {"topologySpreadConstraints": [{"maxSkew": 0}]}}}]}`,
		`{"nodeGroups": [{"count": 3, "namePrefix": "n-", "node": {"status": {"allocatable": {"cpu": "1e3"}}}}]}`} {
		f.Add([]byte(s))
	}
}

// wlFuzzSmall skips inputs whose groups would build more than a few
// thousand objects (the readers accept up to 10,000,000 per group; the
// fuzzer needs fast executions, not big ones).
func wlFuzzSmall(data []byte) bool {
	var probe struct {
		NodeGroups []struct{ Count int } `json:"nodeGroups"`
		PodGroups  []struct{ Count int } `json:"podGroups"`
	}
	_ = json.Unmarshal(data, &probe)
	total := 0
	for _, g := range probe.NodeGroups {
		total += max(g.Count, 0)
	}
	for _, g := range probe.PodGroups {
		total += max(g.Count, 0)
	}
	return total <= 5000
}

// wlFuzzRead: no input makes the reader or Validate panic; every error
// names the file; what the reader accepts, Validate reports (if at all)
// at a position in the file.
func wlFuzzRead(t *testing.T, data []byte, read func(io.Reader, string, *Workload) error) {
	if !wlFuzzSmall(data) {
		return
	}
	var w Workload
	if err := read(bytes.NewReader(data), "f.json", &w); err != nil {
		if !strings.HasPrefix(err.Error(), "f.json:") {
			t.Fatalf("error without the file: %v", err)
		}
		return
	}
	if err := w.Validate(); err != nil && !strings.HasPrefix(err.Error(), "f.json:") {
		t.Fatalf("Validate error without the file: %v", err)
	}
}

// FuzzReadCluster: ReadCluster on untrusted JSON (seeds: examples/simulate's
// cluster file and edge cases).
func FuzzReadCluster(f *testing.F) {
	wlFuzzSeeds(f, "cluster.json")
	f.Fuzz(func(t *testing.T, data []byte) { wlFuzzRead(t, data, ReadCluster) })
}

// FuzzReadWorkload: ReadWorkload on untrusted JSON (seeds: examples/simulate's
// workload file and edge cases).
func FuzzReadWorkload(f *testing.F) {
	wlFuzzSeeds(f, "workload.json")
	f.Fuzz(func(t *testing.T, data []byte) { wlFuzzRead(t, data, ReadWorkload) })
}
