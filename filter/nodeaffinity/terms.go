package nodeaffinity

import (
	"errors"
	"fmt"
	"slices"

	fw "github.com/schedkit/schedkit/framework"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/nodeselector"
)

// objectNameField is the only field node selector terms may match on.
const objectNameField = "metadata.name"

// requiredTerms is a pod's hard node constraints: spec.nodeSelector AND the
// required node affinity terms, as component-helpers' RequiredNodeAffinity.
type requiredTerms struct {
	labels    api.Selector
	hasLabels bool
	sel       *nodeselector.Selector
	// names, when set, are the only constraint: the nodes named (the
	// terms namedTerms accepts), matched by name alone. Match reads
	// them; Indexed does not (PreFilter never resolves such terms
	// against a snapshot).
	names map[string]struct{}
	// one is the name when names holds one, matched by comparison.
	one string
}

// namedTerms returns a pod's required node affinity terms when its
// constraints only name nodes: no nodeSelector, and terms each of one
// "metadata.name In" requirement of one value, which match a node
// exactly when it bears one of the names (the shape of a DaemonSet's
// pods); nil for any other shape.
func namedTerms(spec *api.PodSpec) []api.NodeSelectorTerm {
	if len(spec.NodeSelector) > 0 || spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return nil
	}
	req := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if req == nil {
		return nil
	}
	for i := range req.NodeSelectorTerms {
		t := &req.NodeSelectorTerms[i]
		if len(t.MatchExpressions) != 0 || len(t.MatchFields) != 1 {
			return nil
		}
		if r := &t.MatchFields[0]; r.Key != objectNameField || r.Operator != api.NodeSelectorOpIn || len(r.Values) != 1 {
			return nil
		}
	}
	return req.NodeSelectorTerms // nil or empty when there are none
}

// namedNodes appends to dst the names terms name, in term order, terms
// being namedTerms' answer: dst's array, which a later change to the
// pod's terms leaves as it is.
func namedNodes(terms []api.NodeSelectorTerm, dst []string) []string {
	for i := range terms {
		dst = append(dst, terms[i].MatchFields[0].Values[0])
	}
	return dst
}

// sameNamedNodes reports whether terms, namedTerms' answer, name the
// names, in that order.
func sameNamedNodes(terms []api.NodeSelectorTerm, names []string) bool {
	if len(terms) != len(names) {
		return false
	}
	for i := range terms {
		if terms[i].MatchFields[0].Values[0] != names[i] {
			return false
		}
	}
	return true
}

// podRequired compiles pod's nodeSelector (only when non-empty) and its
// required node affinity (when set, even with zero terms, which then match
// no node). Parse errors are lazy: the faulty term matches nothing.
func podRequired(pod *api.Pod) requiredTerms {
	var r requiredTerms
	if len(pod.Spec.NodeSelector) > 0 {
		r.labels = api.SelectorFromSet(pod.Spec.NodeSelector)
		r.hasLabels = true
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.sel = nodeselector.NewSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")
	}
	return r
}

// Match reports whether node satisfies the pod's nodeSelector and required
// node affinity.
func (r *requiredTerms) Match(node *api.Node) bool {
	if r.one != "" {
		return node.Name == r.one
	}
	if r.names != nil {
		_, ok := r.names[node.Name]
		return ok
	}
	if r.hasLabels && !r.labels.Matches(node.Labels) {
		return false
	}
	if r.sel != nil {
		return r.sel.Match(node)
	}
	return true
}

type weightedTerm struct {
	m      *api.NodeSelectorTermMatcher
	weight int64
}

// preferredTerms is a compiled list of preferred scheduling terms.
type preferredTerms struct {
	terms []weightedTerm
}

