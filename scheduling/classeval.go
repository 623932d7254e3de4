package scheduling

import (
	"context"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// Incremental cycles for classes of pods. Pods that a profile's
// node-local plugins treat alike (Framework.NodeLocalFragments: the same
// requests, tolerations, node affinity, host ports, images, no volumes
// and no claims, ...) get the same verdicts and raw scores from those
// plugins on the same nodes, so one runtime.Incremental per class can keep
// them from the class's earlier cycles and compute them again only on the
// nodes that changed since: in a workload of a few kinds of pods on many
// nodes, most of a cycle's per-node work. Before each cycle the evaluator
// is told that anything may have changed (Incremental.Refresh): the
// plugins that are not node-local run in full on the cycle's own pod, as
// in a plain cycle, and a change to the nodes themselves makes it start
// over. It decides exactly as the plain cycle would, or hands the cycle
// back (nominated pods, explanations, a cycle no node fits, ...).
//
// A class gets an evaluator at its second pod (a kind of pod seen once
// costs none), and a profile keeps at most maxClassEvals of them,
// dropping the one used least recently; an evaluator holds a few bytes
// per node. A pod is compared with the classes and the pods seen once by
// its requests first, and signed only when they match one: pods that
// are all different cost a few comparisons each. Forks and capacity
// questions keep their own paths.

// maxClassEvals bounds a profile's class evaluators, and maxClassSeen the
// pods it remembers having seen once. Below minClassEvalNodes nodes a
// plain cycle costs about what finding the pod's class and refreshing its
// evaluator do (examples/simulate gains nothing at 300 nodes), so every
// cycle takes the plain path.
const (
	maxClassEvals     = 16
	maxClassSeen      = 16
	minClassEvalNodes = 500
)

// classEvals are a profile's class evaluators, and the last pods seen
// whose class had none (seen, oldest first; unsigned).
type classEvals struct {
	// allowed, once checked: the profile scores and its Reserve, Permit
	// and PreBind plugins may leave some pod's cycle to an evaluator
	// (evalAllowed).
	checked, allowed bool
	evals            []*classEval
	seen             []seenPod
	tick             uint64
	// buf holds the fragments of the pod being classified.
	buf []framework.SignFragment
}

// seenPod is a pod whose class had no evaluator when it was seen, and its
// fragments once a pod of the same requests asked for them (signed; nil
// when its node-local plugins do not sign it).
type seenPod struct {
	pi     *framework.PodInfo
	frags  []framework.SignFragment
	signed bool
}

// classEval is one class's evaluator (eval nil: the profile allows none
// for the class, see newReplicaEval), the requests and fragments that
// define the class and when it was last used; dropped is set when the
// profile forgot it (a pod's cached class is then looked up again).
//
// A cycle the evaluator hands back runs again on the plain path, so in a
// cluster where the class's pods keep failing (no node fits) the
// evaluator is skipped for the class's next skip cycles, backoff doubling
// up to maxClassBackoff after each cycle handed back and reset by one it
// handles.
type classEval struct {
	req           resource.Vector
	frags         []framework.SignFragment
	eval          *replicaEval
	used          uint64
	dropped       bool
	skip, backoff int
}

// maxClassBackoff bounds classEval.backoff.
const maxClassBackoff = 64

// classNone is QueuedPod.Class of a pod whose node-local plugins do not
// sign it: it has no class.
type classNone struct{}

// classEvalFor returns the class evaluator that should run qp's cycle under
// prof on a snapshot of the given number of nodes, or nil when the cycle
// takes the plain path.
func (s *Scheduler) classEvalFor(ctx context.Context, prof *profile, qp *queue.QueuedPod, nodes int) *classEval {
	c := &prof.classes
	if !c.checked {
		c.allowed, c.checked = prof.hasScoring && evalAllowed(prof, nil), true
	}
	if !c.allowed || s.noClassEvals || nodes < s.minClassNodes || len(s.forks) > 0 || s.keepResults || s.keepFailed ||
		qp.PodInfo.Pod.Status.NominatedNodeName != "" || !s.nominator.Empty() {
		return nil
	}
	c.tick++
	e := c.classOf(ctx, s, prof, qp)
	if e == nil || e.eval == nil {
		return nil
	}
	e.used = c.tick
	if e.skip > 0 {
		e.skip--
		return nil
	}
	return e
}

// handedBack records that e's evaluator handed a cycle back, handled that
// it computed one.
func (e *classEval) handedBack() {
	e.backoff = min(max(1, 2*e.backoff), maxClassBackoff)
	e.skip = e.backoff
}

func (e *classEval) handled() { e.backoff = 0 }

// classOf returns qp's class (nil: none yet, or the pod has none), from
// the pod's cache when it holds one.
func (c *classEvals) classOf(ctx context.Context, s *Scheduler, prof *profile, qp *queue.QueuedPod) *classEval {
	switch e := qp.Class.(type) {
	case classNone:
		return nil
	case *classEval:
		if !e.dropped {
			return e
		}
	}
	pi := qp.PodInfo
	req := pi.SpecRequests()
	var frags []framework.SignFragment
	signed := false
	sign := func() bool {
		if !signed {
			var ok bool
			frags, ok = prof.fw.NodeLocalFragments(ctx, pi, c.buf[:0])
			c.buf = frags[:0]
			if !ok {
				frags = nil
				qp.Class = classNone{}
			}
			signed = true
		}
		return frags != nil
	}
	for _, e := range c.evals {
		if e.req.Equal(*req) {
			if !sign() {
				return nil
			}
			if framework.SameFragments(e.frags, frags) {
				qp.Class = e
				return e
			}
		}
	}
	for i := range c.seen {
		o := &c.seen[i]
		if !o.pi.SpecRequests().Equal(*req) {
			continue
		}
		if !sign() {
			return nil
		}
		if !o.signed {
			if f, ok := prof.fw.NodeLocalFragments(ctx, o.pi, nil); ok {
				o.frags = f
			}
			o.signed = true
		}
		if o.frags != nil && framework.SameFragments(o.frags, frags) {
			c.seen = append(c.seen[:i], c.seen[i+1:]...)
			e := c.add(s, pi, frags)
			qp.Class = e
			return e
		}
	}
	if len(c.seen) == maxClassSeen {
		c.seen = append(c.seen[:0], c.seen[1:]...)
	}
	c.seen = append(c.seen, seenPod{pi: pi})
	return nil
}

// add makes the evaluator of the class frags defines, pi one of its pods,
// dropping the one used least recently when there are maxClassEvals.
func (c *classEvals) add(s *Scheduler, pi *framework.PodInfo, frags []framework.SignFragment) *classEval {
	if len(c.evals) == maxClassEvals {
		oldest := 0
		for i, e := range c.evals {
			if e.used < c.evals[oldest].used {
				oldest = i
			}
		}
		e := c.evals[oldest]
		if e.eval != nil {
			e.eval.inc.Close()
		}
		e.dropped = true
		c.evals = append(c.evals[:oldest], c.evals[oldest+1:]...)
	}
	e := &classEval{req: *pi.SpecRequests(), frags: slices.Clone(frags), eval: s.newReplicaEval(pi), used: c.tick}
	e.req.Scalars = slices.Clone(e.req.Scalars)
	c.evals = append(c.evals, e)
	return e
}
