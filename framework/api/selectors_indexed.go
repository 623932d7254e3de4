package api

// This file resolves node label expressions against a snapshot: an
// expression's verdict depends only on the value of its key, so it is
// computed once per distinct value (framework.Snapshot.TopologyValues
// numbers them) and matching the snapshot's node k reads a table entry
// instead of looking the key up in the node's labels.

// indexedMaxValues bounds the table of one expression: for a key with more
// distinct values (kubernetes.io/hostname has one per node) the expression
// is evaluated on each node's value, read through the key's numbering
// (TopologyValues) rather than the node's label map, so that resolving an
// expression never costs more than the nodes a cycle evaluates.
const indexedMaxValues = 256

// IndexedNodeMatch is a disjunction of conjunctions of node label
// expressions (node selector terms, label selectors over node labels)
// resolved against one snapshot: Match(k) tells whether the snapshot's
// node k satisfies every expression of some term, as the unresolved
// matchers would for that node. Build it with NodeSelectorTermMatcher.Indexed
// or Selector.Indexed and combine with And and Or. It is read-only and
// valid until the snapshot's nodes change (as TopologyValues).
type IndexedNodeMatch struct {
	terms []indexedTerm // no term: no node matches
	nodes NodeLabelIndex
	// one is the only expression of the only term, when that is all
	// there is and it has a table: Match is then one table read.
	one *indexedExpr
}

// On returns m reading the nodes' fields (node selector field
// expressions) from nodes, which must hold the same nodes in the same
// order as the index m was resolved against: a match kept for a snapshot
// serves its clones.
func (m IndexedNodeMatch) On(nodes NodeLabelIndex) IndexedNodeMatch {
	m.nodes = nodes
	return m
}

// settled returns m with one set as its terms say.
func (m IndexedNodeMatch) settled() IndexedNodeMatch {
	m.one = nil
	if len(m.terms) == 1 && len(m.terms[0].exprs) == 1 && m.terms[0].fields == nil && m.terms[0].exprs[0].pass != nil {
		m.one = &m.terms[0].exprs[0]
	}
	return m
}

// NodeLabelIndex is a list of nodes in a fixed order with each node label
// key's values numbered: what Indexed resolves label expressions against
// (a framework.Snapshot is one).
type NodeLabelIndex interface {
	// TopologyValues numbers the values of key across the nodes.
	TopologyValues(key string) *TopologyValues
	// NodeAt returns the node at position k.
	NodeAt(k int) *Node
}

// indexedTerm is a conjunction; fields are a node selector term's field
// expressions, matched on the node itself.
type indexedTerm struct {
	exprs  []indexedExpr
	fields *NodeSelectorTermMatcher
}

// indexedExpr is one expression over a key numbered by domain (value id
// per node, -1 without the key) and values (the value of each id): its
// verdict by value id + 1 (entry 0 for a node without the key) when pass
// is set, else the expression itself, applied to the node's value.
type indexedExpr struct {
	domain []int32
	pass   []bool
	values []string
	match  func(v string, ok bool) bool
	// all: every node of the snapshot passes (known for a table only).
	all bool
}

// eval is the expression's verdict on the snapshot's node k.
func (e *indexedExpr) eval(k int) bool {
	id := e.domain[k]
	if e.pass != nil {
		return e.pass[id+1]
	}
	if id < 0 {
		return e.match("", false)
	}
	return e.match(e.values[id], true)
}

// resolve returns the expression over key whose verdict on a node with
// value v (ok) is match(v, ok).
func resolveExpr(s NodeLabelIndex, key string, match func(v string, ok bool) bool) indexedExpr {
	tv := s.TopologyValues(key)
	if len(tv.Values) > indexedMaxValues {
		return indexedExpr{domain: tv.Domain, values: tv.Values, match: match}
	}
	pass := make([]bool, len(tv.Values)+1)
	pass[0] = match("", false)
	all := pass[0] || tv.Unkeyed == 0 // the nodes without the key pass
	for id, v := range tv.Values {
		pass[id+1] = match(v, true)
		all = all && pass[id+1]
	}
	return indexedExpr{domain: tv.Domain, pass: pass, all: all}
}

