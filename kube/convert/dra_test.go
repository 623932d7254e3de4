package convert_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// draObjects are typed resource.k8s.io/v1 objects as an informer delivers
// them (no TypeMeta): a node's slice of two GPUs, a class, a claim
// allocated to one GPU (with the driver's status of it), a template with a
// firstAvailable request, a DeviceTaintRule, and the pod using the claim.
func draObjects() []runtime.Object {
	ptr := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	gpu := func(name, root string, index int64) resourcev1.Device {
		return resourcev1.Device{Name: name,
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"model": {StringValue: ptr("A100")}, "index": {IntValue: i64(index)},
				"resource.kubernetes.io/pcieRoot": {StringValue: ptr(root)}},
			Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse("80Gi")}}}
	}
	root := resourcev1.FullyQualifiedName("resource.kubernetes.io/pcieRoot")
	return []runtime.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-a"}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourcePods: resource.MustParse("110")}}},
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu-a100"}, Spec: resourcev1.DeviceClassSpec{
			ExtendedResourceName: ptr("example.com/a100"),
			Selectors:            []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "A100"`}}}}},
		&resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "gpu-a-gpus"}, Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: ptr("gpu-a"), Pool: resourcev1.ResourcePool{Name: "gpu-a", Generation: 3, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{gpu("gpu-0", "pci0", 0), gpu("gpu-1", "pci1", 1)}}},
		&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "train-gpu", Namespace: "ml"},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: "gpus", Exactly: &resourcev1.ExactDeviceRequest{
					DeviceClassName: "gpu-a100", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 2}}},
				Constraints: []resourcev1.DeviceConstraint{{MatchAttribute: &root}}}},
			Status: resourcev1.ResourceClaimStatus{
				Allocation: &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
					{Request: "gpus", Driver: "gpu.example.com", Pool: "gpu-a", Device: "gpu-0"}}}},
				ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "train", UID: "u1"}},
				Devices: []resourcev1.AllocatedDeviceStatus{{Driver: "gpu.example.com", Pool: "gpu-a", Device: "gpu-0",
					Conditions: []metav1.Condition{{Type: "example.com/attached", Status: metav1.ConditionTrue, Reason: "Attached",
						LastTransitionTime: metav1.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}}}}}},
		&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "any-gpu", Namespace: "ml"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
					{Name: "big", DeviceClassName: "gpu-a100", AllocationMode: resourcev1.DeviceAllocationModeAll}}}}}}}},
		&resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "gpu-1-broken"}, Spec: resourcev1.DeviceTaintRuleSpec{
			DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr("gpu.example.com"), Pool: ptr("gpu-a"), Device: ptr("gpu-1")},
			Taint:          resourcev1.DeviceTaint{Key: "example.com/broken", Effect: resourcev1.DeviceTaintEffectNoExecute}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ml", UID: "u1"}, Spec: corev1.PodSpec{
			NodeName:       "gpu-a",
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("train-gpu")}},
			Containers: []corev1.Container{{Name: "c", Image: "i", Resources: corev1.ResourceRequirements{
				Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}}}},
	}
}

// Typed resource.k8s.io/v1 objects convert into the DRA objects kubeload
// reads from their dump, field for field.
func TestDRATypedEqualsDump(t *testing.T) {
	objs := draObjects()
	got, err := convert.Load(kubeload.Options{}, objs...)
	if err != nil {
		t.Fatal(err)
	}
	l := kubeload.NewLoader(kubeload.Options{})
	for _, o := range objs {
		data, err := convert.Encode(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.ReadBytes(data, convert.Name(o)); err != nil {
			t.Fatal(err)
		}
	}
	want, err := l.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, dumpOptions...); diff != "" {
		t.Errorf("dump (-from dump +from typed):\n%s", diff)
	}
	x := got.DRA
	if len(x.ResourceSlices) != 1 || len(x.DeviceClasses) != 1 || len(x.ResourceClaims) != 1 || len(x.ResourceClaimTemplates) != 1 || len(x.DeviceTaintRules) != 1 {
		t.Fatalf("DRA objects %+v", x)
	}
	dev := x.ResourceSlices[0].Spec.Devices[1]
	if *dev.Attributes["index"].IntValue != 1 || *dev.Attributes["resource.kubernetes.io/pcieRoot"].StringValue != "pci1" ||
		dev.Capacity["memory"].Value.Value() != 80<<30 || x.ResourceSlices[0].Spec.Pool.Generation != 3 {
		t.Errorf("device %+v", dev)
	}
	if n := x.DeviceClasses[0].Spec.ExtendedResourceName; n == nil || *n != "example.com/a100" {
		t.Errorf("class extendedResourceName %v", n)
	}
	claim := x.ResourceClaims[0]
	if claim.Spec.Devices.Requests[0].Exactly.Count != 2 || *claim.Spec.Devices.Constraints[0].MatchAttribute != "resource.kubernetes.io/pcieRoot" ||
		claim.Status.Allocation.Devices.Results[0].Device != "gpu-0" || claim.Status.ReservedFor[0].UID != "u1" ||
		claim.Status.Devices[0].Conditions[0].Type != "example.com/attached" || claim.Status.Devices[0].Conditions[0].Status != api.ConditionTrue {
		t.Errorf("claim %+v", claim)
	}
	if sub := x.ResourceClaimTemplates[0].Spec.Spec.Devices.Requests[0].FirstAvailable[0]; sub.AllocationMode != api.DeviceAllocationModeAll || sub.Count != 0 {
		t.Errorf("template subrequest %+v", sub)
	}
	if r := x.DeviceTaintRules[0]; !r.Selects("gpu.example.com", "gpu-a", "gpu-1") || r.Selects("gpu.example.com", "gpu-a", "gpu-0") ||
		r.Spec.Taint.Effect != api.DeviceTaintEffectNoExecute {
		t.Errorf("taint rule %+v", r)
	}
	if p := got.Pods[0]; p.Spec.ResourceClaims[0].Name != "gpu" || p.Spec.Containers[0].Resources.Claims[0].Name != "gpu" {
		t.Errorf("pod claims %+v", p.Spec)
	}
	if len(got.Report.Notes) != 1 || got.Report.Notes[0].Kind != "Namespace" { // ml is inferred
		t.Errorf("notes %v", got.Report.Notes)
	}
	for _, o := range objs[1:6] {
		obj, err := convert.Object(kubeload.Options{}, o)
		if err != nil || obj.Value == nil {
			t.Errorf("%s: %v, %+v", convert.Name(o), err, obj)
		}
	}
}
