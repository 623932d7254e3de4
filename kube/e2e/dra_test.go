package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDRAClaimAllocated: a node publishing a ResourceSlice of two devices,
// a DeviceClass, a claim for one device and a pod using it. The scheduler
// writes the claim's allocation (a device of the node, the node selector)
// and the pod's reservation to resourceclaims/status, then binds the pod
// to the node; a second pod with its own claim gets the other device.
func TestDRAClaimAllocated(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	ctx := context.Background()
	createNodes(t, c, node("gpu-node", "4", "8Gi", nil), node("plain", "8", "16Gi", nil))
	nodeName := "gpu-node"
	if _, err := c.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "gpu-node-gpus"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &nodeName,
			Pool:    resourcev1.ResourcePool{Name: "gpu-node", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	withClaim := func(name string) *corev1.Pod {
		claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name + "-gpu", Namespace: "default"},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}}}}}
		if _, err := c.ResourceV1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := pod(name, "100m", "", nil)
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim.Name}}
		p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
		return p
	}
	createPods(t, c, withClaim("trainer"))
	runLive(t, liveConfig(c))
	createPods(t, c, withClaim("trainer-2"))
	devices := map[string]string{}
	for _, name := range []string{"trainer", "trainer-2"} {
		waitFor(t, 60*time.Second, name+" bound to the node with the devices", func() (bool, error) {
			p, err := c.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil || p.Spec.NodeName == "" {
				return false, err
			}
			if p.Spec.NodeName != nodeName {
				t.Fatalf("%s bound to %s, want %s", name, p.Spec.NodeName, nodeName)
			}
			return true, nil
		})
		p, err := c.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := c.ResourceV1().ResourceClaims("default").Get(ctx, name+"-gpu", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := cl.Status.Allocation
		if a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Pool != "gpu-node" || a.NodeSelector == nil {
			t.Fatalf("claim %s: allocation %+v, want one device of gpu-node with a node selector", cl.Name, a)
		}
		devices[a.Devices.Results[0].Device] = name
		if !slices.Contains(cl.Finalizers, "resource.kubernetes.io/delete-protection") {
			t.Errorf("claim %s: finalizers %v, want delete-protection", cl.Name, cl.Finalizers)
		}
		if len(cl.Status.ReservedFor) != 1 || cl.Status.ReservedFor[0].UID != p.UID {
			t.Errorf("claim %s: reservedFor %+v, want pod %s (%s)", cl.Name, cl.Status.ReservedFor, name, p.UID)
		}
	}
	if len(devices) != 2 {
		t.Errorf("devices allocated %v, want both of the node's, one per pod", devices)
	}

	// A third pod finds no device left: it stays unbound, marked
	// unschedulable.
	createPods(t, c, withClaim("trainer-3"))
	waitFor(t, 60*time.Second, "the third pod marked unschedulable", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "trainer-3", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond, ok := scheduledCondition(p)
		return ok && cond.Status == corev1.ConditionFalse, nil
	})
	if p, _ := c.CoreV1().Pods("default").Get(ctx, "trainer-3", metav1.GetOptions{}); p != nil && p.Spec.NodeName != "" {
		t.Errorf("trainer-3 bound to %s with no device left", p.Spec.NodeName)
	}
}

// TestDRADeviceTaintRule: kube-apiserver v1.37 serves DeviceTaintRules at
// resource.k8s.io/v1 by default; the feed follows them, so a rule tainting
// gpu-0 NoSchedule leaves the pod's claim gpu-1, as kube-scheduler
// allocates it.
func TestDRADeviceTaintRule(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	ctx := context.Background()
	createNodes(t, c, node("gpu-node", "4", "8Gi", nil))
	nodeName, driver, device := "gpu-node", "gpu.example.com", "gpu-0"
	if _, err := c.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "gpu-node-gpus"},
		Spec: resourcev1.ResourceSliceSpec{Driver: driver, NodeName: &nodeName,
			Pool:    resourcev1.ResourcePool{Name: nodeName, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResourceV1().DeviceTaintRules().Create(ctx, &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "gpu-0-broken"},
		Spec: resourcev1.DeviceTaintRuleSpec{DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: &driver, Pool: &nodeName, Device: &device},
			Taint: resourcev1.DeviceTaint{Key: "example.com/broken", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "trainer-gpu", Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}}}}}
	if _, err := c.ResourceV1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := pod("trainer", "100m", "", nil)
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim.Name}}
	p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	createPods(t, c, p)
	runLive(t, liveConfig(c))
	waitFor(t, 60*time.Second, "trainer bound", func() (bool, error) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "trainer", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	cl, err := c.ResourceV1().ResourceClaims("default").Get(ctx, "trainer-gpu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := cl.Status.Allocation; a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Device != "gpu-1" {
		t.Fatalf("allocation %+v, want gpu-1: gpu-0 is tainted by the rule", a)
	}
}
