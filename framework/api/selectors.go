package api

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/internal/validation"
)

// Selector is a compiled label selector: a conjunction of requirements. The
// zero Selector matches every label set; use NothingSelector for the
// selector that matches none (what a nil LabelSelector compiles to).
type Selector struct {
	reqs    []labelRequirement
	nothing bool
}

type labelRequirement struct {
	key    string
	op     LabelSelectorOperator
	values []string // sorted for In/NotIn
}

// NothingSelector returns a selector that matches no label set.
func NothingSelector() Selector { return Selector{nothing: true} }

// Compile turns s into a Selector with Kubernetes' LabelSelectorAsSelector
// semantics: nil selects nothing, empty selects everything; In and NotIn need
// values; Exists and DoesNotExist take none. Errors name the key and
// operator.
func (s *LabelSelector) Compile() (Selector, error) {
	if s == nil {
		return NothingSelector(), nil
	}
	var sel Selector
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		sel.reqs = append(sel.reqs, labelRequirement{key: k, op: LabelSelectorOpIn, values: []string{s.MatchLabels[k]}})
	}
	for i, e := range s.MatchExpressions {
		switch e.Operator {
		case LabelSelectorOpIn, LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				return Selector{}, fmt.Errorf("labelSelector.matchExpressions[%d] key %q: operator %s needs at least one value", i, e.Key, e.Operator)
			}
		case LabelSelectorOpExists, LabelSelectorOpDoesNotExist:
			if len(e.Values) != 0 {
				return Selector{}, fmt.Errorf("labelSelector.matchExpressions[%d] key %q: operator %s takes no values, got %q", i, e.Key, e.Operator, e.Values)
			}
		default:
			return Selector{}, fmt.Errorf("labelSelector.matchExpressions[%d] key %q: unknown operator %q", i, e.Key, e.Operator)
		}
		vals := slices.Clone(e.Values)
		slices.Sort(vals)
		sel.reqs = append(sel.reqs, labelRequirement{key: e.Key, op: e.Operator, values: vals})
	}
	return sel, nil
}

// MustCompile is Compile that returns NothingSelector on error, for callers
// that treat an invalid selector as matching nothing (as kube-scheduler's
// filters do after API validation).
func (s *LabelSelector) MustCompile() Selector {
	sel, err := s.Compile()
	if err != nil {
		return NothingSelector()
	}
	return sel
}

// SelectorFromSet returns the selector matching labels that contain all of
// set's key/value pairs (an empty set matches everything).
func SelectorFromSet(set map[string]string) Selector {
	ls := LabelSelector{MatchLabels: set}
	sel, _ := ls.Compile()
	return sel
}

// With returns s plus a requirement key In [values...] (or NotIn when
// negate), as used by matchLabelKeys and mismatchLabelKeys.
func (s Selector) With(key string, op LabelSelectorOperator, values ...string) Selector {
	vals := slices.Clone(values)
	slices.Sort(vals)
	out := Selector{nothing: s.nothing, reqs: make([]labelRequirement, 0, len(s.reqs)+1)}
	out.reqs = append(out.reqs, s.reqs...)
	out.reqs = append(out.reqs, labelRequirement{key: key, op: op, values: vals})
	return out
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for i := range s.reqs {
		if !s.reqs[i].matches(labels) {
			return false
		}
	}
	return true
}

// InRequirements calls yield with the key and values of each In
// requirement of s (a matchLabels entry is one of a single value), in
// order, until yield returns false: every label set s matches has that
// key, with one of those values. values is s's own and must not be
// modified.
func (s Selector) InRequirements(yield func(key string, values []string) bool) {
	for i := range s.reqs {
		if r := &s.reqs[i]; r.op == LabelSelectorOpIn && !yield(r.key, r.values) {
			return
		}
	}
}

// IsEverything reports whether s matches every label set.
func (s Selector) IsEverything() bool { return !s.nothing && len(s.reqs) == 0 }

// IsNothing reports whether s matches no label set.
func (s Selector) IsNothing() bool { return s.nothing }

func (r *labelRequirement) matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	return r.matchValue(v, ok)
}

// matchValue is matches for a label set where r's key has value v (ok) or
// is absent (!ok).
func (r *labelRequirement) matchValue(v string, ok bool) bool {
	switch r.op {
	case LabelSelectorOpIn:
		return ok && containsSorted(r.values, v)
	case LabelSelectorOpNotIn:
		return !ok || !containsSorted(r.values, v)
	case LabelSelectorOpExists:
		return ok
	case LabelSelectorOpDoesNotExist:
		return !ok
	}
	return false
}

func containsSorted(vals []string, v string) bool {
	if len(vals) == 1 {
		return vals[0] == v
	}
	_, found := slices.BinarySearch(vals, v)
	return found
}

