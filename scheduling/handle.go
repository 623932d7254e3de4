package scheduling

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// The scheduler's services to its plugins: every profile's Framework is
// their framework.Handle (frameworkOptions), and what a plugin asks of it
// acts on the scheduler through the adapters below. Per-cycle data the
// scheduler keeps for itself (the victims of the cycle's preemption, the
// binding's lock state) lives in the cycle's CycleState under its private
// key (cycleHandle), which no plugin reads.

// frameworkOptions are the options every profile's Framework is built
// with: the scheduler's clock, parallelism, release and extenders, and its
// services.
func (s *Scheduler) frameworkOptions() []runtime.Option {
	svc := schedulerServices{s}
	par := runtime.WithParallelism(1)
	if s.workers != nil {
		par = runtime.WithWorkers(s.workers)
	}
	return []runtime.Option{
		runtime.WithClock(s.clock), par, runtime.WithKubeVersion(s.kubeVersion),
		runtime.WithExtenders(s.extenders...),
		runtime.WithWaitingPods(&s.waiting),
		runtime.WithPodActivator(svc), runtime.WithPodNominator(svc), runtime.WithSnapshotLister(svc),
		runtime.WithPodGroupManager(podGroups{s}), runtime.WithDRAManager(s.draManager),
		runtime.WithBinder(svc), runtime.WithEvictor(svc), runtime.WithNodeLoads(svc),
		runtime.WithClusterEventHandlers(s.addClusterEventHandler), runtime.WithRand(s.rng),
	}
}

// schedulerServices is the scheduler as its plugins' queue, nominator,
// cluster, binder and evictor.
type schedulerServices struct{ s *Scheduler }

var (
	_ framework.PodActivator   = schedulerServices{}
	_ framework.PodNominator   = schedulerServices{}
	_ framework.SnapshotLister = schedulerServices{}
	_ framework.Binder         = schedulerServices{}
	_ framework.Evictor        = schedulerServices{}
	_ framework.NodeLoads      = schedulerServices{}
)

// Activate moves the queued pods of keys to the active queue.
func (v schedulerServices) Activate(keys []string) { v.s.queue.Activate(keys) }

// QueueOrderChanged makes the queue sort again before its next pop.
func (v schedulerServices) QueueOrderChanged() { v.s.queue.Reorder.Store(true) }

// NominatedPodsForNode returns the pods nominated to node.
func (v schedulerServices) NominatedPodsForNode(node string) []*framework.PodInfo {
	return v.s.nominator.ForNode(node)
}

// Snapshot returns the cluster's snapshot.
func (v schedulerServices) Snapshot() *framework.Snapshot { return v.s.cluster.Snapshot() }

// NodeLoad returns the cluster's NodeLoad of node.
func (v schedulerServices) NodeLoad(node string) (*api.NodeLoad, bool) {
	return v.s.cluster.NodeLoad(node)
}

// errNotScheduler is the error of a service asked for a cycle whose state
// the scheduler did not make.
var errNotScheduler = errors.New("the cycle state is not the scheduler's")

// Bind accepts the binding: the scheduler confirms the pod on its node
// once the Bind plugins are done.
func (v schedulerServices) Bind(*framework.CycleState, *framework.PodInfo, string) error { return nil }

// BindPodVolumes binds a pod's volumes in the cluster (taking the
// scheduler's lock when the binding cycle runs without it) and retries
// unschedulable pods, as the PV and claim updates would in kube.
func (v schedulerServices) BindPodVolumes(state *framework.CycleState, node string, pv *api.PodVolumes) error {
	h, ok := handleFrom(state)
	if !ok {
		return fmt.Errorf("scheduling: BindPodVolumes on node %q: %w", node, errNotScheduler)
	}
	s := v.s
	if !h.bindingLocked {
		s.lockBinding()
		defer s.mu.Unlock()
	}
	if err := s.cluster.BindPodVolumes(node, pv); err != nil {
		return err
	}
	// The claims and volumes bound are updates of those objects in kube;
	// they are reported as one wildcard event that retries every
	// unschedulable pod, as before queueing hints.
	s.reportEvent(framework.ClusterEvent{Resource: framework.ResourceWildCard, ActionType: framework.All, CustomLabel: "VolumesBound"}, nil, nil, nil, true)
	return nil
}

