package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/scheduling"
)

// Every pod is bound where schedkit's offline answer on a dump of the same
// cluster says (same seed, parallelism 1), and every pod it cannot place
// carries kube's PodScheduled=False condition with the FitError text.
func TestBindsWhereOfflineSays(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	createNodes(t, c,
		node("n1", "4", "8Gi", map[string]string{"topology.kubernetes.io/zone": "a"}),
		node("n2", "2", "4Gi", map[string]string{"topology.kubernetes.io/zone": "a"}),
		node("n3", "8", "16Gi", map[string]string{"topology.kubernetes.io/zone": "b"}),
	)
	var pods []*corev1.Pod
	for i := range 14 {
		p := pod(fmt.Sprintf("web-%02d", i), fmt.Sprintf("%dm", 300+100*(i%5)), fmt.Sprintf("%dMi", 256*(1+i%3)), map[string]string{"app": "web"})
		if i%4 == 0 {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}}}}
		}
		pods = append(pods, p)
	}
	pods = append(pods, pod("huge", "64", "1Gi", nil), pod("big-mem", "100m", "64Gi", nil))
	createPods(t, c, pods...)
	want := offline(t, dumpCluster(t, c))

	start := time.Now()
	l := runLive(t, liveConfig(c))
	waitFor(t, 60*time.Second, "every pod bound or unschedulable", func() (bool, error) { return settled(c) })
	t.Logf("%d pods settled in %s", len(pods), time.Since(start).Round(time.Millisecond))

	bound, failed := 0, 0
	for _, p := range pods {
		got, err := c.CoreV1().Pods(p.Namespace).Get(context.Background(), p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d := want[key(got)]
		switch d.Outcome {
		case scheduling.OutcomeScheduled:
			bound++
			if got.Spec.NodeName != d.Node {
				t.Errorf("pod %s bound to %q, offline answer %q", key(got), got.Spec.NodeName, d.Node)
			}
		case scheduling.OutcomeUnschedulable:
			failed++
			t.Logf("pod %s unschedulable: %s", key(got), d.Message)
			cond, _ := scheduledCondition(got)
			if got.Spec.NodeName != "" || cond.Status != corev1.ConditionFalse || cond.Reason != corev1.PodReasonUnschedulable || cond.Message != d.Message {
				t.Errorf("pod %s: node %q, condition %s/%s %q; offline: unschedulable %q", key(got), got.Spec.NodeName, cond.Status, cond.Reason, cond.Message, d.Message)
			}
		default:
			t.Errorf("pod %s: offline outcome %s", key(got), d.Outcome)
		}
	}
	if bound == 0 || failed == 0 {
		t.Errorf("the scenario should bind some pods and fail some: %d bound, %d unschedulable", bound, failed)
	}
	// The admission-shaped question on the cluster as it is now: nothing
	// reaches the API server.
	vs, err := l.CanPlace(context.Background(), pod("ask-small", "100m", "64Mi", nil), pod("ask-huge", "64", "1Gi", nil))
	if err != nil {
		t.Fatal(err)
	}
	if !vs[0].Placed || vs[0].Node == "" || vs[1].Placed || !strings.HasPrefix(vs[1].Reason, "0/3 nodes are available: 3 Insufficient cpu.") {
		t.Errorf("CanPlace: %+v", vs)
	}
	if _, err := c.CoreV1().Pods("default").Get(context.Background(), "ask-small", metav1.GetOptions{}); err == nil {
		t.Errorf("a what-if pod reached the API server")
	}
	waitFor(t, 20*time.Second, "FailedScheduling events", func() (bool, error) {
		evs, err := c.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := map[string]int{}
		for _, e := range evs.Items {
			n[e.Reason]++
		}
		return n["FailedScheduling"] >= failed && n["Scheduled"] >= bound, nil
	})
	evs, err := c.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if strings.HasPrefix(e.Regarding.Name, "ask-") {
			t.Errorf("a what-if question wrote an Event: %s %s", e.Reason, e.Note)
		}
	}
}
