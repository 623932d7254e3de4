package replay

import (
	"time"

	"github.com/schedkit/schedkit/scheduling"
)

// Displacement is one pod a preemption evicted (or, held at Permit,
// rejected) during a replay.
type Displacement struct {
	// Pod is the victim, By the preemptor, Node the node it left, At when.
	Pod, By, Node string
	At            time.Time
	// Placed reports that the victim was bound again afterwards (a pod
	// rejected at Permit is requeued; a deleted one comes back only with
	// Options.Resubmit), on PlacedNode at PlacedAt.
	Placed     bool
	PlacedNode string
	PlacedAt   time.Time
}

// displaced records displacements in order and which are still open.
type displaced struct {
	list []Displacement
	open map[string]int // victim → index of its latest displacement not yet placed
}

func (r *displaced) add(victim string, d *scheduling.Decision) {
	if r.open == nil {
		r.open = map[string]int{}
	}
	r.open[victim] = len(r.list)
	r.list = append(r.list, Displacement{Pod: victim, By: d.Pod, Node: d.NominatedNode, At: d.Time})
}

// placed closes the victim's open displacement, if any.
func (r *displaced) placed(pod, node string, at time.Time) {
	i, ok := r.open[pod]
	if !ok {
		return
	}
	delete(r.open, pod)
	r.list[i].Placed, r.list[i].PlacedNode, r.list[i].PlacedAt = true, node, at
}
