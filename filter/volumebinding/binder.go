package volumebinding

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/internal/validation"
	"github.com/schedkit/schedkit/resource"
)

// Reasons of VolumeBinding, as kube-scheduler v1.36 (volumebinding's
// ErrReason… and its PreFilter).
const (
	ErrReasonNodeConflict     = "node(s) didn't match PersistentVolume's node affinity"
	ErrReasonBindConflict     = "node(s) didn't find available persistent volumes to bind"
	ErrReasonNotEnoughSpace   = "node(s) did not have enough free storage"
	ErrReasonPVNotExist       = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	ErrReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
)

// stateKey is where the VolumeBinding state lives in the CycleState
// (kube's stateKey, the plugin name).
const stateKey fw.StateKey = "VolumeBinding"

// volumeBinder is one VolumeBinding plugin's volume binder: its assume cache and
// the statuses it returns. It is safe for concurrent use.
type volumeBinder struct {
	cache *assumeCache
	// reject holds the Filter statuses by reason set (bit i: reason i in
	// kube's order), built once; skip is PreFilter's Skip.
	reject [16]*fw.Status
	skip   *fw.Status
}

// newVolumeBinder returns a binder with an empty assume cache.
func newVolumeBinder() *volumeBinder {
	b := &volumeBinder{cache: newAssumeCache(), skip: fw.NewStatus(fw.Skip)}
	reasons := [4]string{ErrReasonNodeConflict, ErrReasonBindConflict, ErrReasonNotEnoughSpace, ErrReasonPVNotExist}
	for set := 1; set < 16; set++ {
		var rs []string
		for i, r := range reasons {
			if set&(1<<i) != 0 {
				rs = append(rs, r)
			}
		}
		b.reject[set] = fw.NewStatus(fw.UnschedulableAndUnresolvable, rs...)
	}
	return b
}

// Cache returns the binder's assume cache.
func (b *volumeBinder) Cache() *assumeCache { return b.cache }

// boundClaim is a fully bound claim and its volume (pv nil when the
// volume does not exist).
type boundClaim struct {
	pvc      *api.PersistentVolumeClaim
	pv       *api.PersistentVolume
	affinity *api.NodeSelectorMatcher
	// fits is affinity resolved against the cycle's snapshot, read for
	// its own nodes.
	fits api.IndexedNodeMatch
	// plugin is the in-tree plugin of an in-tree volume (its affinity is
	// translated on nodes that migrated the plugin): trAffinity, or
	// trErr when the translation fails.
	plugin     string
	trAffinity *api.NodeSelectorMatcher
	trErr      error
}

// candidate is a volume that may bind a delayed claim on some node: the
// node-independent checks of FindMatchingVolume passed.
type candidate struct {
	pv, base *api.PersistentVolume
	affinity *api.NodeSelectorMatcher
	qty      resource.Quantity
	prebound bool
}

// provisioning is what checkVolumeProvisions needs of a claim's class.
type provisioning struct {
	err        error // no class, or a missing class: a Filter error
	supported  bool  // the class has a provisioner
	topology   topologyTerms
	checkSpace bool // the claim asks for storage and the driver tracks capacity
	capacities []capacity
}

type capacity struct {
	obj      *api.CSIStorageCapacity
	selector api.Selector
	// indexed is selector resolved against the cycle's snapshot, read
	// for the snapshot's own nodes.
	indexed api.IndexedNodeMatch
}

// matchAt reports whether the capacity's topology selects the node at k
// in the cycle's snapshot (k < 0: a node of no snapshot, by labels).
func (c *capacity) matchAt(k int, labels map[string]string) bool {
	if k >= 0 {
		return c.indexed.Match(k)
	}
	return c.selector.Matches(labels)
}

// delayedClaim is an unbound claim of a WaitForFirstConsumer class.
type delayedClaim struct {
	pvc, base *api.PersistentVolumeClaim
	// class and request are the claim's storage class name and the bytes
	// of storage it asks for, read once for Score.
	class       string
	request     int64
	selected    string
	hasSelected bool
	candidates  []candidate
	// byNode and wide index the candidates by node when there are many
	// (indexed): byNode pairs each candidate whose volume fits only nodes
	// named by a label every node has a value of its own for (the
	// hostname of a local volume) with the snapshot position of each such
	// node, sorted by node then candidate; wide holds the other
	// candidates, which every node examines, with their node affinity
	// resolved against the snapshot.
	byNode       []nodeCandidate
	wide         []wideCandidate
	indexed      bool
	selectorErr  error
	provisioning provisioning
}

// result is one delayed claim's decision on one node.
type result struct {
	pv, base  *api.PersistentVolume
	cap       *api.CSIStorageCapacity
	provision bool
}

