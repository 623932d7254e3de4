package interpodaffinity

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/scoring"
)

const ipaPreScoreStateKey framework.StateKey = "PreScore" + config.InterPodAffinityName

var (
	_ framework.ReleasableStateData = (*ipaPreScoreState)(nil)
	_ framework.PreScorePlugin      = (*InterPodAffinity)(nil)
	_ framework.ScorePlugin         = (*InterPodAffinity)(nil)
	_ fastpath.BatchScorePlugin     = (*InterPodAffinity)(nil)
	_ framework.ScoreExtensions     = (*InterPodAffinity)(nil)
	_ fastpath.BatchScoreExtensions = (*InterPodAffinity)(nil)
)

// ipaTopoScores is the score per topology domain: per key (in first-seen
// order), the score of each value. A domain exists once some contribution
// reached it, even if the contributions cancel out.
type ipaTopoScores struct {
	keys []string
	vals []map[string]int64
}

func (t *ipaTopoScores) add(key, value string, v int64) {
	for i, k := range t.keys {
		if k == key {
			t.vals[i][value] += v
			return
		}
	}
	t.keys = append(t.keys, key)
	t.vals = append(t.vals, map[string]int64{value: v})
}

func (t *ipaTopoScores) merge(o *ipaTopoScores) {
	for i, k := range o.keys {
		for v, s := range o.vals[i] {
			t.add(k, v, s)
		}
	}
}

// ipaPreScoreState is what PreScore computes for Score and NormalizeScore:
// the reference walk fills scores, the pod index path fills fast.
type ipaPreScoreState struct {
	scores ipaTopoScores
	fast   *ipaFastScores
	// walk, set by PreScoreAfterAdd, holds the pod's compiled preferred
	// terms for the next cycle's additions.
	walk *ipaWalk
	// table, kept by NormalizeRange once PreScoreAfterAdd updated the
	// state, is the normalized table of span len(table)−1 (it depends on
	// the span alone while the state has keys).
	table []int64
}

// ipaFastScores is the score per topology domain as slices: for each key
// that received a contribution, keys[k], its values' numbering tvs[k] over
// the snapshot and the score dom[k][value id].
type ipaFastScores struct {
	snap *framework.Snapshot
	keys []string
	tvs  []*api.TopologyValues
	dom  [][]int64
	// byNode[k] reports that tvs[k] numbers every snapshot node's value
	// by the node's index (a hostname key: one node per value, none
	// without it), so that dom[k] is read by snapshot index directly.
	byNode []bool
	// pool, when set, recycles the large dom slices (see Release).
	pool *slicepool.Pool[int64]
	// tuples caches the per-combination sums of the keys numbered by
	// value (ipaTupleSums); any change to dom drops them. It is set with
	// the first key, to spare when the state was allocated with one
	// (newIPAPreScore), so that a pod no term scores makes none.
	tuples, spare *ipaTupleSums
	// small is what is left of the buffer that the dom slices of keys
	// with few values are cut from (nil: none), zero until cut.
	small []int64
	// The first keys' entries of keys, tvs, byNode and dom, held here
	// (a cycle's terms name a few topology keys).
	keysArr   [ipaInlineKeys]string
	tvsArr    [ipaInlineKeys]*api.TopologyValues
	byNodeArr [ipaInlineKeys]bool
	domArr    [ipaInlineKeys][]int64
}

// ipaInlineKeys is how many topology keys ipaFastScores holds without
// allocating.
const ipaInlineKeys = 4

// ipaTupleSums is the sum of the domain scores of each combination of
// values of the keys a cycle's scores are numbered by value, computed by
// the first ScoreBatch call that needs them (concurrent calls share them).
type ipaTupleSums struct {
	mu   sync.Mutex
	ok   bool // tt and sums are those of the current dom
	tt   *framework.TopologyTuples
	sums []int64
}

// ipaSmallValues is how many values' scores a PreScore state holds for
// keys with few values (zones, racks) without allocating.
const ipaSmallValues = 32

// ipaTupleSumsHeld is how many combinations' sums a PreScore state holds
// without allocating.
const ipaTupleSumsHeld = 32

