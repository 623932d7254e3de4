// Package imagelocality is kube-scheduler's ImageLocality score plugin:
// nodes that already hold the pod's images, weighted by how widely the
// images are spread, score higher. It reproduces v1.37 (the default
// release, which counts image volumes) and v1.36. NodeResourcesFit adds
// its dense scores in its own pass (DenseScores).
package imagelocality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

// ImageLocality thresholds: image scores below 23 MiB count as nothing;
// 1000 MiB per counted image is the top.
const (
	ilMB                    int64 = 1024 * 1024
	ilMinThreshold          int64 = 23 * ilMB
	ilMaxContainerThreshold int64 = 1000 * ilMB
)

// ilStateKey holds the pod's normalized images and their spread, computed
// by the first Score call of a cycle (kube-scheduler's ImageLocality has no
// PreScore, so neither has ours).
const ilStateKey framework.StateKey = "Score" + config.ImageLocalityName

// ilImage is one image the pod uses, normalized, with its spread over the
// cluster.
type ilImage struct {
	name   string
	spread float64 // nodes with the image / all nodes
	id     int32   // the snapshot's number of the image, -1 for none
	mask   uint64  // framework.ImageMaskBit(id), 0 for none
}

type ilPreScoreState struct {
	images []ilImage
	// held stores images for pods of up to two images, so that PreScore
	// allocates the state alone.
	held  [2]ilImage
	masks uint64 // the or of the images' masks
	// count is the number of the pod's images that set the top threshold:
	// init containers and containers, and image volumes from v1.37.
	count int
	// somewhere is set when some image is on some node of the snapshot;
	// otherwise every node scores the floor (each image adds size × 0).
	somewhere bool
	// dense, when set, is the score of every node of the state's
	// snapshot, computed from the image table's holders.
	dense *ilDense
}

// ilDense is every snapshot node's score above the floor (the score of a
// node holding none of the pod's images): delta[k] for node k, 0 unless
// some image of the pod is on k. It is computed once per cycle from the
// nodes holding each image (ImageTable.Holders), so that scoring a node
// is one read, and its arrays go back to the plugin when the cycle ends
// (Release), cleared where they were written.
type ilDense struct {
	// delta is a score minus the floor: both are ilPriority's, within
	// 0..MaxNodeScore, so a byte a node holds it (a cached array of
	// 5,000 nodes is 5 KB of memory a new image set writes, against
	// 40 KB at eight bytes).
	delta []int8
	// sums are the image sizes summed per node while delta is filled,
	// zero again afterwards (the pooled arrays only; nil when cached).
	sums    []int64
	seen    []uint64 // bit k: k is in touched
	touched []int32  // the nodes holding some image of the pod
	pool    *sync.Pool
	// cached marks scores the plugin's ilDenseCache holds: shared by the
	// cycles of pods running the same images, never cleared.
	cached bool
}

var _ framework.ReleasableStateData = (*ilPreScoreState)(nil)

// Clone returns the state without its pooled scores (a clone scores
// from the image table instead); the rest is read-only.
func (s *ilPreScoreState) Clone() framework.StateData {
	if s.dense == nil {
		return s
	}
	c := *s
	c.dense = nil
	return &c
}

// Release hands the dense scores back to the plugin
// (framework.ReleasableStateData), cleared.
func (s *ilPreScoreState) Release() {
	d := s.dense
	if d == nil {
		return
	}
	s.dense = nil
	if d.cached {
		return
	}
	for _, k := range d.touched {
		d.delta[k] = 0
	}
	d.clearSeen()
	if d.pool != nil {
		d.pool.Put(d)
	}
}

// clearSeen clears the seen bits of the touched nodes and empties the
// list: word by word when the nodes outnumber the bitmap's words.
func (d *ilDense) clearSeen() {
	if len(d.touched) > len(d.seen) {
		clear(d.seen)
	} else {
		for _, k := range d.touched {
			d.seen[k>>6] = 0
		}
	}
	d.touched = d.touched[:0]
}