// stateData is one cycle's VolumeBinding state (kube's stateData): the pod's
// claims sorted out in PreFilter and, per node that passed Filter, the
// decision for each delayed claim.
type stateData struct {
	snap      *fw.Snapshot
	bound     []boundClaim
	delayed   []delayedClaim
	findOrder []int // delayed claims without a selected node, by size
	k         int
	// pages hold the results of the snapshot's nodes, pageNodes nodes a
	// page, a page made when Filter first reaches one of its nodes: a
	// cycle that filters a sample of a large cluster allocates for the
	// sample, not for every node.
	pages []resultPage

	extraMu sync.Mutex
	extra   map[string][]result // nodes that are not the snapshot's

	// uniform is set when Filter's verdict is uniformStatus on every node
	// (uniformVerdict).
	uniform       bool
	uniformStatus *fw.Status

	// AllBound is set by Reserve: no volume needs binding on the node.
	AllBound     bool
	reserved     *api.PodVolumes
	reservedNode string
}

// pageNodes is the number of nodes of a resultPage (a power of two).
const pageShift, pageNodes = 9, 1 << 9

// resultPage is the results of pageNodes consecutive nodes of the
// snapshot, made by the first Filter to reach one of them (Filter runs on
// several nodes at once).
type resultPage struct{ p atomic.Pointer[pageData] }

// pageData is a page's results: node i's (i relative to the page) at
// [i*k, (i+1)*k), and whether node i passed Filter.
type pageData struct {
	results []result
	done    [pageNodes]bool
}

// at returns node i's page, made if need be.
func (s *stateData) at(i int) (*pageData, int) {
	pg := &s.pages[i>>pageShift]
	d := pg.p.Load()
	if d == nil {
		d = &pageData{results: make([]result, pageNodes*s.k)}
		if !pg.p.CompareAndSwap(nil, d) {
			d = pg.p.Load()
		}
	}
	return d, i & (pageNodes - 1)
}

// recorded returns node i's results if it passed Filter.
func (s *stateData) recorded(i int) ([]result, bool) {
	if i < 0 || i>>pageShift >= len(s.pages) {
		return nil, false
	}
	d := s.pages[i>>pageShift].p.Load()
	if d == nil {
		return nil, false
	}
	j := i & (pageNodes - 1)
	if !d.done[j] {
		return nil, false
	}
	return d.results[j*s.k : (j+1)*s.k], true
}

// ownIndex is node's position in the state's snapshot, or -1 when node
// is not the snapshot's.
func (s *stateData) ownIndex(node *fw.NodeInfo) int {
	if i := node.Index(); i >= 0 && i>>pageShift < len(s.pages) && i < s.snap.NumNodes() && s.snap.Nodes()[i].Name() == node.Name() {
		return i
	}
	return -1
}

// Clone returns the state itself, as kube's stateData.Clone does (Filter
// results of cloned states land in the same place).
func (s *stateData) Clone() fw.StateData { return s }

// PreFilter sorts the pod's claims out (kube's podHasPVCs and
// GetPodVolumeClaims) and precomputes everything Filter needs. It returns
// Skip for a pod without claims; UnschedulableAndUnresolvable for a
// missing claim ("persistentvolumeclaim "x" not found", or for an
// ephemeral volume "waiting for ephemeral volume controller to create the
// persistentvolumeclaim "x""), a lost claim, a claim being deleted, an
// ephemeral claim the pod does not own, and unbound claims of an
// Immediate class (or pre-bound ones not bound yet); an Error for a class
// without volumeBindingMode.
func (b *volumeBinder) PreFilter(snap *fw.Snapshot, pod *api.Pod) (*stateData, *fw.Status) {
	uu := func(msg string) (*stateData, *fw.Status) {
		return nil, fw.NewStatus(fw.UnschedulableAndUnresolvable, msg)
	}
	hasPVC := false
	for i := range pod.Spec.Volumes {
		name, ephemeral, ok := api.ClaimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		hasPVC = true
		pvc, ok := snap.PersistentVolumeClaim(pod.Namespace, name)
		if !ok {
			if ephemeral {
				return uu(fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name))
			}
			return uu(fmt.Sprintf("persistentvolumeclaim %q not found", name))
		}
		if pvc.Status.Phase == api.ClaimLost {
			return uu(fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName))
		}
		if pvc.DeletionTimestamp != nil {
			return uu(fmt.Sprintf("persistentvolumeclaim %q is being deleted", pvc.Name))
		}
		if ephemeral {
			if err := api.EphemeralClaimOwnedBy(pod, pvc); err != nil {
				return uu(err.Error())
			}
		}
	}
	if !hasPVC {
		return nil, b.skip
	}
	b.cache.mu.Lock()
	defer b.cache.mu.Unlock()
	b.cache.prune(snap)
	s := &stateData{snap: snap}
	immediate := 0
	for i := range pod.Spec.Volumes {
		name, ephemeral, ok := api.ClaimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		pvc, base, ok := b.cache.pvc(snap, pod.Namespace, name)
		if !ok {
			return nil, fw.AsStatus(fmt.Errorf("error getting PVC %q: persistentvolumeclaims %q not found", pod.Namespace+"/"+name, pod.Namespace+"/"+name))
		}
		if ephemeral {
			if err := api.EphemeralClaimOwnedBy(pod, pvc); err != nil {
				return nil, fw.AsStatus(err)
			}
		}
		if api.IsClaimFullyBound(pvc) {
			s.bound = append(s.bound, b.boundClaim(snap, pvc))
			continue
		}
		delay, err := isDelayBindingMode(snap, pvc)
		if err != nil {
			return nil, fw.AsStatus(err)
		}
		if !delay || pvc.Spec.VolumeName != "" {
			immediate++
			continue
		}
		s.delayed = append(s.delayed, delayedClaim{pvc: pvc, base: base})
	}
	if immediate > 0 {
		return uu(ErrReasonUnboundImmediate)
	}
	for j := range s.delayed {
		d := &s.delayed[j]
		d.selected, d.hasSelected = d.pvc.Annotations[api.AnnSelectedNode]
		if !d.hasSelected {
			s.findOrder = append(s.findOrder, j)
			b.candidates(snap, d)
			if len(d.candidates) >= indexCandidates {
				d.index(snap)
			}
		}
		d.provisioning = provisioningOf(snap, d.pvc)
		d.class, d.request = deref(d.pvc.Spec.StorageClassName), storage(d.pvc.Spec.Resources.Requests).Value()
	}
	// kube sorts the claims to match by increasing request (sort.Sort).
	sort.Sort(bySize{s.findOrder, s.delayed})
	s.k = len(s.delayed)
	s.pages = make([]resultPage, (snap.NumNodes()+pageNodes-1)/pageNodes)
	s.uniform, s.uniformStatus = b.uniformVerdict(s)
	return s, nil
}

