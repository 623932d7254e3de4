package live_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

func testNode(name string, cpu int64) *corev1.Node {
	rl := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: corev1.NodeStatus{Allocatable: rl, Capacity: rl}}
}

func testPod(name, node, scheduler string, milli int64, prio int32) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": name[:1]}},
		Spec: corev1.PodSpec{NodeName: node, SchedulerName: scheduler, Priority: &prio,
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(milli, resource.DecimalSI)}}}}}}
}

func config(objs ...runtime.Object) live.Config {
	prof := scheduling.DefaultProfile()
	prof.SchedulerName = "schedkit"
	return live.Config{Client: fake.NewClientset(objs...), Registry: scheduling.NewDefaultRegistry(), Profiles: []framework.Profile{prof}}
}

// The cluster the feed builds, from a first list and then from watch
// events one object at a time, equals the one kubeload builds from a dump
// of the same objects.
func TestFeedEqualsDump(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var initial, later []runtime.Object
	for i := range 4 {
		initial = append(initial, testNode("n"+string(rune('0'+i)), 4))
	}
	initial = append(initial, &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Value: 5})
	schedulers := []string{"schedkit", "other"}
	for i := range 30 {
		node := ""
		if r.IntN(2) == 0 {
			node = "n" + string(rune('0'+r.IntN(6))) // n4, n5 arrive later
		}
		p := testPod("p"+string(rune('a'+i)), node, schedulers[r.IntN(2)], int64(100*r.IntN(5)), int32(r.IntN(3)))
		if r.IntN(8) == 0 {
			p.Status.Phase = corev1.PodSucceeded
		}
		if i < 15 && node != "n4" && node != "n5" {
			initial = append(initial, p)
		} else {
			later = append(later, p)
		}
	}
	later = append(later, testNode("n4", 2), testNode("n5", 8))
	cfg := config(initial...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	client := cfg.Client.(*fake.Clientset)
	for _, o := range later {
		var err error
		switch x := o.(type) {
		case *corev1.Pod:
			_, err = client.CoreV1().Pods(x.Namespace).Create(ctx, x, metav1.CreateOptions{})
		case *corev1.Node:
			_, err = client.CoreV1().Nodes().Create(ctx, x, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A PDB and an update and a delete, as watch events.
	_, _ = client.PolicyV1().PodDisruptionBudgets("default").Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "default"}}, metav1.CreateOptions{})
	waitSynced(t, l, len(initial)+len(later))
	// Pods created before their node are refused until it arrives, and
	// tried again with backoff.
	deadline := time.Now().Add(10 * time.Second)
	for len(l.Stats().Rejected) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still refused: %v", l.Stats().Rejected)
		}
		time.Sleep(20 * time.Millisecond)
	}

	d, err := convert.Load(kubeload.Options{SchedulerNames: l.SchedulerNames()}, append(initial, later...)...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	got := l.Scheduler().Cluster()
	opts := []cmp.Option{cmp.Exporter(func(_ reflect.Type) bool { return true }), cmpopts.EquateEmpty(),
		cmpopts.SortSlices(func(a, b cluster.PodRecord) bool { return a.Pod.Key() < b.Pod.Key() })}
	if diff := cmp.Diff(want.Pods(), got.Pods(), opts...); diff != "" {
		t.Errorf("pods (-dump +feed):\n%s", diff)
	}
	if want.NumNodes() != got.NumNodes() {
		t.Errorf("nodes: dump %d, feed %d", want.NumNodes(), got.NumNodes())
	}
	for _, n := range d.Nodes {
		a, _ := want.NodeInfo(n.Name)
		b, ok := got.NodeInfo(n.Name)
		if !ok || !reflect.DeepEqual(a.Requested, b.Requested) || len(a.Pods) != len(b.Pods) {
			t.Errorf("node %s differs", n.Name)
		}
	}
}

