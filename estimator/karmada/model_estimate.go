package karmada

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/schedkit/schedkit/resource"
)

// ModelGeneration selects which Karmada version's resource-model estimate
// to reproduce. Karmada changed the algorithm twice; the documentation and
// seed 002 describe the first generation. The zero value is the newest.
type ModelGeneration int

const (
	// ModelFirstFit is Karmada v1.18+ (the default): every grade's nodes
	// become virtual nodes whose capacity is the grade's Min vector plus
	// MaxPodsPerVirtualNode pods, ordered by ascending grade, and replicas
	// are placed first-fit. A requested resource the models lack gives 0
	// replicas. Assumed workloads are placed first.
	ModelFirstFit ModelGeneration = iota
	// ModelMinCoversRequest is Karmada v1.12–v1.17: the first grade whose
	// Min covers each requested resource (Min ≥ request), then the sum over
	// that grade and the later ones of count × min over resources of
	// ⌊Min/request⌋. No grade covering a resource gives 0; a requested
	// resource the models lack is an error (the summary is used instead).
	ModelMinCoversRequest
	// ModelContainingGrade is Karmada v1.3–v1.11, the algorithm of the
	// documentation and seed 002 (its tables 7/8/10 and 6/4/4): the grade
	// containing each requested resource (the last one whose Min ≤ request),
	// then the sum over that grade and the later ones of count × min over
	// resources of ⌊Min/request⌋, where a grade fitting 0 counts as 1 per
	// node. A requested resource the models lack is an error (the summary
	// is used instead).
	ModelContainingGrade
)

// String names the generation and the Karmada versions it reproduces.
func (g ModelGeneration) String() string {
	switch g {
	case ModelFirstFit:
		return "FirstFit(v1.18+)"
	case ModelMinCoversRequest:
		return "MinCoversRequest(v1.12-v1.17)"
	case ModelContainingGrade:
		return "ContainingGrade(v1.3-v1.11)"
	}
	return fmt.Sprintf("ModelGeneration(%d)", int(g))
}

func (g ModelGeneration) validate() error {
	switch g {
	case ModelFirstFit, ModelMinCoversRequest, ModelContainingGrade:
		return nil
	}
	return fmt.Errorf("estimator: ModelGeneration=%d: unknown generation", int(g))
}

// ErrResourceModelInapplicable marks the resource-model errors on which
// Karmada falls back to the resource summary: no models, no summary, or (in
// the older generations) a requested resource the models lack.
var ErrResourceModelInapplicable = errors.New("resource model is inapplicable")

// ResourceModelReplicas estimates how many replicas of req a cluster's
// resource models can hold, with the algorithm of generation gen (Karmada's
// getMaximumReplicasBasedOnResourceModels). It uses only the models and the
// per-grade node counts, not the summary's free pod slots (the general
// estimator applies those). Assumed workloads are placed first in
// ModelFirstFit and ignored by the older generations, which predate them.
//
// Errors wrapping ErrResourceModelInapplicable are those on which Karmada
// falls back to the summary. Other errors are bad input: negative node
// counts or Mins, negative requests, or (for the older generations, which
// index the counts by position) fewer counts than models or a requested
// resource missing from some grades.
func ResourceModelReplicas(c *Cluster, req *ReplicaRequirements, gen ModelGeneration, assumed []AssumedWorkload) (int64, error) {
	if err := gen.validate(); err != nil {
		return -1, err
	}
	if err := checkCluster(0, c); err != nil {
		return -1, err
	}
	if err := checkRequirements("request", req); err != nil {
		return -1, err
	}
	for i := range assumed {
		if err := checkComponents(fmt.Sprintf("assumed[%d].components", i), assumed[i].Components); err != nil {
			return -1, err
		}
	}
	var rl resource.List
	if req != nil {
		rl = req.ResourceRequest
	}
	switch gen {
	case ModelMinCoversRequest, ModelContainingGrade:
		return gradeSum(c, rl, gen)
	}
	sim, err := modelSimulator(c, []resource.List{rl}, assumed)
	if err != nil {
		return -1, err
	}
	if err := placeAssumed(sim, assumed); err != nil {
		return -1, err
	}
	return int64(sim.sets([]Component{{Name: "replica", Replicas: 1, Requirements: req}}, math.MaxInt32, true)), nil
}

