package karmada

import (
	"fmt"
	"math"
	"sort"

	"github.com/schedkit/schedkit/framework/api"
)

// EstimatorAnswer is one estimator's per-cluster answer (as from
// GeneralEstimator.MaxAvailableReplicas or
// AccurateEstimator.MaxAvailableReplicas), or its error.
type EstimatorAnswer struct {
	Name     string
	Clusters []TargetCluster
	Err      error
}

// CalAvailableReplicas merges the answers of several estimators into each
// candidate cluster's available replicas, as Karmada's scheduler
// (calAvailableReplicas): every cluster starts at MaxInt32; when desired is
// 0 (a workload without replicas) no estimator is consulted; an answer with
// an error is ignored entirely; UnauthenticReplica (-1) entries are
// ignored; otherwise each cluster takes the minimum; a cluster still at
// MaxInt32 gets desired. Answers must list the candidates in order (Karmada
// skips mismatched entries up to v1.17 and matches them by name since
// v1.18; here they are an error naming the estimator, the index and both
// names), and other negative values are errors.
func CalAvailableReplicas(candidates []string, desired int32, answers ...EstimatorAnswer) ([]TargetCluster, error) {
	if err := checkNames("candidates", candidates); err != nil {
		return nil, err
	}
	if desired < 0 {
		return nil, fmt.Errorf("estimator: desired replicas=%d: must not be negative", desired)
	}
	out := make([]TargetCluster, len(candidates))
	for i, n := range candidates {
		out[i] = TargetCluster{Name: n, Replicas: math.MaxInt32}
	}
	if desired > 0 {
		for _, a := range answers {
			if a.Err != nil {
				continue
			}
			if len(a.Clusters) != len(candidates) {
				return nil, fmt.Errorf("estimator: estimator %q answered for %d clusters, want %d", a.Name, len(a.Clusters), len(candidates))
			}
			for i, tc := range a.Clusters {
				if tc.Name != candidates[i] {
					return nil, fmt.Errorf("estimator: estimator %q: answer[%d] is for cluster %q, want %q", a.Name, i, tc.Name, candidates[i])
				}
				if tc.Replicas == UnauthenticReplica {
					continue
				}
				if tc.Replicas < 0 {
					return nil, fmt.Errorf("estimator: estimator %q: cluster %q replicas=%d: must not be negative", a.Name, tc.Name, tc.Replicas)
				}
				out[i].Replicas = min(out[i].Replicas, tc.Replicas)
			}
		}
	}
	for i := range out {
		if out[i].Replicas == math.MaxInt32 {
			out[i].Replicas = desired
		}
	}
	return out, nil
}

func checkNames(what string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("estimator: empty %s list", what)
	}
	seen := make(map[string]int, len(names))
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("estimator: %s[%d]: empty name", what, i)
		}
		if j, dup := seen[n]; dup {
			return fmt.Errorf("estimator: %s[%d] and %s[%d] are both %q", what, j, what, i, n)
		}
		seen[n] = i
	}
	return nil
}

// DivisionStrategy is how a workload's replicas are divided among clusters
// (Karmada's replica scheduling strategies).
type DivisionStrategy int

const (
	// StrategyDuplicated gives every candidate all the replicas.
	StrategyDuplicated DivisionStrategy = iota
	// StrategyStaticWeight divides the replicas by static weights.
	StrategyStaticWeight
	// StrategyDynamicWeight divides them by the clusters' available
	// replicas (dynamicWeight: AvailableReplicas).
	StrategyDynamicWeight
	// StrategyAggregated uses as few clusters as possible, largest
	// available first, previously used clusters first.
	StrategyAggregated
)

// String returns Karmada's name of the strategy.
func (s DivisionStrategy) String() string {
	switch s {
	case StrategyDuplicated:
		return "Duplicated"
	case StrategyStaticWeight:
		return "StaticWeight"
	case StrategyDynamicWeight:
		return "DynamicWeight"
	case StrategyAggregated:
		return "Aggregated"
	}
	return fmt.Sprintf("DivisionStrategy(%d)", int(s))
}

// AssignmentMode says whether a re-division keeps the previous assignment
// in mind (Karmada's assignmentMode).
type AssignmentMode int

const (
	// AssignSteady changes the previous assignment as little as possible:
	// scale-up adds replicas, scale-down shrinks proportionally (default).
	AssignSteady AssignmentMode = iota
	// AssignFresh divides from scratch, as after a user-triggered
	// rescheduling (spec.rescheduleTriggeredAt newer than the last
	// schedule); clusters' current replicas count as available.
	AssignFresh
)