// NodeSelectorMatcher is a compiled NodeSelector: a node matches when any
// valid term matches. Terms with no expressions and no fields, and terms
// that fail to parse, match nothing — kube's lazy-error node selector.
type NodeSelectorMatcher struct {
	terms []NodeSelectorTermMatcher
	// Errs holds the parse errors of dropped terms.
	Errs []error
}

// NodeSelectorTermMatcher is one compiled node selector term.
type NodeSelectorTermMatcher struct {
	exprs  []nodeRequirement
	fields []nodeRequirement
}

type nodeRequirement struct {
	key    string
	op     NodeSelectorOperator
	values []string
	num    int64
}

// CompileNodeSelector compiles ns. A nil selector yields a matcher that
// matches nothing; callers treat "no selector" separately.
func CompileNodeSelector(ns *NodeSelector) *NodeSelectorMatcher {
	m := &NodeSelectorMatcher{}
	if ns == nil {
		return m
	}
	for ti, t := range ns.NodeSelectorTerms {
		if ct, err := CompileNodeSelectorTerm(&t); err != nil {
			m.Errs = append(m.Errs, fmt.Errorf("nodeSelectorTerms[%d]: %w", ti, err))
		} else if ct != nil {
			m.terms = append(m.terms, *ct)
		}
	}
	return m
}

// CompileNodeSelectorTerm compiles one term; it returns nil (no error) for a
// term without expressions and fields, which matches nothing.
func CompileNodeSelectorTerm(t *NodeSelectorTerm) (*NodeSelectorTermMatcher, error) {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return nil, nil
	}
	var ct NodeSelectorTermMatcher
	for i, e := range t.MatchExpressions {
		r, err := compileNodeRequirement(e, false)
		if err != nil {
			return nil, fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
		ct.exprs = append(ct.exprs, r)
	}
	for i, e := range t.MatchFields {
		r, err := compileNodeRequirement(e, true)
		if err != nil {
			return nil, fmt.Errorf("matchFields[%d]: %w", i, err)
		}
		ct.fields = append(ct.fields, r)
	}
	return &ct, nil
}

func compileNodeRequirement(e NodeSelectorRequirement, field bool) (nodeRequirement, error) {
	r := nodeRequirement{key: e.Key, op: e.Operator, values: slices.Clone(e.Values)}
	slices.Sort(r.values)
	if !field {
		// kube parses label expressions with labels.NewRequirement, which
		// rejects invalid keys and values; the term is then dropped.
		if validation.IsQualifiedName(e.Key) != nil {
			return r, fmt.Errorf("key %q: not a valid label key", e.Key)
		}
		for _, v := range e.Values {
			if validation.IsValidLabelValue(v) != nil {
				return r, fmt.Errorf("key %q: value %q is not a valid label value", e.Key, v)
			}
		}
	}
	if field {
		switch e.Operator {
		case NodeSelectorOpIn, NodeSelectorOpNotIn:
			if len(e.Values) != 1 {
				return r, fmt.Errorf("key %q: field operator %s must have exactly one value, got %q", e.Key, e.Operator, e.Values)
			}
		default:
			return r, fmt.Errorf("key %q: field operator %q not supported", e.Key, e.Operator)
		}
		return r, nil
	}
	switch e.Operator {
	case NodeSelectorOpIn, NodeSelectorOpNotIn:
		if len(e.Values) == 0 {
			return r, fmt.Errorf("key %q: operator %s needs at least one value", e.Key, e.Operator)
		}
	case NodeSelectorOpExists, NodeSelectorOpDoesNotExist:
		if len(e.Values) != 0 {
			return r, fmt.Errorf("key %q: operator %s takes no values, got %q", e.Key, e.Operator, e.Values)
		}
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if len(e.Values) != 1 {
			return r, fmt.Errorf("key %q: operator %s needs exactly one value, got %q", e.Key, e.Operator, e.Values)
		}
		n, err := strconv.ParseInt(e.Values[0], 10, 64)
		if err != nil {
			return r, fmt.Errorf("key %q: operator %s needs an integer value, got %q", e.Key, e.Operator, e.Values[0])
		}
		r.num = n
	default:
		return r, fmt.Errorf("key %q: unknown operator %q", e.Key, e.Operator)
	}
	return r, nil
}

// Match reports whether node satisfies any term.
func (m *NodeSelectorMatcher) Match(node *Node) bool {
	for i := range m.terms {
		if m.terms[i].match(node) {
			return true
		}
	}
	return false
}

// LabelIn returns, when m is one term of one label expression with
// operator In, the expression's key and its values (sorted, read-only):
// MatchLabels then holds exactly for labels whose value of key is one of
// them. ok is false for any other matcher.
func (m *NodeSelectorMatcher) LabelIn() (key string, values []string, ok bool) {
	if m == nil || len(m.terms) != 1 || len(m.terms[0].exprs) != 1 {
		return "", nil, false
	}
	r := &m.terms[0].exprs[0]
	if r.op != NodeSelectorOpIn {
		return "", nil, false
	}
	return r.key, r.values, true
}