// ipaFastPreScore is a PreScore state with its fast scores, their
// combination sums and the buffers those start from, allocated together.
type ipaFastPreScore struct {
	s       ipaPreScoreState
	f       ipaFastScores
	t       ipaTupleSums
	small   [ipaSmallValues]int64
	sumsBuf [ipaTupleSumsHeld]int64
}

// newIPAPreScore returns a PreScore state whose fast scores are those of
// snap, with no key yet.
func newIPAPreScore(snap *framework.Snapshot, pool *slicepool.Pool[int64]) *ipaPreScoreState {
	b := &ipaFastPreScore{}
	f := &b.f
	f.snap, f.pool = snap, pool
	f.keys, f.tvs, f.byNode, f.dom = f.keysArr[:0], f.tvsArr[:0], f.byNodeArr[:0], f.domArr[:0]
	f.spare, f.small = &b.t, b.small[:]
	b.t.sums = b.sumsBuf[:0]
	b.s.fast = f
	return &b.s
}

// ipaTuplesMaxShare bounds the combinations worth summing up front: at
// most one per ipaTuplesMaxShare nodes (a key numbering nodes nearly one
// by one saves nothing).
const ipaTuplesMaxShare = 4

// tupleSums returns the numbering of the combinations of the values of
// keys (numbered by value; hs their scores, in the same order) and each
// combination's sum, or nil when there are too many combinations or no
// key holds scores yet.
func (f *ipaFastScores) tupleSums(keys []string, hs []ipaHoistedKey) (*framework.TopologyTuples, []int64) {
	c := f.tuples
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok {
		return c.tt, c.sums
	}
	c.ok, c.tt = true, nil
	tt := f.snap.TopologyTuples(keys)
	if tt == nil || len(tt.Parts)*ipaTuplesMaxShare > len(tt.Domain) {
		return nil, nil
	}
	sums := c.sums[:0]
	if cap(sums) < len(tt.Parts) {
		sums = f.pool.Take(len(tt.Parts)) // Release hands it back
	}
	sums = sums[:len(tt.Parts)]
	for t, parts := range tt.Parts {
		var v int64
		for x, id := range parts {
			if id >= 0 {
				v += hs[x].score[id]
			}
		}
		sums[t] = v
	}
	c.tt, c.sums = tt, sums
	return tt, sums
}

// changed drops the cached combination sums (dom changed).
func (f *ipaFastScores) changed() {
	if f.tuples != nil {
		f.tuples.ok = false
	}
}

// slot returns the index of key, adding it (all domains 0) when absent.
func (f *ipaFastScores) slot(key string) int {
	for k, s := range f.keys {
		if s == key {
			return k
		}
	}
	if f.tuples == nil {
		f.tuples = f.spare
		if f.tuples == nil {
			f.tuples = &ipaTupleSums{}
		}
	}
	tv := f.snap.TopologyValues(key)
	f.keys = append(f.keys, key)
	f.tvs = append(f.tvs, tv)
	f.byNode = append(f.byNode, tv.ByIndex)
	// A key of few values is cut from the state's own buffer while it
	// lasts; a larger one is recycled when the pool recycles its size.
	var dom []int64
	if n := len(tv.Values); n <= len(f.small) {
		dom, f.small = f.small[:n:n], f.small[n:]
	} else {
		dom = f.pool.Recycled(n)
		clear(dom)
	}
	if dom == nil {
		dom = make([]int64, len(tv.Values))
	}
	f.dom = append(f.dom, dom)
	return len(f.keys) - 1
}

// addDomains adds, for every value of dc's key, perPod × dc.Count and
// perWeight × dc.Weight to the value's score. A key no node of which holds
// anything receives nothing (as in the reference walk, which then does not
// create the key either).
func (f *ipaFastScores) addDomains(dc *framework.DomainCounts, perPod, perWeight int64) {
	if dc.NonZero == 0 {
		return
	}
	dom := f.dom[f.slot(dc.Values.Key)]
	f.changed()
	hits, kept := dc.KeptHits()
	switch {
	case !kept && perWeight == 0:
		dc.EachHit(func(id int32) { dom[id] += int64(dc.Count[id]) * perPod })
	case !kept:
		dc.EachHit(func(id int32) { dom[id] += dc.Weight[id] * perWeight })
	case perWeight == 0:
		for _, h := range hits {
			dom[h.ID] += int64(h.Count) * perPod
		}
	default:
		for _, h := range hits {
			dom[h.ID] += h.Weight * perWeight
		}
	}
}

