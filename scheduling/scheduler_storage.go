package scheduling

import (
	"context"
	"errors"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// enqueue adds a pending pod to the queue, recording why it is held when
// a PreEnqueue plugin gates it.
func (s *Scheduler) enqueue(pi *framework.PodInfo) {
	if p := s.queue.Add(pi); p.Where == queue.Gated {
		s.setReason(p.Key, p.GateMsg) // journaled in a fork
	}
}

// preEnqueue runs the PreEnqueue plugins of the pod's profile (the queue's
// gate).
func (s *Scheduler) preEnqueue(pi *framework.PodInfo) *framework.Status {
	prof, err := s.profileFor(pi.Pod)
	if err != nil || !prof.fw.HasPreEnqueuePlugins() {
		return nil
	}
	return prof.fw.RunPreEnqueuePlugins(context.Background(), pi.Pod)
}

// AddStorageObject adds a storage object to the cluster (see
// Cluster.AddStorageObject): a cluster event of the object's kind
// (framework.ResourcePersistentVolume and its siblings).
func (s *Scheduler) AddStorageObject(o api.StorageObject) error {
	return s.addStorageObject(nil, o)
}

func (s *Scheduler) addStorageObject(f *Fork, o api.StorageObject) error {
	return s.clusterEvent(f, "AddStorageObject", framework.ClusterEvent{ActionType: framework.Add}, func() (old, cur any, err error) {
		if err := s.cluster.AddStorageObject(o); err != nil {
			return nil, nil, err
		}
		return nil, s.storageNow(o), nil
	})
}

// UpdateStorageObject replaces a storage object (see
// Cluster.UpdateStorageObject): a cluster event of the object's kind.
func (s *Scheduler) UpdateStorageObject(o api.StorageObject) error {
	return s.updateStorageObject(nil, o)
}

func (s *Scheduler) updateStorageObject(f *Fork, o api.StorageObject) error {
	return s.clusterEvent(f, "UpdateStorageObject", framework.ClusterEvent{ActionType: framework.Update}, func() (old, cur any, err error) {
		prev := s.storageNow(o)
		if err := s.cluster.UpdateStorageObject(o); err != nil {
			return nil, nil, err
		}
		return prev, s.storageNow(o), nil
	})
}

// UpdateStorageObjectUnless is UpdateStorageObject unless skip, called
// with the scheduler's lock held (no change of the scheduler's own, such
// as a claim PreBind writes, interleaves with it), says to keep the
// cluster's object: a feed uses it to drop a version older than one its
// scheduler wrote itself. It reports whether the object was replaced.
func (s *Scheduler) UpdateStorageObjectUnless(o api.StorageObject, skip func() bool) (bool, error) {
	replaced := false
	err := s.clusterEvent(nil, "UpdateStorageObject", framework.ClusterEvent{ActionType: framework.Update}, func() (old, cur any, err error) {
		if skip() {
			return nil, nil, errSkipped
		}
		prev := s.storageNow(o)
		if err := s.cluster.UpdateStorageObject(o); err != nil {
			return nil, nil, err
		}
		replaced = true
		return prev, s.storageNow(o), nil
	})
	if err == errSkipped {
		err = nil
	}
	return replaced, err
}

// errSkipped ends UpdateStorageObjectUnless's change without an event.
var errSkipped = errors.New("skipped")

// DeleteStorageObject deletes a storage object (see
// Cluster.DeleteStorageObject): a cluster event of the object's kind.
func (s *Scheduler) DeleteStorageObject(k api.StorageKind, ns, name string) error {
	return s.deleteStorageObject(nil, k, ns, name)
}

func (s *Scheduler) deleteStorageObject(f *Fork, k api.StorageKind, ns, name string) error {
	return s.clusterEvent(f, "DeleteStorageObject", framework.ClusterEvent{ActionType: framework.Delete}, func() (old, cur any, err error) {
		prev, err := s.cluster.DeleteStorageObject(k, ns, name)
		return prev, nil, err
	})
}

// storageNow returns the cluster's copy of the object o names (nil when
// there is none or o is nil).
func (s *Scheduler) storageNow(o api.StorageObject) api.StorageObject {
	if o == nil {
		return nil
	}
	k, ns, name := api.StorageObjectKey(o)
	cur, _ := s.cluster.StorageObject(k, ns, name)
	return cur
}
