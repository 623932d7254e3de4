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
	policyv1 "k8s.io/api/policy/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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
// the preemptor, which is then bound there; a PodDisruptionBudget created
// after the scheduler started steers it to the victim the budget does not
// protect, although the protected one has the lower priority.
func TestPreemption(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	ctx := context.Background()
	fakeKubelet(t, c)
	for name, v := range map[string]int32{"low": 10, "low2": 20, "high": 1000} {
		if _, err := c.SchedulingV1().PriorityClasses().Create(ctx, &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	createNodes(t, c, node("p1", "2", "4Gi", nil), node("p2", "2", "4Gi", nil))
	for _, name := range []string{"low", "low2"} {
		p := pod(name, "1500m", "1Gi", map[string]string{"app": name})
		p.Spec.PriorityClassName = name
		createPods(t, c, p)
	}
	l := runLive(t, liveConfig(c))
	nodeOf := map[string]string{}
	waitFor(t, 30*time.Second, "the low-priority pods bound", func() (bool, error) {
		for _, name := range []string{"low", "low2"} {
			p, err := c.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil || p.Spec.NodeName == "" {
				return false, err
			}
			nodeOf[name] = p.Spec.NodeName
		}
		return true, nil
	})
	// No disruption controller runs: the budget's disruptionsAllowed stays 0.
	one := intstr.FromInt32(1)
	if _, err := c.PolicyV1().PodDisruptionBudgets("default").Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "keep-low", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "low"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the budget in the scheduler", func() (bool, error) { return l.Stats().Applied["PodDisruptionBudget"] > 0, nil })
	high := pod("high", "1500m", "1Gi", nil)
	high.Spec.PriorityClassName = "high"
	createPods(t, c, high)
	waitFor(t, 60*time.Second, "the preemptor bound where low2 was", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "high", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == nodeOf["low2"], err
	})
	if _, err := c.CoreV1().Pods("default").Get(ctx, "low2", metav1.GetOptions{}); err == nil {
		t.Errorf("victim low2 still exists")
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "low", metav1.GetOptions{}); err != nil {
		t.Errorf("the pod the budget protects: %v", err)
	}
	waitFor(t, 20*time.Second, "the Preempted event", func() (bool, error) {
		evs, err := c.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "Preempted" && e.Regarding.Name == "low2" {
				return true, nil
			}
		}
		return false, nil
	})
}

// A node added and a pod deleted through the API each move a pod waiting
// for room, as the queueing hints of NodeResourcesFit say, long before the
// unschedulable pool's five-minute flush.
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

	// A pod deleted through the API makes room for a pod waiting for it
	// (NodeResourcesFit's hint on a pod deletion).
	createPods(t, c, pod("wants-room-too", "2", "1Gi", nil))
	waitFor(t, 30*time.Second, "the second pod marked unschedulable", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "wants-room-too", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond, ok := scheduledCondition(p)
		return ok && cond.Status == corev1.ConditionFalse, nil
	})
	zero := int64(0)
	deleted := time.Now()
	if err := c.CoreV1().Pods("default").Delete(ctx, "wants-room", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the second pod bound where the deleted one was", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "wants-room-too", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "big", err
	})
	t.Logf("bound %s after the pod was deleted", time.Since(deleted).Round(time.Millisecond))
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

// faulty injects the API failures a scheduler must survive, chosen by a
// seeded random source, into the requests of one client:
//
//   - writes (POST, PATCH, PUT, DELETE): about one in three fails before
//     reaching the API server, with 409 Conflict, 500 or 503 (a Status as
//     the API server writes it) or a timeout; about one in ten reaches it
//     and then times out, so that the write happened but its answer is
//     lost (a binding done that the scheduler believes failed);
//   - watches: one in four is refused with 500, and the connection of
//     every other one is cut 1 to 2 s after it opens (a dropped watch),
//     up to maxCuts.
type faulty struct {
	next    http.RoundTripper
	mu      sync.Mutex
	rng     *rand.Rand
	counts  map[string]int
	maxCuts int
	writes  int
}

// The first writes get each fault in turn, so that every kind is
// injected whatever the random draws; the later ones draw theirs.
var firstFaults = []int{0, 3, 6, 9, 10}

func (f *faulty) draw(n int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.IntN(n)
}

func (f *faulty) count(what string) {
	f.mu.Lock()
	f.counts[what]++
	f.mu.Unlock()
}

func (f *faulty) total(what string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[what]
}

// status is an API server's error answer.
func status(r *http.Request, code int, reason string) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected %s","reason":%q,"code":%d}`, reason, reason, code)
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Request: r,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
}

// errTimeout is an injected timeout: what the client sees when the API
// server does not answer in time.
var errTimeout = fmt.Errorf("injected timeout: %w", context.DeadlineExceeded)

