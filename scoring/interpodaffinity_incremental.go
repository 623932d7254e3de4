package scoring

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

var _ framework.IncrementalPreScorePlugin = (*InterPodAffinity)(nil)

// ipaNodeSink adds contributions to the fast scores' domain of snapshot
// node k (whose labels the walk reads, so every key it is given is among
// them).
type ipaNodeSink struct {
	f *ipaFastScores
	k int
}

func (s *ipaNodeSink) add(key, _ string, v int64) {
	x := s.f.slot(key)
	s.f.dom[x][s.f.tvs[x].Domain[s.k]] += v
}

// PreScoreAfterAdd has the effect of PreScore on the current snapshot
// given the state PreScore or PreScoreAfterAdd wrote for a pod sharing
// pod's PodInfo before the pods in added were added
// (framework.IncrementalPreScorePlugin). The topology scores are a sum
// over the existing pods, so each added pod's contributions — in both
// directions, by the code PreScore's reference walk runs per existing pod
// (kube's processExistingPod) — are added to the domains of its node:
// O(added × terms). They do not depend on the scored nodes. A skipped
// PreScore meant no existing pod contributed anything, so the scores are
// then the added pods' contributions alone, and it skips again when there
// are none. A state it cannot update (the snapshot's nodes changed, or the
// state's buffers may be shared with a clone) is computed again by
// PreScore.
func (pl *InterPodAffinity) PreScoreAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, added []framework.AddedPod) *framework.Status {
	snap := state.Snapshot()
	if snap == nil || pod == nil || pod.Pod == nil || !addedOnSnapshot(snap, added) {
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
		s = &ipaPreScoreState{}
		if !pl.reference {
			s.fast = &ipaFastScores{snap: snap, pool: pl.doms}
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
	if w == nil || w.snap != snap {
		w = pl.newWalk(pod, snap)
	}
	var sink *ipaNodeSink
	if s.fast != nil {
		sink = &ipaNodeSink{f: s.fast}
	}
	for _, a := range added {
		labels := a.Node.Node().Labels
		if len(labels) == 0 {
			continue
		}
		if sink != nil {
			sink.k = a.Node.Index()
			w.existingPod(sink, a.Pod, labels)
		} else {
			w.existingPod(&s.scores, a.Pod, labels)
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