// score sums the node's domain scores.
func (f *ipaFastScores) score(node *framework.NodeInfo) int64 {
	var score int64
	if i := node.Index(); i >= 0 && i < f.snap.NumNodes() && f.snap.Nodes()[i].Node() == node.Node() {
		for k := range f.keys {
			if id := f.tvs[k].Domain[i]; id >= 0 {
				score += f.dom[k][id]
			}
		}
		return score
	}
	// A node outside the snapshot: by its labels.
	labels := node.Node().Labels
	for k, key := range f.keys {
		v, ok := labels[key]
		if !ok {
			continue
		}
		for id, tv := range f.tvs[k].Values {
			if tv == v {
				score += f.dom[k][id]
				break
			}
		}
	}
	return score
}

// Clone returns s, or, when s holds recycled buffers, a copy that owns its
// own (Score and NormalizeScore only read the state).
func (s *ipaPreScoreState) Clone() framework.StateData {
	if s.fast == nil || s.fast.pool == nil {
		return s
	}
	f := *s.fast
	f.pool, f.tuples, f.spare, f.small = nil, &ipaTupleSums{}, nil, nil
	f.domArr = [ipaInlineKeys][]int64{} // the original's slices, recycled on its Release
	// The copy's keys are read from the original's until either adds one
	// (a clipped slice reallocates on append).
	f.keys, f.tvs, f.byNode = slices.Clip(f.keys), slices.Clip(f.tvs), slices.Clip(f.byNode)
	f.dom = make([][]int64, len(s.fast.dom))
	for k := range f.dom {
		f.dom[k] = slices.Clone(s.fast.dom[k])
	}
	return &ipaPreScoreState{scores: s.scores, fast: &f}
}

// Release hands the large per-value score slices back to the plugin
// (framework.ReleasableStateData); the state must not be used afterwards.
func (s *ipaPreScoreState) Release() {
	f := s.fast
	if f == nil || f.pool == nil {
		return
	}
	// The pool keeps only slices large enough to recycle: not those cut
	// from the state's own buffers.
	for k, dom := range f.dom {
		f.pool.Put(dom)
		f.dom[k] = nil
	}
	if t := f.tuples; t != nil {
		f.pool.Put(t.sums)
		t.sums = nil
	}
	f.pool = nil
}

// ipaWalk holds the per-cycle inputs of PreScore's walk.
type ipaWalk struct {
	pod      *api.Pod
	affinity []affTerm
	anti     []affTerm
	nsLabels map[string]string
	snap     *framework.Snapshot
	hard     int32
	allPods  bool
	// shape and contribs, kept by contributions, are the Shape of the
	// last added pod whose contributions were asked and those
	// contributions.
	shape    podShape
	contribs ipaContribs
}

// newWalk returns the walk's inputs for pod on snap.
func (pl *InterPodAffinity) newWalk(pod *framework.PodInfo, snap *framework.Snapshot) *ipaWalk {
	return &ipaWalk{
		pod:      pod.Pod,
		affinity: weightedAffTerms(pod.PreferredAffinityTerms, pl.kube),
		anti:     weightedAffTerms(pod.PreferredAntiAffinityTerms, pl.kube),
		nsLabels: snap.NamespaceLabels(pod.Pod.Namespace),
		snap:     snap,
		hard:     pl.args.HardPodAffinityWeight,
		allPods:  len(pod.PreferredAffinityTerms) > 0 || len(pod.PreferredAntiAffinityTerms) > 0,
	}
}

// contribution is weight × multiplier in int32, as kube computes it.
func ipaContribution(weight, multiplier int32) int64 { return int64(weight * multiplier) }

// ipaScoreSink receives the contributions of existing pods: v for the
// topology domain (key, labels[key]) of the pod's node, whose labels are
// labels, when the node has the key.
type ipaScoreSink interface {
	contribute(key string, labels map[string]string, v int64)
}

