package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

// kubectl-schedkit answers place, capacity, drain and scale-up questions
// on the cluster as it is now, without writing to it, as text and with -o
// json as whatifjson documents.
func TestKubectlPlugin(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-schedkit")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/kubectl-schedkit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	createNodes(t, c, node("k1", "2", "4Gi", nil), node("k2", "2", "4Gi", nil))
	placed := pod("placed", "1500m", "1Gi", nil)
	placed.Spec.SchedulerName = ""
	placed.Spec.NodeName = "k1"
	createPods(t, c, placed)
	pods := filepath.Join(dir, "pods.yaml")
	if err := os.WriteFile(pods, []byte(`apiVersion: v1
kind: Pod
metadata: {name: fits}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(tmpl, []byte(`apiVersion: v1
kind: Pod
metadata: {name: replica}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "500m"}}}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"--kubeconfig", srv.Kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl-schedkit %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := run("place", "-f", pods)
	if !strings.Contains(out, "default/fits: fits on k2") || !strings.Contains(out, "default/too-big: does not fit: 0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("place:\n%s", out)
	}
	// The same, as a JSON document with each node's verdict.
	var doc whatifjson.Document
	runJSON := func(args ...string) {
		t.Helper()
		data, err := exec.Command(bin, append([]string{"--kubeconfig", srv.Kubeconfig}, args...)...).Output()
		if err != nil {
			t.Fatalf("kubectl-schedkit %v: %v", args, err)
		}
		doc = whatifjson.Document{}
		if err := json.Unmarshal(data, &doc); err != nil || doc.Version != whatifjson.Version {
			t.Fatalf("kubectl-schedkit %v: %v, version %q\n%s", args, err, doc.Version, data)
		}
	}
	runJSON("place", "-f", pods, "-o", "json")
	if len(doc.Place) != 2 || doc.Place[0].Node != "k2" || doc.Place[0].Explanation.Feasible != 1 ||
		!strings.HasPrefix(doc.Place[1].Message, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("place -o json: %+v", doc.Place)
	}
	runJSON("capacity", "-f", tmpl, "-o", "json", "--json-nodes", "1")
	if c := doc.Capacity; c == nil || c.Replicas != 5 || c.Stopped != "unschedulable" || len(c.Stop.Explanation.Nodes) != 1 {
		t.Errorf("capacity -o json --json-nodes 1: %+v", c)
	}
	out = run("capacity", "-f", tmpl)
	if !strings.Contains(out, "5") {
		t.Errorf("capacity (5 replicas of 500m fit in 2+2 cpu beside 1500m):\n%s", out)
	}
	t.Logf("capacity:\n%s", out)
	out = run("drain", "k1")
	t.Logf("drain:\n%s", out)
	// Two pending pods of 3 cpu (no kube-scheduler runs here): two nodes of
	// the 4-cpu template are needed.
	for _, name := range []string{"wants-3a", "wants-3b"} {
		p := pod(name, "3", "1Gi", nil)
		p.Spec.SchedulerName = ""
		createPods(t, c, p)
	}
	tmplNode := filepath.Join(dir, "node.yaml")
	if err := os.WriteFile(tmplNode, []byte(`apiVersion: v1
kind: Node
metadata: {name: big, labels: {kubernetes.io/hostname: big}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out = run("scale-up", "-f", tmplNode)
	t.Logf("scale-up:\n%s", out)
	if !strings.Contains(out, "scale-up: 2 node(s) of big schedule the 2 pod(s)") {
		t.Errorf("scale-up (two 3-cpu pods need two 4-cpu nodes):\n%s", out)
	}
	if _, err := c.CoreV1().Pods("default").List(t.Context(), metav1ListOptions()); err != nil {
		t.Fatal(err)
	}
}

func metav1ListOptions() metav1.ListOptions { return metav1.ListOptions{} }