// MatchLabels reports whether a node carrying only labels (no name)
// satisfies any term: matchFields are not evaluated, as kube-scheduler
// matches a PersistentVolume's node affinity (component-helpers'
// CheckNodeAffinity builds a node from the labels alone). A nil matcher
// matches nothing.
func (m *NodeSelectorMatcher) MatchLabels(labels map[string]string) bool {
	if m == nil {
		return false
	}
	for i := range m.terms {
		t := &m.terms[i]
		ok := true
		for j := range t.exprs {
			if !t.exprs[j].matchLabel(labels) {
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

// Match reports whether node satisfies the term (a nil term never matches).
func (t *NodeSelectorTermMatcher) Match(node *Node) bool { return t != nil && t.match(node) }

func (t *NodeSelectorTermMatcher) match(node *Node) bool {
	for i := range t.exprs {
		if !t.exprs[i].matchLabel(node.Labels) {
			return false
		}
	}
	// kube extracts no fields from a node without a name, and then skips
	// matchFields altogether (nodeaffinity's len(nodeFields) > 0 check).
	if node.Name == "" {
		return true
	}
	for i := range t.fields {
		r := &t.fields[i]
		var v string
		if r.key == "metadata.name" {
			v = node.Name
		}
		eq := v == r.values[0]
		if (r.op == NodeSelectorOpIn) != eq {
			return false
		}
	}
	return true
}

func (r *nodeRequirement) matchLabel(labels map[string]string) bool {
	v, ok := labels[r.key]
	return r.matchValue(v, ok)
}

// matchValue is matchLabel for labels where r's key has value v (ok) or is
// absent (!ok).
func (r *nodeRequirement) matchValue(v string, ok bool) bool {
	switch r.op {
	case NodeSelectorOpIn:
		return ok && containsSorted(r.values, v)
	case NodeSelectorOpNotIn:
		return !ok || !containsSorted(r.values, v)
	case NodeSelectorOpExists:
		return ok
	case NodeSelectorOpDoesNotExist:
		return !ok
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if !ok {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		if r.op == NodeSelectorOpGt {
			return n > r.num
		}
		return n < r.num
	}
	return false
}

// RequiredNodeAffinity is a pod's hard node constraints: its nodeSelector
// AND its required node affinity terms (component-helpers'
// GetRequiredNodeAffinity).
type RequiredNodeAffinity struct {
	labels   Selector
	hasLabel bool
	terms    *NodeSelectorMatcher
}

// GetRequiredNodeAffinity compiles pod's nodeSelector and required node
// affinity.
func GetRequiredNodeAffinity(pod *Pod) RequiredNodeAffinity {
	var r RequiredNodeAffinity
	if len(pod.Spec.NodeSelector) > 0 {
		r.labels = SelectorFromSet(pod.Spec.NodeSelector)
		r.hasLabel = true
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.terms = CompileNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	return r
}

// IsEmpty reports whether the pod has no hard node constraints.
func (r *RequiredNodeAffinity) IsEmpty() bool { return !r.hasLabel && r.terms == nil }

// Match reports whether node satisfies the pod's nodeSelector and required
// node affinity.
func (r *RequiredNodeAffinity) Match(node *Node) bool {
	if r.hasLabel && !r.labels.Matches(node.Labels) {
		return false
	}
	if r.terms != nil && !r.terms.Match(node) {
		return false
	}
	return true
}

// AppendKey appends to b a key of the selector: equal selectors (the same
// requirements in the same order) append equal keys, and the keys of
// different selectors differ.
func (s *Selector) AppendKey(b []byte) []byte {
	if s.nothing {
		return append(b, 'N')
	}
	b = append(b, 'S')
	b = selectorKeyLen(b, len(s.reqs))
	for i := range s.reqs {
		r := &s.reqs[i]
		b = appendRequirementKey(b, r.key, string(r.op), r.values)
	}
	return b
}

// appendRequirementKey appends one requirement's key, operator and
// values, each length-prefixed.
func appendRequirementKey(b []byte, key, op string, values []string) []byte {
	b = selectorStrKey(selectorStrKey(b, key), op)
	b = selectorKeyLen(b, len(values))
	for _, v := range values {
		b = selectorStrKey(b, v)
	}
	return b
}

// selectorStrKey appends s length-prefixed, so that concatenations are
// unambiguous.
func selectorStrKey(b []byte, s string) []byte {
	return append(selectorKeyLen(b, len(s)), s...)
}

// selectorKeyLen appends n as four bytes (big-endian).
func selectorKeyLen(b []byte, n int) []byte {
	return append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}