func (t *ipaTopoScores) contribute(key string, labels map[string]string, v int64) {
	if val, ok := labels[key]; ok {
		t.add(key, val, v)
	}
}

// existingPod adds the five contributions of existing pod ep on a node with
// labels to out (kube's processExistingPod), in kube's order.
func (w *ipaWalk) existingPod(out ipaScoreSink, ep *framework.PodInfo, labels map[string]string) {
	for i := range w.affinity {
		t := &w.affinity[i]
		if t.Matches(ep.Pod, w.snap) {
			out.contribute(t.TopologyKey, labels, ipaContribution(t.Weight, 1))
		}
	}
	for i := range w.anti {
		t := &w.anti[i]
		if t.Matches(ep.Pod, w.snap) {
			out.contribute(t.TopologyKey, labels, ipaContribution(t.Weight, -1))
		}
	}
	if w.hard > 0 {
		for i := range ep.RequiredAffinityTerms {
			t := &ep.RequiredAffinityTerms[i]
			if t.Matches(w.pod, w.nsLabels) {
				out.contribute(t.TopologyKey, labels, ipaContribution(w.hard, 1))
			}
		}
	}
	for i := range ep.PreferredAffinityTerms {
		t := &ep.PreferredAffinityTerms[i]
		if t.Matches(w.pod, w.nsLabels) {
			out.contribute(t.TopologyKey, labels, ipaContribution(t.Weight, 1))
		}
	}
	for i := range ep.PreferredAntiAffinityTerms {
		t := &ep.PreferredAntiAffinityTerms[i]
		if t.Matches(w.pod, w.nsLabels) {
			out.contribute(t.TopologyKey, labels, ipaContribution(t.Weight, -1))
		}
	}
}

// node adds the contributions of the pods of one node.
func (w *ipaWalk) node(out *ipaTopoScores, ni *framework.NodeInfo) {
	n := ni.Node()
	if n == nil || len(n.Labels) == 0 {
		return
	}
	pods := ni.PodsWithAffinity
	if w.allPods {
		pods = ni.Pods
	}
	for _, ep := range pods {
		w.existingPod(out, ep, n.Labels)
	}
}

var _ fastpath.ClusterWalkingPreScorePlugin = (*InterPodAffinity)(nil)

// PreScoreWalksCluster marks the plugin as one whose PreScore walks the
// snapshot's nodes and their pods with affinity (every pod when the
// incoming pod has preferred terms).
func (pl *InterPodAffinity) PreScoreWalksCluster() {}

var _ fastpath.NodeBlindPreScorePlugin = (*InterPodAffinity)(nil)

// PreScoreIgnoresNodes marks the plugin as one whose PreScore depends on
// the pod and the snapshot alone: as kube's, it sums the terms of the
// pods on every node, whatever the filters kept.
func (pl *InterPodAffinity) PreScoreIgnoresNodes() {}

var _ fastpath.CycleScopedPreScorePlugin = (*InterPodAffinity)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *InterPodAffinity) PreScoreNodesInCycle() {}

// PreScore computes the topology scores (see the type's doc). It walks the
// cycle snapshot's nodes, not only the feasible ones, as kube does.
func (pl *InterPodAffinity) PreScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	snap := state.Snapshot()
	if snap == nil {
		return framework.AsStatus(fmt.Errorf("interpodaffinity: CycleState has no Snapshot"))
	}
	if pod == nil || pod.Pod == nil {
		return framework.AsStatus(fmt.Errorf("interpodaffinity: nil pod"))
	}
	hasPreferred := len(pod.PreferredAffinityTerms) > 0 || len(pod.PreferredAntiAffinityTerms) > 0
	if pl.args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return framework.NewStatus(framework.Skip)
	}
	if !pl.reference {
		s := pl.preScoreFast(pod, snap)
		if s == nil || len(s.fast.keys) == 0 {
			return framework.NewStatus(framework.Skip)
		}
		state.Write(ipaPreScoreStateKey, s)
		return nil
	}
	nodes := snap.NodesWithPodAffinity()
	if hasPreferred {
		nodes = snap.Nodes()
	}
	w := pl.newWalk(pod, snap)
	s := &ipaPreScoreState{}
	if _, chunks := pl.chunking(len(nodes)); chunks <= 1 {
		for _, ni := range nodes {
			w.node(&s.scores, ni)
		}
	} else {
		parts := make([]ipaTopoScores, chunks)
		pl.forChunks(ctx, len(nodes), func(c, lo, hi int) {
			out := &parts[c]
			for _, ni := range nodes[lo:hi] {
				w.node(out, ni)
			}
		})
		for i := range parts {
			s.scores.merge(&parts[i])
		}
	}
	if len(s.scores.keys) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(ipaPreScoreStateKey, s)
	return nil
}

