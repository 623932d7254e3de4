package e2e

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// fakeKubelet finishes the deletion of pods on nodes, as a kubelet would
// once their containers stopped: there is no kubelet in these tests.
func fakeKubelet(t *testing.T, c kubernetes.Interface) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		zero := int64(0)
		for ctx.Err() == nil {
			pods, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			if err == nil {
				for _, p := range pods.Items {
					if p.DeletionTimestamp != nil {
						_ = c.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
					}
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
}

// Preemption deletes the victims through the API, nominates the node on
// the preemptor, which is then bound there.
func TestPreemption(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	ctx := context.Background()
	fakeKubelet(t, c)
	for name, v := range map[string]int32{"low": 10, "high": 1000} {
		if _, err := c.SchedulingV1().PriorityClasses().Create(ctx, &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	createNodes(t, c, node("p1", "2", "4Gi", nil))
	low := pod("low", "1500m", "1Gi", nil)
	low.Spec.PriorityClassName = "low"
	createPods(t, c, low)
	runLive(t, liveConfig(c))
	waitFor(t, 30*time.Second, "the low-priority pod bound", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "low", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "p1", err
	})
	high := pod("high", "1500m", "1Gi", nil)
	high.Spec.PriorityClassName = "high"
	createPods(t, c, high)
	waitFor(t, 60*time.Second, "the preemptor bound to p1", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "high", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "p1", err
	})
	if _, err := c.CoreV1().Pods("default").Get(ctx, "low", metav1.GetOptions{}); err == nil {
		t.Errorf("victim still exists")
	}
	waitFor(t, 20*time.Second, "the Preempted event", func() (bool, error) {
		evs, err := c.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "Preempted" && e.Regarding.Name == "low" {
				return true, nil
			}
		}
		return false, nil
	})
}

// A node added through the API moves a pod waiting for room, as the
// queueing hints of NodeResourcesFit say, long before the unschedulable
// pool's five-minute flush.
func TestWatchEventMovesWaitingPod(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	ctx := context.Background()
	createNodes(t, c, node("small", "1", "2Gi", nil))
	createPods(t, c, pod("wants-room", "3", "1Gi", nil))
	runLive(t, liveConfig(c))
	waitFor(t, 30*time.Second, "the pod marked unschedulable", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "wants-room", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond, ok := scheduledCondition(p)
		return ok && cond.Status == corev1.ConditionFalse, nil
	})
	added := time.Now()
	createNodes(t, c, node("big", "4", "8Gi", nil))
	waitFor(t, 30*time.Second, "the pod bound to the new node", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "wants-room", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "big", err
	})
	t.Logf("bound %s after the node was added", time.Since(added).Round(time.Millisecond))
}

// scheduledEvents counts the Scheduled events of each pod.
func scheduledEvents(t *testing.T, c kubernetes.Interface) map[string]int {
	t.Helper()
	evs, err := c.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range evs.Items {
		if e.Reason == "Scheduled" {
			n[e.Regarding.Name]++
		}
	}
	return n
}

// allBound reports whether every named pod is bound.
func allBound(c kubernetes.Interface, names []string) (bool, error) {
	for _, name := range names {
		p, err := c.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName == "" {
			return false, nil
		}
	}
	return true, nil
}

// A scheduler stopped mid-run and started again loses no pod and binds
// none twice.
func TestRestartLosesNoPod(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	createNodes(t, c, node("r1", "16", "32Gi", nil), node("r2", "16", "32Gi", nil))
	var names []string
	for i := range 40 {
		p := pod(fmt.Sprintf("r-%02d", i), "100m", "64Mi", nil)
		names = append(names, p.Name)
		createPods(t, c, p)
	}
	cfg := liveConfig(c)
	cfg.Logf = t.Logf
	ctx1, stop1 := context.WithCancel(context.Background())
	l1, err := startLiveCtx(ctx1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l1.Run(ctx1)
	waitFor(t, 30*time.Second, "some pods bound", func() (bool, error) {
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
		return n >= 5, nil
	})
	stop1()
	// More pods arrive while no scheduler runs.
	for i := 40; i < 50; i++ {
		p := pod(fmt.Sprintf("r-%02d", i), "100m", "64Mi", nil)
		names = append(names, p.Name)
		createPods(t, c, p)
	}
	ctx2, stop2 := context.WithCancel(context.Background())
	t.Cleanup(stop2)
	l2, err := startLiveCtx(ctx2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l2.Run(ctx2)
	waitFor(t, 60*time.Second, "every pod bound", func() (bool, error) { return allBound(c, names) })
	time.Sleep(time.Second) // let the last events land
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

// flaky fails a third of the write requests (POST, PATCH, PUT, DELETE),
// chosen by a seeded random source, with 503 before they reach the API
// server.
type flaky struct {
	next  http.RoundTripper
	mu    sync.Mutex
	rng   *rand.Rand
	fails int
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		f.mu.Lock()
		fail := f.rng.IntN(3) == 0
		if fail {
			f.fails++
		}
		f.mu.Unlock()
		if fail {
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable", Request: r,
				Header: http.Header{"Content-Type": []string{"text/plain"}}, Body: io.NopCloser(strings.NewReader("injected failure"))}, nil
		}
	}
	return f.next.RoundTrip(r)
}

// API errors (bindings, status updates, events refused) are retried
// without losing a pod.
func TestAPIErrorsRetried(t *testing.T) {
	srv := startAPIServer(t)
	createNodes(t, srv.Client, node("e1", "8", "16Gi", nil), node("e2", "8", "16Gi", nil))
	var names []string
	for i := range 20 {
		p := pod(fmt.Sprintf("e-%02d", i), "200m", "128Mi", nil)
		names = append(names, p.Name)
		createPods(t, srv.Client, p)
	}
	createPods(t, srv.Client, pod("e-too-big", "32", "1Gi", nil))
	fl := &flaky{rng: rand.New(rand.NewPCG(1, 2))}
	cfg := rest.CopyConfig(srv.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { fl.next = rt; return fl }
	fc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	runLive(t, liveConfig(fc))
	waitFor(t, 90*time.Second, "every pod bound", func() (bool, error) { return allBound(srv.Client, names) })
	waitFor(t, 60*time.Second, "the unschedulable pod's condition", func() (bool, error) {
		p, err := srv.Client.CoreV1().Pods("default").Get(context.Background(), "e-too-big", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond, ok := scheduledCondition(p)
		return ok && cond.Reason == corev1.PodReasonUnschedulable, nil
	})
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.fails == 0 {
		t.Errorf("no failure injected")
	}
	t.Logf("%d write requests failed and were retried", fl.fails)
}