// Forked reports whether a what-if fork of the scheduler is open.
func (v schedulerServices) Forked() bool { return v.s.cluster.Forked() > 0 }

// Evict evicts the victims (preemptVictims) and records their keys as the
// cycle's.
func (v schedulerServices) Evict(state *framework.CycleState, preemptor *api.Pod, node string, victims []*framework.PodInfo, plugin string) error {
	h, ok := handleFrom(state)
	if !ok {
		return fmt.Errorf("scheduling: Evict for pod %s: %w", preemptor.Key(), errNotScheduler)
	}
	h.victims = v.s.preemptVictims(preemptor, node, victims, plugin)
	return nil
}

// draManager is the cluster's DRA manager for the cycle of state (nil:
// outside a cycle); nil for a state the scheduler did not make (the
// framework then writes to the cycle's snapshot).
func (s *Scheduler) draManager(state *framework.CycleState) framework.DRAManager {
	if state == nil {
		return s.draStore(nil)
	}
	if h, ok := handleFrom(state); ok {
		return s.draStore(h)
	}
	return nil
}

// addClusterEventHandler adds a plugin's cluster event handler, once
// (podAssigned and nodeMetricUpdated call them).
func (s *Scheduler) addClusterEventHandler(h framework.ClusterEventHandler) {
	if reflect.TypeOf(h).Comparable() {
		for _, old := range s.handlers {
			if old == h {
				return
			}
		}
	}
	s.handlers = append(s.handlers, h)
}

// podGroups is the cluster's pod groups, as the scheduler's workload
// features and pod group cycle see them.
type podGroups struct{ s *Scheduler }

var _ framework.PodGroupManager = podGroups{}

// Features returns the scheduler's workload features.
func (g podGroups) Features() framework.WorkloadFeatures { return g.s.workload.features }

// WorkloadPodGroup returns kube's PodGroup namespace/name.
func (g podGroups) WorkloadPodGroup(namespace, name string) (*api.WorkloadPodGroup, bool) {
	return g.s.cluster.WorkloadPodGroup(namespace, name)
}

// WorkloadPodGroupCounts counts the group's pods and the scheduled ones.
func (g podGroups) WorkloadPodGroupCounts(namespace, name string) (total, scheduled int) {
	return g.s.cluster.WorkloadPodGroupCounts(namespace, name)
}

// WorkloadPodGroupPods returns the group's pending and scheduled pods.
func (g podGroups) WorkloadPodGroupPods(namespace, name string) (pending, scheduled []*api.Pod) {
	return splitRecords(g.s.cluster.WorkloadPodGroupMembers(namespace, name))
}

// TrialScheduled returns the trial's count in a pod group cycle.
func (g podGroups) TrialScheduled(state *framework.CycleState) (int, bool) {
	if t, ok := pgTrialFrom(state); ok {
		return t.scheduled, true
	}
	return 0, false
}

// PodGroup returns scheduler-plugins' PodGroup of key.
func (g podGroups) PodGroup(key string) (*api.PodGroup, bool) { return g.s.cluster.PodGroupByKey(key) }

// PodGroupCounts counts the group's pods and the scheduled ones.
func (g podGroups) PodGroupCounts(namespace, name string) (total, scheduled int) {
	return g.s.cluster.PodGroupCounts(namespace, name)
}

// PodGroupGated counts the group's gated pods.
func (g podGroups) PodGroupGated(namespace, name string) int {
	return g.s.cluster.PodGroupGated(namespace, name)
}

// PodGroupPods returns the group's pending and scheduled pods.
func (g podGroups) PodGroupPods(namespace, name string) (pending, scheduled []*api.Pod) {
	return splitRecords(g.s.cluster.PodGroupMembers(namespace, name))
}

// splitRecords splits records into the pending pods and the others, in
// order.
func splitRecords(records []cluster.PodRecord) (pending, scheduled []*api.Pod) {
	for _, r := range records {
		if r.State == cluster.StatePending {
			pending = append(pending, r.Pod)
		} else {
			scheduled = append(scheduled, r.Pod)
		}
	}
	return pending, scheduled
}
