package convert_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// genCluster returns random typed objects of the kinds a scheduler
// watches: nodes with taints and labels, pods placed, pending, terminal,
// gated, with priorities and affinities, PriorityClasses and budgets.
func genCluster(r *rand.Rand) []runtime.Object {
	var objs []runtime.Object
	zones := []string{"z1", "z2", "z3"}
	objs = append(objs, &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		&schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: -5, GlobalDefault: r.IntN(2) == 0})
	nodes := 1 + r.IntN(6)
	for i := range nodes {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{
			"kubernetes.io/hostname": fmt.Sprintf("n%d", i), "topology.kubernetes.io/zone": zones[r.IntN(3)]}}}
		n.Status.Allocatable = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(1000+r.IntN(8000)), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(1+r.IntN(32))<<30, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI)}
		n.Status.Capacity = n.Status.Allocatable.DeepCopy()
		if r.IntN(4) == 0 {
			n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
		}
		n.Spec.Unschedulable = r.IntN(8) == 0
		objs = append(objs, n)
	}
	for i := range 3 + r.IntN(20) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: []string{"a", "b"}[r.IntN(2)],
			Labels: map[string]string{"app": []string{"web", "db"}[r.IntN(2)]}}}
		c := corev1.Container{Name: "c", Image: "img", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: *resource.NewMilliQuantity(int64(r.IntN(2000)), resource.DecimalSI)}}}
		if r.IntN(2) == 0 {
			c.Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(int64(r.IntN(4))<<30, resource.BinarySI)
		}
		p.Spec.Containers = []corev1.Container{c}
		switch r.IntN(6) {
		case 0:
			p.Spec.NodeName = fmt.Sprintf("n%d", r.IntN(nodes+1)) // sometimes a node that does not exist
		case 1:
			p.Spec.NodeName = fmt.Sprintf("n%d", r.IntN(nodes))
			p.Status.Phase = corev1.PodSucceeded
		case 2:
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
		case 3:
			p.Spec.SchedulerName = "other"
		}
		switch r.IntN(3) {
		case 0:
			p.Spec.PriorityClassName = "high"
		case 1:
			v := int32(r.IntN(100))
			p.Spec.Priority = &v
		}
		if r.IntN(3) == 0 {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}, TopologyKey: "topology.kubernetes.io/zone"}}}}
		}
		if r.IntN(4) == 0 {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		}
		objs = append(objs, p)
	}
	if r.IntN(2) == 0 {
		one := intstr.FromInt32(1)
		objs = append(objs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "a"},
			Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: int32(r.IntN(2))}})
	}
	return objs
}

// A cluster built from generated typed objects equals the one kubeload
// builds from their dump as the API machinery's JSON serializer prints it
// (a v1 List, as `kubectl get -o json`).
func TestGeneratedTypedEqualsDump(t *testing.T) {
	ser := scheme.Codecs.LegacyCodec(corev1.SchemeGroupVersion, policyv1.SchemeGroupVersion, schedv1.SchemeGroupVersion)
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		objs := genCluster(r)
		list := &corev1.List{}
		for _, o := range objs {
			data, err := runtime.Encode(ser, o.DeepCopyObject())
			if err != nil {
				t.Fatal(err)
			}
			list.Items = append(list.Items, runtime.RawExtension{Raw: data})
		}
		var b bytes.Buffer
		if err := scheme.Codecs.LegacyCodec(corev1.SchemeGroupVersion).Encode(list, &b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "dump.json")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := kubeload.Options{}
		want, err := kubeload.Load(opts, path)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, err := convert.Load(opts, objs...)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if diff := cmp.Diff(want, got, dumpOptions...); diff != "" {
			t.Fatalf("seed %d: dump (-from dump +from typed):\n%s", seed, diff)
		}
		if diff := cmp.Diff(viewOf(t, want), viewOf(t, got), dumpOptions...); diff != "" {
			t.Fatalf("seed %d: cluster (-from dump +from typed):\n%s", seed, diff)
		}
	}
}
