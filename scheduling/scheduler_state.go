package scheduling

import (
	"maps"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// State is a copy of what a Scheduler holds at one instant: every pod with
// its state, each node's use, the queue and the nominations, the pods held
// at Permit, the pending pods' reasons. It shares nothing the scheduler
// changes afterwards, so it may be kept and read from any goroutine.
type State struct {
	// Cycle is the number of scheduling cycles run so far.
	Cycle int64
	// Pods are the cluster's pods with their states, sorted by
	// namespace/name. Each Pod is the cluster's copy, which the cluster
	// replaces rather than modifies: read-only.
	Pods []cluster.PodRecord
	// Nodes are the nodes in cluster order.
	Nodes []NodeUsage
	// Active, Backoff and Unschedulable are the queue's lengths, as
	// QueueLengths returns them.
	Active, Backoff, Unschedulable int
	// Queued maps each pod the queue holds (namespace/name) to where it
	// waits: "active", "backoff", "error-backoff", "unschedulable", "gated"
	// or "in-flight" (popped, its cycle not yet done).
	Queued map[string]string
	// Nominated maps each pod nominated to a node (kube's
	// NominatedNodeName: preemption made room for it there) to that node.
	Nominated map[string]string
	// Waiting are the pods held at Permit (namespace/name), sorted.
	Waiting []string
	// Reasons are the pending pods' last failure messages (PendingReason),
	// by namespace/name.
	Reasons map[string]string
	// ReplicaCycles counts the capacity questions' replica cycles the
	// incremental evaluator computed, ReplicasReused the placed replicas
	// whose memory the next one reused (see Replicas): whether questions
	// take their fast path.
	ReplicaCycles, ReplicasReused int
	// ClassCycles counts the cycles computed by the incremental
	// evaluators the scheduler keeps for classes of pods sharing a
	// signature (the same decisions as plain cycles, faster).
	ClassCycles int
}

// NodeUsage is a node of a State and what its bound and assumed pods use.
type NodeUsage struct {
	// Node is the cluster's copy of the node object: read-only.
	Node *api.Node
	// Allocatable is what the node offers (Allocatable.Pods: how many pods
	// it accepts); Requested sums its pods' effective requests (as
	// NodeResourcesFit counts them; Requested.Pods is unused).
	Allocatable, Requested resource.Vector
	// Pods is the number of pods bound or assumed on the node.
	Pods int
}

// State returns a copy of the scheduler's state, taken under its lock: it
// is the way to watch a scheduler that other goroutines drive (Cluster is
// not safe for that). Like the other live reads it waits while another
// goroutine holds a fork open, and the goroutine that holds one reads the
// branch. It costs O(pods·log pods + nodes) and allocates the copy. A
// Scheduler not built by New returns an error.
func (s *Scheduler) State() (State, error) {
	if err := s.built(); err != nil {
		return State{}, err
	}
	if err := s.lockRead("State"); err != nil {
		return State{}, err
	}
	defer s.mu.Unlock()
	return s.stateLocked(), nil
}

// stateLocked builds a State; the caller holds s.mu.
func (s *Scheduler) stateLocked() State {
	st := State{Cycle: s.cycle, Pods: s.cluster.Pods(), Reasons: maps.Clone(s.reasons), Nominated: maps.Clone(s.nominator.NodeOf),
		Queued: make(map[string]string, len(s.queue.Pods)), ReplicaCycles: s.replicaCycles, ReplicasReused: s.replicasReused, ClassCycles: s.classCycles}
	if st.Reasons == nil {
		st.Reasons = map[string]string{}
	}
	for k, qp := range s.queue.Pods {
		st.Queued[k] = queue.WhereName(qp.Where)
	}
	st.Active, st.Backoff, st.Unschedulable = s.queue.Lens()
	nodes := s.cluster.Snapshot().Nodes()
	st.Nodes = make([]NodeUsage, len(nodes))
	for i, ni := range nodes {
		st.Nodes[i] = NodeUsage{Node: ni.Node(), Allocatable: ni.Allocatable.Clone(), Requested: ni.Requested.Clone(), Pods: len(ni.Pods)}
	}
	for _, w := range s.waiting.list() {
		st.Waiting = append(st.Waiting, w.pod.Key())
	}
	return st
}