// denseWorthIt reports whether scoring every node holding one of the
// pod's images (fillDense, and clearing it afterwards) costs less than
// finding the images of each scored node (scoreRest), or whether the
// number scored is not known. fillDense costs about ilDenseHolderCost per
// holder; scoreRest a node's mask test plus, for each of the pod's images
// held somewhere, a scan of half the node's images on average (the
// table's images per node). Kube's node sampling scores a fraction of
// the cluster, and then the cycle's work stays proportional to it; over
// every node, images held by many nodes are scored densely.
func (s *ilPreScoreState) denseWorthIt(state *framework.CycleState) bool {
	scored := state.ScoredNodes()
	if scored == 0 {
		return true
	}
	snap := state.Snapshot()
	table, holders, held := snap.ImageTable(), 0, 0
	for i := range s.images {
		if s.images[i].mask != 0 {
			holders += len(table.Holders(s.images[i].id))
			held++
		}
	}
	perNode := 1 + float64(held)*float64(table.Entries())/float64(2*max(snap.NumNodes(), 1))
	return float64(holders)*ilDenseHolderCost < float64(scored)*perNode
}

// ilDenseHolderCost is fillDense's cost per holder in the units of
// denseWorthIt's per-node cost of scoreRest (one image compared): the
// holder's seen bit, its place in the touched list, its addition and its
// clearing afterwards.
const ilDenseHolderCost = 4

// fillDense sets s.dense from the holders of the pod's images in the
// snapshot's image table: the sum of int64(size × spread) over the pod's
// images on each node holding one (integer sums, so the order of the
// images does not matter), then ilPriority minus the floor. The holders
// of the image held by the most nodes are summed first, with no check
// (fillSums), and with no other image held each holder's sum is its own;
// the sums are taken in arrays from pool (new ones when it has none).
// Kept scores (cached) are a new array of their own, the arrays going
// back to pool.
func (s *ilPreScoreState) fillDense(snap *framework.Snapshot, pool *sync.Pool, cached bool) {
	n := snap.NumNodes()
	var d *ilDense
	if pool != nil {
		if x, ok := pool.Get().(*ilDense); ok && len(x.delta) >= n {
			d = x
		}
	}
	if d == nil {
		d = &ilDense{delta: make([]int8, n), sums: make([]int64, n), seen: make([]uint64, (n+63)/64)}
	}
	d.pool = pool
	delta := d.delta[:n]
	if cached {
		delta = make([]int8, n)
	}
	table := snap.ImageTable()
	first, most, held := -1, -1, 0 // first: the image held by the most nodes, most of them
	for i := range s.images {
		if im := &s.images[i]; im.mask != 0 {
			held++
			if k := len(table.Holders(im.id)); k > most {
				first, most = i, k
			}
		}
	}
	memo := ilDeltaMemo{count: s.count, none: ilPriority(0, s.count)}
	if held == 1 {
		hs, spread := table.Holders(s.images[first].id), s.images[first].spread
		for _, h := range hs {
			delta[h.Node] = memo.of(int64(float64(h.Size) * spread))
		}
		if !cached {
			d.touched = slices.Grow(d.touched[:0], len(hs))
			for _, h := range hs {
				d.touched = append(d.touched, h.Node)
			}
		}
	} else if held > 1 {
		d.fillSums(table, s.images, first)
		sums := d.sums[:n]
		for _, k := range d.touched {
			delta[k] = memo.of(sums[k])
			sums[k] = 0
		}
	}
	if !cached {
		s.dense = d
		return
	}
	d.clearSeen()
	if pool != nil {
		pool.Put(d)
	}
	s.dense = &ilDense{delta: delta, cached: true}
}

