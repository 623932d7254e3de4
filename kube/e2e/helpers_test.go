package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// schedulerName is the second scheduler's profile.
const schedulerName = "schedkit"

const seed = 7

func node(name, cpu, mem string, labels map[string]string) *corev1.Node {
	if labels == nil {
		labels = map[string]string{}
	}
	labels["kubernetes.io/hostname"] = name
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods: resource.MustParse("110")}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{Capacity: rl, Allocatable: rl, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
}

func pod(name, cpu, mem string, labels map[string]string) *corev1.Pod {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: corev1.PodSpec{SchedulerName: schedulerName,
			Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/pause", Resources: corev1.ResourceRequirements{Requests: req}}}}}
}

// createNodes creates nodes with their status (there is no kubelet).
func createNodes(t *testing.T, c kubernetes.Interface, nodes ...*corev1.Node) {
	t.Helper()
	ctx := context.Background()
	for _, n := range nodes {
		created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The TaintNodesByCondition admission plugin taints a new node
		// not-ready until its kubelet reports; there is no kubelet.
		created.Spec.Taints = n.Spec.Taints
		if created, err = c.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		created.Status = n.Status
		if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func createPods(t *testing.T, c kubernetes.Interface, pods ...*corev1.Pod) {
	t.Helper()
	for _, p := range pods {
		if _, err := c.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// liveConfig is the second scheduler's configuration: kube-scheduler's
// default profile under schedulerName, seed 7, parallelism 1.
func liveConfig(c kubernetes.Interface) live.Config {
	reg := framework.NewRegistry()
	for _, p := range live.Plugins(c) {
		_ = reg.Register(p.Name, p.Factory)
	}
	prof := scheduling.DefaultProfile()
	prof.SchedulerName = schedulerName
	return live.Config{Client: c, Registry: reg, Profiles: []framework.Profile{prof},
		Options: []scheduling.Option{scheduling.WithSeed(seed), scheduling.WithParallelism(1)}, WriteAPI: true, Logf: func(string, ...any) {}}
}

// runLive starts the second scheduler in the test's process; it stops with
// the test.
func runLive(t *testing.T, cfg live.Config) *live.Live {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg.Logf = t.Logf
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	return l
}

func startLiveCtx(ctx context.Context, cfg live.Config) (*live.Live, error) {
	return live.Start(ctx, cfg)
}

// dumpCluster writes what `kubectl get nodes,pods,namespaces,priorityclasses
// -A -o json` prints, and returns the file.
func dumpCluster(t *testing.T, c kubernetes.Interface) string {
	t.Helper()
	ctx := context.Background()
	var objs []runtime.Object
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes.Items {
		objs = append(objs, &nodes.Items[i])
	}
	pods, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	for i := range pods.Items {
		objs = append(objs, &pods.Items[i])
	}
	nss, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nss.Items {
		objs = append(objs, &nss.Items[i])
	}
	pcs, err := c.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pcs.Items {
		objs = append(objs, &pcs.Items[i])
	}
	items := make([]json.RawMessage, 0, len(objs))
	for _, o := range objs {
		data, err := convert.Encode(o)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, data)
	}
	data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dump.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// offline schedules a dump with schedkit alone (same profile, seed and
// parallelism, the in-memory binder) and returns each pod's last decision.
func offline(t *testing.T, dumpFile string) map[string]scheduling.Decision {
	t.Helper()
	d, err := kubeload.Load(kubeload.Options{SchedulerNames: []string{schedulerName}}, dumpFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	prof := scheduling.DefaultProfile()
	prof.SchedulerName = schedulerName
	out := map[string]scheduling.Decision{}
	s, err := scheduling.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{prof}, scheduling.WithSeed(seed), scheduling.WithParallelism(1),
		scheduling.WithDecisionHandler(func(d scheduling.Decision) { out[d.Pod] = d }))
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	return out
}

// waitFor polls cond every 100 ms until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scheduledCondition returns the pod's PodScheduled condition.
func scheduledCondition(p *corev1.Pod) (corev1.PodCondition, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c, true
		}
	}
	return corev1.PodCondition{}, false
}

// settled reports whether every pod of the scheduler is bound or marked
// unschedulable.
func settled(c kubernetes.Interface) (bool, error) {
	pods, err := c.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, p := range pods.Items {
		if p.Spec.SchedulerName != schedulerName || p.Spec.NodeName != "" {
			continue
		}
		if cond, ok := scheduledCondition(&p); !ok || cond.Status != corev1.ConditionFalse {
			return false, nil
		}
	}
	return true, nil
}

func key(p *corev1.Pod) string { return fmt.Sprintf("%s/%s", p.Namespace, p.Name) }
