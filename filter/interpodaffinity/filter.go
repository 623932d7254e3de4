package interpodaffinity

import (
	"context"
	"fmt"
	"sync"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/parallel"
)

const ipaPreFilterStateKey framework.StateKey = "PreFilter" + config.InterPodAffinityName

var (
	_ framework.PreFilterPlugin             = (*InterPodAffinity)(nil)
	_ framework.FilterPlugin                = (*InterPodAffinity)(nil)
	_ fastpath.BatchFilterPlugin            = (*InterPodAffinity)(nil)
	_ fastpath.TrustedRejectingFilterPlugin = (*InterPodAffinity)(nil)
	_ framework.PreFilterExtensions         = (*InterPodAffinity)(nil)

	_ framework.ReleasableStateData = (*ipaPreFilterState)(nil)
)

// ipaCounts counts matching pods per topology pair (key, value). Pairs are
// grouped by key so that a term, whose key is fixed, reaches its values with
// one lookup by value. A pair whose count returns to zero is deleted; n is
// the number of pairs present (the length of kube's topologyToMatchedTermCount).
type ipaCounts struct {
	keys []string
	vals []map[string]int64
	n    int
	// The first keys' entries of keys and vals, held here (a pod's terms
	// name a key or two).
	keysArr [ipaHeldKeys]string
	valsArr [ipaHeldKeys]map[string]int64
}

// ipaHeldKeys is how many topology keys an ipaCounts holds without
// allocating.
const ipaHeldKeys = 2

// slot returns the index of key, adding it when absent.
func (c *ipaCounts) slot(key string) int {
	for i, k := range c.keys {
		if k == key {
			return i
		}
	}
	if c.keys == nil {
		c.keys, c.vals = c.keysArr[:0], c.valsArr[:0]
	}
	c.keys = append(c.keys, key)
	c.vals = append(c.vals, nil) // made by the first count (add, fillTables)
	return len(c.keys) - 1
}

// add adds delta to pair (keys[slot], value), deleting it at zero.
func (c *ipaCounts) add(slot int, value string, delta int64) {
	m := c.vals[slot]
	if m == nil {
		m = map[string]int64{}
		c.vals[slot] = m
	}
	old, ok := m[value]
	nv := old + delta
	switch {
	case nv == 0:
		if ok {
			delete(m, value)
			c.n--
		}
	case !ok:
		m[value] = nv
		c.n++
	default:
		m[value] = nv
	}
}

func (c *ipaCounts) clone() ipaCounts {
	out := ipaCounts{keys: append([]string(nil), c.keys...), vals: make([]map[string]int64, len(c.vals)), n: c.n}
	for i, m := range c.vals {
		if m == nil {
			continue
		}
		cm := make(map[string]int64, len(m))
		for k, v := range m {
			cm[k] = v
		}
		out.vals[i] = cm
	}
	return out
}

// ipaTerm is an incoming required term with the slot of its topology key in
// the matching ipaCounts.
type ipaTerm struct {
	affTerm
	slot int
}

// ipaFastPreFilter is a fast PreFilter's state with its dense counts and
// their Once, allocated together.
type ipaFastPreFilter struct {
	s     ipaPreFilterState
	dense ipaDense
	once  sync.Once
}

// ipaPreFilterState is what PreFilter computes for Filter.
type ipaPreFilterState struct {
	// existingAnti: existing pods whose required anti-affinity terms select
	// the incoming pod, per domain of the term.
	existingAnti ipaCounts
	// affinity: existing pods matching all the incoming pod's required
	// affinity terms, per domain of each term.
	affinity ipaCounts
	// anti: existing pods matching each required anti-affinity term of the
	// incoming pod, per domain of the term.
	anti ipaCounts

	// Shared, read-only after PreFilter.
	pod       *framework.PodInfo
	affTerms  []ipaTerm
	antiTerms []ipaTerm
	// selfMatch: the incoming pod matches all its own affinity terms.
	selfMatch bool
	// nsLabels are the labels of the incoming pod's namespace.
	nsLabels map[string]string
	snap     *framework.Snapshot
	// dense holds the counts by topology value number when PreFilter ran
	// from the pod index (interpodaffinity_fast.go); AddPod and RemovePod
	// drop it. Clones share it read-only.
	dense *ipaDense
	// filled, when set, fills the three tables' maps from dense the first
	// time they are read (tables): until then they hold the keys and the
	// pair counts n only.
	filled *sync.Once
	// unchanged, kept by PreFilterAfterAdd, is the Shape of the last
	// added pod countsChangeWith found not to change the counts: whether
	// a pod does depends on the state and on its Shape alone.
	unchanged podShape
	// owned, set by PreFilterAfterAdd (own), says each dense slot's one
	// source is the state's own sum, which it adds pods to (addOwned).
	owned bool
}