func (f *faulty) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		if q := r.URL.Query().Get("watch"); q != "true" && q != "1" {
			return f.next.RoundTrip(r)
		}
		if f.draw(4) == 0 {
			f.count("watch refused")
			return status(r, http.StatusInternalServerError, "InternalError"), nil
		}
		resp, err := f.next.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusOK || f.draw(2) == 0 {
			return resp, err
		}
		f.mu.Lock()
		cut := f.counts["watch cut"] < f.maxCuts
		if cut {
			f.counts["watch cut"]++
		}
		f.mu.Unlock()
		if cut {
			resp.Body = cutAfter(resp.Body, time.Second+time.Duration(f.draw(1000))*time.Millisecond)
		}
		return resp, err
	}
	f.mu.Lock()
	k := f.rng.IntN(30)
	if f.writes < len(firstFaults) {
		k = firstFaults[f.writes]
	}
	f.writes++
	f.mu.Unlock()
	switch {
	case k < 3:
		f.count("409")
		return status(r, http.StatusConflict, "Conflict"), nil
	case k < 6:
		f.count("500")
		return status(r, http.StatusInternalServerError, "InternalError"), nil
	case k < 9:
		f.count("503")
		return status(r, http.StatusServiceUnavailable, "ServiceUnavailable"), nil
	case k < 10:
		f.count("timeout")
		return nil, errTimeout
	case k < 13:
		// The write reaches the API server; its answer is lost.
		resp, err := f.next.RoundTrip(r)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		f.count("answer lost")
		return nil, errTimeout
	}
	return f.next.RoundTrip(r)
}

// cutBody is a watch's body whose connection is cut at a time: reads
// then fail as on a dropped connection.
type cutBody struct {
	io.ReadCloser
	mu  sync.Mutex
	cut bool
}

func cutAfter(b io.ReadCloser, d time.Duration) io.ReadCloser {
	c := &cutBody{ReadCloser: b}
	time.AfterFunc(d, func() {
		c.mu.Lock()
		c.cut = true
		c.mu.Unlock()
		b.Close()
	})
	return c
}

func (c *cutBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return 0, io.ErrUnexpectedEOF
	}
	return n, err
}

// API errors (409 Conflict, 500, 503, timeouts before and after the write
// happened, watches refused and dropped) are retried without losing a
// pod: every pod is bound once, the unschedulable one is marked, pods
// created while watches are down are scheduled, and the scheduler's own
// view ends as the API server's.
func TestAPIFaultsRetried(t *testing.T) {
	srv := startAPIServer(t)
	createNodes(t, srv.Client, node("e1", "8", "16Gi", nil), node("e2", "8", "16Gi", nil))
	var names []string
	for i := range 20 {
		p := pod(fmt.Sprintf("e-%02d", i), "200m", "128Mi", nil)
		names = append(names, p.Name)
		createPods(t, srv.Client, p)
	}
	createPods(t, srv.Client, pod("e-too-big", "32", "1Gi", nil))
	fl := &faulty{rng: rand.New(rand.NewPCG(1, 2)), counts: map[string]int{}, maxCuts: 12}
	cfg := rest.CopyConfig(srv.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { fl.next = rt; return fl }
	fc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := runLive(t, liveConfig(fc))
	// More pods while watches are being cut: each one arrives, at the
	// latest, when its watch is opened again.
	for i := 20; i < 30; i++ {
		time.Sleep(300 * time.Millisecond)
		p := pod(fmt.Sprintf("e-%02d", i), "200m", "128Mi", nil)
		names = append(names, p.Name)
		createPods(t, srv.Client, p)
	}
	waitFor(t, 90*time.Second, "every pod bound", func() (bool, error) { return allBound(srv.Client, names) })
	waitFor(t, 60*time.Second, "the unschedulable pod's condition", func() (bool, error) {
		p, err := srv.Client.CoreV1().Pods("default").Get(context.Background(), "e-too-big", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond, ok := scheduledCondition(p)
		return ok && cond.Reason == corev1.PodReasonUnschedulable, nil
	})
	waitFor(t, 30*time.Second, "the scheduler's view as the API server's", func() (bool, error) {
		st, err := l.Scheduler().State()
		if err != nil {
			return false, err
		}
		have := map[string]string{}
		for _, r := range st.Pods {
			have[r.Pod.Name] = r.Pod.Spec.NodeName
		}
		for _, name := range names {
			p, err := srv.Client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if have[name] != p.Spec.NodeName {
				return false, nil
			}
		}
		return true, nil
	})
	for _, what := range []string{"409", "500", "503", "timeout", "answer lost", "watch cut"} {
		if fl.total(what) == 0 {
			t.Errorf("no %s injected", what)
		}
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	t.Logf("injected: %v", fl.counts)
}
