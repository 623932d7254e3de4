package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	bin := buildScheduler(t, dir)
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
	httpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", srv.Kubeconfig, "--config", cfg, "--seed", "7",
		"--leader-elect", "--leader-elect-namespace", "default", "--identity", "e2e", "--http-address", httpAddr)
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
	// The what-if endpoint answers on the cluster as it is now, and
	// creates and binds nothing.
	resp, err := http.Post("http://"+httpAddr+"/whatif/place", "application/yaml", strings.NewReader(`apiVersion: v1
kind: Pod
metadata: {name: asked}
spec: {schedulerName: schedkit, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "default/asked: fits on w") {
		t.Errorf("what-if endpoint: %s\n%s", resp.Status, body)
	}
	if _, err := c.CoreV1().Pods("default").Get(context.Background(), "asked", metav1.GetOptions{}); err == nil {
		t.Error("the pod asked about exists in the API server")
	}
	// The metrics count the bindings under kube-scheduler's name, and not
	// the question.
	resp, err = http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `scheduler_schedule_attempts_total{profile="schedkit",result="scheduled"} 6`) {
		t.Errorf("metrics:\n%s", body)
	}
}

func buildScheduler(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "schedkit-scheduler")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/schedkit-scheduler").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The program killed (SIGKILL) mid-run and started again loses no pod and
// binds none twice.
func TestProgramKilledMidRun(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	dir := t.TempDir()
	bin := buildScheduler(t, dir)
	createNodes(t, c, node("k1", "32", "64Gi", nil), node("k2", "32", "64Gi", nil))
	var names []string
	for i := range 80 {
		p := pod(fmt.Sprintf("kill-%02d", i), "100m", "64Mi", nil)
		names = append(names, p.Name)
		createPods(t, c, p)
	}
	start := func(name string) *exec.Cmd {
		cmd := exec.Command(bin, "--kubeconfig", srv.Kubeconfig, "--scheduler-name", schedulerName, "--seed", "7")
		lf, err := os.Create(filepath.Join(dir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lf.Close() })
		cmd.Stdout, cmd.Stderr = lf, lf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	first := start("first")
	waitFor(t, 60*time.Second, "some pods bound", func() (bool, error) {
		pods, err := c.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				n++
			}
		}
		return n >= 10, nil
	})
	_ = first.Process.Kill()
	_ = first.Wait()
	pods, err := c.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	boundAtKill := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			boundAtKill++
		}
	}
	t.Logf("%d of %d pods bound when the scheduler was killed", boundAtKill, len(names))
	second := start("second")
	t.Cleanup(func() {
		_ = second.Process.Signal(os.Interrupt)
		_ = second.Wait()
	})
	waitFor(t, 90*time.Second, "every pod bound", func() (bool, error) { return allBound(c, names) })
	time.Sleep(time.Second)
	for name, n := range scheduledEvents(t, c) {
		if n > 1 {
			t.Errorf("pod %s: %d Scheduled events", name, n)
		}
	}
	evs, err := c.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if e.Reason == "FailedScheduling" {
			t.Errorf("pod %s: FailedScheduling: %s", e.Regarding.Name, e.Note)
		}
	}
}