// preScoreFast computes what the reference walk computes from the
// snapshot's pod index: the incoming pod's preferred terms contribute
// weight × (matching pods in the domain), from Snapshot.PodDomainCounts;
// the existing pods' terms contribute per distinct term selecting the
// incoming pod (Snapshot.AffinityGroupsSelecting), from the term's count
// or weights per domain (Snapshot.AffinityGroupDomainCounts). The
// snapshot keeps both per domain, so a cycle costs O(terms × values/64 +
// domains touched). Sums of integers, so the order of contributions does
// not matter.
func (pl *InterPodAffinity) preScoreFast(pod *framework.PodInfo, snap *framework.Snapshot) *ipaPreScoreState {
	groups := snap.AffinityGroupsSelecting(pod.Pod)
	if len(pod.PreferredAffinityTerms) == 0 && len(pod.PreferredAntiAffinityTerms) == 0 && len(groups) == 0 {
		return nil // nothing scores the pod
	}
	s := newIPAPreScore(snap, pl.doms)
	f := s.fast
	for i := range pod.PreferredAffinityTerms {
		t := &pod.PreferredAffinityTerms[i]
		q := framework.PodQuery{Terms: []framework.PodTerm{podTermOf(&t.AffinityTerm, pl.kube)}}
		f.addDomains(snap.PodDomainCounts(q, t.TopologyKey), ipaContribution(t.Weight, 1), 0)
	}
	for i := range pod.PreferredAntiAffinityTerms {
		t := &pod.PreferredAntiAffinityTerms[i]
		q := framework.PodQuery{Terms: []framework.PodTerm{podTermOf(&t.AffinityTerm, pl.kube)}}
		f.addDomains(snap.PodDomainCounts(q, t.TopologyKey), ipaContribution(t.Weight, -1), 0)
	}
	hard := pl.args.HardPodAffinityWeight
	for _, g := range groups {
		switch g.Kind {
		case framework.TermRequiredAffinity:
			if hard > 0 {
				f.addDomains(snap.AffinityGroupDomainCounts(g), ipaContribution(hard, 1), 0)
			}
		case framework.TermPreferredAffinity:
			f.addDomains(snap.AffinityGroupDomainCounts(g), 0, 1)
		case framework.TermPreferredAntiAffinity:
			f.addDomains(snap.AffinityGroupDomainCounts(g), 0, -1)
		}
	}
	return s
}

func ipaReadScoreState(state *framework.CycleState) (*ipaPreScoreState, error) {
	d, err := state.Read(ipaPreScoreStateKey)
	if err != nil {
		return nil, fmt.Errorf("failed to read %q from cycleState: %w", ipaPreScoreStateKey, err)
	}
	s, ok := d.(*ipaPreScoreState)
	if !ok {
		return nil, fmt.Errorf("%+v  convert to interpodaffinity.preScoreState error", d)
	}
	return s, nil
}

// Score sums the scores of the node's domains: per topology key, one lookup
// of the node's label and one of the domain's score. It does not allocate.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s, err := ipaReadScoreState(state)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	n := node.Node()
	if n == nil {
		return 0, framework.AsStatus(fmt.Errorf("interpodaffinity: node not found"))
	}
	if s.fast != nil {
		return s.fast.score(node), nil
	}
	var score int64
	for i, k := range s.scores.keys {
		if v, ok := n.Labels[k]; ok {
			score += s.scores.vals[i][v]
		}
	}
	return score, nil
}

// ipaScoreHoistMax bounds the topology keys ScoreBatch hoists (one per distinct
// key of the terms at play: hostname, zone, rack...).
const ipaScoreHoistMax = 8

