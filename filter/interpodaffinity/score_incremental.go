package interpodaffinity

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

var _ fastpath.IncrementalPreScorePlugin = (*InterPodAffinity)(nil)

// ipaContrib is what an existing pod adds to the domain of key of its
// node (when the node has the key).
type ipaContrib struct {
	key string
	v   int64
}

// ipaContribs records an existing pod's contributions without a node: one
// entry per topology key, in the order existingPod first reached the key,
// holding the sum of its contributions (a domain exists once reached,
// even when they cancel out).
type ipaContribs []ipaContrib

func (c *ipaContribs) contribute(key string, _ map[string]string, v int64) {
	for i := range *c {
		if (*c)[i].key == key {
			(*c)[i].v += v
			return
		}
	}
	*c = append(*c, ipaContrib{key: key, v: v})
}

// contributions returns what existing pod ep adds per topology key of its
// node (existingPod's sums). They depend on the walk's pod and snapshot
// and on ep's Shape alone, so they are kept for the next pod of the same
// Shape: a template's replicas are matched once.
func (w *ipaWalk) contributions(ep *framework.PodInfo) []ipaContrib {
	if !w.shape.Same(ep) {
		w.shape = shapeOf(ep)
		w.contribs = w.contribs[:0]
		w.existingPod(&w.contribs, ep, nil)
	}
	return w.contribs
}

// addOnNode adds v to the domain of key of snapshot node k, ni, when the
// node has the key. A key already numbered needs no label lookup: its
// numbering gives the node's domain, −1 without the key.
func (f *ipaFastScores) addOnNode(key string, k int, ni *framework.NodeInfo, v int64) {
	f.changed()
	for x, s := range f.keys {
		if s == key {
			if id := f.tvs[x].Domain[k]; id >= 0 {
				f.dom[x][id] += v
			}
			return
		}
	}
	if _, ok := ni.Node().Labels[key]; !ok {
		return
	}
	x := f.slot(key)
	f.dom[x][f.tvs[x].Domain[k]] += v
}

// PreScoreAfterAdd has the effect of PreScore on the current snapshot
// given the state PreScore or PreScoreAfterAdd wrote for a pod sharing
// pod's PodInfo before the pods in added were added
// (fastpath.IncrementalPreScorePlugin). The topology scores are a sum
// over the existing pods, so each added pod's contributions — in both
// directions, by the code PreScore's reference walk runs per existing pod
// (kube's processExistingPod) — are added to the domains of its node:
// O(added × terms), and a template's replicas, of one podShape,
// are matched once (ipaWalk.contributions). They do not depend on the
// scored nodes. A skipped
// PreScore meant no existing pod contributed anything, so the scores are
// then the added pods' contributions alone, and it skips again when there
// are none. A state it cannot update (the snapshot's nodes changed, or the
// state's buffers may be shared with a clone) is computed again by
// PreScore.
func (pl *InterPodAffinity) PreScoreAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, added []fastpath.AddedPod) *framework.Status {
	snap := state.Snapshot()
	if snap == nil || pod == nil || pod.Pod == nil || !scoring.AddedOnSnapshot(snap, added) {
		return pl.PreScore(ctx, state, pod, nodes)
	}
	hasPreferred := len(pod.PreferredAffinityTerms) > 0 || len(pod.PreferredAntiAffinityTerms) > 0
	if pl.args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return framework.NewStatus(framework.Skip)
	}
	var s *ipaPreScoreState
	inPlace := false
	if d, err := state.Read(ipaPreScoreStateKey); err != nil {
		// PreScore skipped: no existing pod contributed.
		if pl.reference {
			s = &ipaPreScoreState{}
		} else {
			s = newIPAPreScore(snap, pl.doms)
		}
	} else {
		old, ok := d.(*ipaPreScoreState)
		if !ok || !old.updatable(snap) {
			return pl.PreScore(ctx, state, pod, nodes)
		}
		s, inPlace = old, old.fast != nil
		if s.fast == nil {
			// Clone shares the reference walk's maps: update a copy.
			s = &ipaPreScoreState{}
			s.scores.merge(&old.scores)
		}
	}
	w := s.walk
	if !inPlace || w == nil || w.snap != snap {
		// A walk of a state that may be shared is not written to.
		w = pl.newWalk(pod, snap)
	}
	for _, a := range added {
		if s.fast != nil {
			// The node's labels are read only for a key not numbered
			// yet (a node without labels has no value of any key).
			k := a.Node.Index()
			for _, c := range w.contributions(a.Pod) {
				s.fast.addOnNode(c.key, k, a.Node, c.v)
			}
			continue
		}
		labels := a.Node.Node().Labels
		if len(labels) == 0 {
			continue
		}
		cs := w.contributions(a.Pod)
		for _, c := range cs {
			s.scores.contribute(c.key, labels, c.v)
		}
	}
	if len(s.scores.keys) == 0 && (s.fast == nil || len(s.fast.keys) == 0) {
		s.Release()
		return framework.NewStatus(framework.Skip)
	}
	s.walk = w
	if !inPlace {
		state.Write(ipaPreScoreStateKey, s)
	}
	return nil
}

// updatable reports whether PreScoreAfterAdd may update s in place on
// snap: its scores are numbered by snap's current topology values and, in
// fast mode, its buffers are its own (Clone copies them only when they
// are recycled).
func (s *ipaPreScoreState) updatable(snap *framework.Snapshot) bool {
	f := s.fast
	if f == nil {
		return true
	}
	if f.snap != snap || f.pool == nil {
		return false
	}
	for x, tv := range f.tvs {
		if snap.TopologyValues(f.keys[x]) != tv {
			return false
		}
	}
	return true
}