// uniformVerdict reports whether Filter's verdict is the same on every
// node, and returns it: when the pod has no delayed claim and no bound
// claim's volume has node affinity (translated or not) or a translation
// that fails, Filter's walk of the bound claims ends alike everywhere,
// at the first claim whose volume is missing or after the last.
func (b *volumeBinder) uniformVerdict(s *stateData) (bool, *fw.Status) {
	if s.k > 0 {
		return false, nil
	}
	pvFound := true
	for i := range s.bound {
		bc := &s.bound[i]
		if bc.pv == nil {
			pvFound = false
			break
		}
		if bc.affinity != nil || bc.trAffinity != nil || bc.trErr != nil {
			return false, nil
		}
	}
	return true, b.verdict(true, pvFound, true, true)
}

type bySize struct {
	idx     []int
	delayed []delayedClaim
}

func (b bySize) Len() int      { return len(b.idx) }
func (b bySize) Swap(i, j int) { b.idx[i], b.idx[j] = b.idx[j], b.idx[i] }
func (b bySize) Less(i, j int) bool {
	return storage(b.delayed[b.idx[i]].pvc.Spec.Resources.Requests).Cmp(storage(b.delayed[b.idx[j]].pvc.Spec.Resources.Requests)) < 0
}

func storage(l resource.List) resource.Quantity { return l[api.ResourceStorage] }

// isDelayBindingMode is component-helpers' IsDelayBindingMode: a claim
// without a class, or of a missing class, binds immediately.
func isDelayBindingMode(snap *fw.Snapshot, pvc *api.PersistentVolumeClaim) (bool, error) {
	class := api.ClaimClass(pvc)
	if class == "" {
		return false, nil
	}
	sc, ok := snap.StorageClass(class)
	if !ok {
		return false, nil
	}
	if sc.VolumeBindingMode == nil {
		return false, fmt.Errorf("VolumeBindingMode not set for StorageClass %q", class)
	}
	return *sc.VolumeBindingMode == api.VolumeBindingWaitForFirstConsumer, nil
}

// boundClaim looks the claim's volume up (through the assume cache) and
// compiles its affinity, translated as well for a migratable in-tree
// volume.
func (b *volumeBinder) boundClaim(snap *fw.Snapshot, pvc *api.PersistentVolumeClaim) boundClaim {
	bc := boundClaim{pvc: pvc}
	pv, _, ok := b.cache.pv(snap, pvc.Spec.VolumeName)
	if !ok {
		return bc
	}
	bc.pv, bc.affinity = pv, snap.VolumeAffinity(pv)
	if bc.affinity != nil {
		bc.fits = bc.affinity.IndexedLabels(snap)
	}
	if p := csitranslation.PluginOfPV(pv); p != "" && csitranslation.MigrationOn(p) {
		bc.plugin = p
		tr, err := csitranslation.TranslatePV(pv)
		if err != nil {
			bc.trErr = fmt.Errorf("could not translate pv: %w", err)
		} else if na := tr.Spec.NodeAffinity; na != nil && na.Required != nil {
			bc.trAffinity = api.CompileNodeSelector(na.Required)
		}
	}
	return bc
}

