package scheduling

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestAddObservedPod: a pod added as observed on an API server gets no
// ephemeral claim from the cluster, and kube-scheduler's VolumeBinding
// rejects it at PreFilter until the claim exists (v1.36 volume_binding.go
// podHasPVCs: UnschedulableAndUnresolvable, "waiting for ephemeral volume
// controller to create the persistentvolumeclaim"); a pod added with
// AddPod, as a simulation creates one, gets its claim and is placed.
func TestAddObservedPod(t *testing.T) {
	c, _ := observedCluster(t)
	if err := c.AddObservedPod(ephemeralPod("observed")); err != nil {
		t.Fatal(err)
	}
	if err := c.AddPod(ephemeralPod("created")); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, "default", "observed-v"); ok {
		t.Error("the observed pod's ephemeral claim was created")
	}
	if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, "default", "created-v"); !ok {
		t.Error("the created pod's ephemeral claim is missing")
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if rec, _ := c.Pod("default", "observed"); rec.State != cluster.StatePending {
		t.Errorf("observed pod %s, want pending", rec.State)
	}
	// The PreFilter rejection is UnschedulableAndUnresolvable on every
	// node. DynamicResources' PreFilter, after VolumeBinding's, did not
	// run, so its PostFilter (before DefaultPreemption) finds no state and
	// fails with "not found", which ends kube's FitError text.
	if got, want := s.PendingReason("default", "observed"), `0/6 nodes are available: waiting for ephemeral volume controller to create the persistentvolumeclaim "observed-v". `+
		`not found`; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	if rec, _ := c.Pod("default", "created"); rec.State != cluster.StateBound {
		t.Errorf("created pod %s (%s), want bound", rec.State, s.PendingReason("default", "created"))
	}
}

// TestSchedulerAddObservedPod: a pod a running scheduler is told of as
// observed on an API server (Scheduler.AddObservedPod, what a feed from a
// live API server sends) gets no ephemeral claim and waits for it with
// kube-scheduler's message; once the claim the ephemeral volume controller
// creates arrives, the pod is placed.
func TestSchedulerAddObservedPod(t *testing.T) {
	c, sc := observedCluster(t)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddObservedPod(ephemeralPod("observed")); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, "default", "observed-v"); ok {
		t.Error("the observed pod's ephemeral claim was created")
	}
	if got, want := s.PendingReason("default", "observed"), `0/6 nodes are available: waiting for ephemeral volume controller to create the persistentvolumeclaim "observed-v". not found`; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	claim := &api.PersistentVolumeClaim{Spec: ephemeralPod("observed").Spec.Volumes[0].Ephemeral.VolumeClaimTemplate.Spec}
	claim.Name, claim.Namespace = "observed-v", "default"
	claim.Spec.StorageClassName = &sc.Name
	claim.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "observed", UID: "uid-observed", Controller: true}}
	if err := s.AddStorageObject(claim); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if rec, _ := c.Pod("default", "observed"); rec.State != cluster.StateBound {
		t.Errorf("observed pod %s (%s) once its claim exists, want bound", rec.State, s.PendingReason("default", "observed"))
	}
}

// observedCluster is a zoned cluster with a default WaitForFirstConsumer
// class, and that class.
func observedCluster(t *testing.T) (*cluster.Cluster, *api.StorageClass) {
	t.Helper()
	c := svZonedCluster(t, 10)
	sc := st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()
	sc.Annotations = map[string]string{testAnnDefaultClass: "true"}
	if err := c.UpdateStorageObject(sc); err != nil {
		t.Fatal(err)
	}
	return c, sc
}

// ephemeralPod is a pod with one generic ephemeral volume, v, whose claim
// names no class.
func ephemeralPod(name string) *api.Pod {
	p := st.MakePod().Name(name).UID("uid-" + name).Req(map[string]string{"cpu": "100m"}).Obj()
	p.Spec.Volumes = []api.Volume{{Name: "v", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{
		VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{Spec: st.MakePVC("x", "").Request("1Gi").Obj().Spec}}}}}
	return p
}
