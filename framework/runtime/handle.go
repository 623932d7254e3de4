package runtime

import (
	"math/rand/v2"
	"sync"

	"github.com/schedkit/schedkit/framework"
)

// The services a Framework offers its plugins through framework.Handle
// come from the options below (a scheduling.Scheduler passes its own);
// without one, the Framework serves framework.NewHandle's default.

// WithWaitingPods sets the pods held at Permit (Handle.WaitingPods).
func WithWaitingPods(w framework.WaitingPods) Option { return func(f *Framework) { f.svc.waiting = w } }

// WithPodActivator sets the queue plugins activate pods in
// (Handle.Activator).
func WithPodActivator(a framework.PodActivator) Option {
	return func(f *Framework) { f.svc.activator = a }
}

// WithPodNominator sets the nominations (Handle.Nominator).
func WithPodNominator(n framework.PodNominator) Option {
	return func(f *Framework) { f.svc.nominator = n }
}

// WithSnapshotLister sets the cluster's snapshot (Handle.SnapshotLister).
func WithSnapshotLister(l framework.SnapshotLister) Option {
	return func(f *Framework) { f.svc.lister = l }
}

// WithPodGroupManager sets the pod groups (Handle.PodGroupManager).
func WithPodGroupManager(m framework.PodGroupManager) Option {
	return func(f *Framework) { f.svc.podGroups = m }
}

// WithDRAManager sets where DynamicResources reads and writes DRA objects
// (Handle.DRAManager): fn returns the manager for a cycle's state (nil
// state: outside a cycle); a nil result falls back to the default, the
// cycle's snapshot.
func WithDRAManager(fn func(state *framework.CycleState) framework.DRAManager) Option {
	return func(f *Framework) { f.svc.dra = fn }
}

// WithBinder sets the cluster pods and volumes are bound in
// (Handle.Binder).
func WithBinder(b framework.Binder) Option { return func(f *Framework) { f.svc.binder = b } }

// WithEvictor sets what evicts preemption victims (Handle.Evictor).
func WithEvictor(e framework.Evictor) Option { return func(f *Framework) { f.svc.evictor = e } }

// WithNodeLoads sets the nodes' loads (Handle.NodeLoads).
func WithNodeLoads(l framework.NodeLoads) Option { return func(f *Framework) { f.svc.loads = l } }

// WithClusterEventHandlers sets where the plugins' cluster event handlers
// go (Handle.AddClusterEventHandler): add is called with each, from the
// plugin's factory.
func WithClusterEventHandlers(add func(framework.ClusterEventHandler)) Option {
	return func(f *Framework) { f.svc.addHandler = add }
}

// WithRand sets the random source plugins draw from
// (PluginsRunner.RandInt32N; default: a source seeded with 0). Draws are
// serialized.
func WithRand(r *rand.Rand) Option { return func(f *Framework) { f.svc.rng = r } }

// services are the Framework's Handle services as its options set them
// (nil: the default, base's).
type services struct {
	base       framework.Handle
	waiting    framework.WaitingPods
	activator  framework.PodActivator
	nominator  framework.PodNominator
	lister     framework.SnapshotLister
	podGroups  framework.PodGroupManager
	dra        func(*framework.CycleState) framework.DRAManager
	binder     framework.Binder
	evictor    framework.Evictor
	loads      framework.NodeLoads
	addHandler func(framework.ClusterEventHandler)

	rngMu sync.Mutex
	rng   *rand.Rand
}

var _ framework.PluginsRunner = (*Framework)(nil)

// WaitingPods returns the pods held at Permit.
func (f *Framework) WaitingPods() framework.WaitingPods {
	if f.svc.waiting != nil {
		return f.svc.waiting
	}
	return f.svc.base.WaitingPods()
}

// Activator returns the queue plugins activate pods in.
func (f *Framework) Activator() framework.PodActivator {
	if f.svc.activator != nil {
		return f.svc.activator
	}
	return f.svc.base.Activator()
}

// Nominator returns the nominations.
func (f *Framework) Nominator() framework.PodNominator {
	if f.svc.nominator != nil {
		return f.svc.nominator
	}
	return f.svc.base.Nominator()
}

// SnapshotLister returns the cluster's snapshot.
func (f *Framework) SnapshotLister() framework.SnapshotLister {
	if f.svc.lister != nil {
		return f.svc.lister
	}
	return f.svc.base.SnapshotLister()
}

// PodGroupManager returns the pod groups.
func (f *Framework) PodGroupManager() framework.PodGroupManager {
	if f.svc.podGroups != nil {
		return f.svc.podGroups
	}
	return f.svc.base.PodGroupManager()
}

// DRAManager returns where DynamicResources reads and writes DRA objects
// for the cycle of state.
func (f *Framework) DRAManager(state *framework.CycleState) framework.DRAManager {
	if f.svc.dra != nil {
		if m := f.svc.dra(state); m != nil {
			return m
		}
	}
	return f.svc.base.DRAManager(state)
}

// Binder returns the cluster pods and volumes are bound in.
func (f *Framework) Binder() framework.Binder {
	if f.svc.binder != nil {
		return f.svc.binder
	}
	return f.svc.base.Binder()
}

// Evictor returns what evicts preemption victims.
func (f *Framework) Evictor() framework.Evictor {
	if f.svc.evictor != nil {
		return f.svc.evictor
	}
	return f.svc.base.Evictor()
}

// PluginsRunner returns the framework itself.
func (f *Framework) PluginsRunner() framework.PluginsRunner { return f }

// NodeLoads returns the nodes' loads.
func (f *Framework) NodeLoads() framework.NodeLoads {
	if f.svc.loads != nil {
		return f.svc.loads
	}
	return f.svc.base.NodeLoads()
}

// AddClusterEventHandler hands h to the WithClusterEventHandlers function
// (without one, h is never called).
func (f *Framework) AddClusterEventHandler(h framework.ClusterEventHandler) {
	if f.svc.addHandler != nil {
		f.svc.addHandler(h)
	}
}

// RandInt32N draws from the framework's random source (WithRand), in
// [0, n).
func (f *Framework) RandInt32N(n int32) int32 {
	if f.svc.rng == nil {
		return f.svc.base.PluginsRunner().RandInt32N(n)
	}
	f.svc.rngMu.Lock()
	defer f.svc.rngMu.Unlock()
	return f.svc.rng.Int32N(n)
}