// candidates keeps the volumes of the claim's class that pass
// FindMatchingVolume's node-independent checks, in the class's order.
func (b *volumeBinder) candidates(snap *fw.Snapshot, d *delayedClaim) {
	claim := d.pvc
	var sel api.Selector
	hasSel := claim.Spec.Selector != nil
	if hasSel {
		var err error
		if sel, err = claim.Spec.Selector.Compile(); err != nil {
			d.selectorErr = fmt.Errorf("error creating internal label selector for claim: %s: %w", claim.Key(), err)
			return
		}
	}
	req := storage(claim.Spec.Resources.Requests)
	class := api.ClaimClass(claim)
	claimVAC := deref(claim.Spec.VolumeAttributesClassName)
	for _, cur := range snap.PersistentVolumesOfClass(class) {
		pv, base := cur, cur
		if a, ok := b.cache.pvs[cur.Name]; ok && a.base == cur {
			pv = a.obj
		}
		if pv.Spec.ClaimRef != nil && !api.IsVolumeBoundToClaim(pv, claim) {
			continue
		}
		qty := storage(pv.Spec.Capacity)
		if qty.Cmp(req) < 0 || volumeModeMismatch(claim, pv) || claimVAC != deref(pv.Spec.VolumeAttributesClassName) || pv.DeletionTimestamp != nil {
			continue
		}
		c := candidate{pv: pv, base: base, affinity: snap.VolumeAffinity(pv), qty: qty, prebound: api.IsVolumeBoundToClaim(pv, claim)}
		if !c.prebound {
			if pv.Status.Phase != api.VolumeAvailable || (hasSel && !sel.Matches(pv.Labels)) || api.VolumeClass(pv) != class || !accessModesMatch(claim, pv) {
				continue
			}
		}
		d.candidates = append(d.candidates, c)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// volumeModeMismatch is CheckVolumeModeMismatches (nil means Filesystem).
func volumeModeMismatch(c *api.PersistentVolumeClaim, pv *api.PersistentVolume) bool {
	mode := func(m *api.PersistentVolumeMode) api.PersistentVolumeMode {
		if m == nil {
			return api.PersistentVolumeFilesystem
		}
		return *m
	}
	return mode(c.Spec.VolumeMode) != mode(pv.Spec.VolumeMode)
}

// accessModesMatch is CheckAccessModes: the volume offers every mode the
// claim asks for.
func accessModesMatch(c *api.PersistentVolumeClaim, pv *api.PersistentVolume) bool {
	for _, m := range c.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	return true
}

// provisioningOf precomputes checkVolumeProvisions' per-claim lookups.
func provisioningOf(snap *fw.Snapshot, claim *api.PersistentVolumeClaim) provisioning {
	class := api.ClaimClass(claim)
	if class == "" {
		return provisioning{err: fmt.Errorf("no class for claim %q", claim.Key())}
	}
	sc, ok := snap.StorageClass(class)
	if !ok {
		return provisioning{err: fmt.Errorf("failed to find storage class %q", class)}
	}
	p := provisioning{supported: sc.Provisioner != "" && sc.Provisioner != api.NotSupportedProvisioner}
	if !p.supported {
		return p
	}
	p.topology = compileTopology(sc.AllowedTopologies)
	p.topology.resolve(snap)
	size, asks := claim.Spec.Resources.Requests[api.ResourceStorage]
	if !asks {
		return p
	}
	d, ok := snap.CSIDriver(sc.Provisioner)
	if !ok || d.Spec.StorageCapacity == nil || !*d.Spec.StorageCapacity {
		return p
	}
	p.checkSpace = true
	bytes := size.Value()
	for _, c := range snap.CSIStorageCapacities() {
		if c.StorageClassName != sc.Name || c.NodeTopology == nil {
			continue
		}
		limit := c.MaximumVolumeSize
		if limit == nil {
			limit = c.Capacity
		}
		if limit == nil || limit.Value() < bytes {
			continue
		}
		sel, err := c.NodeTopology.Compile()
		if err != nil {
			continue
		}
		p.capacities = append(p.capacities, capacity{obj: c, selector: sel, indexed: sel.Indexed(snap)})
	}
	return p
}

// topologyTerms is a compiled []TopologySelectorTerm (kube's
// MatchTopologySelectorTerms): no terms match every node; a term matches
// when the node has each key with one of its values; empty or invalid terms
// match nothing.
type topologyTerms struct {
	any   bool
	terms [][]topologyReq
	// indexed is terms resolved against the cycle's snapshot (resolve),
	// read for the snapshot's own nodes: a table read per node instead
	// of a label lookup per key.
	indexed *api.IndexedNodeMatch
}

type topologyReq struct {
	key    string
	values []string
}

func compileTopology(terms []api.TopologySelectorTerm) topologyTerms {
	if len(terms) == 0 {
		return topologyTerms{any: true}
	}
	var out topologyTerms
	for _, t := range terms {
		if len(t.MatchLabelExpressions) == 0 {
			continue
		}
		var reqs []topologyReq
		valid := true
		for _, e := range t.MatchLabelExpressions {
			if len(e.Values) == 0 || len(validation.IsQualifiedName(e.Key)) > 0 {
				valid = false
				break
			}
			for _, v := range e.Values {
				if len(validation.IsValidLabelValue(v)) > 0 {
					valid = false
				}
			}
			reqs = append(reqs, topologyReq{key: e.Key, values: e.Values})
		}
		if valid {
			out.terms = append(out.terms, reqs)
		}
	}
	return out
}

// resolve resolves the terms against s, the snapshot whose node
// positions matchAt is given: each term is a selector of key In values
// requirements, and the terms a disjunction.
func (t *topologyTerms) resolve(s api.NodeLabelIndex) {
	if t.any {
		return
	}
	var m api.IndexedNodeMatch // no term: no node
	for _, term := range t.terms {
		var sel api.Selector
		for _, r := range term {
			sel = sel.With(r.key, api.LabelSelectorOpIn, r.values...)
		}
		m = m.Or(sel.Indexed(s))
	}
	t.indexed = &m
}

// matchAt is match for the node at k in the snapshot the terms were
// resolved against (k < 0, or terms not resolved: by labels).
func (t *topologyTerms) matchAt(k int, labels map[string]string) bool {
	if t.any {
		return true
	}
	if k >= 0 && t.indexed != nil {
		return t.indexed.Match(k)
	}
	return t.match(labels)
}

func (t *topologyTerms) match(labels map[string]string) bool {
	if t.any {
		return true
	}
	for _, term := range t.terms {
		ok := true
		for _, r := range term {
			v, has := labels[r.key]
			if !has || !slices.Contains(r.values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// slotAt returns where the results of node go; i is its position in the
// cycle's snapshot (ownIndex; −1 for a node of no snapshot).
func (s *stateData) slotAt(i int, node *fw.NodeInfo) []result {
	if i >= 0 {
		d, j := s.at(i)
		return d.results[j*s.k : (j+1)*s.k]
	}
	s.extraMu.Lock()
	defer s.extraMu.Unlock()
	if s.extra == nil {
		s.extra = map[string][]result{}
	}
	r, ok := s.extra[node.Name()]
	if !ok {
		r = make([]result, s.k)
		s.extra[node.Name()] = r
	}
	return r
}

// markDoneAt records that the snapshot's nodes at positions idx passed
// Filter; positions outside the snapshot are left out, as markDone
// leaves out a node that is not the snapshot's.
func (s *stateData) markDoneAt(idx []int32) {
	var d *pageData
	page := -1
	for _, x := range idx {
		i := int(x)
		if i < 0 || i>>pageShift >= len(s.pages) || i >= s.snap.NumNodes() {
			continue
		}
		if i>>pageShift != page {
			page = i >> pageShift
			d, _ = s.at(i)
		}
		d.done[i&(pageNodes-1)] = true
	}
}

func (s *stateData) markDone(node *fw.NodeInfo) {
	if i := s.ownIndex(node); i >= 0 {
		d, j := s.at(i)
		d.done[j] = true
	}
}

// Filter is kube's FindPodVolumes for one node: bound volumes' node
// affinity, then the delayed claims (a claim with a selected node other
// than this one fails at once; the others are matched to the smallest
// fitting available volume, the rest provisioned within the class's
// allowed topologies and, for drivers that track it, the storage capacity
// reachable from the node). Failures are UnschedulableAndUnresolvable with
// kube's reasons in kube's order; lookups that cannot succeed (a claim
// without class to provision, a class that vanished, a volume whose
// in-tree translation fails on a migrated node) are Errors.
func (b *volumeBinder) Filter(s *stateData, node *fw.NodeInfo) *fw.Status {
	if s.uniform {
		if s.uniformStatus == nil {
			s.markDone(node)
		}
		return s.uniformStatus
	}
	labels := node.Node().Labels
	k := s.ownIndex(node)
	boundOK, pvFound, unboundOK, enough := true, true, true, true
	for i := range s.bound {
		bc := &s.bound[i]
		if bc.pv == nil {
			pvFound = false
			break
		}
		fits := true
		switch {
		case bc.plugin != "" && node.MigratedToCSI(bc.plugin):
			if bc.trErr != nil {
				return fw.AsStatus(bc.trErr)
			}
			fits = bc.trAffinity == nil || bc.trAffinity.MatchLabels(labels)
		case bc.affinity == nil:
		case k >= 0:
			fits = bc.fits.Match(k)
		default:
			fits = bc.affinity.MatchLabels(labels)
		}
		if !fits {
			boundOK = false
			break
		}
	}
	var res []result
	if s.k > 0 {
		res = s.slotAt(k, node)
		clear(res)
		for j := range s.delayed {
			if d := &s.delayed[j]; d.hasSelected && d.selected != node.Name() {
				unboundOK = false
				return b.verdict(boundOK, pvFound, unboundOK, enough)
			}
		}
		for _, j := range s.findOrder {
			d := &s.delayed[j]
			if d.selectorErr != nil {
				return fw.AsStatus(d.selectorErr)
			}
			if c := match(d, k, labels, res); c != nil {
				res[j] = result{pv: c.pv, base: c.base}
			} else {
				res[j].provision = true
				unboundOK = false
			}
		}
		provisions := false
		for j := range s.delayed {
			if s.delayed[j].hasSelected {
				res[j].provision = true
			}
			provisions = provisions || res[j].provision
		}
		if provisions {
			var st *fw.Status
			if unboundOK, enough, st = s.checkProvisions(k, labels, res); st != nil {
				return st
			}
		}
	}
	if v := b.verdict(boundOK, pvFound, unboundOK, enough); v != nil {
		return v
	}
	s.markDone(node)
	return nil
}

func (b *volumeBinder) verdict(boundOK, pvFound, unboundOK, enough bool) *fw.Status {
	set := 0
	for i, ok := range [4]bool{boundOK, unboundOK, enough, pvFound} {
		if !ok {
			set |= 1 << i
		}
	}
	return b.reject[set]
}

// indexCandidates is the fewest candidates of a claim that PreFilter
// indexes by node: below it, a walk over them all costs no more than the
// index.
const indexCandidates = 32

// nodeCandidate is one pair of delayedClaim.byNode.
type nodeCandidate struct{ node, cand int32 }

// wideCandidate is one entry of delayedClaim.wide: candidate cand, whose
// volume fits every node (anywhere) or the nodes fits matches.
type wideCandidate struct {
	cand     int32
	anywhere bool
	fits     api.IndexedNodeMatch
}

// index builds d.byNode and d.wide from d.candidates. A candidate goes to
// byNode when its node affinity is a single In expression on a key whose
// values number the snapshot's nodes one each (api.TopologyValues.ByIndex):
// the nodes it fits are those of its values. A prebound candidate stays
// in wide: where it does not fit, it ends the search (match). A wide
// candidate's affinity is resolved against the snapshot, so that a node
// reads a table rather than its labels.
func (d *delayedClaim) index(snap *fw.Snapshot) {
	for i := range d.candidates {
		c := &d.candidates[i]
		if !c.prebound {
			if key, values, ok := c.affinity.LabelIn(); ok {
				if tv := snap.TopologyValues(key); tv.ByIndex {
					for _, v := range values {
						if id, ok := tv.ID(v); ok {
							d.byNode = append(d.byNode, nodeCandidate{node: id, cand: int32(i)})
						}
					}
					continue
				}
			}
		}
		w := wideCandidate{cand: int32(i), anywhere: c.affinity == nil}
		if !w.anywhere {
			w.fits = c.affinity.IndexedLabels(snap)
		}
		d.wide = append(d.wide, w)
	}
	slices.SortFunc(d.byNode, func(a, b nodeCandidate) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		return cmp.Compare(a.cand, b.cand)
	})
	d.byNode = slices.Compact(d.byNode)
	d.indexed = true
}

// match is FindMatchingVolume for claim d on the node with labels at
// position k of the cycle's snapshot (−1: a node of no snapshot): among
// the candidates not chosen already for another claim of the pod (res),
// in order, the first prebound one if it fits the node (none if it does
// not), else the smallest that fits, the first of equals. With the
// claim's candidates indexed, a node at a position examines only the
// wide candidates, by table, and its own.
func match(d *delayedClaim, k int, labels map[string]string, res []result) *candidate {
	var p picker
	if !d.indexed || k < 0 {
		for i := range d.candidates {
			c := &d.candidates[i]
			if p.see(c, c.affinity == nil || c.affinity.MatchLabels(labels), res) {
				break
			}
		}
		return p.best
	}
	lo, _ := slices.BinarySearchFunc(d.byNode, int32(k), func(e nodeCandidate, node int32) int { return cmp.Compare(e.node, node) })
	own := d.byNode[lo:]
	for n, e := range own {
		if int(e.node) != k {
			own = own[:n]
			break
		}
	}
	wide := d.wide
	for len(wide) > 0 || len(own) > 0 {
		var c *candidate
		fits := true // an own candidate fits the node by construction
		if len(own) > 0 && (len(wide) == 0 || own[0].cand < wide[0].cand) {
			c, own = &d.candidates[own[0].cand], own[1:]
		} else {
			w := &wide[0]
			c, wide = &d.candidates[w.cand], wide[1:]
			fits = w.anywhere || w.fits.Match(k)
		}
		if p.see(c, fits, res) {
			break
		}
	}
	return p.best
}

// picker is match's choice among the candidates it sees in order.
type picker struct{ best *candidate }

// see considers candidate c, which fits the node or not: it reports
// true when the search ends there (a prebound volume decides it).
func (p *picker) see(c *candidate, fits bool, res []result) (done bool) {
	if chosen(c.pv.Name, res) {
		return false
	}
	if c.prebound {
		p.best = nil
		if fits {
			p.best = c
		}
		return true
	}
	if fits && (p.best == nil || p.best.qty.Cmp(c.qty) > 0) {
		p.best = c
	}
	return false
}

func chosen(name string, res []result) bool {
	for i := range res {
		if res[i].pv != nil && res[i].pv.Name == name {
			return true
		}
	}
	return false
}

// checkProvisions is checkVolumeProvisions over the claims to provision
// (those with this node selected, in pod order, then those without a
// matching volume, by size): it returns whether provisioning is possible
// and whether there is enough storage, recording each claim's capacity.
//
// k is the node's position in the cycle's snapshot (−1: a node of no
// snapshot), where the classes' topologies were resolved.
func (s *stateData) checkProvisions(k int, labels map[string]string, res []result) (ok, enough bool, st *fw.Status) {
	check := func(j int) (bool, bool, *fw.Status, bool) {
		p := &s.delayed[j].provisioning
		if p.err != nil {
			return false, false, fw.AsStatus(p.err), true
		}
		if !p.supported || !p.topology.matchAt(k, labels) {
			return false, true, nil, true
		}
		if p.checkSpace {
			var found *api.CSIStorageCapacity
			for i := range p.capacities {
				if p.capacities[i].matchAt(k, labels) {
					found = p.capacities[i].obj
					break
				}
			}
			if found == nil {
				return true, false, nil, true
			}
			res[j].cap = found
		}
		return true, true, nil, false
	}
	for j := range s.delayed {
		if s.delayed[j].hasSelected {
			if a, e, st, stop := check(j); stop {
				return a, e, st
			}
		}
	}
	for _, j := range s.findOrder {
		if res[j].provision {
			if a, e, st, stop := check(j); stop {
				return a, e, st
			}
		}
	}
	return true, true, nil
}

// results returns node's recorded decisions, or false when node did not
// pass Filter.
func (s *stateData) resultsOf(nodeName string) ([]result, bool) {
	if r, ok := s.recorded(s.snap.Index(nodeName)); ok {
		return r, true
	}
	return s.extraOf(nodeName)
}

// resultsOn is resultsOf(node.Name()) that finds a node of the state's
// snapshot by its position instead of its name.
func (s *stateData) resultsOn(node *fw.NodeInfo) ([]result, bool) {
	if i := s.ownIndex(node); i >= 0 {
		if r, ok := s.recorded(i); ok {
			return r, true
		}
		return s.extraOf(node.Name())
	}
	return s.resultsOf(node.Name())
}

// extraOf returns the results of a node that is not the snapshot's.
func (s *stateData) extraOf(nodeName string) ([]result, bool) {
	s.extraMu.Lock()
	defer s.extraMu.Unlock()
	r, ok := s.extra[nodeName]
	return r, ok
}

// podVolumes builds kube's PodVolumes for node from its decisions, in
// kube's order (bindings by claim size; provisions: the claims with the
// node selected, then the unmatched ones by size).
func (s *stateData) podVolumes(nodeName string) (*api.PodVolumes, bool) {
	res, ok := s.resultsOf(nodeName)
	if !ok {
		return nil, false
	}
	pv := &api.PodVolumes{}
	for _, j := range s.findOrder {
		if r := res[j]; r.pv != nil {
			pv.StaticBindings = append(pv.StaticBindings, api.StaticBinding{PVC: s.delayed[j].pvc, PV: r.pv, PVBase: r.base})
		}
	}
	for j := range s.delayed {
		if s.delayed[j].hasSelected {
			pv.DynamicProvisions = append(pv.DynamicProvisions, api.DynamicProvision{PVC: s.delayed[j].pvc, NodeCapacity: res[j].cap, PVCBase: s.delayed[j].base})
		}
	}
	for _, j := range s.findOrder {
		if res[j].provision {
			pv.DynamicProvisions = append(pv.DynamicProvisions, api.DynamicProvision{PVC: s.delayed[j].pvc, NodeCapacity: res[j].cap, PVCBase: s.delayed[j].base})
		}
	}
	return pv, true
}

// classStorage is a storage class's requested and available bytes on a
// node, the input of VolumeBinding's score.
type classStorage struct {
	Class               string
	Requested, Capacity int64
}

// classStorage appends node's storage per class to out, as kube's Score
// groups it: the static bindings (claim request, volume capacity) when
// there are some or capacityScoring is off, else the provisions with a
// known capacity (their requests summed; the capacity of the last one), in
// the order of the node's PodVolumes. ok is false when node did not pass
// Filter.
func (s *stateData) classStorage(node *fw.NodeInfo, capacityScoring bool, out []classStorage) ([]classStorage, bool) {
	res, ok := s.resultsOn(node)
	if !ok {
		return out, false
	}
	add := func(class string, req, capacity int64, sum bool) {
		for i := range out {
			if out[i].Class == class {
				out[i].Requested += req
				if sum {
					out[i].Capacity += capacity
				} else {
					out[i].Capacity = capacity
				}
				return
			}
		}
		out = append(out, classStorage{Class: class, Requested: req, Capacity: capacity})
	}
	static := false
	for j := range res {
		if res[j].pv != nil {
			static = true
		}
	}
	if static || !capacityScoring {
		for _, j := range s.findOrder {
			if r := res[j]; r.pv != nil {
				q := storage(r.pv.Spec.Capacity)
				add(r.pv.Spec.StorageClassName, s.delayed[j].request, q.Value(), true)
			}
		}
		return out, true
	}
	// podVolumes' DynamicProvisions, without building them: the claims
	// with the node selected, then the unmatched ones by size.
	provision := func(j int) {
		c := res[j].cap
		if c == nil {
			return
		}
		var capBytes int64
		if c.Capacity != nil {
			capBytes = c.Capacity.Value()
		}
		d := &s.delayed[j]
		add(d.class, d.request, capBytes, false)
	}
	for j := range s.delayed {
		if s.delayed[j].hasSelected {
			provision(j)
		}
	}
	for _, j := range s.findOrder {
		if res[j].provision {
			provision(j)
		}
	}
	return out, true
}

// Reserve is kube's AssumePodVolumes for the chosen node: unless every
// claim of the pod is already fully bound, the matched volumes are
// assumed bound to their claims and the claims to provision annotated with
// the node, in the binder's assume cache. A node that did not pass
// Filter (or a pod without claims) is all bound.
func (b *volumeBinder) Reserve(s *stateData, pod *api.Pod, nodeName string) error {
	pv, ok := s.podVolumes(nodeName)
	if !ok {
		s.AllBound = true
		return nil
	}
	b.cache.mu.Lock()
	defer b.cache.mu.Unlock()
	if b.allBound(s.snap, pod) {
		s.AllBound = true
		return nil
	}
	out := &api.PodVolumes{}
	revert := func() {
		for _, bd := range out.StaticBindings {
			b.cache.restorePV(bd.PV.Name, bd.PVBase)
		}
		for _, p := range out.DynamicProvisions {
			b.cache.restorePVC(p.PVC.Namespace, p.PVC.Name, p.PVCBase)
		}
	}
	for _, bd := range pv.StaticBindings {
		newPV, dirty := bindVolumeToClaim(bd.PV, bd.PVC)
		if dirty {
			if err := b.cache.assumePV(s.snap, newPV, bd.PVBase); err != nil {
				revert()
				return err
			}
		}
		out.StaticBindings = append(out.StaticBindings, api.StaticBinding{PVC: bd.PVC, PV: newPV, PVBase: bd.PVBase})
	}
	for _, p := range pv.DynamicProvisions {
		c := *p.PVC
		c.Annotations = maps.Clone(c.Annotations)
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[api.AnnSelectedNode] = nodeName
		if err := b.cache.assumePVC(s.snap, &c, p.PVCBase); err != nil {
			revert()
			return err
		}
		out.DynamicProvisions = append(out.DynamicProvisions, api.DynamicProvision{PVC: &c, NodeCapacity: p.NodeCapacity, PVCBase: p.PVCBase})
	}
	s.AllBound = false
	s.reserved, s.reservedNode = out, nodeName
	return nil
}

// allBound is arePodVolumesBound: every claim of the pod (through the
// cache) is fully bound. Callers hold the cache's lock.
func (b *volumeBinder) allBound(snap *fw.Snapshot, pod *api.Pod) bool {
	for i := range pod.Spec.Volumes {
		name, _, ok := api.ClaimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		pvc, _, ok := b.cache.pvc(snap, pod.Namespace, name)
		if !ok || !api.IsClaimFullyBound(pvc) {
			return false
		}
	}
	return true
}

// bindVolumeToClaim is component-helpers' GetBindVolumeToClaim: a copy of
// pv with the claim reference set and the bound-by-controller annotation
// (unless the volume was pre-bound), and whether anything changed.
func bindVolumeToClaim(pv *api.PersistentVolume, c *api.PersistentVolumeClaim) (*api.PersistentVolume, bool) {
	setByController := !api.IsVolumeBoundToClaim(pv, c)
	out := *pv
	dirty := false
	if r := pv.Spec.ClaimRef; r == nil || r.Name != c.Name || r.Namespace != c.Namespace || r.UID != c.UID {
		out.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: c.Namespace, Name: c.Name, UID: c.UID}
		dirty = true
	}
	if _, has := pv.Annotations[api.AnnBoundByController]; setByController && !has {
		out.Annotations = maps.Clone(pv.Annotations)
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[api.AnnBoundByController] = "yes"
		dirty = true
	}
	return &out, dirty
}

// reservedOn returns the volumes Reserve assumed on node, or, when Reserve
// did not run there, node's Filter decisions (ok false when there are
// none).
func (s *stateData) reservedOn(nodeName string) (*api.PodVolumes, bool) {
	if s.reserved != nil && s.reservedNode == nodeName {
		return s.reserved, true
	}
	return s.podVolumes(nodeName)
}

// Unreserve is kube's RevertAssumedPodVolumes for node: the assumed copies
// of its bindings and provisions are dropped from the cache. Idempotent.
func (b *volumeBinder) Unreserve(s *stateData, nodeName string) {
	pv, ok := s.reservedOn(nodeName)
	if !ok {
		return
	}
	b.Forget(pv)
}

// Forget drops the assumed copies of pv's volumes and claims (after
// Unreserve, or once the bindings were applied to the cluster, whose new
// objects then supersede them).
func (b *volumeBinder) Forget(pv *api.PodVolumes) {
	b.cache.mu.Lock()
	defer b.cache.mu.Unlock()
	for _, bd := range pv.StaticBindings {
		b.cache.restorePV(bd.PV.Name, bd.PVBase)
	}
	for _, p := range pv.DynamicProvisions {
		b.cache.restorePVC(p.PVC.Namespace, p.PVC.Name, p.PVCBase)
	}
}
