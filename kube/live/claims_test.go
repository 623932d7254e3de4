package live_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling"
)

// draCluster is a node with a ResourceSlice of two devices, a DeviceClass
// taking them, a claim for one device and the pending pod using it.
func draCluster() []runtime.Object {
	node := "n1"
	claim := "gpu-claim"
	return []runtime.Object{
		testNode(node, 4),
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}},
		&resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpus"}, Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: &node, Pool: resourcev1.ResourcePool{Name: "n1", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}}},
		&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: "default", UID: "claim-uid", ResourceVersion: "1"},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}}},
		func() *corev1.Pod {
			p := testPod("trainer", "", "schedkit", 100, 0)
			p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
			p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
			return p
		}(),
	}
}

// liveConfig is config with DefaultBinder posting pods/binding through
// the client and the client's discovery serving resource.k8s.io/v1.
func liveConfig(t *testing.T, objs ...runtime.Object) (live.Config, *fake.Clientset) {
	client := fake.NewClientset(objs...)
	client.Resources = []*metav1.APIResourceList{{GroupVersion: "resource.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "resourceclaims", Namespaced: true, Kind: "ResourceClaim"}}}}
	reg := framework.NewRegistry()
	for _, p := range live.Plugins(client) {
		if err := reg.Register(p.Name, p.Factory); err != nil {
			t.Fatal(err)
		}
	}
	prof := scheduling.DefaultProfile()
	prof.SchedulerName = "schedkit"
	return live.Config{Client: client, Registry: reg, Profiles: []framework.Profile{prof}}, client
}

// A pod with a claim: PreBind writes the claim's allocation (one of the
// node's devices), the finalizer and the pod's reservation to the API
// server before the pod's binding is posted; a conflict on the status
// update is retried with the claim read again.
func TestClaimWrittenBeforeBinding(t *testing.T) {
	cfg, client := liveConfig(t, draCluster()...)
	var mu sync.Mutex
	var calls []string
	conflicts := 1
	claims := schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := a.(clienttesting.CreateAction).GetObject().(*corev1.Binding)
		o, err := client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		p := o.(*corev1.Pod).DeepCopy()
		p.Spec.NodeName = b.Target.Name
		return true, b, client.Tracker().Update(corev1.SchemeGroupVersion.WithResource("pods"), p, b.Namespace)
	})
	client.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if a.GetVerb() != "list" && a.GetVerb() != "watch" {
			calls = append(calls, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
		if a.GetVerb() == "update" && a.GetSubresource() == "status" && a.GetResource().Resource == "resourceclaims" && conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(claims, "gpu-claim", nil)
		}
		return false, nil, nil
	})
	ctx, l := runFeed(t, cfg)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := client.CoreV1().Pods("default").Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.NodeName != "" {
			if p.Spec.NodeName != "n1" {
				t.Fatalf("pod bound to %q, want n1", p.Spec.NodeName)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod not bound; API calls %v; feed %+v", calls, l.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c, err := client.ResourceV1().ResourceClaims("default").Get(ctx, "gpu-claim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Status.Allocation
	if a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Driver != "gpu.example.com" || a.Devices.Results[0].Pool != "n1" ||
		!slices.Contains([]string{"gpu-0", "gpu-1"}, a.Devices.Results[0].Device) {
		t.Fatalf("allocation %+v, want one of n1's devices", a)
	}
	if len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].UID != "uid-trainer" || c.Status.ReservedFor[0].Resource != "pods" {
		t.Errorf("reservedFor %+v, want the pod", c.Status.ReservedFor)
	}
	if !slices.Contains(c.Finalizers, "resource.kubernetes.io/delete-protection") {
		t.Errorf("finalizers %v, want delete-protection", c.Finalizers)
	}
	mu.Lock()
	defer mu.Unlock()
	status := slices.Index(calls, "update resourceclaims/status")
	retried := slices.Index(calls[status+1:], "get resourceclaims/")
	bind := slices.Index(calls, "create pods/binding")
	if status < 0 || retried < 0 || bind < 0 || slices.Index(calls[status+1+retried:], "update resourceclaims/status") < 0 || bind < status+1+retried {
		t.Errorf("API calls %v: want the status update, a conflict, the claim read again and updated, then the binding", calls)
	}
}

// A failed claim write fails PreBind: the pod is not bound, and the
// scheduler's claim is left unallocated (Unreserve).
func TestClaimWriteFailureKeepsPodUnbound(t *testing.T) {
	cfg, client := liveConfig(t, draCluster()...)
	var bound sync.Mutex
	binds, writes := 0, 0
	client.PrependReactor("update", "resourceclaims", func(a clienttesting.Action) (bool, runtime.Object, error) {
		bound.Lock()
		writes++
		bound.Unlock()
		return true, nil, apierrors.NewInternalError(errTest)
	})
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "binding" {
			bound.Lock()
			binds++
			bound.Unlock()
		}
		return false, nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	time.Sleep(time.Second)
	bound.Lock()
	defer bound.Unlock()
	if writes == 0 {
		t.Fatal("no claim write tried")
	}
	if binds != 0 {
		t.Fatalf("pod bound %d times although its claim could not be written", binds)
	}
	c, err := client.ResourceV1().ResourceClaims("default").Get(ctx, "gpu-claim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status.Allocation != nil || len(c.Status.ReservedFor) != 0 {
		t.Errorf("claim status %+v, want untouched", c.Status)
	}
	// The scheduler's own view: no device left in flight or allocated.
	if cl, ok := l.Scheduler().Cluster().Snapshot().DRA().ResourceClaim("default", "gpu-claim"); !ok || cl.Status.Allocation != nil {
		t.Errorf("cluster's claim %+v, want unallocated", cl)
	}
}

var errTest = errString("injected failure")

type errString string

func (e errString) Error() string { return string(e) }

// runFeed starts the feed on cfg and runs its scheduler until the test
// ends.
func runFeed(t *testing.T, cfg live.Config) (context.Context, *live.Live) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	return ctx, l
}

// A DeviceTaintRule the API server serves is followed: the claim of a
// pod that does not tolerate its taint gets the other device.
func TestDeviceTaintRuleFollowed(t *testing.T) {
	driver, pool, device := "gpu.example.com", "n1", "gpu-0"
	rule := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "gpu-0-broken"}, Spec: resourcev1.DeviceTaintRuleSpec{
		DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: &driver, Pool: &pool, Device: &device},
		Taint:          resourcev1.DeviceTaint{Key: "example.com/broken", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}
	cfg, client := liveConfig(t, append(draCluster(), rule)...)
	client.Resources[0].APIResources = append(client.Resources[0].APIResources, metav1.APIResource{Name: "devicetaintrules", Kind: "DeviceTaintRule"})
	ctx, l := runFeed(t, cfg)
	var a *resourcev1.AllocationResult
	for deadline := time.Now().Add(10 * time.Second); a == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("claim not allocated; feed %+v", l.Stats())
		}
		c, err := client.ResourceV1().ResourceClaims("default").Get(ctx, "gpu-claim", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a = c.Status.Allocation
	}
	if len(a.Devices.Results) != 1 || a.Devices.Results[0].Device != "gpu-1" {
		t.Fatalf("allocation %+v, want gpu-1 (gpu-0 is tainted by the rule)", a)
	}
}
