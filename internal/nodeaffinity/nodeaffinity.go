// Package nodeaffinity compiles node selectors and node affinity terms with
// the semantics of Kubernetes' component-helpers
// scheduling/corev1/nodeaffinity package (v0.36): label keys must be
// qualified names and values valid label values; a term that fails to
// parse matches no node (lazily, for a pod's required terms) or is an
// error (strictly, for configuration and preferred terms); an empty term
// matches nothing. It is shared by the filter and score halves of the
// NodeAffinity plugin and by its args validation.
package nodeaffinity

import (
	"errors"
	"fmt"
	"slices"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/validation"
)

// ObjectNameField is the only field node selector terms may match on.
const ObjectNameField = "metadata.name"

// CompileTerm validates t as component-helpers' newNodeSelectorTerm does and
// compiles it. It returns (nil, nil) for an empty term (no expressions and
// no fields), which selects no node. Errors name path, the requirement and
// the offending value.
func CompileTerm(t *api.NodeSelectorTerm, path string) (*api.NodeSelectorTermMatcher, error) {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return nil, nil
	}
	var errs []error
	for i := range t.MatchExpressions {
		e := &t.MatchExpressions[i]
		p := fmt.Sprintf("%s.matchExpressions[%d]", path, i)
		for _, m := range validation.IsQualifiedName(e.Key) {
			errs = append(errs, fmt.Errorf("%s.key=%q: %s", p, e.Key, m))
		}
		for j, v := range e.Values {
			for _, m := range validation.IsValidLabelValue(v) {
				errs = append(errs, fmt.Errorf("%s.values[%d]=%q: %s", p, j, v, m))
			}
		}
	}
	m, err := api.CompileNodeSelectorTerm(t)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", path, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// Selector is a compiled NodeSelector: a node matches when any term does.
// Terms that failed to parse are dropped and match nothing (component-helpers'
// LazyErrorNodeSelector); Err reports them.
type Selector struct {
	terms []*api.NodeSelectorTermMatcher
	errs  []error
}

// NewSelector compiles ns (nil ns gives a selector matching nothing).
func NewSelector(ns *api.NodeSelector, path string) *Selector {
	s := &Selector{}
	if ns == nil {
		return s
	}
	for i := range ns.NodeSelectorTerms {
		m, err := CompileTerm(&ns.NodeSelectorTerms[i], fmt.Sprintf("%s.nodeSelectorTerms[%d]", path, i))
		if err != nil {
			s.errs = append(s.errs, err)
			continue
		}
		if m != nil {
			s.terms = append(s.terms, m)
		}
	}
	return s
}

// Err joins the parse errors of the dropped terms (nil when none).
func (s *Selector) Err() error { return errors.Join(s.errs...) }

// Match reports whether node satisfies any valid term.
func (s *Selector) Match(node *api.Node) bool {
	for _, t := range s.terms {
		if t.Match(node) {
			return true
		}
	}
	return false
}

// Required is a pod's hard node constraints: spec.nodeSelector AND the
// required node affinity terms, as component-helpers' RequiredNodeAffinity.
type Required struct {
	labels    api.Selector
	hasLabels bool
	sel       *Selector
}

// GetRequired compiles pod's nodeSelector (only when non-empty) and its
// required node affinity (when set, even with zero terms, which then match
// no node). Parse errors are lazy: the faulty term matches nothing.
func GetRequired(pod *api.Pod) Required {
	var r Required
	if len(pod.Spec.NodeSelector) > 0 {
		r.labels = api.SelectorFromSet(pod.Spec.NodeSelector)
		r.hasLabels = true
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.sel = NewSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")
	}
	return r
}

// Match reports whether node satisfies the pod's nodeSelector and required
// node affinity.
func (r *Required) Match(node *api.Node) bool {
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

// Preferred is a compiled list of preferred scheduling terms.
type Preferred struct {
	terms []weightedTerm
}

// NewPreferred compiles terms as component-helpers'
// NewPreferredSchedulingTerms: a term with weight 0 or without expressions
// and fields is skipped; any parse error is returned (joined), naming path.
// A nil terms slice gives (nil, nil).
func NewPreferred(terms []api.PreferredSchedulingTerm, path string) (*Preferred, error) {
	if terms == nil {
		return nil, nil
	}
	p := &Preferred{terms: make([]weightedTerm, 0, len(terms))}
	var errs []error
	for i := range terms {
		t := &terms[i]
		if t.Weight == 0 || len(t.Preference.MatchExpressions) == 0 && len(t.Preference.MatchFields) == 0 {
			continue
		}
		m, err := CompileTerm(&t.Preference, fmt.Sprintf("%s[%d].preference", path, i))
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
func (p *Preferred) Len() int {
	if p == nil {
		return 0
	}
	return len(p.terms)
}

// Score returns the sum of the weights of the terms node matches (0 for a
// nil Preferred).
func (p *Preferred) Score(node *api.Node) int64 {
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

// NodeNames computes kube-scheduler v1.36 NodeAffinity's PreFilterResult
// from required terms: within a term the values of its "metadata.name In"
// field requirements are intersected; across terms they are united; a term
// without such a requirement allows every node (all=true). An empty union
// is a conflict. With no terms, all is true.
func NodeNames(terms []api.NodeSelectorTerm) (names map[string]struct{}, all bool) {
	if len(terms) == 0 {
		return nil, true
	}
	var union map[string]struct{}
	for i := range terms {
		var termNames map[string]struct{}
		for _, r := range terms[i].MatchFields {
			if r.Key != ObjectNameField || r.Operator != api.NodeSelectorOpIn {
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
		if union == nil {
			union = make(map[string]struct{}, len(termNames))
		}
		for n := range termNames {
			union[n] = struct{}{}
		}
	}
	return union, false
}

// SortedNames returns the keys of names in ascending order (for messages
// and tests).
func SortedNames(names map[string]struct{}) []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// SignFragments are the signature fragments of a pod's node constraints:
// its required and preferred node affinity and its nodeSelector
// (kube-scheduler's NodeAffinitySigner and the nodeSelector fragment).
func SignFragments(pod *api.Pod) []fw.SignFragment {
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
// Required.Match of the snapshot's node k, without reading the node's
// labels for most expressions.
func (r *Required) Indexed(snap *fw.Snapshot) api.IndexedNodeMatch {
	m := api.Selector{}.Indexed(snap) // every node
	if r.hasLabels {
		m = r.labels.Indexed(snap)
	}
	if r.sel != nil {
		var terms api.IndexedNodeMatch
		for _, t := range r.sel.terms {
			terms = terms.Or(t.Indexed(snap))
		}
		m = m.And(terms)
	}
	return m
}

// IndexedPreferred is a Preferred resolved against one snapshot: Score(k)
// is Preferred.Score of the snapshot's node k.
type IndexedPreferred struct {
	terms   []api.IndexedNodeMatch
	weights []int64
}

// Indexed resolves p against snap (a nil p scores 0 everywhere).
func (p *Preferred) Indexed(snap *fw.Snapshot) *IndexedPreferred {
	x := &IndexedPreferred{}
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

// AddScores adds to out[i] Score(idx[i]), term by term.
func (x *IndexedPreferred) AddScores(idx []int32, out []int64) {
	for i := range x.terms {
		x.terms[i].AddWhereMatched(idx, x.weights[i], out)
	}
}

// Score returns the sum of the weights of the terms the snapshot's node k
// matches.
func (x *IndexedPreferred) Score(k int) int64 {
	var s int64
	for i := range x.terms {
		if x.terms[i].Match(k) {
			s += x.weights[i]
		}
	}
	return s
}