// Indexed resolves the term's expressions against s. A nil term (one
// without expressions and fields) matches no node.
func (t *NodeSelectorTermMatcher) Indexed(s NodeLabelIndex) IndexedNodeMatch {
	m := IndexedNodeMatch{nodes: s}
	if t == nil {
		return m
	}
	term := indexedTerm{exprs: make([]indexedExpr, len(t.exprs))}
	for i := range t.exprs {
		term.exprs[i] = resolveExpr(s, t.exprs[i].key, t.exprs[i].matchValue)
	}
	if len(t.fields) > 0 {
		term.fields = &NodeSelectorTermMatcher{fields: t.fields}
	}
	m.terms = []indexedTerm{term}
	return m.settled()
}

// IndexedLabels resolves m against s as MatchLabels reads it, matchFields
// not evaluated (a PersistentVolume's node affinity): Match(k) is
// MatchLabels of the labels of s's node k. A nil matcher matches no node.
func (m *NodeSelectorMatcher) IndexedLabels(s NodeLabelIndex) IndexedNodeMatch {
	out := IndexedNodeMatch{nodes: s}
	if m == nil {
		return out
	}
	out.terms = make([]indexedTerm, len(m.terms))
	for i := range m.terms {
		t := &m.terms[i]
		out.terms[i].exprs = make([]indexedExpr, len(t.exprs))
		for j := range t.exprs {
			out.terms[i].exprs[j] = resolveExpr(s, t.exprs[j].key, t.exprs[j].matchValue)
		}
	}
	return out.settled()
}

// Indexed resolves the selector, applied to node labels, against s.
func (sel Selector) Indexed(s NodeLabelIndex) IndexedNodeMatch {
	m := IndexedNodeMatch{nodes: s}
	if sel.nothing {
		return m
	}
	term := indexedTerm{exprs: make([]indexedExpr, len(sel.reqs))}
	for i := range sel.reqs {
		term.exprs[i] = resolveExpr(s, sel.reqs[i].key, sel.reqs[i].matchValue)
	}
	m.terms = []indexedTerm{term}
	return m.settled()
}

// Or returns the match of nodes that m or o matches (both resolved against
// the same snapshot).
func (m IndexedNodeMatch) Or(o IndexedNodeMatch) IndexedNodeMatch {
	if m.nodes == nil {
		m.nodes = o.nodes
	}
	m.terms = append(m.terms[:len(m.terms):len(m.terms)], o.terms...)
	return m.settled()
}

// And returns the match of nodes that both m and o match (both resolved
// against the same snapshot): every pair of terms, conjoined.
func (m IndexedNodeMatch) And(o IndexedNodeMatch) IndexedNodeMatch {
	out := IndexedNodeMatch{nodes: m.nodes, terms: make([]indexedTerm, 0, len(m.terms)*len(o.terms))}
	if out.nodes == nil {
		out.nodes = o.nodes
	}
	for _, a := range m.terms {
		for _, b := range o.terms {
			t := indexedTerm{exprs: append(a.exprs[:len(a.exprs):len(a.exprs)], b.exprs...), fields: a.fields}
			if b.fields != nil {
				if t.fields == nil {
					t.fields = b.fields
				} else {
					t.fields = &NodeSelectorTermMatcher{fields: append(a.fields.fields[:len(a.fields.fields):len(a.fields.fields)], b.fields.fields...)}
				}
			}
			out.terms = append(out.terms, t)
		}
	}
	return out.settled()
}

// MatchesEvery reports whether every node of the snapshot matches, as far
// as the expressions' tables tell: some term has no field requirement and
// only expressions that every node's value passes. False does not mean
// that some node fails.
func (m *IndexedNodeMatch) MatchesEvery() bool {
terms:
	for i := range m.terms {
		t := &m.terms[i]
		if t.fields != nil {
			continue
		}
		for j := range t.exprs {
			if !t.exprs[j].all {
				continue terms
			}
		}
		return true
	}
	return false
}

// Match reports whether the snapshot's node k satisfies every expression
// of some term.
func (m *IndexedNodeMatch) Match(k int) bool {
	if e := m.one; e != nil {
		return e.pass[e.domain[k]+1]
	}
	return m.match(k)
}

// Single returns, when m is a single expression with a table (a node
// selector of one key, the common case), the key's value numbering and
// the verdict table: the snapshot's node k matches exactly when
// pass[domain[k]+1]. ok is false otherwise. The slices are read-only; a
// loop over many nodes that calls nothing can read them directly.
func (m *IndexedNodeMatch) Single() (domain []int32, pass []bool, ok bool) {
	if e := m.one; e != nil {
		return e.domain, e.pass, true
	}
	return nil, nil, false
}