// fillSums adds int64(size × spread) of each of images held somewhere to
// d.sums on its holders, listing the nodes in d.touched with their seen
// bits: the holders of images[first] (held somewhere) all at once, as no
// node is listed yet, then the others'.
func (d *ilDense) fillSums(table *framework.ImageTable, images []ilImage, first int) {
	sums, seen := d.sums, d.seen
	hs, spread := table.Holders(images[first].id), images[first].spread
	touched := slices.Grow(d.touched[:0], len(hs))[:len(hs)]
	for j, h := range hs {
		seen[h.Node>>6] |= uint64(1) << (h.Node & 63)
		touched[j] = h.Node
		sums[h.Node] = int64(float64(h.Size) * spread)
	}
	for i := range images {
		if i == first || images[i].mask == 0 {
			continue // listed, or on no node
		}
		hs, spread := table.Holders(images[i].id), images[i].spread
		for _, h := range hs {
			if bit := uint64(1) << (h.Node & 63); seen[h.Node>>6]&bit == 0 {
				seen[h.Node>>6] |= bit
				touched = append(touched, h.Node)
			}
			sums[h.Node] += int64(float64(h.Size) * spread)
		}
	}
	d.touched = touched
}

// ilDeltaMemo is ilPriority minus the floor for one image count, with
// the last sum's: the holders of an image mostly hold it at one size, so
// most of a fill's nodes share a sum, and its division.
type ilDeltaMemo struct {
	count int
	none  int64 // ilPriority(0, count)
	sum   int64
	delta int8
	known bool
}

// of returns int8(ilPriority(sum, m.count) − m.none).
func (m *ilDeltaMemo) of(sum int64) int8 {
	if !m.known || sum != m.sum {
		m.sum, m.delta, m.known = sum, int8(ilPriority(sum, m.count)-m.none), true
	}
	return m.delta
}

// dense sets s.dense: the cache's scores of a recent pod that runs the
// same images on the same image table, else filled afresh and cached.
func (pl *ImageLocality) dense(s *ilPreScoreState, snap *framework.Snapshot) {
	var buf [ilCacheMaxImages]int32
	key, ok := s.denseKey(buf[:0])
	if !ok || pl.cache == nil {
		s.fillDense(snap, pl.bufs, false)
		return
	}
	table := snap.ImageTable()
	if d := pl.cache.find(table, key, s.count); d != nil {
		s.dense = d
		return
	}
	s.fillDense(snap, pl.bufs, true) // never released
	pl.cache.add(table, key, s.count, s.dense, snap.NumNodes())
}

// cachedDense sets s.dense to the cache's scores of a recent pod that
// runs the same images on the same image table, and reports whether it
// found them: cached scores cost nothing to use, however many nodes hold
// the images.
func (pl *ImageLocality) cachedDense(s *ilPreScoreState, snap *framework.Snapshot) bool {
	if pl.cache == nil {
		return false
	}
	var buf [ilCacheMaxImages]int32
	key, ok := s.denseKey(buf[:0])
	if !ok {
		return false
	}
	if d := pl.cache.find(snap.ImageTable(), key, s.count); d != nil {
		s.dense = d
		return true
	}
	return false
}

// seenBefore reports whether a cycle of a pod running the same images on
// the same image table looked for their cached scores before (and
// remembers this one's look): a pod's images scored a second time are
// scored densely and cached, so that the replicas of a workload read them
// even where the holders outnumber the nodes a cycle scores (kube's node
// sampling).
func (pl *ImageLocality) seenBefore(s *ilPreScoreState, snap *framework.Snapshot) bool {
	if pl.cache == nil {
		return false
	}
	var buf [ilCacheMaxImages]int32
	key, ok := s.denseKey(buf[:0])
	if !ok {
		return false
	}
	return pl.cache.seen(snap.ImageTable(), key, s.count)
}

// denseKey appends to key the numbers of the pod's images that some node
// holds, sorted (fillDense's sums do not depend on their order), and
// reports false when there are more than ilCacheMaxImages.
func (s *ilPreScoreState) denseKey(key []int32) ([]int32, bool) {
	for i := range s.images {
		if s.images[i].mask == 0 {
			continue
		}
		if len(key) == ilCacheMaxImages {
			return nil, false
		}
		key = append(key, s.images[i].id)
	}
	slices.Sort(key)
	return key, true
}

// ilCacheMaxImages bounds the images of a pod whose dense scores are
// cached; ilCacheEntries and ilCacheBytes bound the entries (a cluster of
// many teams runs a few hundred image sets).
const (
	ilCacheMaxImages = 8
	ilCacheEntries   = 256
	ilCacheBytes     = 16 << 20
)