// tables makes the three count tables' maps complete (see filled).
func (s *ipaPreFilterState) tables() {
	if s.filled != nil {
		s.filled.Do(s.fillTables)
	}
}

// Clone deep-copies the counts; terms, pod and the dense counts are
// shared (the latter are then no longer recycled on Release).
func (s *ipaPreFilterState) Clone() framework.StateData {
	s.tables()
	if s.dense != nil {
		s.dense.cloned.Store(true)
	}
	c := *s
	c.existingAnti = s.existingAnti.clone()
	c.affinity = s.affinity.clone()
	c.anti = s.anti.clone()
	return &c
}

// Release hands the dense counts' hit bitmaps back to the plugin
// (framework.ReleasableStateData); the state must not be used afterwards.
func (s *ipaPreFilterState) Release() {
	if s.dense != nil {
		s.dense.release()
	}
}

var _ fastpath.IsolatedPreFilterPlugin = (*InterPodAffinity)(nil)

// PreFilterIsolated marks the plugin as one whose PreFilter reads the pod
// and the snapshot alone and writes only its own state.
func (pl *InterPodAffinity) PreFilterIsolated() {}

// PreFilter builds the three count tables. It Skips when the incoming pod
// has no required (anti-)affinity terms and no existing pod's required
// anti-affinity selects it, exactly as kube-scheduler v1.36 decides.
func (pl *InterPodAffinity) PreFilter(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	snap := state.Snapshot()
	if snap == nil {
		return nil, framework.AsStatus(fmt.Errorf("interpodaffinity: CycleState has no Snapshot"))
	}
	if pod == nil || pod.Pod == nil {
		return nil, framework.AsStatus(fmt.Errorf("interpodaffinity: nil pod"))
	}
	// From the pod index when PreFilter runs over the snapshot's own node
	// list (the runner's call); by walking the pods otherwise.
	fast := state.AllNodes()
	if fast && len(pod.RequiredAffinityTerms) == 0 && len(pod.RequiredAntiAffinityTerms) == 0 && !existingAntiSelects(snap, pod.Pod) {
		return nil, framework.NewStatus(framework.Skip) // the skip below, without building the state
	}
	var s *ipaPreFilterState
	if fast {
		// The state, its dense counts and their Once in one allocation.
		a := &ipaFastPreFilter{}
		s = &a.s
		s.dense, s.filled = &a.dense, &a.once
		s.dense.snap, s.dense.hits = snap, pl.hits
	} else {
		s = &ipaPreFilterState{}
	}
	s.pod, s.nsLabels, s.snap = pod, snap.NamespaceLabels(pod.Pod.Namespace), snap
	if fast {
		pl.countExistingFast(s)
	} else {
		pl.countExisting(ctx, s, snap.NodesWithRequiredAntiAffinity())
	}
	if s.existingAnti.n == 0 && len(pod.RequiredAffinityTerms) == 0 && len(pod.RequiredAntiAffinityTerms) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s.affTerms = ipaPrepare(&s.affinity, pod.RequiredAffinityTerms, pl.kube)
	s.antiTerms = ipaPrepare(&s.anti, pod.RequiredAntiAffinityTerms, pl.kube)
	if len(s.affTerms) > 0 {
		s.selfMatch = ipaMatchesAll(s.affTerms, pod.Pod, snap)
	}
	if fast {
		pl.countIncomingFast(s)
	} else {
		pl.countIncoming(ctx, s, nodes)
	}
	state.Write(ipaPreFilterStateKey, s)
	return nil, nil
}

