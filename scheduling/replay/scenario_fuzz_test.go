package replay

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// wlFuzzSeeds adds small seeds, one top-level key or feature each, and
// edge cases: the fuzzer minimizes every input that finds new coverage,
// and the minimization of inputs grown from examples/simulate's kilobyte
// files took the whole run. seeds are the reader's own.
func wlFuzzSeeds(f *testing.F, seeds ...string) {
	for _, s := range append(seeds, "", "{}", "[]", "null", `{"nodes": [], "nodes": []}`, `{"pods": [{"pod": {"metadata": {"name": "a", "name": "b"}}}]}`) {
		f.Add([]byte(s))
	}
}

// wlFuzzRead: no input makes the reader or Validate panic; every error
// names the file; what the reader accepts, Validate reports (if at all)
// at a position in the file. The files may define 5,000 objects: the
// fuzzer needs fast executions, not big ones.
func wlFuzzRead(t *testing.T, data []byte, read func(io.Reader, string, *Scenario, ReadOptions) error) {
	var w Scenario
	if err := read(bytes.NewReader(data), "f.json", &w, ReadOptions{MaxObjects: 5000}); err != nil {
		if !strings.HasPrefix(err.Error(), "f.json:") {
			t.Fatalf("error without the file: %v", err)
		}
		return
	}
	if err := w.Validate(); err != nil && !strings.HasPrefix(err.Error(), "f.json:") {
		t.Fatalf("Validate error without the file: %v", err)
	}
}

// FuzzReadCluster: ReadCluster on untrusted JSON.
func FuzzReadCluster(f *testing.F) {
	wlFuzzSeeds(f,
		`{"nodes": [{"metadata": {"name": "n", "labels": {"z": "a"}}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}}]}`,
		`{"nodeGroups": [{"count": 3, "namePrefix": "n-", "node": {"spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}, "status": {"allocatable": {"cpu": "1e3"}}}, "csiNode": {"spec": {"drivers": [{"name": "d"}]}}}]}`,
		`{"nodes": [{"metadata": {"name": "n"}}], "pods": [{"metadata": {"name": "p"}, "spec": {"nodeName": "n", "containers": [{"name": "c"}]}}]}`,
		`{"disruptionBudgets": [{"namespace": "default", "name": "w", "selector": {"matchLabels": {"a": "b"}}, "disruptionsAllowed": 1}]}`,
		`{"nodeMetrics": [{"metadata": {"name": "n"}, "status": {"nodeMetric": {"nodeUsage": {"resources": {"cpu": "1"}}}}}], "nodeLoads": [{"name": "n"}]}`,
		`{"storageClasses": [{"metadata": {"name": "s"}, "provisioner": "d"}], "persistentVolumeClaims": [{"metadata": {"name": "c"}, "spec": {"storageClassName": "s"}}]}`,
		`{"persistentVolumes": [{"metadata": {"name": "v"}, "spec": {"capacity": {"storage": "1Gi"}}}], "csiDrivers": [{"metadata": {"name": "d"}}]}`)
	f.Fuzz(func(t *testing.T, data []byte) { wlFuzzRead(t, data, ReadClusterWith) })
}

// FuzzReadArrivals: ReadArrivals on untrusted JSON.
func FuzzReadArrivals(f *testing.F) {
	wlFuzzSeeds(f,
		`{"pods": [{"arrival": "1s", "duration": "30s", "pod": {"metadata": {"name": "u"}, "spec": {"priority": 9, "containers": [{"name": "c", "resources": {"requests": {"cpu": "6"}}}]}}}]}`,
		`{"podGroups": [{"count": 2, "namePrefix": "w-", "interval": "1s", "pod": {"spec": {"topologySpreadConstraints": [{"maxSkew": 0}]}}}]}`,
		`{"podGroups": [{"count": 2, "namePrefix": "s-", "pod": {}, "volumeClaimTemplates": [{"metadata": {"name": "d"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}]}]}`,
		`{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 2}}, "count": 2, "pod": {}}]}`,
		`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}, "count": 2, "pod": {}}]}`,
		`{"nodeEvents": [{"at": "2s", "action": "remove", "name": "n"}, {"at": "3s", "action": "add", "node": {"metadata": {"name": "m"}}}, {"at": "4s", "action": "metric", "metric": {"metadata": {"name": "m"}}}]}`)
	f.Fuzz(func(t *testing.T, data []byte) { wlFuzzRead(t, data, ReadArrivalsWith) })
}