// ilDenseCache holds the dense scores (ilDense) of the last image sets
// scored on one image table. A snapshot replaces its table whenever its
// nodes change (Snapshot.ImageTable), and the scores depend only on the
// table, the images (their numbers) and the count of images that sets the
// top threshold; a table other than the cache's empties it.
type ilDenseCache struct {
	mu      sync.Mutex
	table   *framework.ImageTable
	entries []ilCached // least recently added first
	byKey   map[ilCacheKey]*ilDense
	// looked holds the image sets looked for on table and not cached
	// (seen), up to ilCacheEntries of them.
	looked map[ilCacheKey]struct{}
}

// seen reports whether key and count were looked for on table before
// and not cached since, and records this look.
func (c *ilDenseCache) seen(table *framework.ImageTable, key []int32, count int) bool {
	k := newILCacheKey(key, count)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.table != table {
		c.table, c.entries, c.byKey, c.looked = table, nil, nil, nil
	}
	if _, ok := c.looked[k]; ok {
		delete(c.looked, k)
		return true
	}
	if c.looked == nil || len(c.looked) >= ilCacheEntries {
		c.looked = map[ilCacheKey]struct{}{}
	}
	c.looked[k] = struct{}{}
	return false
}

// ilCacheKey is an image set and count as a map key: the count, then the
// images' numbers in increasing order, then -1s.
type ilCacheKey [ilCacheMaxImages + 1]int32

// newILCacheKey returns the key of key (at most ilCacheMaxImages sorted
// image numbers) and count.
func newILCacheKey(key []int32, count int) ilCacheKey {
	var k ilCacheKey
	for i := range k {
		k[i] = -1
	}
	k[0] = int32(min(count, math.MaxInt32))
	copy(k[1:], key)
	return k
}

// ilCached is one cached image set's scores.
type ilCached struct {
	key   ilCacheKey
	dense *ilDense
}

// find returns the scores of key and count on table, or nil.
func (c *ilDenseCache) find(table *framework.ImageTable, key []int32, count int) *ilDense {
	k := newILCacheKey(key, count)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.table != table {
		return nil
	}
	return c.byKey[k]
}

// add caches d as the scores of key and count on table (of n nodes),
// dropping the oldest entries beyond ilCacheEntries or ilCacheBytes.
func (c *ilDenseCache) add(table *framework.ImageTable, key []int32, count int, d *ilDense, n int) {
	k := newILCacheKey(key, count)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.table != table {
		c.table, c.entries, c.byKey, c.looked = table, nil, nil, nil
	}
	if c.byKey == nil {
		c.byKey = map[ilCacheKey]*ilDense{}
	}
	if _, ok := c.byKey[k]; ok {
		return // added by a concurrent cycle meanwhile
	}
	limit := max(1, min(ilCacheEntries, ilCacheBytes/max(n, 1))) // a byte a node
	if len(c.entries) >= limit {
		drop := len(c.entries) - limit + 1
		for _, e := range c.entries[:drop] {
			delete(c.byKey, e.key)
		}
		c.entries = slices.Delete(c.entries, 0, drop)
	}
	c.entries = append(c.entries, ilCached{key: k, dense: d})
	c.byKey[k] = d
}

// ImageLocality is kube-scheduler's ImageLocality score: it favours nodes
// that already hold the pod's images. For each image of the pod's init
// containers, containers and image volumes (names normalized with ":latest"
// when untagged) that the node has, it adds int64(size ×
// nodesWithImage/allNodes) — the spread counts every node of the snapshot,
// not only the feasible ones — then clamps the sum to [23 MiB, 1000 MiB ×
// count] and maps it linearly to 0–100. The count is the pod's init
// containers and containers; from v1.37 (the handle's KubeVersion) its
// image volumes too, present on the node or not, so in v1.36 image volumes
// add to the sum but not to the threshold.
//
// Like kube-scheduler's, the plugin implements Score only. The first Score
// call of a cycle normalizes the names and computes each image's spread and
// caches them in the CycleState, so later calls allocate nothing.
type ImageLocality struct {
	// bufs recycles the per-node score arrays of released states (ilDense).
	bufs *sync.Pool
	// cache holds the dense scores of recent image sets.
	cache *ilDenseCache
	// countVolumes counts image volumes in the threshold (v1.37).
	countVolumes bool
	// decide serializes the computing of cycle states (readState), so
	// that a runner's workers scoring one cycle's chunks at once compute
	// its state once.
	decide *sync.Mutex
}