func ipaPrepare(c *ipaCounts, terms []framework.AffinityTerm, v framework.KubeVersion) []ipaTerm {
	if len(terms) == 0 {
		return nil
	}
	out := make([]ipaTerm, len(terms))
	for i := range terms {
		out[i] = ipaTerm{affTerm: newAffTerm(&terms[i], 0, v), slot: c.slot(terms[i].TopologyKey)}
	}
	return out
}

// ipaMatchesAll reports whether pod matches every term; false when there
// are no terms (kube-scheduler's podMatchesAllAffinityTerms).
func ipaMatchesAll(terms []ipaTerm, pod *api.Pod, snap *framework.Snapshot) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, snap) {
			return false
		}
	}
	return true
}

// forChunks runs work over [0, n): inline over the whole range without
// a handle or with parallelism 1, else in chunks on the handle's
// Parallelizer. work gets the chunk number (below the count chunking
// returns) so that results stored per chunk merge in node order, whatever
// the parallelism.
func (pl *InterPodAffinity) forChunks(ctx context.Context, n int, work func(c, lo, hi int)) {
	chunk, chunks := pl.chunking(n)
	if chunks <= 1 {
		work(0, 0, n)
		return
	}
	pl.h.Parallelizer().Until(ctx, chunks, func(c int) {
		lo := c * chunk
		work(c, lo, min(lo+chunk, n))
	}, config.InterPodAffinityName)
}

// chunking returns the length and number of forChunks' chunks of n nodes:
// kube's chunk size for the handle's parallelism.
func (pl *InterPodAffinity) chunking(n int) (chunk, chunks int) {
	if pl.h == nil || pl.h.Parallelism() <= 1 || n <= 1 {
		return max(n, 1), 1
	}
	chunk = parallel.ChunkSize(n, pl.h.Parallelism())
	return chunk, (n + chunk - 1) / chunk
}

// ipaPairCount is one +1 for the pair (key, value) found by a PreFilter
// worker; slot is the key's slot when known (incoming terms), else -1.
type ipaPairCount struct {
	key   string
	value string
	slot  int
}

// countExisting counts, per domain, the existing pods with a required
// anti-affinity term that selects the incoming pod (kube's
// getExistingAntiAffinityCounts).
func (pl *InterPodAffinity) countExisting(ctx context.Context, s *ipaPreFilterState, nodes []*framework.NodeInfo) {
	if len(nodes) == 0 {
		return
	}
	incoming := s.pod.Pod
	_, chunks := pl.chunking(len(nodes))
	found := make([][]ipaPairCount, chunks)
	pl.forChunks(ctx, len(nodes), func(c, lo, hi int) {
		var local []ipaPairCount
		for _, ni := range nodes[lo:hi] {
			node := ni.Node()
			if node == nil {
				continue
			}
			for _, ep := range ni.PodsWithRequiredAntiAffinity {
				for i := range ep.RequiredAntiAffinityTerms {
					t := &ep.RequiredAntiAffinityTerms[i]
					if !t.Matches(incoming, s.nsLabels) {
						continue
					}
					if v, ok := node.Labels[t.TopologyKey]; ok {
						local = append(local, ipaPairCount{key: t.TopologyKey, value: v})
					}
				}
			}
		}
		found[c] = local
	})
	for _, ps := range found {
		for _, p := range ps {
			s.existingAnti.add(s.existingAnti.slot(p.key), p.value, 1)
		}
	}
}

