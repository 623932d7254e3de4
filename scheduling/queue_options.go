package scheduling

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/internal/journal"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// Queue defaults, kube's (the same in v1.36 and v1.37;
// backend/queue/scheduling_queue.go).
const (
	// DefaultPodInitialBackoff is the first backoff of an unschedulable pod.
	DefaultPodInitialBackoff = time.Second
	// DefaultPodMaxBackoff caps the doubling backoff.
	DefaultPodMaxBackoff = 10 * time.Second
	// DefaultPodMaxInUnschedulablePods is how long a pod may sit in the
	// unschedulable pool before it is retried without any cluster event.
	DefaultPodMaxInUnschedulablePods = 5 * time.Minute
)

// QueueOptions tune the scheduling queue.
type QueueOptions struct {
	// InitialBackoff is the backoff after the first failed attempt (default
	// DefaultPodInitialBackoff); each further attempt doubles it up to
	// MaxBackoff (default DefaultPodMaxBackoff).
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxInUnschedulablePods is how long an unschedulable pod waits for a
	// cluster event before it is retried anyway (default 5 min).
	MaxInUnschedulablePods time.Duration
	// DisablePopFromBackoffQ turns off kube-scheduler's SchedulerPopFromBackoffQ
	// (beta, on by default since v1.33): with it on, backoff expiries are
	// aligned to whole seconds, pods with the same expiry second are ordered
	// by QueueSort, and when the active queue is empty the head of the
	// backoff queue is scheduled without waiting for its backoff to end.
	DisablePopFromBackoffQ bool
	// DisableQueueingHints turns off queueing hints (on by default, as
	// kube-scheduler since v1.34): every cluster event then moves every
	// unschedulable pod, and a pod that fails after an event arrived while
	// it was in flight is retried at once — schedkit's behaviour before
	// hints, for comparison. (kube-scheduler without hints still skipped
	// events no enabled plugin registered.)
	DisableQueueingHints bool
}

// validate rejects negative durations and a maximum below the initial
// backoff (zero values mean the defaults).
func (o *QueueOptions) validate() error {
	switch {
	case o.InitialBackoff < 0:
		return fmt.Errorf("scheduling: QueueOptions.InitialBackoff=%v: must not be negative", o.InitialBackoff)
	case o.MaxBackoff < 0:
		return fmt.Errorf("scheduling: QueueOptions.MaxBackoff=%v: must not be negative", o.MaxBackoff)
	case o.MaxBackoff > 0 && o.InitialBackoff > o.MaxBackoff:
		return fmt.Errorf("scheduling: QueueOptions.MaxBackoff=%v: must not be below InitialBackoff=%v", o.MaxBackoff, o.InitialBackoff)
	case o.MaxInUnschedulablePods < 0:
		return fmt.Errorf("scheduling: QueueOptions.MaxInUnschedulablePods=%v: must not be negative", o.MaxInUnschedulablePods)
	}
	return nil
}

func (o *QueueOptions) setDefaults() {
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = DefaultPodInitialBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultPodMaxBackoff
	}
	if o.MaxBackoff < o.InitialBackoff {
		o.MaxBackoff = o.InitialBackoff
	}
	if o.MaxInUnschedulablePods <= 0 {
		o.MaxInUnschedulablePods = DefaultPodMaxInUnschedulablePods
	}
}

// config is o with its defaults applied, as the queue takes it.
func (o QueueOptions) config() queue.Config {
	o.setDefaults()
	return queue.Config(o)
}

// forkJournal keeps, per open fork, the first saved value of every key
// changed in it (journal.Saves).
type forkJournal[V any] = journal.Saves[string, V]