var (
	_ framework.ScorePlugin     = (*ImageLocality)(nil)
	_ fastpath.BatchScorePlugin = (*ImageLocality)(nil)
)

// New builds the ImageLocality score plugin of the handle's
// kube-scheduler release (framework.DefaultKubeVersion without a handle).
// It takes no args (args must be nil), so it is itself a framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.ImageLocalityName, args); err != nil {
		return nil, err
	}
	v := framework.DefaultKubeVersion
	if h != nil {
		v = h.KubeVersion()
	}
	return &ImageLocality{bufs: &sync.Pool{}, cache: &ilDenseCache{}, countVolumes: v.AtLeast(framework.KubeV137), decide: &sync.Mutex{}}, nil
}

// Name returns "ImageLocality".
func (pl *ImageLocality) Name() string { return config.ImageLocalityName }

// NormalizedImageName appends ":latest" to an image name without a tag
// (no ':' after the last '/'), as kube-scheduler's normalizedImageName.
func NormalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name = name + ":latest"
	}
	return name
}

func (pl *ImageLocality) state(snap *framework.Snapshot, pod *api.Pod) (*ilPreScoreState, error) {
	if snap == nil {
		return nil, errors.New("imagelocality: the cycle state has no snapshot")
	}
	total := snap.NumNodes()
	s := &ilPreScoreState{count: len(pod.Spec.InitContainers) + len(pod.Spec.Containers)}
	s.images = s.held[:0]
	add := func(image string) {
		n := NormalizedImageName(image)
		k := snap.ImageNumNodes(n)
		s.somewhere = s.somewhere || k > 0
		im := ilImage{name: n, spread: float64(k) / float64(total), id: snap.ImageID(n)}
		if im.id >= 0 && k > 0 {
			im.mask = framework.ImageMaskBit(im.id)
			s.masks |= im.mask
		}
		s.images = append(s.images, im)
	}
	for i := range pod.Spec.InitContainers {
		add(pod.Spec.InitContainers[i].Image)
	}
	for i := range pod.Spec.Containers {
		add(pod.Spec.Containers[i].Image)
	}
	for i := range pod.Spec.Volumes {
		if v := pod.Spec.Volumes[i].Image; v != nil {
			add(v.Reference)
			if pl.countVolumes {
				s.count++ // image_locality.go:sumImageScores (v1.37)
			}
		}
	}
	return s, nil
}

// Score returns the image-locality score of node (0–100).
func (pl *ImageLocality) Score(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s, st := pl.readState(state, pod, false)
	if st != nil {
		return 0, st
	}
	return s.score(node), nil
}

