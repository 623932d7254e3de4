package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubectl-schedkit answers place, capacity and drain questions on the
// cluster as it is now, without writing to it.
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
	out = run("capacity", "-f", tmpl)
	if !strings.Contains(out, "5") {
		t.Errorf("capacity (5 replicas of 500m fit in 2+2 cpu beside 1500m):\n%s", out)
	}
	t.Logf("capacity:\n%s", out)
	out = run("drain", "k1")
	t.Logf("drain:\n%s", out)
	if _, err := c.CoreV1().Pods("default").List(t.Context(), metav1ListOptions()); err != nil {
		t.Fatal(err)
	}
}

func metav1ListOptions() metav1.ListOptions { return metav1.ListOptions{} }
