// Package nodeselector compiles node selectors and node selector terms
// with the semantics of Kubernetes' component-helpers
// scheduling/corev1/nodeaffinity package: label keys must be qualified
// names and values valid label values; a term that fails to parse matches
// no node (lazily, in a Selector) or is an error (strictly, from
// CompileTerm); an empty term matches nothing. It is the node-selector
// matcher of the NodeAffinity plugin (filter/nodeaffinity: pods' required
// and preferred terms, its args) and of the DRA allocator (the node
// selectors of ResourceSlices and allocation results).
package nodeselector

import (
	"errors"
	"fmt"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/validation"
)

// CompileTerm validates t as component-helpers' newNodeSelectorTerm does and
// compiles it. It returns (nil, nil) for an empty term (no expressions and
// no fields), which selects no node. Errors name the term's path (called
// only to spell an error: pods' terms are compiled every cycle), the
// requirement and the offending value.
func CompileTerm(t *api.NodeSelectorTerm, path func() string) (*api.NodeSelectorTermMatcher, error) {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return nil, nil
	}
	var errs []error
	for i := range t.MatchExpressions {
		e := &t.MatchExpressions[i]
		keyErrs := validation.IsQualifiedName(e.Key)
		valuesOK := true
		for _, v := range e.Values {
			valuesOK = valuesOK && validation.IsValidLabelValue(v) == nil
		}
		if keyErrs == nil && valuesOK {
			continue
		}
		p := fmt.Sprintf("%s.matchExpressions[%d]", path(), i)
		for _, m := range keyErrs {
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
		errs = append(errs, fmt.Errorf("%s: %w", path(), err))
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
		m, err := CompileTerm(&ns.NodeSelectorTerms[i], func() string { return fmt.Sprintf("%s.nodeSelectorTerms[%d]", path, i) })
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

// Indexed resolves s against snap: its Match(k) is Match of the
// snapshot's node k, without reading the node's labels for most
// expressions.
func (s *Selector) Indexed(snap *fw.Snapshot) api.IndexedNodeMatch {
	var m api.IndexedNodeMatch
	for _, t := range s.terms {
		m = m.Or(t.Indexed(snap))
	}
	return m
}