func waitSynced(t *testing.T, l *live.Live, _ int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	stable := 0
	for stable < 5 {
		if time.Now().After(deadline) {
			t.Fatal("feed not synced")
		}
		if l.Synced() {
			stable++
		} else {
			stable = 0
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A pod whose conversion fails, or that the scheduler refuses, is reported
// with its name and the field and kept out of the scheduler (never bound
// by it); the feed goes on. Fields schedkit does not model are counted.
func TestBadPodReported(t *testing.T) {
	refused := testPod("refused", "", "schedkit", 100, 0)
	refused.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Gt", Values: []string{"1"}}}}}}}}
	unreadable := testPod("unreadable", "", "schedkit", 100, 0)
	unreadable.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "Sometimes"}}
	good := testPod("good", "", "schedkit", 100, 0)
	good.Spec.Hostname = "h" // not modelled
	cfg := config(testNode("n0", 4))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	client := cfg.Client.(*fake.Clientset)
	for _, p := range []*corev1.Pod{refused, unreadable, good} {
		if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitSynced(t, l, 0)
	time.Sleep(100 * time.Millisecond)
	waitSynced(t, l, 0)
	rej := l.Stats().Rejected
	want := map[string]string{
		"Pod default/refused":    `podAffinity.required[0]: labelSelector.matchExpressions[0] key "k": unknown operator "Gt"`,
		"Pod default/unreadable": `spec.topologySpreadConstraints[0].whenUnsatisfiable="Sometimes"`,
	}
	if len(rej) != len(want) {
		t.Errorf("rejected: %v", rej)
	}
	for k, field := range want {
		_, name, _ := strings.Cut(k, "/")
		if msg := rej[k]; !strings.Contains(msg, "pod default/"+name) || !strings.Contains(msg, field) {
			t.Errorf("%s: rejected with %q, want its name and %s", k, msg, field)
		}
		if _, ok := l.Scheduler().Cluster().Pod("default", name); ok {
			t.Errorf("%s is in the scheduler", k)
		}
	}
	st, err := l.Scheduler().State()
	if err != nil {
		t.Fatal(err)
	}
	bound := false
	for _, r := range st.Pods {
		bound = bound || r.Pod.Name == "good" && r.Pod.Spec.NodeName == "n0"
	}
	if !bound {
		t.Errorf("the good pod is not bound: %v", st.Pods)
	}
	if n := l.Stats().Ignored["Pod spec.hostname"]; n != 1 {
		t.Errorf("unmodelled field spec.hostname counted %d times, want 1; counts %v", n, l.Stats().Ignored)
	}
}

// A missing API server is a clear error on start.
func TestUnreachableAPIServer(t *testing.T) {
	cfg := config()
	cfg.Client = mustClient(t, "https://127.0.0.1:1")
	cfg.SyncTimeout = 2 * time.Second
	_, err := live.Start(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "API server unreachable") {
		t.Fatalf("got %v", err)
	}
}

func mustClient(t *testing.T, host string) kubernetes.Interface {
	c, err := kubernetes.NewForConfig(&rest.Config{Host: host, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Informer resyncs redeliver every object; the feed applies none of them
// again (the resourceVersion is unchanged), and a real change after them is
// applied once.
func TestResyncAppliesNothingTwice(t *testing.T) {
	cfg := config(testNode("n0", 4), testPod("a", "n0", "", 100, 0), testPod("b", "", "schedkit", 100, 0))
	cfg.Resync = time.Second // the informers' minimum
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // two resyncs
	waitSynced(t, l, 0)
	if n := l.Stats().Applied; len(n) != 0 {
		t.Fatalf("resyncs applied %v", n)
	}
	client := cfg.Client.(*fake.Clientset)
	p := testPod("b", "", "schedkit", 100, 0)
	p.Labels["tier"] = "x"
	p.ResourceVersion = "2"
	if _, err := client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	waitSynced(t, l, 0)
	if n := l.Stats().Applied["Pod"]; n != 1 {
		t.Errorf("pod updates applied: %d, want 1", n)
	}
	r, ok := l.Scheduler().Cluster().Pod("default", "b")
	if !ok || r.Pod.Labels["tier"] != "x" {
		t.Errorf("update not applied: %v", r.Pod)
	}
}
