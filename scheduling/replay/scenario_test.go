package replay

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
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

const wlArrivalsJSON = `{
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

func TestReadClusterAndArrivals(t *testing.T) {
	var w Scenario
	if err := ReadCluster(strings.NewReader(wlClusterJSON), "cluster.json", &w); err != nil {
		t.Fatal(err)
	}
	if err := ReadArrivals(strings.NewReader(wlArrivalsJSON), "workload.json", &w); err != nil {
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

// TestReadArrivalsErrors: bad input is an error naming the file, the line
// and the pod.
func TestReadArrivalsErrors(t *testing.T) {
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
			var w Scenario
			err := ReadArrivals(strings.NewReader(tc.json), "workload.json", &w)
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
	var w Scenario
	err := ReadCluster(strings.NewReader(`{"nodes": [{"metadata": {"name": "n"}, "status": {"allocatable": {"memory": "1Qi"}}}]}`), "cluster.json", &w)
	if err == nil || !strings.Contains(err.Error(), "cluster.json:1:12: nodes[0] (n)") || !strings.Contains(err.Error(), "1Qi") {
		t.Errorf("bad node quantity: %v", err)
	}
}

// TestReadDuplicateKeys: a key given twice in one object — at the top, in
// an entry, deep inside a manifest — is an error at the second key, as
// kube-apiserver's strict decoding and configfile.Load reject it (otherwise the
// readers would concatenate {"nodes":[…],"nodes":[…]} and keep the last of
// two "cpu" requests).
func TestReadDuplicateKeys(t *testing.T) {
	node := `{"metadata": {"name": "n"}}`
	for _, tc := range []struct {
		name, json string
		cluster    bool
		want       string
	}{
		{"top-level", "{\"nodes\": [" + node + "],\n \"nodes\": [" + node + "]}", true, `f.json:2:2: duplicate field "nodes"`},
		{"entry", `{"pods": [{"pod": {"metadata": {"name": "a"}}, "pod": {"metadata": {"name": "b"}}}]}`, false, `f.json:1:48: pods[0] (pod b): duplicate field "pod"`},
		{"nested", "{\"pods\": [\n  {\"pod\": {\"metadata\": {\"name\": \"a\"}, \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"1\", \"cpu\": \"2\"}}}]}}}]}", false,
			`f.json:2:116: pods[0] (pod a): duplicate field "cpu"`},
		{"node group", `{"nodeGroups": [{"count": 1, "node": {"metadata": {"name": "x", "name": "y"}}}]}`, true, `duplicate field "name"`},
		{"escaped", `{"pods": [{"pod": {"metadata": {"name": "a", "labels": {"x": "1", "\u0078": "2"}}}}]}`, false, `duplicate field "x"`},
		{"many keys", `{"pods": [{"pod": {"metadata": {"name": "a", "labels": {` + wlManyLabels(20) + `, "k7": "again"}}}}]}`, false, `duplicate field "k7"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w Scenario
			read := ReadArrivals
			if tc.cluster {
				read = ReadCluster
			}
			err := read(strings.NewReader(tc.json), "f.json", &w)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	// Same names in different objects are fine.
	var w Scenario
	ok := `{"pods": [{"pod": {"metadata": {"name": "a", "labels": {"name": "x"}}}}, {"pod": {"metadata": {"name": "b"}}}]}`
	if err := ReadArrivals(strings.NewReader(ok), "f.json", &w); err != nil {
		t.Fatalf("valid file: %v", err)
	}
}

// wlManyLabels returns n distinct "kI": "v" pairs.
func wlManyLabels(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"k%d": "v"`, i)
	}
	return b.String()
}

// TestReadWrapsCause: a bad quantity's *resource.ParseError is in the
// error chain (errors.As finds it), behind the file and entry.
func TestReadWrapsCause(t *testing.T) {
	var w Scenario
	err := ReadArrivals(strings.NewReader(`{"pods": [{"pod": {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}}]}`), "w.json", &w)
	var pe *resource.ParseError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "w.json:1:11: pods[0] (pod web): ") {
		t.Fatalf("error %v (%T): want a wrapped *resource.ParseError behind the position", err, err)
	}
}

// TestValidateNamesTheFile: errors Validate finds in entries read from
// files name the file, line and column of the entry (cluster entries the
// cluster file, not "scenario:"), as examples/simulate's README promises;
// entries built in code keep the "scenario:" label.
func TestValidateNamesTheFile(t *testing.T) {
	cluster := "{\"nodes\": [\n  {\"metadata\": {\"name\": \"n1\"}},\n  {\"metadata\": {\"name\": \"n1\"}}\n]}"
	spread := `{"metadata": {"name": "web"}, "spec": {"topologySpreadConstraints": [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}}`
	for _, tc := range []struct {
		name, cluster, arrivals string
		want                    []string
	}{
		{"duplicate node in the cluster file", cluster, `{}`,
			[]string{`cluster.json:3:3: nodes[1]: node "n1": duplicate name`}},
		{"maxSkew 0 in a pod group", `{"nodes": [{"metadata": {"name": "n1"}}]}`, "{\"podGroups\": [\n {\"count\": 2, \"namePrefix\": \"web-\", \"pod\": " + spread + "}]}",
			[]string{"workload.json:2:2: podGroups[0]: framework: pod default/web-0: spec.topologySpreadConstraints[0].maxSkew=0: must be greater than zero"}},
		{"empty topologyKey in the second pod", `{"nodes": [{"metadata": {"name": "n1"}}]}`,
			`{"pods": [{"pod": {"metadata": {"name": "a"}}}, {"pod": {"metadata": {"name": "b"}, "spec": {"topologySpreadConstraints": [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]}}}]}`,
			[]string{"workload.json:1:49: pods[1]: framework: pod default/b: spec.topologySpreadConstraints[0].topologyKey: required"}},
		{"arrival naming a missing node", `{"nodes": [{"metadata": {"name": "n1"}}]}`, `{"pods": [{"pod": {"metadata": {"name": "a"}, "spec": {"nodeName": "n9"}}}]}`,
			[]string{`workload.json:1:11: pods[0]: pod default/a: node "n9" not found`}},
		{"bad event", `{"nodes": [{"metadata": {"name": "n1"}}]}`, `{"nodeEvents": [{"at": "1s", "action": "remove"}]}`,
			[]string{"workload.json:1:17: nodeEvents[0] (remove at 1s): missing name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w Scenario
			if err := ReadCluster(strings.NewReader(tc.cluster), "cluster.json", &w); err != nil {
				t.Fatal(err)
			}
			if err := ReadArrivals(strings.NewReader(tc.arrivals), "workload.json", &w); err != nil {
				t.Fatal(err)
			}
			err := w.Validate()
			if err == nil {
				t.Fatalf("no error; want %v", tc.want)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "scenario:") {
				t.Errorf("error %q is labelled scenario: instead of by its file", err)
			}
		})
	}
	w := Scenario{Nodes: []*api.Node{{ObjectMeta: api.ObjectMeta{Name: "n"}}, {ObjectMeta: api.ObjectMeta{Name: "n"}}}}
	if err := w.Validate(); err == nil || err.Error() != `scenario: nodes[1]: node "n": duplicate name` {
		t.Errorf("built in code: %v", err)
	}
}