// EachUnmatched calls fn(i) for each i, in increasing order, such that m
// does not match the snapshot's node idx[i].
func (m *IndexedNodeMatch) EachUnmatched(idx []int32, fn func(i int)) {
	if e := m.one; e != nil {
		domain, pass := e.domain, e.pass
		for i, k := range idx {
			if !pass[domain[k]+1] {
				fn(i)
			}
		}
		return
	}
	for i, k := range idx {
		if !m.match(int(k)) {
			fn(i)
		}
	}
}

// AddWhereMatched adds w to out[i] for each i such that m matches the
// snapshot's node idx[i].
func (m *IndexedNodeMatch) AddWhereMatched(idx []int32, w int64, out []int64) {
	out = out[:len(idx)]
	if e := m.one; e != nil {
		domain, pass := e.domain, e.pass
		for i, k := range idx {
			var add int64
			if pass[domain[k]+1] {
				add = w
			}
			out[i] += add
		}
		return
	}
	for i, k := range idx {
		if m.match(int(k)) {
			out[i] += w
		}
	}
}

func (m *IndexedNodeMatch) match(k int) bool {
terms:
	for i := range m.terms {
		t := &m.terms[i]
		for j := range t.exprs {
			if !t.exprs[j].eval(k) {
				continue terms
			}
		}
		if t.fields == nil || t.fields.match(m.nodes.NodeAt(k)) {
			return true
		}
	}
	return false
}

// Indexed resolves the pod's nodeSelector and required node affinity
// against s: Match(k) is Match of the snapshot's node k.
func (r *RequiredNodeAffinity) Indexed(s NodeLabelIndex) IndexedNodeMatch {
	m := Selector{}.Indexed(s) // every node
	if r.hasLabel {
		m = r.labels.Indexed(s)
	}
	if r.terms != nil {
		var terms IndexedNodeMatch
		for i := range r.terms.terms {
			terms = terms.Or(r.terms.terms[i].Indexed(s))
		}
		m = m.And(terms)
	}
	return m
}

// AppendKey appends to b a key of r: equal constraints (the same
// nodeSelector, and the same terms with the same requirements in the same
// order) append equal keys, and the keys of different ones differ, so
// that what r matches can be memoized by its key.
func (r *RequiredNodeAffinity) AppendKey(b []byte) []byte {
	if r.hasLabel {
		b = r.labels.AppendKey(append(b, 'L'))
	}
	if r.terms == nil {
		return append(b, '-')
	}
	b = selectorKeyLen(append(b, 'T'), len(r.terms.terms))
	for i := range r.terms.terms {
		t := &r.terms.terms[i]
		b = appendNodeRequirementsKey(b, t.exprs)
		b = appendNodeRequirementsKey(b, t.fields)
	}
	return b
}

// appendNodeRequirementsKey appends the key of a term's expressions or
// fields: their count, then each one's key, operator and values (a Gt or
// Lt bound is its one value).
func appendNodeRequirementsKey(b []byte, rs []nodeRequirement) []byte {
	b = selectorKeyLen(b, len(rs))
	for i := range rs {
		r := &rs[i]
		b = appendRequirementKey(b, r.key, string(r.op), r.values)
	}
	return b
}

// TopologyValues numbers the distinct values of one node label key across
// a snapshot: Domain[i] is the value index of the node at position i
// (framework.NodeInfo.Index), or -1 when the node lacks the key. Plugins
// that count per topology domain use it to replace per-node label-map
// lookups with slice reads. It is read-only.
type TopologyValues struct {
	Key    string
	Values []string
	Domain []int32
	// Unkeyed is the number of nodes without the key (Domain −1).
	Unkeyed int
	// Keyed, when Unkeyed > 0, has bit i&63 of word i>>6 set when the
	// node at position i has the key (nil otherwise, or when whoever
	// built the numbering did not keep it).
	Keyed []uint64
	// ByIndex is set when every node has a value of its own, numbered by
	// its position (Domain[i] == i for every i), as for the hostname key:
	// a per-domain table is then a per-node one.
	ByIndex bool
	// IDs numbers the values (IDs[Values[id]] == id); nil when whoever
	// built the numbering did not keep it (ID then searches Values).
	IDs map[string]int32
}

// ID returns the number of value v, false when no node has it.
func (tv *TopologyValues) ID(v string) (int32, bool) {
	if tv.IDs != nil {
		id, ok := tv.IDs[v]
		return id, ok
	}
	for id, w := range tv.Values {
		if w == v {
			return int32(id), true
		}
	}
	return 0, false
}