// ResourceModelComponentSets estimates how many complete sets of comps (at
// most upperBound) a cluster's resource models can hold, by first-fit
// placement on the virtual nodes of ModelFirstFit (Karmada's
// getMaximumSetsBasedOnResourceModels). Assumed workloads are placed first,
// one set each; what of them fits stays placed even when they do not fit
// entirely, as in Karmada.
func ResourceModelComponentSets(c *Cluster, comps []Component, assumed []AssumedWorkload, upperBound int32) (int32, error) {
	if err := checkCluster(0, c); err != nil {
		return -1, err
	}
	if err := checkComponents("components", comps); err != nil {
		return -1, err
	}
	for i := range assumed {
		if err := checkComponents(fmt.Sprintf("assumed[%d].components", i), assumed[i].Components); err != nil {
			return -1, err
		}
	}
	lists := make([]resource.List, 0, len(comps))
	for i := range comps {
		if comps[i].Requirements != nil {
			lists = append(lists, comps[i].Requirements.ResourceRequest)
		}
	}
	sim, err := modelSimulator(c, lists, assumed)
	if err != nil {
		return -1, err
	}
	if err := placeAssumed(sim, assumed); err != nil {
		return -1, err
	}
	return sim.sets(comps, upperBound, true), nil
}

func placeAssumed(sim *simulation, assumed []AssumedWorkload) error {
	for _, aw := range assumed {
		if len(aw.Components) == 0 {
			continue
		}
		sim.sets(aw.Components, 1, false)
	}
	return nil
}

// modelSimulator builds the virtual nodes of ModelFirstFit: for each grade
// of the models (ascending, a repeated grade keeping its last definition)
// with a positive count in the status (counts of one grade add up), that
// many nodes with the grade's Min of every range and MaxPodsPerVirtualNode
// pods. The simulator's resource dimensions cover the resources named in
// extra and in the assumed workloads.
func modelSimulator(c *Cluster, extra []resource.List, assumed []AssumedWorkload) (*simulation, error) {
	if c.ResourceSummary == nil {
		return nil, fmt.Errorf("estimator: cluster %q: resource summary is nil: %w", c.Name, ErrResourceModelInapplicable)
	}
	if len(c.ResourceModels) == 0 {
		return nil, fmt.Errorf("estimator: cluster %q: no resource models defined: %w", c.Name, ErrResourceModelInapplicable)
	}
	dims := &resourceDims{}
	for _, l := range extra {
		dims.addList(l)
	}
	for i := range assumed {
		for j := range assumed[i].Components {
			if r := assumed[i].Components[j].Requirements; r != nil {
				dims.addList(r.ResourceRequest)
			}
		}
	}
	templates := map[uint][]int64{}
	for _, m := range c.ResourceModels {
		capv := make([]int64, len(dims.names))
		for _, r := range m.Ranges {
			if i, ok := dims.index(r.Name); ok {
				capv[i] = quantityUnits(r.Name, r.Min)
			}
		}
		templates[m.Grade] = capv
	}
	counts := map[uint]int64{}
	for _, am := range c.ResourceSummary.AllocatableModelings {
		counts[am.Grade] += int64(am.Count)
	}
	grades := make([]uint, 0, len(templates))
	for g := range templates {
		grades = append(grades, g)
	}
	sort.Slice(grades, func(i, j int) bool { return grades[i] < grades[j] })
	sim := &simulation{dims: dims}
	for _, g := range grades {
		if n := counts[g]; n > 0 {
			sim.append(templates[g], MaxPodsPerVirtualNode, n)
		}
	}
	return sim, nil
}

