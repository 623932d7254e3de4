package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The schedkit-scheduler program, with a KubeSchedulerConfiguration and
// leader election on a Lease, schedules the pods its profile names and
// leaves the others alone.
func TestProgram(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	dir := t.TempDir()
	bin := filepath.Join(dir, "schedkit-scheduler")
	build := exec.Command("go", "build", "-o", bin, "../cmd/schedkit-scheduler")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "sched.yaml")
	if err := os.WriteFile(cfg, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: schedkit
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	createNodes(t, c, node("w1", "4", "8Gi", nil), node("w2", "4", "8Gi", nil))
	var names []string
	for i := range 6 {
		p := pod(fmt.Sprintf("prog-%d", i), "500m", "256Mi", nil)
		names = append(names, p.Name)
		createPods(t, c, p)
	}
	other := pod("not-mine", "100m", "", nil)
	other.Spec.SchedulerName = "someone-else"
	createPods(t, c, other)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", srv.Kubeconfig, "--config", cfg, "--seed", "7",
		"--leader-elect", "--leader-elect-namespace", "default", "--identity", "e2e")
	logPath := filepath.Join(dir, "scheduler.log")
	lf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(logPath)
			t.Logf("scheduler log:\n%s", tail(string(log), 4000))
		}
	}()
	waitFor(t, 60*time.Second, "the program's pods bound", func() (bool, error) { return allBound(c, names) })
	lease, err := c.CoordinationV1().Leases("default").Get(context.Background(), "schedkit-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("no Lease: %v", err)
	}
	if h := lease.Spec.HolderIdentity; h == nil || *h != "e2e" {
		t.Errorf("Lease holder %v, want e2e", h)
	}
	p, err := c.CoreV1().Pods("default").Get(context.Background(), "not-mine", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || len(p.Status.Conditions) > 0 {
		t.Errorf("the other scheduler's pod was touched: node %q, conditions %v", p.Spec.NodeName, p.Status.Conditions)
	}
}
