package volumebinding

// The plugin's volume binder: kube-scheduler's volumebinding/binder.go and
// passive_assume_cache.go on schedkit's objects. The binder reads the
// storage objects of the cycle's Snapshot through an assume cache: Reserve
// records, for the chosen node, the volumes bound to claims and the claims
// annotated with their selected node, and every later cycle sees them
// until Unreserve reverts them, the binding is applied (Forget), or the
// snapshot's object changes (an update of the object always wins over the
// assumed copy, as an informer update does in kube).

import (
	"fmt"
	"maps"
	"sync"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/journal"
)

type nsName struct{ ns, name string }

// assumed is an object assumed over base, the snapshot object it was
// derived from: kube compares resource versions; schedkit's snapshot
// objects are immutable records, so the pointer is the version.
type assumed[T any] struct{ base, obj T }

// assumeCache is kube's pair of PV and PVC assume caches.
type assumeCache struct {
	mu   sync.Mutex
	pvs  map[string]assumed[*api.PersistentVolume]
	pvcs map[nsName]assumed[*api.PersistentVolumeClaim]
	// The fork journals of pvs and pvcs (Fork).
	pvsSaved  journal.Map[string, assumed[*api.PersistentVolume]]
	pvcsSaved journal.Map[nsName, assumed[*api.PersistentVolumeClaim]]
}

func newAssumeCache() *assumeCache {
	return &assumeCache{pvs: map[string]assumed[*api.PersistentVolume]{}, pvcs: map[nsName]assumed[*api.PersistentVolumeClaim]{}}
}

// pv returns the named volume as the cycle sees it (the assumed copy when
// it was assumed over the snapshot's current object) and its base (the
// snapshot's object). Callers hold mu.
func (c *assumeCache) pv(snap *fw.Snapshot, name string) (obj, base *api.PersistentVolume, ok bool) {
	cur, ok := snap.PersistentVolume(name)
	if !ok {
		return nil, nil, false
	}
	if a, ok := c.pvs[name]; ok && a.base == cur {
		return a.obj, cur, true
	}
	return cur, cur, true
}

// pvc is pv for claims.
func (c *assumeCache) pvc(snap *fw.Snapshot, ns, name string) (obj, base *api.PersistentVolumeClaim, ok bool) {
	cur, ok := snap.PersistentVolumeClaim(ns, name)
	if !ok {
		return nil, nil, false
	}
	if a, ok := c.pvcs[nsName{ns, name}]; ok && a.base == cur {
		return a.obj, cur, true
	}
	return cur, cur, true
}

// assumePV records obj (a copy of base) as the cycle's view of the volume.
// base must still be the snapshot's object (kube: the resource versions
// must match), else the cache is out of sync.
func (c *assumeCache) assumePV(snap *fw.Snapshot, obj, base *api.PersistentVolume) error {
	cur, ok := snap.PersistentVolume(obj.Name)
	if !ok {
		return fmt.Errorf("persistentvolumes %q not found", obj.Name)
	}
	if cur != base {
		return fmt.Errorf("%q is out of sync (the stored object changed since it was read)", obj.Name)
	}
	c.pvsSaved.Set(c.pvs, obj.Name, assumed[*api.PersistentVolume]{base: base, obj: obj})
	return nil
}

func (c *assumeCache) assumePVC(snap *fw.Snapshot, obj, base *api.PersistentVolumeClaim) error {
	cur, ok := snap.PersistentVolumeClaim(obj.Namespace, obj.Name)
	if !ok {
		return fmt.Errorf("persistentvolumeclaims %q not found", obj.Key())
	}
	if cur != base {
		return fmt.Errorf("%q is out of sync (the stored object changed since it was read)", obj.Key())
	}
	c.pvcsSaved.Set(c.pvcs, nsName{obj.Namespace, obj.Name}, assumed[*api.PersistentVolumeClaim]{base: base, obj: obj})
	return nil
}

// restorePV drops the assumed copy of the volume when it was assumed over
// base (kube's Restore: only an assumed object of the same version).
func (c *assumeCache) restorePV(name string, base *api.PersistentVolume) {
	if a, ok := c.pvs[name]; ok && a.base == base {
		c.pvsSaved.Delete(c.pvs, name)
	}
}

func (c *assumeCache) restorePVC(ns, name string, base *api.PersistentVolumeClaim) {
	if a, ok := c.pvcs[nsName{ns, name}]; ok && a.base == base {
		c.pvcsSaved.Delete(c.pvcs, nsName{ns, name})
	}
}

// prune drops the copies whose snapshot object changed or went away
// (kube expires them on the informer's update or delete event).
func (c *assumeCache) prune(snap *fw.Snapshot) {
	for name, a := range c.pvs {
		if cur, ok := snap.PersistentVolume(name); !ok || cur != a.base {
			c.pvsSaved.Delete(c.pvs, name)
		}
	}
	for k, a := range c.pvcs {
		if cur, ok := snap.PersistentVolumeClaim(k.ns, k.name); !ok || cur != a.base {
			c.pvcsSaved.Delete(c.pvcs, k)
		}
	}
}

// Fork opens a branch of the cache with a scheduler's fork: Revert drops
// the copies assumed since and puts back those restored, forgotten or
// pruned since (O(objects changed)); Commit keeps the changes. Branches
// nest.
func (c *assumeCache) Fork() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pvsSaved.Open()
	c.pvcsSaved.Open()
}

// Commit keeps the innermost branch's changes (see Fork).
func (c *assumeCache) Commit() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pvsSaved.Commit()
	c.pvcsSaved.Commit()
}

// Revert undoes the innermost branch's changes (see Fork).
func (c *assumeCache) Revert() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pvsSaved.Revert(c.pvs)
	c.pvcsSaved.Revert(c.pvcs)
}

// Len returns how many volumes and claims are assumed.
func (c *assumeCache) Len() (pvs, pvcs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pvs), len(c.pvcs)
}

// clone copies the cache's entries (for tests comparing states).
func (c *assumeCache) clone() *assumeCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &assumeCache{pvs: maps.Clone(c.pvs), pvcs: maps.Clone(c.pvcs)}
}