// gradeSum is the resource-model estimate of the two older generations.
func gradeSum(c *Cluster, rl resource.List, gen ModelGeneration) (int64, error) {
	if c.ResourceSummary == nil {
		return -1, fmt.Errorf("estimator: cluster %q: resource summary is nil: %w", c.Name, ErrResourceModelInapplicable)
	}
	models := c.ResourceModels
	counts := c.ResourceSummary.AllocatableModelings
	if len(counts) < len(models) {
		return -1, fmt.Errorf("estimator: cluster %q: %d allocatableModelings for %d resource models: the %v generation indexes counts by model position", c.Name, len(counts), len(models), gen)
	}
	// Per requested resource, the Mins of every grade in model order.
	type reqRes struct {
		name resource.Name
		req  resource.Quantity
		mins []resource.Quantity
	}
	var reqs []reqRes
	for _, name := range rl.Names() {
		q := rl[name]
		if q.Value() <= 0 {
			continue
		}
		var mins []resource.Quantity
		for _, m := range models {
			for _, r := range m.Ranges {
				if r.Name == name {
					mins = append(mins, r.Min)
				}
			}
		}
		if len(mins) == 0 {
			return -1, fmt.Errorf("estimator: cluster %q: missing resource %q: %w", c.Name, name, ErrResourceModelInapplicable)
		}
		if len(mins) != len(models) {
			return -1, fmt.Errorf("estimator: cluster %q: resource %q is in %d of %d resource models: the %v generation needs it in every grade", c.Name, name, len(mins), len(models), gen)
		}
		reqs = append(reqs, reqRes{name, q, mins})
	}
	start := 0
	for _, r := range reqs {
		var idx int
		if gen == ModelMinCoversRequest {
			idx = -1
			for i, m := range r.mins {
				if m.Cmp(r.req) >= 0 {
					idx = i
					break
				}
			}
			if idx < 0 {
				return 0, nil
			}
		} else {
			idx = len(r.mins) - 1
			for i, m := range r.mins {
				if m.Cmp(r.req) > 0 {
					idx = i - 1
					break
				}
			}
		}
		start = max(start, idx)
	}
	var total int64
	for i := start; i < len(models); i++ {
		n := int64(counts[i].Count)
		if n == 0 {
			continue
		}
		per := int64(math.MaxInt64)
		for _, r := range reqs {
			var avail, want int64
			if r.name == resource.CPU {
				avail, want = r.mins[i].MilliValue(), r.req.MilliValue()
			} else {
				avail, want = r.mins[i].Value(), r.req.Value()
			}
			per = min(per, avail/want)
		}
		if per == 0 {
			per = 1
		}
		total = satAdd(total, satMul(n, per))
	}
	return total, nil
}

// quantityUnits converts q to the units Karmada's util.Resource keeps:
// milli-cores for cpu, Value() (rounded up) otherwise.
func quantityUnits(name resource.Name, q resource.Quantity) int64 {
	if name == resource.CPU {
		return q.MilliValue()
	}
	return q.Value()
}

// resourceDims is the dense index of the resources a simulation tracks: the
// resources Karmada's util.Resource keeps (cpu, memory, ephemeral storage
// and scalar resources); other names (e.g. "storage") are ignored there and
// here.
type resourceDims struct {
	names []resource.Name
}

func tracked(n resource.Name) bool {
	switch n {
	case resource.CPU, resource.Memory, resource.EphemeralStorage:
		return true
	case resource.Pods:
		return false
	}
	return n.IsScalar()
}

func (d *resourceDims) index(n resource.Name) (int, bool) {
	for i, m := range d.names {
		if m == n {
			return i, true
		}
	}
	return -1, false
}

func (d *resourceDims) addList(l resource.List) {
	for _, n := range l.Names() {
		if !tracked(n) {
			continue
		}
		if _, ok := d.index(n); !ok {
			d.names = append(d.names, n)
		}
	}
}

// replicaKind is one component's per-replica demand in a simulation: the
// dimensions it requests with a positive amount.
type replicaKind struct {
	idx []int
	req []int64
}

func (d *resourceDims) kind(r *ReplicaRequirements) replicaKind {
	var k replicaKind
	if r == nil {
		return k
	}
	for _, n := range r.ResourceRequest.Names() {
		if !tracked(n) {
			continue
		}
		v := quantityUnits(n, r.ResourceRequest[n])
		if v <= 0 {
			continue
		}
		i, _ := d.index(n)
		k.idx = append(k.idx, i)
		k.req = append(k.req, v)
	}
	return k
}

// nodeRun is a run of identical nodes in a simulation: count nodes, each with
// capacity cap and pods free pod slots.
type nodeRun struct {
	cap   []int64
	pods  int64
	count int64
	next  *nodeRun
}

// simulation is Karmada's SchedulingSimulator (first fit, one complete set at a
// time) over runs of identical nodes, so that a grade of a million nodes is
// one run until replicas land on it. Placing replicas only lowers
// capacities, so a node that cannot take a component never will again: each
// component keeps a cursor at the first run that may still fit it, and the
// result equals Karmada's node-by-node scan.
type simulation struct {
	dims       *resourceDims
	head, tail *nodeRun
	// Slabs that runs and their capacity vectors are carved from, so that
	// splitting a run does not allocate each time. A full slab is replaced,
	// never grown, so pointers into it stay valid.
	runSlab []nodeRun
	capSlab []int64
}