// ipaHoistedKey is one topology key's value numbering and scores by value;
// a nil domain means the scores are by snapshot node index.
type ipaHoistedKey struct {
	domain []int32
	score  []int64
}

// ipaScoreHoisted sets out[i] to the sum over the keys hs of the score of
// snapshot node idx[i]'s domain and returns the least and greatest. Only
// hs[0] may be numbered by node (nil domain): its score is then one load
// per node. One key by value (zone), alone or beside the node-numbered
// one, has a loop of its own; two or more by value are summed per
// combination of values (ipaScoreTuples) unless they have too many
// combinations, which the general loops serve.
func ipaScoreHoisted(hs []ipaHoistedKey, idx []int32, out []int64) (lo, hi int64) {
	out = out[:len(idx)]
	lo, hi = math.MaxInt64, math.MinInt64
	if len(hs) > 0 && hs[0].domain == nil {
		s0, rest := hs[0].score, hs[1:]
		switch len(rest) {
		case 0:
			for i, k := range idx {
				score := s0[k]
				out[i] = score
				lo, hi = min(lo, score), max(hi, score)
			}
		case 1:
			d1, s1 := rest[0].domain, rest[0].score
			for i, k := range idx {
				score := s0[k]
				if id := d1[k]; id >= 0 {
					score += s1[id]
				}
				out[i] = score
				lo, hi = min(lo, score), max(hi, score)
			}
		default:
			for i, k := range idx {
				score := s0[k]
				for x := range rest {
					if id := rest[x].domain[k]; id >= 0 {
						score += rest[x].score[id]
					}
				}
				out[i] = score
				lo, hi = min(lo, score), max(hi, score)
			}
		}
		return lo, hi
	}
	if len(hs) == 1 {
		d0, s0 := hs[0].domain, hs[0].score
		for i, k := range idx {
			var score int64
			if id := d0[k]; id >= 0 {
				score = s0[id]
			}
			out[i] = score
			lo, hi = min(lo, score), max(hi, score)
		}
		return lo, hi
	}
	for i, k := range idx {
		var score int64
		for x := range hs {
			if id := hs[x].domain[k]; id >= 0 {
				score += hs[x].score[id]
			}
		}
		out[i] = score
		lo, hi = min(lo, score), max(hi, score)
	}
	return lo, hi
}