// readState returns the cycle's image state, computing and storing it on
// the cycle's first call, with every node's score (ilDense) when dense is
// set.
func (pl *ImageLocality) readState(state *framework.CycleState, pod *framework.PodInfo, dense bool) (*ilPreScoreState, *framework.Status) {
	if s, st, ok := readILState(state); ok {
		return s, st
	}
	if pl.decide != nil {
		pl.decide.Lock()
		defer pl.decide.Unlock()
		if s, st, ok := readILState(state); ok {
			return s, st // another worker's first call computed it
		}
	}
	s, err := pl.state(state.Snapshot(), pod.Pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if dense && s.somewhere && !pl.cachedDense(s, state.Snapshot()) {
		if s.denseWorthIt(state) || pl.seenBefore(s, state.Snapshot()) {
			pl.dense(s, state.Snapshot())
		}
	}
	state.Write(ilStateKey, s)
	return s, nil
}

// readILState returns the cycle's image state, ok when it has one.
func readILState(state *framework.CycleState) (*ilPreScoreState, *framework.Status, bool) {
	d, err := state.Read(ilStateKey)
	if err != nil {
		return nil, nil, false
	}
	s, ok := d.(*ilPreScoreState)
	if !ok {
		return nil, framework.AsStatus(fmt.Errorf("imagelocality: invalid cycle state, got type %T", d)), true
	}
	return s, nil, true
}

var _ fastpath.ScorePreparer = (*ImageLocality)(nil)

// PrepareScore computes the cycle's image state, as the first ScoreBatch
// over the runner's snapshot indices would (fastpath.ScorePreparer). It
// does nothing where the runner gives no ScoredIndices (outside its
// PreScore step and its preparation of a score loop), where the first
// Score call decides the state's form itself.
func (pl *ImageLocality) PrepareScore(_ context.Context, state *framework.CycleState, pod *framework.PodInfo) {
	if state.ScoredIndices() != nil {
		pl.readState(state, pod, true)
	}
}

// DenseScores returns the cycle's scores of pod as a floor and per-node
// additions, when they are dense this cycle: the snapshot's node k scores
// floor + delta[k]. delta is nil when they are not (no image of the pod
// is on any node, or the cycle's first call did not find them worth
// computing); st reports a state that cannot be read. NodeResourcesFit
// adds the scores so in its pass over the dense rows
// (noderesources.NodeResourcesFit.ScoreBatchAddWith); delta is the
// plugin's, read-only, valid for the cycle.
func (pl *ImageLocality) DenseScores(state *framework.CycleState, pod *framework.PodInfo) (floor int64, delta []int8, st *framework.Status) {
	s, st := pl.readState(state, pod, true)
	if st != nil {
		return 0, nil, st
	}
	if s.somewhere && s.dense != nil {
		return ilPriority(0, s.count), s.dense.delta, nil
	}
	return 0, nil, nil
}

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin): the state is
// read once, and every node scores the floor directly when none of the
// pod's images is on any node. With the runner's snapshot indices, the
// cycle's first call scores every node holding one of the pod's images
// (ilDense, from Snapshot.ImageTable's holders) when they are fewer than
// the nodes scored, and each node is then one read; otherwise (or with a
// state computed by Score) a node's images are found by number, its image
// mask (NodeResources.ImageMask) ruling out those it cannot hold.
func (pl *ImageLocality) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
	return st
}

var _ fastpath.BoundedBatchScorePlugin = (*ImageLocality)(nil)

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score it wrote (fastpath.BoundedBatchScorePlugin): a pod none of whose
// images any node holds scores the same on every node.
func (pl *ImageLocality) ScoreBatchBounds(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	s, st := pl.readState(state, pod, idx != nil)
	if st != nil {
		return 0, 0, st
	}
	out = out[:len(nodes)]
	if len(nodes) == 0 {
		return 1, 0, nil
	}
	none := ilPriority(0, s.count)
	if !s.somewhere {
		for i := range out {
			out[i] = none
		}
		return none, none, nil
	}
	if d := s.dense; idx != nil && d != nil {
		delta := d.delta
		lo, hi = math.MaxInt64, math.MinInt64
		for i, k := range idx[:len(out)] {
			v := none + int64(delta[k])
			out[i] = v
			lo, hi = min(lo, v), max(hi, v)
		}
		return lo, hi, nil
	}
	s.scoreRest(state, nodes, idx, out, none)
	lo, hi = scoring.RowBounds(out)
	return lo, hi, nil
}

var _ fastpath.AddingBatchScorePlugin = (*ImageLocality)(nil)