// countIncoming counts, per domain, the existing pods matching all the
// incoming pod's required affinity terms and, per term, those matching its
// required anti-affinity terms (kube's getIncomingAffinityAntiAffinityCounts).
// Sequentially it counts straight into the tables; in parallel each chunk
// lists its pairs and the lists are merged in node order.
func (pl *InterPodAffinity) countIncoming(ctx context.Context, s *ipaPreFilterState, nodes []*framework.NodeInfo) {
	if (len(s.affTerms) == 0 && len(s.antiTerms) == 0) || len(nodes) == 0 {
		return
	}
	walk := func(lo, hi int, emit func(anti bool, slot int, value string)) {
		for _, ni := range nodes[lo:hi] {
			node := ni.Node()
			if node == nil {
				continue
			}
			labels := node.Labels
			for _, ep := range ni.Pods {
				if len(s.affTerms) > 0 && ipaMatchesAll(s.affTerms, ep.Pod, s.snap) {
					for i := range s.affTerms {
						if v, ok := labels[s.affTerms[i].TopologyKey]; ok {
							emit(false, s.affTerms[i].slot, v)
						}
					}
				}
				for i := range s.antiTerms {
					t := &s.antiTerms[i]
					if !t.Matches(ep.Pod, s.snap) {
						continue
					}
					if v, ok := labels[t.TopologyKey]; ok {
						emit(true, t.slot, v)
					}
				}
			}
		}
	}
	_, chunks := pl.chunking(len(nodes))
	if chunks <= 1 {
		walk(0, len(nodes), func(anti bool, slot int, value string) {
			if anti {
				s.anti.add(slot, value, 1)
			} else {
				s.affinity.add(slot, value, 1)
			}
		})
		return
	}
	type found struct{ aff, anti []ipaPairCount }
	parts := make([]found, chunks)
	pl.forChunks(ctx, len(nodes), func(c, lo, hi int) {
		p := &parts[c]
		walk(lo, hi, func(anti bool, slot int, value string) {
			if anti {
				p.anti = append(p.anti, ipaPairCount{slot: slot, value: value})
			} else {
				p.aff = append(p.aff, ipaPairCount{slot: slot, value: value})
			}
		})
	})
	for i := range parts {
		for _, d := range parts[i].aff {
			s.affinity.add(d.slot, d.value, 1)
		}
		for _, d := range parts[i].anti {
			s.anti.add(d.slot, d.value, 1)
		}
	}
}

// update adds (mult=+1) or removes (mult=-1) pod p on node to or from the
// counts (kube's preFilterState.updateWithPod).
func (s *ipaPreFilterState) update(p *framework.PodInfo, node *api.Node, mult int64) {
	s.tables()
	s.dense = nil // the tables change; Filter reads them from now on
	labels := node.Labels
	for i := range p.RequiredAntiAffinityTerms {
		t := &p.RequiredAntiAffinityTerms[i]
		if !t.Matches(s.pod.Pod, s.nsLabels) {
			continue
		}
		if v, ok := labels[t.TopologyKey]; ok {
			s.existingAnti.add(s.existingAnti.slot(t.TopologyKey), v, mult)
		}
	}
	if ipaMatchesAll(s.affTerms, p.Pod, s.snap) {
		for i := range s.affTerms {
			if v, ok := labels[s.affTerms[i].TopologyKey]; ok {
				s.affinity.add(s.affTerms[i].slot, v, mult)
			}
		}
	}
	for i := range s.antiTerms {
		t := &s.antiTerms[i]
		if !t.Matches(p.Pod, s.snap) {
			continue
		}
		if v, ok := labels[t.TopologyKey]; ok {
			s.anti.add(t.slot, v, mult)
		}
	}
}

// PreFilterExtensions returns the plugin (AddPod/RemovePod).
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod adds podToAdd, placed on node, to the PreFilter counts.
func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, podToAdd *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return pl.updateState(state, podToAdd, node, 1)
}

// RemovePod removes podToRemove, placed on node, from the PreFilter counts.
func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, podToRemove *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return pl.updateState(state, podToRemove, node, -1)
}

func (pl *InterPodAffinity) updateState(state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo, mult int64) *framework.Status {
	s, err := ipaReadState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if p == nil || p.Pod == nil || node == nil || node.Node() == nil {
		return framework.AsStatus(fmt.Errorf("interpodaffinity: nil pod or node"))
	}
	s.update(p, node.Node(), mult)
	return nil
}