// ipaScoreTuples sets out[i] to the score of snapshot node k = idx[i]:
// s0[k] (nil: none) plus sums[dom[k]], the sum for its combination of
// values; it returns the least and greatest.
func ipaScoreTuples(s0, sums []int64, dom, idx []int32, out []int64) (lo, hi int64) {
	out = out[:len(idx)]
	lo, hi = math.MaxInt64, math.MinInt64
	if s0 == nil {
		for i, k := range idx {
			score := sums[dom[k]]
			out[i] = score
			lo, hi = min(lo, score), max(hi, score)
		}
		return lo, hi
	}
	for i, k := range idx {
		score := s0[k] + sums[dom[k]]
		out[i] = score
		lo, hi = min(lo, score), max(hi, score)
	}
	return lo, hi
}

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin): the state is
// read once and, from the pod index, a snapshot node costs two slice reads
// per topology key (its domain, the domain's score), one for a key whose
// domains are numbered by node (hostname).
func (pl *InterPodAffinity) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
	return st
}

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score it wrote (fastpath.BoundedBatchScorePlugin).
func (pl *InterPodAffinity) ScoreBatchBounds(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	out = out[:len(nodes)]
	s, err := ipaReadScoreState(state)
	if err != nil || s.fast == nil {
		for i, node := range nodes {
			v, st := pl.Score(ctx, state, pod, node)
			if st != nil {
				return 0, 0, st
			}
			out[i] = v
		}
		lo, hi = scoring.RowBounds(out)
		return lo, hi, nil
	}
	f := s.fast
	if idx != nil && state.Snapshot() == f.snap && len(f.keys) <= ipaScoreHoistMax {
		// The runner's indices: no NodeInfo to read, and each key's
		// numbering and scores hoisted out of the loop.
		var buf [ipaScoreHoistMax]ipaHoistedKey
		var keyBuf [ipaScoreHoistMax]string
		hs, keys := buf[:len(f.keys)], keyBuf[:len(f.keys)]
		byNode := false // hs[0] is numbered by node
		for x := range hs {
			hs[x], keys[x] = ipaHoistedKey{domain: f.tvs[x].Domain, score: f.dom[x]}, f.keys[x]
			if f.byNode[x] && !byNode {
				hs[x], keys[x] = hs[0], keys[0]
				hs[0], keys[0] = ipaHoistedKey{score: f.dom[x]}, f.keys[x]
				byNode = true
			}
		}
		first := 0 // hs[first:] are numbered by value
		if byNode {
			first = 1
		}
		if len(hs)-first >= 2 {
			// Two keys or more by value (zone and rack): one sum per
			// combination of their values.
			if tt, sums := f.tupleSums(keys[first:], hs[first:]); tt != nil {
				var s0 []int64
				if byNode {
					s0 = hs[0].score
				}
				lo, hi = ipaScoreTuples(s0, sums, tt.Domain, idx[:len(nodes)], out)
				return lo, hi, nil
			}
		}
		lo, hi = ipaScoreHoisted(hs, idx[:len(nodes)], out)
		return lo, hi, nil
	}
	all := f.snap.Nodes()
	useIdx := idx != nil && state.Snapshot() == f.snap // the runner's indices: no NodeInfo to read
	for i, node := range nodes {
		var k int
		if useIdx {
			k = int(idx[i])
		} else {
			n := node.Node()
			if n == nil {
				return 0, 0, framework.AsStatus(fmt.Errorf("interpodaffinity: node not found"))
			}
			k = node.Index()
			if k < 0 || k >= len(all) || all[k].Node() != n {
				out[i] = f.score(node)
				continue
			}
		}
		var score int64
		for x, tv := range f.tvs {
			if id := tv.Domain[k]; id >= 0 {
				score += f.dom[x][id]
			}
		}
		out[i] = score
	}
	lo, hi = scoring.RowBounds(out)
	return lo, hi, nil
}

var _ fastpath.BoundedBatchScorePlugin = (*InterPodAffinity)(nil)

// ScoreExtensions returns the plugin (NormalizeScore).
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the scores to [0, 100]:
// int64(100 × (float64(s − min) / float64(max − min))), and 0 for every node
// when max == min — kube-scheduler v1.36's InterPodAffinity NormalizeScore.
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	s, err := ipaReadScoreState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(s.scores.keys) == 0 && (s.fast == nil || len(s.fast.keys) == 0) {
		return nil
	}
	ipaNormalize(scores)
	return nil
}

// NormalizeScoreBatch is NormalizeScore over a row of scores
// (fastpath.BatchScoreExtensions).
func (pl *InterPodAffinity) NormalizeScoreBatch(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	s, err := ipaReadScoreState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(s.scores.keys) == 0 && (s.fast == nil || len(s.fast.keys) == 0) {
		return nil
	}
	ipaNormalizeRow(scores)
	return nil
}

// ipaNormalizeRow is ipaNormalize over a row of scores.
func ipaNormalizeRow(scores []int64) {
	minCount, maxCount := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		minCount = min(minCount, s)
		maxCount = max(maxCount, s)
	}
	diff := maxCount - minCount
	if x, ok := ipaDividerFor(diff); ok && len(scores) > 0 {
		for i, s := range scores {
			scores[i] = x.of(s - minCount)
		}
		return
	}
	norm := func(s int64) int64 { return ipaNormalizeOne(s-minCount, diff) }
	if len(scores) > 0 && scoring.MapRow(scores, minCount, maxCount, norm) {
		return
	}
	for i, s := range scores {
		scores[i] = norm(s)
	}
}

func ipaNormalize(scores framework.NodeScoreList) {
	minCount, maxCount := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range scores {
		minCount = min(minCount, scores[i].Score)
		maxCount = max(maxCount, scores[i].Score)
	}
	diff := maxCount - minCount
	for i := range scores {
		scores[i].Score = ipaNormalizeOne(scores[i].Score-minCount, diff)
	}
}
