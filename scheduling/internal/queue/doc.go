// Package queue is the scheduling queue of a scheduling.Scheduler, as
// kube-scheduler's pkg/scheduler/backend/queue: the active queue (ordered
// by the profiles' QueueSort plugin), the backoff queues and the
// unschedulable pool, PreEnqueue gating, the queueing hints that decide
// which cluster event moves which pod, the pods in flight and the events
// they saw, the nominator, and the journal that lets a fork of the
// scheduler revert all of it.
//
// The scheduler holds the queue under its own lock; nothing here locks.
package queue