// newPreferred compiles terms as component-helpers'
// NewPreferredSchedulingTerms: a term with weight 0 or without expressions
// and fields is skipped; any parse error is returned (joined), naming path.
// A nil terms slice gives (nil, nil).
func newPreferred(terms []api.PreferredSchedulingTerm, path string) (*preferredTerms, error) {
	if terms == nil {
		return nil, nil
	}
	p := &preferredTerms{terms: make([]weightedTerm, 0, len(terms))}
	var errs []error
	for i := range terms {
		t := &terms[i]
		if t.Weight == 0 || len(t.Preference.MatchExpressions) == 0 && len(t.Preference.MatchFields) == 0 {
			continue
		}
		m, err := nodeselector.CompileTerm(&t.Preference, func() string { return fmt.Sprintf("%s[%d].preference", path, i) })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.terms = append(p.terms, weightedTerm{m: m, weight: int64(t.Weight)})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// Len returns the number of usable terms.
func (p *preferredTerms) Len() int {
	if p == nil {
		return 0
	}
	return len(p.terms)
}

// Score returns the sum of the weights of the terms node matches (0 for a
// nil preferredTerms).
func (p *preferredTerms) Score(node *api.Node) int64 {
	if p == nil {
		return 0
	}
	var s int64
	for i := range p.terms {
		if p.terms[i].m.Match(node) {
			s += p.terms[i].weight
		}
	}
	return s
}

// nodeNames computes kube-scheduler v1.36 NodeAffinity's PreFilterResult
// from required terms: within a term the values of its "metadata.name In"
// field requirements are intersected; across terms they are united; a term
// without such a requirement allows every node (all=true). An empty union
// is a conflict. With no terms, all is true.
func nodeNames(terms []api.NodeSelectorTerm) (names map[string]struct{}, all bool) {
	if len(terms) == 0 {
		return nil, true
	}
	var union map[string]struct{}
	for i := range terms {
		var termNames map[string]struct{}
		for _, r := range terms[i].MatchFields {
			if r.Key != objectNameField || r.Operator != api.NodeSelectorOpIn {
				continue
			}
			s := make(map[string]struct{}, len(r.Values))
			for _, v := range r.Values {
				s[v] = struct{}{}
			}
			if termNames == nil {
				termNames = s
				continue
			}
			for n := range termNames {
				if _, ok := s[n]; !ok {
					delete(termNames, n)
				}
			}
		}
		if termNames == nil {
			return nil, true
		}
		if len(terms) == 1 {
			return termNames, false // made here: no copy needed
		}
		if union == nil {
			union = make(map[string]struct{}, len(termNames))
		}
		for n := range termNames {
			union[n] = struct{}{}
		}
	}
	return union, false
}

// sortedNames returns the keys of names in ascending order (for messages
// and tests).
func sortedNames(names map[string]struct{}) []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// signFragments are the signature fragments of a pod's node constraints:
// its required and preferred node affinity and its nodeSelector
// (kube-scheduler's NodeAffinitySigner and the nodeSelector fragment).
func signFragments(pod *api.Pod) []fw.SignFragment {
	var aff *api.NodeAffinity
	if a := pod.Spec.Affinity; a != nil {
		aff = a.NodeAffinity
	}
	return []fw.SignFragment{
		{Key: fw.SignerNodeAffinity, Value: aff},
		{Key: fw.SignerNodeSelector, Value: pod.Spec.NodeSelector},
	}
}

// Indexed resolves r against snap (fw.IndexedNodeMatch): its Match(k) is
// requiredTerms.Match of the snapshot's node k, without reading the node's
// labels for most expressions.
func (r *requiredTerms) Indexed(snap *fw.Snapshot) api.IndexedNodeMatch {
	m := api.Selector{}.Indexed(snap) // every node
	if r.hasLabels {
		m = r.labels.Indexed(snap)
	}
	if r.sel != nil {
		m = m.And(r.sel.Indexed(snap))
	}
	return m
}

// indexedPreferred is a preferredTerms resolved against one snapshot: Score(k)
// is preferredTerms.Score of the snapshot's node k.
type indexedPreferred struct {
	terms   []api.IndexedNodeMatch
	weights []int64
}

// Indexed resolves p against snap (a nil p scores 0 everywhere).
func (p *preferredTerms) Indexed(snap *fw.Snapshot) *indexedPreferred {
	x := &indexedPreferred{}
	if p == nil {
		return x
	}
	x.terms = make([]api.IndexedNodeMatch, len(p.terms))
	x.weights = make([]int64, len(p.terms))
	for i := range p.terms {
		x.terms[i] = p.terms[i].m.Indexed(snap)
		x.weights[i] = p.terms[i].weight
	}
	return x
}

// On returns x reading the nodes from snap, a snapshot of the same nodes
// in the same order as the one x was resolved against (api.IndexedNodeMatch.On).
func (x *indexedPreferred) On(snap *fw.Snapshot) *indexedPreferred {
	y := &indexedPreferred{terms: make([]api.IndexedNodeMatch, len(x.terms)), weights: x.weights}
	for i := range x.terms {
		y.terms[i] = x.terms[i].On(snap)
	}
	return y
}

// AddScores adds to out[i] Score(idx[i]), term by term.
func (x *indexedPreferred) AddScores(idx []int32, out []int64) {
	for i := range x.terms {
		x.terms[i].AddWhereMatched(idx, x.weights[i], out)
	}
}

// Score returns the sum of the weights of the terms the snapshot's node k
// matches.
func (x *indexedPreferred) Score(k int) int64 {
	var s int64
	for i := range x.terms {
		if x.terms[i].Match(k) {
			s += x.weights[i]
		}
	}
	return s
}