func ipaReadState(state *framework.CycleState) (*ipaPreFilterState, error) {
	d, err := state.Read(ipaPreFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("error reading %q from cycleState: %w", ipaPreFilterStateKey, err)
	}
	s, ok := d.(*ipaPreFilterState)
	if !ok {
		return nil, fmt.Errorf("%+v  convert to interpodaffinity.state error", d)
	}
	return s, nil
}

// Filter checks the node against the three rules in kube-scheduler's order.
// It does not allocate; rejections are shared statuses.
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, err := ipaReadState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	n := node.Node()
	if n == nil {
		return framework.AsStatus(fmt.Errorf("interpodaffinity: node not found"))
	}
	if s.dense != nil {
		// A snapshot node reads the dense counts, so that a single-node
		// call (a reuse hint, a nominated node) does not fill the tables.
		if k := node.Index(); k >= 0 && k < s.snap.NumNodes() && s.snap.Nodes()[k].Node() == n {
			return pl.checkDense(s, k)
		}
	}
	return pl.check(s, n.Labels)
}

// check runs the three rules on a node with labels.
func (pl *InterPodAffinity) check(s *ipaPreFilterState, labels map[string]string) *framework.Status {
	s.tables()
	if !s.satisfiesAffinity(labels) {
		return pl.affinityFail
	}
	if !s.satisfiesAntiAffinity(labels) {
		return pl.antiAffinityFail
	}
	if !s.satisfiesExistingAntiAffinity(labels) {
		return pl.existingFail
	}
	return nil
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), from
// FilterRejects.
func (pl *InterPodAffinity) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (fastpath.RejectingFilterPlugin) and reading the PreFilter state once;
// when PreFilter ran from the pod index, a snapshot node's rules read
// counts by topology value number instead of label maps.
func (pl *InterPodAffinity) FilterRejects(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	s, err := ipaReadState(state)
	var all []*framework.NodeInfo
	if err == nil && s.dense != nil {
		all = s.snap.Nodes()
		if idx != nil && state.Snapshot() == s.snap {
			// The runner's indices: no NodeInfo to read.
			return pl.filterDense(s, idx, rejected)
		}
	}
	for i, node := range nodes {
		var st *framework.Status
		switch k := node.Index(); {
		case err != nil || node.Node() == nil:
			st = pl.Filter(ctx, state, pod, node)
		case all != nil && k >= 0 && k < len(all) && all[k].Node() == node.Node():
			st = pl.checkDense(s, k)
		default:
			st = pl.check(s, node.Node().Labels)
		}
		if st != nil && st.Code() != framework.Success {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
		}
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *InterPodAffinity) RejectionsTrusted() {}

func (s *ipaPreFilterState) satisfiesAffinity(labels map[string]string) bool {
	podsExist := true
	for i := range s.affTerms {
		t := &s.affTerms[i]
		v, ok := labels[t.TopologyKey]
		if !ok {
			// Every topology key must exist on the node.
			return false
		}
		if s.affinity.vals[t.slot][v] <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	// The first pod of a group with affinity to itself: no pod anywhere
	// matches, the pod matches its own terms, the node has every key.
	return s.affinity.n == 0 && s.selfMatch
}

func (s *ipaPreFilterState) satisfiesAntiAffinity(labels map[string]string) bool {
	if s.anti.n == 0 {
		return true
	}
	for i := range s.antiTerms {
		t := &s.antiTerms[i]
		if v, ok := labels[t.TopologyKey]; ok && s.anti.vals[t.slot][v] > 0 {
			return false
		}
	}
	return true
}

func (s *ipaPreFilterState) satisfiesExistingAntiAffinity(labels map[string]string) bool {
	if s.existingAnti.n == 0 {
		return true
	}
	for i, k := range s.existingAnti.keys {
		if v, ok := labels[k]; ok && s.existingAnti.vals[i][v] > 0 {
			return false
		}
	}
	return true
}
