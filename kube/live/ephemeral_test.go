package live_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// startRunning starts a feed with its scheduling loop, both stopped when
// the test ends.
func startRunning(t *testing.T, cfg live.Config) (context.Context, *live.Live) {
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

// podOf returns the scheduler's record of the pod default/name, read from
// its State while the feed and the scheduling loop run.
func podOf(t *testing.T, l *live.Live, name string) (cluster.PodRecord, bool) {
	t.Helper()
	st, err := l.Scheduler().State()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Pods {
		if r.Pod.Namespace == "default" && r.Pod.Name == name {
			return r, true
		}
	}
	return cluster.PodRecord{}, false
}

// storageOf reads a storage object of the scheduler's cluster in a fork,
// which holds the feed and the scheduling loop off meanwhile.
func storageOf(t *testing.T, l *live.Live, kind api.StorageKind, name string) (api.StorageObject, bool) {
	t.Helper()
	f, err := l.Scheduler().Fork()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Revert(); err != nil {
			t.Fatal(err)
		}
	}()
	return f.Cluster().StorageObject(kind, "default", name)
}

// A pod the feed brings is the API server's pod: the feed's cluster creates
// no claim for its generic ephemeral volume (kube-controller-manager's
// ephemeral volume controller does, in the API server), so the pod waits
// for it at VolumeBinding's PreFilter with kube-scheduler's message, as a
// dump's pod does; the claim the controller then creates arrives through
// the feed like any claim, and the pod is placed.
func TestFeedPodWaitsForEphemeralClaim(t *testing.T) {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner: "example.com/csi", VolumeBindingMode: &wffc}
	cfg := config(testNode("n0", 4), class)
	ctx, l := startRunning(t, cfg)
	client := cfg.Client.(*fake.Clientset)
	pod := testPod("e", "", "schedkit", 100, 0)
	claimSpec := corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
	pod.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
		VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: claimSpec}}}}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const want = `0/1 nodes are available: waiting for ephemeral volume controller to create the persistentvolumeclaim "e-scratch". not found`
	deadline := time.Now().Add(10 * time.Second)
	for l.Scheduler().PendingReason("default", "e") == "" {
		if rec, ok := podOf(t, l, "e"); ok && rec.State != cluster.StatePending {
			t.Fatalf("pod e %s on %q before its claim exists, want pending: %s", rec.State, rec.Pod.Spec.NodeName, want)
		}
		if time.Now().After(deadline) {
			t.Fatal("pod e not tried")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := l.Scheduler().PendingReason("default", "e"); got != want {
		t.Errorf("pod e pending with %q, want %q", got, want)
	}
	if o, ok := storageOf(t, l, api.KindPersistentVolumeClaim, "e-scratch"); ok {
		t.Errorf("the feed's cluster created the ephemeral claim: %+v", o)
	}

	// The ephemeral volume controller creates the claim, owned by the pod.
	yes := true
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "e-scratch", Namespace: "default", UID: "uid-claim",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "e", UID: pod.UID, Controller: &yes}}},
		Spec: claimSpec, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	claim.Spec.StorageClassName = &class.Name
	if _, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		rec, _ := podOf(t, l, "e")
		if rec.State == cluster.StateBound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod e %s (%s) after its claim arrived, want bound", rec.State, l.Scheduler().PendingReason("default", "e"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := l.Stats(); st.Retries != 0 || len(st.Rejected) != 0 {
		t.Errorf("feed retried %d events, rejected %v: the claim the controller created was refused", st.Retries, st.Rejected)
	}
	o, ok := storageOf(t, l, api.KindPersistentVolumeClaim, "e-scratch")
	if !ok || o.(*api.PersistentVolumeClaim).UID != "uid-claim" {
		t.Errorf("the cluster's claim is not the API server's: %+v", o)
	}
}

// A pod the feed brings with a claim from a ResourceClaimTemplate waits,
// held by DynamicResources' PreEnqueue, until the API server's pod names
// the claim kube-controller-manager's resource claim controller created:
// the feed's cluster creates no claim of its own for it.
func TestFeedPodWaitsForTemplateClaim(t *testing.T) {
	objs := draCluster()
	objs = objs[:len(objs)-2] // the node, class and slice
	objs = append(objs, &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}}}})
	cfg, client := liveConfig(t, objs...)
	client.Resources[0].APIResources = append(client.Resources[0].APIResources, metav1.APIResource{Name: "resourceclaimtemplates", Namespaced: true, Kind: "ResourceClaimTemplate"})
	ctx, l := startRunning(t, cfg)
	template := "one-gpu"
	pod := testPod("trainer", "", "schedkit", 100, 0)
	pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &template}}
	pod.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const want = `pod "default/trainer": ResourceClaim not created yet`
	deadline := time.Now().Add(10 * time.Second)
	for {
		reason, gated := l.Scheduler().Gated("default", "trainer")
		if gated {
			if reason != want {
				t.Errorf("gated with %q, want %q", reason, want)
			}
			break
		}
		if rec, ok := podOf(t, l, "trainer"); ok && (rec.State != cluster.StatePending || len(rec.Pod.Status.ResourceClaimStatuses) > 0) {
			t.Fatalf("pod %s on %q with claims %v before the API server's pod names its claim", rec.State, rec.Pod.Spec.NodeName, rec.Pod.Status.ResourceClaimStatuses)
		}
		if time.Now().After(deadline) {
			t.Fatal("pod not gated")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rec, _ := podOf(t, l, "trainer"); len(rec.Pod.Status.ResourceClaimStatuses) > 0 {
		t.Errorf("the feed's cluster created the template's claim: %v", rec.Pod.Status.ResourceClaimStatuses)
	}

	// The resource claim controller creates the claim and names it in the
	// pod's status: the pod leaves PreEnqueue.
	yes := true
	name := "trainer-gpu-x7k2p"
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "claim-uid", ResourceVersion: "1",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "trainer", UID: pod.UID, Controller: &yes}}},
		Spec: objs[len(objs)-1].(*resourcev1.ResourceClaimTemplate).Spec.Spec}
	if _, err := client.ResourceV1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := client.CoreV1().Pods("default").Get(ctx, "trainer", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: &name}}
	cur.ResourceVersion = "2" // the fake API server keeps no versions of its own
	if _, err := client.CoreV1().Pods("default").UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		if _, gated := l.Scheduler().Gated("default", "trainer"); !gated {
			break
		}
		if time.Now().After(deadline) {
			r, _ := l.Scheduler().Gated("default", "trainer")
			rec, _ := podOf(t, l, "trainer")
			_, ok := storageOf(t, l, api.KindResourceClaim, name)
			t.Fatalf("pod still gated after its claim was created: %s; status %v; claim in cluster %v; stats %+v", r, rec.Pod.Status.ResourceClaimStatuses, ok, l.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rec, ok := podOf(t, l, "trainer"); !ok || len(rec.Pod.Status.ResourceClaimStatuses) != 1 ||
		*rec.Pod.Status.ResourceClaimStatuses[0].ResourceClaimName != name {
		t.Errorf("the cluster's pod does not name the API server's claim: %+v", rec.Pod)
	}
	if st := l.Stats(); st.Retries != 0 || len(st.Rejected) != 0 {
		t.Errorf("feed retried %d events, rejected %v", st.Retries, st.Rejected)
	}
}