// ScoreBatchAdd adds w times ScoreBatch's scores to totals
// (fastpath.AddingBatchScorePlugin): nothing when every score is 0, and
// with the dense deltas as it scores each node.
func (pl *ImageLocality) ScoreBatchAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, totals []int64) bool {
	s, st := pl.readState(state, pod, idx != nil)
	if st != nil {
		return false
	}
	none := ilPriority(0, s.count)
	switch d := s.dense; {
	case !s.somewhere && none == 0:
		return true
	case s.somewhere && idx != nil && d != nil:
		// Each score is ilPriority's, in range.
		delta, wn := d.delta, w*none
		totals = totals[:len(idx)]
		for i, k := range idx {
			totals[i] += wn + w*int64(delta[k])
		}
		return true
	}
	if _, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out); st != nil {
		return false
	}
	return fastpath.AddScores(out[:len(nodes)], w, totals)
}

// scoreRest is ScoreBatch for a pod whose images some node holds,
// without the dense deltas: from the snapshot's image masks and table
// with the runner's indices, else node by node.
func (s *ilPreScoreState) scoreRest(state *framework.CycleState, nodes []*framework.NodeInfo, idx []int32, out []int64, none int64) {
	if idx != nil {
		snap := state.Snapshot()
		res, table := snap.Resources(), snap.ImageTable()
		for i, k := range idx[:len(out)] {
			m := res[k].ImageMask
			if m&s.masks == 0 {
				out[i] = none
				continue
			}
			out[i] = s.numberedScore(table, int(k), m)
		}
		return
	}
	for i, node := range nodes {
		if len(node.ImageSizes) == 0 || len(s.images) == 0 {
			out[i] = none
			continue
		}
		out[i] = s.score(node)
	}
}

// numberedScore is score for the snapshot's node k, whose image mask is
// m: images are matched by number, and those whose bit m lacks (or that no
// node holds) are not looked for.
func (s *ilPreScoreState) numberedScore(table *framework.ImageTable, k int, m uint64) int64 {
	var sum int64
	for i := range s.images {
		im := &s.images[i]
		if im.mask&m == 0 {
			continue
		}
		if size, ok := table.Size(k, im.id); ok {
			sum += int64(float64(size) * im.spread)
		}
	}
	return ilPriority(sum, s.count)
}

// score is the node's score given the pod's images.
func (s *ilPreScoreState) score(node *framework.NodeInfo) int64 {
	var sum int64
	for i := range s.images {
		if size, ok := node.ImageSizes[s.images[i].name]; ok {
			sum += int64(float64(size) * s.images[i].spread)
		}
	}
	return ilPriority(sum, s.count)
}

// ilPriority is kube's calculatePriority for the pod's image count.
func ilPriority(sum int64, count int) int64 {
	maxThreshold := ilMaxContainerThreshold * int64(count)
	if sum < ilMinThreshold {
		sum = ilMinThreshold
	} else if sum > maxThreshold {
		sum = maxThreshold
	}
	return framework.MaxNodeScore * (sum - ilMinThreshold) / (maxThreshold - ilMinThreshold)
}

// ScoreExtensions returns nil: scores are not normalized.
func (pl *ImageLocality) ScoreExtensions() framework.ScoreExtensions { return nil }

var _ fastpath.NodeLocalPlugin = (*ImageLocality)(nil)

// NodeLocal is true: the score reads the node's images and each image's
// spread over the snapshot's nodes, which depends on nodes only.
func (pl *ImageLocality) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*ImageLocality)(nil)

// linearImages is how many distinct images SignPod dedupes by a linear
// search before it keeps a set.
const linearImages = 16

// SignPod signs the pod's image names, normalized and sorted
// (imagelocality/image_locality.go).
func (pl *ImageLocality) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	// A pod has a few containers: a linear search dedupes their images
	// without a set to allocate, and a set takes over for many.
	var names []string
	var set map[string]bool
	for _, cs := range [][]api.Container{pod.Pod.Spec.Containers, pod.Pod.Spec.InitContainers} {
		for i := range cs {
			n := NormalizedImageName(cs[i].Image)
			if set == nil && len(names) == linearImages {
				set = make(map[string]bool, 2*linearImages)
				for _, m := range names {
					set[m] = true
				}
			}
			if set != nil {
				if !set[n] {
					set[n] = true
					names = append(names, n)
				}
			} else if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return []framework.SignFragment{{Key: framework.SignerImageNames, Value: names}}, nil
}