// StaticWeightRule gives Weight to the clusters its selector matches
// (Karmada StaticClusterWeight with its ClusterAffinity): a cluster matches
// when it is not excluded, its labels match LabelSelector (if set) and its
// name is in ClusterNames (if set). An empty rule matches every cluster.
type StaticWeightRule struct {
	ClusterNames    []string
	ExcludeClusters []string
	LabelSelector   *api.LabelSelector
	Weight          int64
}

// Candidate is a cluster a workload may go to: its name, labels (for
// static-weight selectors) and available replicas (merged estimate, see
// CalAvailableReplicas; read by DynamicWeight and Aggregated).
type Candidate struct {
	Name              string
	Labels            map[string]string
	AvailableReplicas int32
}

// DivisionGeneration selects which Karmada release DivideReplicas follows
// where releases divide differently.
type DivisionGeneration int

const (
	// DivisionV117 is Karmada v1.17+ (default): a DynamicWeight or
	// Aggregated scale-down is weighted by the previous replicas of the
	// clusters that are still candidates only (dynamicScaleDown,
	// karmada-io/karmada#7110).
	DivisionV117 DivisionGeneration = iota
	// DivisionV116 is Karmada v1.16: a scale-down is weighted by the whole
	// previous assignment, so clusters that are no longer candidates can
	// keep replicas.
	DivisionV116
)

// String returns "v1.17+" or "v1.16".
func (g DivisionGeneration) String() string {
	switch g {
	case DivisionV117:
		return "v1.17+"
	case DivisionV116:
		return "v1.16"
	}
	return fmt.Sprintf("DivisionGeneration(%d)", int(g))
}

// DivisionRequest is what DivideReplicas divides: Replicas (spec.replicas)
// over Candidates under Strategy, given the previous assignment (Previous,
// spec.clusters), the static weights, the assignment mode, the binding's
// UID (for the Webster tie-break order, see TieBreakOrder) and the Karmada
// generation. Candidates and Previous are read in the order given, as
// Karmada reads its candidate list and spec.clusters: Aggregated breaks
// ties between equal weights by that order (see DivideReplicas).
type DivisionRequest struct {
	Strategy      DivisionStrategy
	Replicas      int32
	Candidates    []Candidate
	StaticWeights []StaticWeightRule
	Previous      []TargetCluster
	Mode          AssignmentMode
	BindingUID    string
	Generation    DivisionGeneration
}

// UnschedulableError is Karmada's failure when the clusters cannot hold the
// replicas to divide: its message is Karmada's.
type UnschedulableError struct {
	// Available is the sum of the weights (available replicas).
	Available int64
	// Target is the number of replicas to place.
	Target int32
}

// Error returns Karmada's message, "Clusters available replicas N are not
// enough to schedule."
func (e *UnschedulableError) Error() string {
	return fmt.Sprintf("Clusters available replicas %d are not enough to schedule.", e.Available)
}

