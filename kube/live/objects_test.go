package live_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

func ns(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func svc(name string, sel map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: sel}}
}

func pdb(name, app string, allowed int32) *policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
}

func rs(name string, sel map[string]string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel}}}
}

// Namespaces, Services, controllers, PriorityClasses and
// PodDisruptionBudgets added, changed and deleted after the start reach
// the scheduler: its cluster holds what kubeload builds from a dump of the
// objects as they end, and a pod created without a priority gets its
// PriorityClass's, created after the start.
func TestFeedFollowsObjects(t *testing.T) {
	cfg := config(testNode("n0", 4), ns("default", nil), ns("a", map[string]string{"env": "dev"}),
		svc("s1", map[string]string{"app": "x"}), rs("r1", map[string]string{"app": "x"}),
		&schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p1"}, Value: 5}, pdb("b1", "x", 1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Client.(*fake.Clientset)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The fake clientset keeps resourceVersions as given; an API server
	// gives each update a new one.
	relabelled := ns("a", map[string]string{"env": "prod"})
	relabelled.ResourceVersion = "2"
	must(c.CoreV1().Namespaces().Update(ctx, relabelled, metav1.UpdateOptions{}))
	must(c.CoreV1().Namespaces().Create(ctx, ns("b", map[string]string{"team": "t"}), metav1.CreateOptions{}))
	must(nil, c.CoreV1().Services("default").Delete(ctx, "s1", metav1.DeleteOptions{}))
	must(c.CoreV1().Services("default").Create(ctx, svc("s2", map[string]string{"app": "y"}), metav1.CreateOptions{}))
	must(c.AppsV1().StatefulSets("default").Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ss", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "z"}}}}, metav1.CreateOptions{}))
	exhausted := pdb("b1", "x", 0)
	exhausted.ResourceVersion = "2"
	must(c.PolicyV1().PodDisruptionBudgets("default").Update(ctx, exhausted, metav1.UpdateOptions{}))
	must(c.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb("b2", "y", 2), metav1.CreateOptions{}))
	must(c.SchedulingV1().PriorityClasses().Create(ctx, &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p2"}, Value: 77}, metav1.CreateOptions{}))
	waitSynced(t, l, 0)
	p := testPod("late", "", "schedkit", 100, 0)
	p.Spec.Priority, p.Spec.PriorityClassName = nil, "p2"
	must(c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}))
	waitSynced(t, l, 0)

	// The dump of the objects as they are now.
	var objs []runtime.Object
	add := func(list runtime.Object, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		items, err := metaItems(list)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, items...)
	}
	add(c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}))
	add(c.CoreV1().Services("").List(ctx, metav1.ListOptions{}))
	add(c.CoreV1().ReplicationControllers("").List(ctx, metav1.ListOptions{}))
	add(c.AppsV1().ReplicaSets("").List(ctx, metav1.ListOptions{}))
	add(c.AppsV1().StatefulSets("").List(ctx, metav1.ListOptions{}))
	add(c.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{}))
	add(c.PolicyV1().PodDisruptionBudgets("").List(ctx, metav1.ListOptions{}))
	add(c.CoreV1().Nodes().List(ctx, metav1.ListOptions{}))
	add(c.CoreV1().Pods("").List(ctx, metav1.ListOptions{}))
	d, err := convert.Load(kubeload.Options{SchedulerNames: l.SchedulerNames()}, objs...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	// The fake clientset delivers watch events asynchronously, so the feed
	// may still be applying the last ones: compare until it holds the dump's
	// view or ten seconds pass.
	ws := want.Snapshot()
	opts := cmpopts.EquateEmpty()
	var diffs []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		gs := l.Scheduler().Cluster().Snapshot()
		diffs = diffs[:0]
		for _, name := range []string{"default", "a", "b"} {
			if diff := cmp.Diff(ws.NamespaceLabels(name), gs.NamespaceLabels(name)); diff != "" {
				diffs = append(diffs, fmt.Sprintf("namespace %s (-dump +feed):\n%s", name, diff))
			}
		}
		if diff := cmp.Diff(ws.Services, gs.Services, opts); diff != "" {
			diffs = append(diffs, fmt.Sprintf("services (-dump +feed):\n%s", diff))
		}
		if diff := cmp.Diff(ws.Controllers, gs.Controllers, opts); diff != "" {
			diffs = append(diffs, fmt.Sprintf("controllers (-dump +feed):\n%s", diff))
		}
		if diff := cmp.Diff(ws.DisruptionBudgets, gs.DisruptionBudgets, opts); diff != "" {
			diffs = append(diffs, fmt.Sprintf("budgets (-dump +feed):\n%s", diff))
		}
		if len(diffs) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
	gs := l.Scheduler().Cluster().Snapshot()
	r, ok := l.Scheduler().Cluster().Pod("default", "late")
	if !ok || r.Pod.Spec.Priority == nil || *r.Pod.Spec.Priority != 77 {
		t.Errorf("pod created with class p2: %+v", r.Pod)
	}
	if len(gs.Controllers) != 2 || len(gs.DisruptionBudgets) != 2 || gs.NamespaceLabels("a")["env"] != "prod" {
		t.Errorf("the changes did not all arrive: %v %v %v", gs.Controllers, gs.DisruptionBudgets, gs.NamespaceLabels("a"))
	}
}

func metaItems(list runtime.Object) ([]runtime.Object, error) {
	return meta.ExtractList(list)
}

// A PodDisruptionBudget created after the start changes where preemption
// goes, and a namespace relabelled after the start changes what an
// affinity term's namespaceSelector matches.
func TestLateObjectsChangeDecisions(t *testing.T) {
	a := testPod("a-low", "n0", "", 1000, 1)
	a.Labels = map[string]string{"app": "a"}
	b := testPod("b-low", "n1", "", 1000, 2)
	b.Labels = map[string]string{"app": "b"}
	cfg := config(testNode("n0", 1), testNode("n1", 1), ns("default", nil), a, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Client.(*fake.Clientset)
	ask := func(p *corev1.Pod) live.Verdict {
		t.Helper()
		vs, err := l.CanPlace(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return vs[0]
	}
	urgent := testPod("urgent", "", "schedkit", 1000, 100)
	if v := ask(urgent); v.NominatedNode != "n0" {
		t.Fatalf("before the budget: %+v, want n0 nominated (its victim has the lower priority)", v)
	}
	if _, err := c.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb("protect-a", "a", 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, l, 0)
	if v := ask(urgent); v.NominatedNode != "n1" {
		t.Fatalf("with a budget protecting a-low: %+v, want n1 nominated (no budget violated)", v)
	}

	near := testPod("near-b", "", "schedkit", 0, 0)
	near.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey:       "kubernetes.io/hostname",
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}}}
	if v := ask(near); v.Placed {
		t.Fatalf("no namespace labelled env=prod yet: %+v", v)
	}
	prod := ns("default", map[string]string{"env": "prod"})
	prod.ResourceVersion = "2"
	if _, err := c.CoreV1().Namespaces().Update(ctx, prod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, l, 0)
	if v := ask(near); !v.Placed || v.Node != "n1" {
		t.Fatalf("default labelled env=prod: %+v, want placed on n1 beside b-low", v)
	}
}
