// Package schedtest lets the tests of scheduling's subpackages (whatif,
// replay) look inside a scheduling.Scheduler, which they drive through its
// public methods only: package scheduling sets these functions when it is
// initialised. Production code never calls them.
package schedtest

// View is the part of a scheduler's state that a what-if question must
// leave as it was and that its public methods do not show.
type View struct {
	// Nominated maps each nominated pod (namespace/name) to its node.
	Nominated map[string]string
	// Queued lists each queue record as "namespace/name@place", then the
	// queue's lengths, sorted.
	Queued []string
	// AssumedVolumes is the default profile's VolumeBinding assume cache
	// (AssumedCount).
	AssumedVolumes [2]int
}

// Counters are the scheduler's counters of the replicas' fast path.
type Counters struct {
	// ReplicaCycles counts the cycles replicas' incremental evaluators
	// computed; ReplicasReused the replicas whose memory served the next.
	ReplicaCycles, ReplicasReused int
}

// The hooks; each takes a *scheduling.Scheduler.
var (
	// Inspect returns the scheduler's View.
	Inspect func(scheduler any) View
	// Count returns the scheduler's Counters.
	Count func(scheduler any) Counters
	// SetDecisionHook makes fn (nil: nothing) see every decision (a
	// scheduling.Decision), as WithDecisionHandler does.
	SetDecisionHook func(scheduler any, fn func(decision any))
	// Wakeups returns how many wakeups of the scheduling loop are pending;
	// DrainWakeups takes them.
	Wakeups      func(scheduler any) int
	DrainWakeups func(scheduler any)
	// Activate moves the queued pod key to the active queue, as a flush
	// does.
	Activate func(scheduler any, key string)
	// Dequeue deletes the queue's record of pod key.
	Dequeue func(scheduler any, key string)
)
