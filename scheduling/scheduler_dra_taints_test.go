package scheduling

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestSchedulerDeviceTaintRules: a DeviceTaintRule tainting every GPU
// keeps a pod whose claim does not tolerate it pending in v1.37, and
// deleting the rule retries the pod, which binds (kube's tracker reports
// the rule's change as updates of the slices it taints). kube v1.36 does
// not apply DeviceTaintRules by default: the pod binds at once.
func TestSchedulerDeviceTaintRules(t *testing.T) {
	for _, v := range framework.KubeVersions() {
		t.Run(v.String(), func(t *testing.T) {
			c := draTestCluster(t, 1)
			rule := builder.MakeDeviceTaintRule("all-gpus", api.DeviceTaint{Key: "example.com/maintenance", Effect: api.DeviceTaintEffectNoSchedule}).
				Driver("gpu.example.com").Obj()
			if err := c.AddStorageObject(rule); err != nil {
				t.Fatal(err)
			}
			clock := framework.NewFakeClock(time.Unix(0, 0))
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfileFor(v)}, WithKubeVersion(v), WithClock(clock), WithSeed(7))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AddPod(draTestPod("p0", "c0")); err != nil {
				t.Fatal(err)
			}
			s.RunUntilIdle(context.Background())
			rec, _ := c.Pod("default", "p0")
			if !v.AtLeast(framework.KubeV137) {
				if rec.State != cluster.StateBound {
					t.Fatalf("p0 is %s (%s), want bound: v1.36 does not apply the rule", rec.State, s.PendingReason("default", "p0"))
				}
				return
			}
			if rec.State == cluster.StateBound {
				t.Fatalf("p0 bound to %s on a tainted device", rec.Pod.Spec.NodeName)
			}
			if got := s.PendingReason("default", "p0"); !strings.Contains(got, "cannot allocate all claims") {
				t.Fatalf("p0 pending reason %q", got)
			}
			if err := s.DeleteStorageObject(api.KindDeviceTaintRule, "", "all-gpus"); err != nil {
				t.Fatal(err)
			}
			if err := clock.Advance(time.Minute); err != nil { // past the pod's backoff
				t.Fatal(err)
			}
			s.RunUntilIdle(context.Background())
			if rec, _ := c.Pod("default", "p0"); rec.State != cluster.StateBound {
				t.Fatalf("p0 is %s after the rule was deleted: %s", rec.State, s.PendingReason("default", "p0"))
			}
		})
	}
}

// TestSchedulerForkRevertsDeviceTaintRule: a rule added on a fork taints
// the fork's devices only until Revert.
func TestSchedulerForkRevertsDeviceTaintRule(t *testing.T) {
	c := draTestCluster(t, 0)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	rule := builder.MakeDeviceTaintRule("n0-gpu", api.DeviceTaint{Key: "k", Effect: api.DeviceTaintEffectNoExecute}).Pool("n0").Obj()
	if err := f.AddStorageObject(rule); err != nil {
		t.Fatal(err)
	}
	taints := func() int {
		n := 0
		for _, sl := range c.Snapshot().DRA().TaintedResourceSlices() {
			for _, d := range sl.Spec.Devices {
				n += len(d.Taints)
			}
		}
		return n
	}
	if n := taints(); n != 1 {
		t.Fatalf("%d device taints on the fork, want 1", n)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if n := taints(); n != 0 {
		t.Fatalf("%d device taints after Revert, want 0", n)
	}
	if _, ok := c.StorageObject(api.KindDeviceTaintRule, "", "n0-gpu"); ok {
		t.Fatal("rule kept after Revert")
	}
}
