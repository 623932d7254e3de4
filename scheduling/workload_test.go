package scheduling

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const wlClusterJSON = `{
  "nodes": [
    {"metadata": {"name": "big", "labels": {"zone": "a"}}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}
  ],
  "nodeGroups": [
    {"count": 2, "namePrefix": "small-", "node": {"metadata": {"labels": {"zone": "b"}}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}}
  ],
  "pods": [
    {"metadata": {"name": "sys"}, "spec": {"nodeName": "big", "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}
  ],
  "disruptionBudgets": [{"namespace": "default", "name": "pdb", "selector": {"matchLabels": {"app": "web"}}, "disruptionsAllowed": 1}]
}`

const wlWorkloadJSON = `{
  "pods": [
    {"arrival": "1s", "duration": "1m", "pod": {"metadata": {"name": "one"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}
  ],
  "podGroups": [
    {"count": 3, "namePrefix": "web-", "arrival": "10s", "interval": "500ms", "duration": "1h",
     "pod": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}]}}}
  ],
  "nodeEvents": [
    {"at": "30s", "action": "remove", "name": "small-1"},
    {"at": "40s", "action": "add", "node": {"metadata": {"name": "new"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}}}
  ]
}`

func TestReadClusterAndWorkload(t *testing.T) {
	var w Workload
	if err := ReadCluster(strings.NewReader(wlClusterJSON), "cluster.json", &w); err != nil {
		t.Fatal(err)
	}
	if err := ReadWorkload(strings.NewReader(wlWorkloadJSON), "workload.json", &w); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range w.Nodes {
		names = append(names, n.Name+"/"+n.Labels["zone"])
	}
	if diff := cmp.Diff([]string{"big/a", "small-0/b", "small-1/b"}, names); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if len(w.Pods) != 1 || w.Pods[0].Namespace != "default" || w.Pods[0].Spec.NodeName != "big" {
		t.Errorf("pods = %+v", w.Pods)
	}
	var arr []string
	for _, a := range w.Arrivals {
		arr = append(arr, a.Pod.Key()+" "+a.At.String()+" "+a.Duration.String())
	}
	want := []string{"default/one 1s 1m0s", "default/web-0 10s 1h0m0s", "default/web-1 10.5s 1h0m0s", "default/web-2 11s 1h0m0s"}
	if diff := cmp.Diff(want, arr); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	if len(w.NodeEvents) != 2 || w.NodeEvents[0].At != 30*time.Second || w.NodeEvents[1].Node.Name != "new" {
		t.Errorf("events = %+v", w.NodeEvents)
	}
	if len(w.DisruptionBudgets) != 1 || w.DisruptionBudgets[0].DisruptionsAllowed != 1 {
		t.Errorf("pdbs = %+v", w.DisruptionBudgets)
	}
	if err := w.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

// TestReadWorkloadErrors: bad input is an error naming the file, the line
// and the pod.
func TestReadWorkloadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       []string
	}{
		{"invalid JSON", "{\n  \"pods\": [\n    {\"arrival\": \"1s\",, }\n  ]\n}", []string{"workload.json:3:", "invalid JSON"}},
		{"truncated", "{\"pods\": [", []string{"workload.json:1:", "invalid JSON"}},
		{"not an object", "[1]", []string{"want a JSON object"}},
		{"unknown top-level field", "{\n\"podz\": []}", []string{"workload.json:2:1", `unknown field "podz"`}},
		{"invalid quantity", "{\"pods\": [\n {\"pod\": {\"metadata\": {\"name\": \"web\"}, \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"lots\"}}}]}}}\n]}",
			[]string{"workload.json:2:2", "pods[0] (pod web)", "lots"}},
		{"negative duration", "{\"pods\": [{\"duration\": \"-5s\", \"pod\": {\"metadata\": {\"name\": \"web\"}}}]}", []string{"pods[0] (pod web)", "pod web: duration=-5s: must not be negative"}},
		{"negative interval", "{\"podGroups\": [{\"count\": 2, \"namePrefix\": \"w-\", \"interval\": \"-1s\", \"pod\": {}}]}", []string{"podGroups[0] (w-*)", "interval=-1s"}},
		{"duration not a string", "{\"pods\": [{\"duration\": 5, \"pod\": {\"metadata\": {\"name\": \"web\"}}}]}", []string{"pods[0] (pod web)", "want a string"}},
		{"unknown pod field", "{\"pods\": [{\"pod\": {\"metadata\": {\"name\": \"web\"}, \"spec\": {\"nodeNme\": \"x\"}}}]}", []string{"pods[0] (pod web)", "nodeNme"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w Workload
			err := ReadWorkload(strings.NewReader(tc.json), "workload.json", &w)
			if err == nil {
				t.Fatalf("no error; want %v", tc.want)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
	var w Workload
	err := ReadCluster(strings.NewReader(`{"nodes": [{"metadata": {"name": "n"}, "status": {"allocatable": {"memory": "1Qi"}}}]}`), "cluster.json", &w)
	if err == nil || !strings.Contains(err.Error(), "cluster.json:1:12: nodes[0] (n)") || !strings.Contains(err.Error(), "1Qi") {
		t.Errorf("bad node quantity: %v", err)
	}
}