// DivideReplicas divides a workload's replicas among clusters as Karmada
// v1.17+'s scheduler (pkg/scheduler/core/assignment.go and
// division_algorithm.go; v1.16 with Generation DivisionV116). The result is
// sorted by cluster name and lists every cluster that took part, with zero
// replicas where it got none (Karmada drops zero entries when it writes the
// binding).
//
//   - Duplicated: every candidate gets Replicas.
//   - StaticWeight: a candidate's weight is the largest Weight of the rules
//     matching it; candidates without a positive weight are left out; when
//     none has one (or there are no rules) every candidate weighs 1.
//     Replicas are split by Webster (AllocateWebsterSeats).
//   - DynamicWeight and Aggregated, Steady mode: Previous entries of
//     non-candidates are ignored when summing the assigned replicas. If
//     fewer are assigned than Replicas (scale-up, the first division
//     included), the extra replicas are split over the candidates weighted
//     by their available replicas and added to the previous assignment. If
//     more (scale-down), Replicas are split weighted by the candidates'
//     previous replicas (DivisionV116: by the whole previous assignment,
//     non-candidates included). If equal, the previous assignment is kept.
//   - Fresh mode: Replicas are split weighted by available + current
//     replicas, ignoring the previous assignment.
//   - The weights, listed in candidate order (scale-down: in Previous
//     order), are sorted by value, descending, with Go's sort.Sort and no
//     tie-break, as Karmada sorts its TargetClustersList: equal weights
//     end up in the order Go's sort.Sort (insertion sort up to 12 elements,
//     pdqsort beyond, both deterministic) leaves them. If the weights sum to
//     less than the replicas to place, the division fails with an
//     *UnschedulableError. Aggregated first moves the previously used
//     clusters (scale-up) to the front, then keeps the shortest prefix
//     whose weights reach the target — so among equal weights, which
//     clusters it keeps follows the order of Candidates (or Previous).
//
// Webster ties use TieBreakOrder(BindingUID); Webster itself does not
// depend on the order of its parties. Bad input — no candidates, empty or
// duplicate names, negative replicas, weights or available replicas, an
// unknown strategy, mode or generation — is an error naming the field and
// value.
func DivideReplicas(r DivisionRequest) ([]TargetCluster, error) {
	if err := checkDivision(&r); err != nil {
		return nil, err
	}
	order := TieBreakOrder(r.BindingUID)
	var out []TargetCluster
	var err error
	switch r.Strategy {
	case StrategyDuplicated:
		out = make([]TargetCluster, len(r.Candidates))
		for i, c := range r.Candidates {
			out[i] = TargetCluster{Name: c.Name, Replicas: r.Replicas}
		}
	case StrategyStaticWeight:
		out, err = divideStatic(&r, order)
	default:
		out, err = divideDynamic(&r, order)
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func checkDivision(r *DivisionRequest) error {
	if r.Strategy < StrategyDuplicated || r.Strategy > StrategyAggregated {
		return fmt.Errorf("estimator: divide: strategy=%d: unknown strategy", int(r.Strategy))
	}
	if r.Mode != AssignSteady && r.Mode != AssignFresh {
		return fmt.Errorf("estimator: divide: mode=%d: unknown assignment mode", int(r.Mode))
	}
	if r.Generation != DivisionV117 && r.Generation != DivisionV116 {
		return fmt.Errorf("estimator: divide: generation=%d: unknown division generation", int(r.Generation))
	}
	if r.Replicas < 0 {
		return fmt.Errorf("estimator: divide: replicas=%d: must not be negative", r.Replicas)
	}
	if len(r.Candidates) == 0 {
		return fmt.Errorf("estimator: divide %d replicas (%v): empty candidate cluster list", r.Replicas, r.Strategy)
	}
	names := make([]string, len(r.Candidates))
	for i, c := range r.Candidates {
		names[i] = c.Name
		if c.AvailableReplicas < 0 {
			return fmt.Errorf("estimator: divide: cluster %q availableReplicas=%d: must not be negative", c.Name, c.AvailableReplicas)
		}
	}
	if err := checkNames("candidates", names); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, p := range r.Previous {
		if p.Name == "" {
			return fmt.Errorf("estimator: divide: previous[%d]: empty name", i)
		}
		if seen[p.Name] {
			return fmt.Errorf("estimator: divide: previous assignment lists cluster %q twice", p.Name)
		}
		seen[p.Name] = true
		if p.Replicas < 0 {
			return fmt.Errorf("estimator: divide: previous cluster %q replicas=%d: must not be negative", p.Name, p.Replicas)
		}
	}
	for i, w := range r.StaticWeights {
		if w.Weight < 0 {
			return fmt.Errorf("estimator: divide: staticWeights[%d].weight=%d: must not be negative", i, w.Weight)
		}
		if _, err := w.LabelSelector.Compile(); err != nil {
			return fmt.Errorf("estimator: divide: staticWeights[%d].labelSelector: %w", i, err)
		}
	}
	return nil
}

func (w *StaticWeightRule) matches(c *Candidate) (bool, error) {
	for _, n := range w.ExcludeClusters {
		if n == c.Name {
			return false, nil
		}
	}
	if w.LabelSelector != nil {
		sel, err := w.LabelSelector.Compile()
		if err != nil {
			return false, err
		}
		if !sel.Matches(c.Labels) {
			return false, nil
		}
	}
	if len(w.ClusterNames) > 0 {
		for _, n := range w.ClusterNames {
			if n == c.Name {
				return true, nil
			}
		}
		return false, nil
	}
	return true, nil
}

func divideStatic(r *DivisionRequest, order NameOrder) ([]TargetCluster, error) {
	var parties []WebsterParty
	for i := range r.Candidates {
		c := &r.Candidates[i]
		var weight int64
		for j := range r.StaticWeights {
			ok, err := r.StaticWeights[j].matches(c)
			if err != nil {
				return nil, err
			}
			if ok {
				weight = max(weight, r.StaticWeights[j].Weight)
			}
		}
		if weight > 0 {
			parties = append(parties, WebsterParty{Name: c.Name, Votes: weight})
		}
	}
	if len(parties) == 0 {
		for _, c := range r.Candidates {
			parties = append(parties, WebsterParty{Name: c.Name, Votes: 1})
		}
	}
	seats, err := AllocateWebsterSeats(r.Replicas, parties, order)
	if err != nil {
		return nil, err
	}
	return seatsToTargets(seats), nil
}

func seatsToTargets(ps []WebsterParty) []TargetCluster {
	out := make([]TargetCluster, len(ps))
	for i, p := range ps {
		out[i] = TargetCluster{Name: p.Name, Replicas: p.Seats}
	}
	return out
}

// byReplicasDesc is Karmada's TargetClustersList (division_algorithm.go):
// replicas descending, no tie-break. Sorted with sort.Sort — the algorithm
// Karmada calls, on the same input order — it yields Karmada's permutation,
// equal weights included.
type byReplicasDesc []TargetCluster

func (a byReplicasDesc) Len() int           { return len(a) }
func (a byReplicasDesc) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }
func (a byReplicasDesc) Less(i, j int) bool { return a[i].Replicas > a[j].Replicas }

func divideDynamic(r *DivisionRequest, order NameOrder) ([]TargetCluster, error) {
	isCandidate := make(map[string]bool, len(r.Candidates))
	for _, c := range r.Candidates {
		isCandidate[c.Name] = true
	}
	var scheduled []TargetCluster
	var assigned int64
	for _, p := range r.Previous {
		if isCandidate[p.Name] {
			scheduled = append(scheduled, p)
			assigned += int64(p.Replicas)
		}
	}
	var target int32
	var weights []TargetCluster
	phase := "scale up"
	switch {
	case r.Mode == AssignFresh:
		phase = "fresh"
		target = r.Replicas
		for _, c := range r.Candidates {
			w := int64(c.AvailableReplicas)
			for _, p := range scheduled {
				if p.Name == c.Name {
					w += int64(p.Replicas)
				}
			}
			weights = append(weights, TargetCluster{Name: c.Name, Replicas: clamp32(w)})
		}
		scheduled = nil
	case assigned > int64(r.Replicas):
		phase = "scale down"
		target = r.Replicas
		if r.Generation == DivisionV116 {
			weights = append(weights, r.Previous...)
		} else {
			weights = append(weights, scheduled...)
		}
		scheduled = nil
	case assigned < int64(r.Replicas):
		target = r.Replicas - int32(assigned)
		for _, c := range r.Candidates {
			weights = append(weights, TargetCluster{Name: c.Name, Replicas: c.AvailableReplicas})
		}
	default:
		return scheduled, nil
	}
	sort.Sort(byReplicasDesc(weights))
	var sum int64
	for _, w := range weights {
		sum += int64(w.Replicas)
	}
	if sum < int64(target) {
		return nil, fmt.Errorf("estimator: divide %d replicas (%v, %s): %w", r.Replicas, r.Strategy, phase, &UnschedulableError{Available: sum, Target: target})
	}
	if r.Strategy == StrategyAggregated {
		weights = aggregatePrefix(weights, scheduled, target)
	}
	parties := make([]WebsterParty, len(weights))
	for i, w := range weights {
		parties[i] = WebsterParty{Name: w.Name, Votes: int64(w.Replicas)}
	}
	seats, err := AllocateWebsterSeats(target, parties, order)
	if err != nil {
		return nil, err
	}
	return mergeTargets(scheduled, seatsToTargets(seats)), nil
}

// aggregatePrefix moves the clusters used before (with replicas) to the front,
// keeping the order otherwise, and keeps the shortest prefix whose weights
// reach target.
func aggregatePrefix(weights, scheduled []TargetCluster, target int32) []TargetCluster {
	prior := map[string]bool{}
	for _, s := range scheduled {
		if s.Replicas > 0 {
			prior[s.Name] = true
		}
	}
	if len(prior) > 0 {
		front := make([]TargetCluster, 0, len(weights))
		var back []TargetCluster
		for _, w := range weights {
			if prior[w.Name] {
				front = append(front, w)
			} else {
				back = append(back, w)
			}
		}
		weights = append(front, back...)
	}
	var sum int64
	for i, w := range weights {
		sum += int64(w.Replicas)
		if sum >= int64(target) {
			return weights[:i+1]
		}
	}
	return weights
}

// mergeTargets adds add to base by cluster name (Karmada's
// MergeTargetClusters).
func mergeTargets(base, add []TargetCluster) []TargetCluster {
	out := append([]TargetCluster(nil), base...)
	idx := make(map[string]int, len(out))
	for i, t := range out {
		idx[t.Name] = i
	}
	for _, t := range add {
		if i, ok := idx[t.Name]; ok {
			out[i].Replicas += t.Replicas
		} else {
			idx[t.Name] = len(out)
			out = append(out, t)
		}
	}
	return out
}