// newRun returns a run holding a copy of capv.
func (s *simulation) newRun(capv []int64, pods, count int64) *nodeRun {
	if len(s.runSlab) == cap(s.runSlab) {
		s.runSlab = make([]nodeRun, 0, max(64, 2*cap(s.runSlab)))
	}
	s.runSlab = append(s.runSlab, nodeRun{pods: pods, count: count})
	r := &s.runSlab[len(s.runSlab)-1]
	n := len(capv)
	if len(s.capSlab)+n > cap(s.capSlab) {
		s.capSlab = make([]int64, 0, max(256, 2*cap(s.capSlab), n))
	}
	s.capSlab = append(s.capSlab, capv...)
	r.cap = s.capSlab[len(s.capSlab)-n : len(s.capSlab) : len(s.capSlab)]
	return r
}

func (s *simulation) append(capv []int64, pods, count int64) {
	r := s.newRun(capv, pods, count)
	if s.tail == nil {
		s.head, s.tail = r, r
	} else {
		s.tail.next = r
		s.tail = r
	}
}

// fit is how many replicas of k one node of r can take (Karmada's
// util.Resource.MaxDivided with one pod per replica).
func (k *replicaKind) fit(r *nodeRun) int64 {
	f := r.pods
	for i, idx := range k.idx {
		if q := r.cap[idx] / k.req[i]; q < f {
			f = q
		}
	}
	return max(f, 0)
}

// take removes n replicas of k from every node of r.
func (k *replicaKind) take(r *nodeRun, n int64) {
	r.pods -= n
	for i, idx := range k.idx {
		r.cap[idx] -= n * k.req[i]
	}
}

// place puts want replicas of k first-fit from *cursor on and reports
// whether all of them fit; replicas placed stay placed either way.
func (s *simulation) place(k *replicaKind, cursor **nodeRun, want int64) bool {
	for *cursor != nil && k.fit(*cursor) == 0 {
		*cursor = (*cursor).next
	}
	for r := *cursor; r != nil && want > 0; r = r.next {
		f := k.fit(r)
		if f == 0 {
			continue
		}
		full := want / f
		if full >= r.count {
			k.take(r, f)
			want -= f * r.count
			continue
		}
		rest := want - full*f
		// Split r into [full nodes taking f] [one node taking rest] [the others].
		others := r.count - full
		if rest > 0 {
			others--
		}
		var tailBuf [2]*nodeRun
		tailRuns := tailBuf[:0]
		if rest > 0 {
			p := s.newRun(r.cap, r.pods, 1)
			k.take(p, rest)
			tailRuns = append(tailRuns, p)
		}
		if others > 0 {
			tailRuns = append(tailRuns, s.newRun(r.cap, r.pods, others))
		}
		if full > 0 {
			r.count = full
			k.take(r, f)
		} else {
			// r itself becomes the first of the tail runs.
			first := tailRuns[0]
			r.cap, r.pods, r.count = first.cap, first.pods, first.count
			tailRuns = tailRuns[1:]
		}
		after := r.next
		prev := r
		for _, t := range tailRuns {
			prev.next = t
			prev = t
		}
		prev.next = after
		if after == nil {
			s.tail = prev
		}
		return true
	}
	return want == 0
}

// sets places complete sets of comps, one at a time, until one fails or
// upperBound sets are placed, and returns the number placed (Karmada's
// SimulateScheduling). Components with no replicas always fit. With
// countOnly the simulator may answer without placing anything (the caller
// discards it afterwards).
func (s *simulation) sets(comps []Component, upperBound int32, countOnly bool) int32 {
	if upperBound <= 0 {
		return 0
	}
	kinds := make([]replicaKind, 0, len(comps))
	wants := make([]int64, 0, len(comps))
	for i := range comps {
		if comps[i].Replicas <= 0 {
			continue
		}
		kinds = append(kinds, s.dims.kind(comps[i].Requirements))
		wants = append(wants, int64(comps[i].Replicas))
	}
	if len(kinds) == 0 {
		return upperBound
	}
	if len(kinds) == 1 && countOnly {
		// One component: each node's fit drops by exactly the replicas it
		// takes, so the replicas that fit are Σ fit over nodes, whatever
		// the order of placement.
		var total int64
		for r := s.head; r != nil; r = r.next {
			total = satAdd(total, satMul(kinds[0].fit(r), r.count))
		}
		return int32(min(total/wants[0], int64(upperBound)))
	}
	cursors := make([]*nodeRun, len(kinds))
	for i := range cursors {
		cursors[i] = s.head
	}
	var done int32
	for done < upperBound {
		for i := range kinds {
			if !s.place(&kinds[i], &cursors[i], wants[i]) {
				return done
			}
		}
		done++
	}
	return done
}
