package scheduling

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// recordingClaimWriter records the claim writes it is given and fails
// them while fail is set.
type recordingClaimWriter struct {
	writes []string
	fail   bool
}

func (w *recordingClaimWriter) WriteClaim(old, cur *api.ResourceClaim, create bool) error {
	what := "write " + cur.Key()
	if old != nil && old.Status.Allocation == nil && cur.Status.Allocation != nil {
		what += " allocated"
	}
	if len(cur.Status.ReservedFor) > 0 {
		what += " reserved for " + cur.Status.ReservedFor[0].Name
	}
	w.writes = append(w.writes, what)
	if w.fail {
		return errors.New("write refused")
	}
	return nil
}

func (w *recordingClaimWriter) DeleteClaim(namespace, name string) error {
	w.writes = append(w.writes, "delete "+namespace+"/"+name)
	return nil
}

// With a ClaimWriter, PreBind's allocation and reservation go through it
// before the cluster takes them; a refused write leaves the pod unbound
// and the claim unallocated, and no write happens on a fork.
func TestClaimWriterBeforeCluster(t *testing.T) {
	c := draTestCluster(t, 2)
	w := &recordingClaimWriter{fail: true}
	clock := framework.NewFakeClock(time.Unix(0, 0))
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()},
		WithClock(clock), WithSeed(7), WithClaimWriter(w))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(draTestPod("p0", "c0")); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if rec, _ := c.Pod("default", "p0"); rec.State == cluster.StateBound {
		t.Fatal("p0 bound although its claim write was refused")
	}
	if cl, _ := c.Snapshot().DRA().ResourceClaim("default", "c0"); cl.Status.Allocation != nil || len(cl.Status.ReservedFor) != 0 {
		t.Fatalf("c0 %+v after a refused write, want unallocated", cl.Status)
	}
	if len(w.writes) == 0 || w.writes[0] != "write default/c0 allocated reserved for p0" {
		t.Fatalf("writes %q", w.writes)
	}

	// On a fork nothing is written.
	w.writes, w.fail = nil, false
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddPod(draTestPod("p1", "c1")); err != nil {
		t.Fatal(err)
	}
	f.RunUntilIdle(context.Background())
	if rec, _ := c.Pod("default", "p1"); rec.State != cluster.StateBound {
		t.Fatalf("p1 on the fork is %s", rec.State)
	}
	if len(w.writes) != 0 {
		t.Fatalf("writes on a fork: %q", w.writes)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}

	// Accepted: after the backoff, written, then the cluster's claim is
	// allocated and the pod bound.
	for range 20 {
		if rec, _ := c.Pod("default", "p0"); rec.State == cluster.StateBound {
			break
		}
		if err := clock.Advance(time.Minute); err != nil {
			t.Fatal(err)
		}
		s.RunUntilIdle(context.Background())
	}
	if rec, _ := c.Pod("default", "p0"); rec.State != cluster.StateBound {
		t.Fatalf("p0 not bound after the writer accepts: %s", s.PendingReason("default", "p0"))
	}
	cl, _ := c.Snapshot().DRA().ResourceClaim("default", "c0")
	if cl.Status.Allocation == nil || len(cl.Status.ReservedFor) != 1 {
		t.Fatalf("c0 %+v, want allocated and reserved", cl.Status)
	}
	if len(w.writes) == 0 || w.writes[len(w.writes)-1] != "write default/c0 allocated reserved for p0" {
		t.Fatalf("writes %q", w.writes)
	}
}

// UpdateStorageObjectUnless keeps the cluster's object when skip says so
// and replaces it otherwise.
func TestUpdateStorageObjectUnless(t *testing.T) {
	c := draTestCluster(t, 1)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := c.Snapshot().DRA().ResourceClaim("default", "c0")
	next := *cl
	next.Labels = map[string]string{"v": "2"}
	if ok, err := s.UpdateStorageObjectUnless(&next, func() bool { return true }); ok || err != nil {
		t.Fatalf("skipped update: %v %v", ok, err)
	}
	if got, _ := c.Snapshot().DRA().ResourceClaim("default", "c0"); got.Labels["v"] != "" {
		t.Fatal("skipped update changed the claim")
	}
	if ok, err := s.UpdateStorageObjectUnless(&next, func() bool { return false }); !ok || err != nil {
		t.Fatalf("update: %v %v", ok, err)
	}
	if got, _ := c.Snapshot().DRA().ResourceClaim("default", "c0"); got.Labels["v"] != "2" {
		t.Fatal("update not applied")
	}
}
