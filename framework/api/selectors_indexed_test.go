package api_test

import (
	"fmt"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// drawLabelledSnapshot draws a snapshot of 1 to few nodes, or of 257 to
// many (hostname values then outgrow a table), labelled with a hostname
// "h", a zone "z" and a number "num", each sometimes missing; it returns
// the number of nodes with it.
func drawLabelledSnapshot(t *rapid.T, few, many int) (int, *fw.Snapshot) {
	n := rapid.OneOf(rapid.IntRange(1, few), rapid.IntRange(257, many)).Draw(t, "nodes")
	nodes := make([]*api.Node, n)
	for i := range nodes {
		labels := map[string]string{}
		if rapid.IntRange(0, 9).Draw(t, "hasHost") > 0 {
			labels["h"] = fmt.Sprintf("n%d", i)
		}
		if rapid.IntRange(0, 4).Draw(t, "hasZone") > 0 {
			labels["z"] = rapid.SampledFrom([]string{"a", "b", "c", ""}).Draw(t, "zone")
		}
		if rapid.Bool().Draw(t, "hasNum") {
			labels["num"] = rapid.SampledFrom([]string{"1", "5", "12", "x"}).Draw(t, "num")
		}
		nodes[i] = &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}}
	}
	snap, err := fw.NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n, snap
}

// TestPropIndexedNodeMatchEqualsMatch: a node selector term or a label
// selector resolved against a snapshot matches each snapshot node exactly
// as the term or selector matches the node itself, with keys of few values
// (tables), of more values than a table holds (label lookups), absent
// keys, every operator and field expressions; Single's table, where it
// has one, says the same, and every node matches when MatchesEvery says
// so.
func TestPropIndexedNodeMatchEqualsMatch(t *testing.T) {
	singles := 0 // matches Single resolved to one table
	rapid.Check(t, func(t *rapid.T) {
		n, snap := drawLabelledSnapshot(t, 30, 300)
		values := func(key string) []string {
			switch key {
			case "h":
				return []string{fmt.Sprintf("n%d", rapid.IntRange(0, n-1).Draw(t, "hv")), "n0"}
			case "num":
				return []string{rapid.SampledFrom([]string{"0", "5", "10"}).Draw(t, "numv")}
			}
			return []string{rapid.SampledFrom([]string{"a", "b", ""}).Draw(t, "zv")}
		}
		var term api.NodeSelectorTerm
		for range rapid.IntRange(0, 3).Draw(t, "exprs") {
			key := rapid.SampledFrom([]string{"h", "z", "num", "missing"}).Draw(t, "key")
			op := rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists,
				api.NodeSelectorOpDoesNotExist, api.NodeSelectorOpGt, api.NodeSelectorOpLt}).Draw(t, "op")
			r := api.NodeSelectorRequirement{Key: key, Operator: op}
			switch op {
			case api.NodeSelectorOpIn, api.NodeSelectorOpNotIn:
				r.Values = values(key)
			case api.NodeSelectorOpGt, api.NodeSelectorOpLt:
				r.Values = []string{rapid.SampledFrom([]string{"0", "5", "10"}).Draw(t, "bound")}
			}
			term.MatchExpressions = append(term.MatchExpressions, r)
		}
		if rapid.IntRange(0, 3).Draw(t, "field") == 0 {
			term.MatchFields = []api.NodeSelectorRequirement{{Key: "metadata.name",
				Operator: rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn}).Draw(t, "fieldOp"),
				Values:   []string{fmt.Sprintf("n%d", rapid.IntRange(0, n-1).Draw(t, "fieldNode"))}}}
		}
		tm, err := api.CompileNodeSelectorTerm(&term)
		if err != nil {
			t.Fatal(err)
		}
		ls := &api.LabelSelector{MatchLabels: map[string]string{}}
		for _, key := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{"h", "z", "missing"}), func(k string) string { return k }).Draw(t, "selKeys") {
			ls.MatchLabels[key] = values(key)[0]
		}
		if rapid.Bool().Draw(t, "selExpr") {
			ls.MatchExpressions = []api.LabelSelectorRequirement{{Key: "z", Operator: api.LabelSelectorOpNotIn, Values: []string{"a"}}}
		}
		sel, err := ls.Compile()
		if err != nil {
			t.Fatal(err)
		}
		it, is := tm.Indexed(snap), sel.Indexed(snap)
		nothing := api.NothingSelector().Indexed(snap)
		for k, ni := range snap.Nodes() {
			if got, want := it.Match(k), tm.Match(ni.Node()); got != want {
				t.Fatalf("term %+v on node %s %v: indexed %v, plain %v", term, ni.Name(), ni.Node().Labels, got, want)
			}
			if got, want := is.Match(k), sel.Matches(ni.Node().Labels); got != want {
				t.Fatalf("selector %+v on node %s %v: indexed %v, plain %v", ls, ni.Name(), ni.Node().Labels, got, want)
			}
			if nothing.Match(k) {
				t.Fatalf("NothingSelector matches node %s", ni.Name())
			}
		}
		// EachUnmatched and AddWhereMatched over a drawn list of nodes
		// (any order, repeats), for the term, the selector, both and
		// either.
		idx := rapid.SliceOf(rapid.Int32Range(0, int32(n-1))).Draw(t, "idx")
		all := snap.Nodes()
		for _, c := range []struct {
			name  string
			m     api.IndexedNodeMatch
			plain func(ni *fw.NodeInfo) bool
		}{
			{"term", it, func(ni *fw.NodeInfo) bool { return tm.Match(ni.Node()) }},
			{"selector", is, func(ni *fw.NodeInfo) bool { return sel.Matches(ni.Node().Labels) }},
			{"both", it.And(is), func(ni *fw.NodeInfo) bool { return tm.Match(ni.Node()) && sel.Matches(ni.Node().Labels) }},
			{"either", it.Or(is), func(ni *fw.NodeInfo) bool { return tm.Match(ni.Node()) || sel.Matches(ni.Node().Labels) }},
		} {
			var got, want []int
			c.m.EachUnmatched(idx, func(i int) { got = append(got, i) })
			for i, k := range idx {
				if !c.plain(all[k]) {
					want = append(want, i)
				}
				if c.m.Match(int(k)) != c.plain(all[k]) {
					t.Fatalf("%s on node %s: Match %v, plain %v", c.name, all[k].Name(), c.m.Match(int(k)), c.plain(all[k]))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: EachUnmatched(%v) = %v, want %v", c.name, idx, got, want)
			}
			if c.m.MatchesEvery() {
				for _, ni := range all {
					if !c.plain(ni) {
						t.Fatalf("%s: MatchesEvery, yet node %s %v does not match", c.name, ni.Name(), ni.Node().Labels)
					}
				}
			}
			if domain, pass, ok := c.m.Single(); ok {
				singles++
				for _, k := range idx {
					if pass[domain[k]+1] != c.plain(all[k]) {
						t.Fatalf("%s: Single's table on node %s: %v, plain %v", c.name, all[k].Name(), pass[domain[k]+1], c.plain(all[k]))
					}
				}
			}
			sums := make([]int64, len(idx))
			for i := range sums {
				sums[i] = int64(i)
			}
			c.m.AddWhereMatched(idx, 7, sums)
			for i, k := range idx {
				want := int64(i)
				if c.plain(all[k]) {
					want += 7
				}
				if sums[i] != want {
					t.Fatalf("%s: AddWhereMatched(%v, 7) on %d (node %s) = %d, want %d", c.name, idx, i, all[k].Name(), sums[i], want)
				}
			}
		}
	})
	if singles == 0 {
		t.Fatal("no match resolved to a single table: Single went unchecked")
	}
}

// TestIndexedNilTermMatchesNothing: a term without expressions and
// fields compiles to nil, which matches no node, indexed or not.
func TestIndexedNilTermMatchesNothing(t *testing.T) {
	snap := fw.MustSnapshot([]*api.Node{{ObjectMeta: api.ObjectMeta{Name: "a"}}}, nil)
	var tm *api.NodeSelectorTermMatcher
	m := tm.Indexed(snap)
	if m.Match(0) || tm.Match(snap.Nodes()[0].Node()) {
		t.Fatal("a nil term matches a node")
	}
}

// TestIndexedManyValuesEqualsMatch: expressions over a key with more
// distinct values than a verdict table holds (one hostname per node, some
// nodes without it) are evaluated on each node's value read through the
// key's numbering; every operator matches each node as the unresolved
// term does, alone and conjoined with a tabled key.
func TestIndexedManyValuesEqualsMatch(t *testing.T) {
	const n = 600
	nodes := make([]*api.Node, n)
	for i := range nodes {
		labels := map[string]string{"z": []string{"a", "b"}[i%2]}
		if i%7 != 3 {
			labels["h"] = fmt.Sprintf("n%d", i)
		}
		nodes[i] = &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}}
	}
	snap := fw.MustSnapshot(nodes, nil)
	if tv := snap.TopologyValues("h"); len(tv.Values) <= 256 {
		t.Fatalf("key h has %d values: too few to outgrow a table", len(tv.Values))
	}
	for _, tc := range []struct {
		name  string
		exprs []api.NodeSelectorRequirement
	}{
		{"in", []api.NodeSelectorRequirement{{Key: "h", Operator: api.NodeSelectorOpIn, Values: []string{"n5", "n10", "n3"}}}},
		{"notIn", []api.NodeSelectorRequirement{{Key: "h", Operator: api.NodeSelectorOpNotIn, Values: []string{"n5", "n599"}}}},
		{"exists", []api.NodeSelectorRequirement{{Key: "h", Operator: api.NodeSelectorOpExists}}},
		{"doesNotExist", []api.NodeSelectorRequirement{{Key: "h", Operator: api.NodeSelectorOpDoesNotExist}}},
		{"inAndZone", []api.NodeSelectorRequirement{
			{Key: "h", Operator: api.NodeSelectorOpIn, Values: []string{"n4", "n5", "n17"}},
			{Key: "z", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := api.CompileNodeSelectorTerm(&api.NodeSelectorTerm{MatchExpressions: tc.exprs})
			if err != nil {
				t.Fatal(err)
			}
			m := tm.Indexed(snap)
			matched := 0
			for k, ni := range snap.Nodes() {
				got, want := m.Match(k), tm.Match(ni.Node())
				if got != want {
					t.Fatalf("node %s %v: indexed %v, plain %v", ni.Name(), ni.Node().Labels, got, want)
				}
				if want {
					matched++
				}
			}
			if matched == 0 || matched == n {
				t.Fatalf("the term matches %d of %d nodes: the case cannot tell a wrong verdict", matched, n)
			}
		})
	}
}

// TestPropIndexedLabelsEqualsMatchLabels: a node selector of several terms
// (field-only terms, terms dropped as invalid, keys with many values
// included) resolved as MatchLabels reads it matches each snapshot node
// as MatchLabels matches the node's labels; where LabelIn reports one In
// expression, its key and values say the same.
func TestPropIndexedLabelsEqualsMatchLabels(t *testing.T) {
	ins := 0 // selectors LabelIn resolved
	rapid.Check(t, func(t *rapid.T) {
		n, snap := drawLabelledSnapshot(t, 20, 270)
		var ns api.NodeSelector
		if rapid.IntRange(0, 2).Draw(t, "oneIn") == 0 { // a local volume's shape
			ns.NodeSelectorTerms = []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{
				Key: rapid.SampledFrom([]string{"h", "z", "missing"}).Draw(t, "inKey"), Operator: api.NodeSelectorOpIn,
				Values: rapid.SliceOfN(rapid.SampledFrom([]string{"a", "n0", fmt.Sprintf("n%d", n-1), "n999"}), 1, 2).Draw(t, "inValues")}}}}
		}
		for range rapid.IntRange(0, 3).Draw(t, "terms") {
			var term api.NodeSelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, "exprs") {
				key := rapid.SampledFrom([]string{"h", "z", "missing", "bad key!"}).Draw(t, "key")
				op := rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists}).Draw(t, "op")
				r := api.NodeSelectorRequirement{Key: key, Operator: op}
				if op != api.NodeSelectorOpExists {
					r.Values = rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "n0", fmt.Sprintf("n%d", n-1), "n999"}), 1, 3).Draw(t, "values")
				}
				term.MatchExpressions = append(term.MatchExpressions, r)
			}
			if rapid.IntRange(0, 3).Draw(t, "field") == 0 {
				term.MatchFields = []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n0"}}}
			}
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
		}
		m := api.CompileNodeSelector(&ns)
		im := m.IndexedLabels(snap)
		key, values, in := m.LabelIn()
		if in {
			ins++
		}
		for k, ni := range snap.Nodes() {
			labels := ni.Node().Labels
			want := m.MatchLabels(labels)
			if got := im.Match(k); got != want {
				t.Fatalf("selector %+v on node %s %v: indexed %v, MatchLabels %v", ns, ni.Name(), labels, got, want)
			}
			if in {
				v, ok := labels[key]
				if got := ok && slices.Contains(values, v); got != want {
					t.Fatalf("selector %+v: LabelIn %s %v on node %v says %v, MatchLabels %v", ns, key, values, labels, got, want)
				}
			}
		}
		var nilMatcher *api.NodeSelectorMatcher
		if none := nilMatcher.IndexedLabels(snap); none.Match(0) {
			t.Fatal("a nil matcher resolved matches node 0")
		}
	})
	if ins == 0 {
		t.Fatal("no selector was one In expression: LabelIn went unchecked")
	}
}

// TestTopologyValuesID: a snapshot's numbering finds each value's number
// through its IDs; one built without IDs finds them by search; a value no
// node has is not found either way.
func TestTopologyValuesID(t *testing.T) {
	snap, err := fw.NewSnapshot([]*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "a", Labels: map[string]string{"z": "x"}}},
		{ObjectMeta: api.ObjectMeta{Name: "b", Labels: map[string]string{"z": "y"}}},
		{ObjectMeta: api.ObjectMeta{Name: "c", Labels: map[string]string{"z": "x"}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built := snap.TopologyValues("z")
	bare := &api.TopologyValues{Key: "z", Values: built.Values, Domain: built.Domain}
	for _, tv := range []*api.TopologyValues{built, bare} {
		for id, v := range tv.Values {
			if got, ok := tv.ID(v); !ok || got != int32(id) {
				t.Errorf("IDs %v: ID(%q) = %d, %v; want %d", tv.IDs != nil, v, got, ok, id)
			}
		}
		if _, ok := tv.ID("w"); ok {
			t.Errorf("IDs %v: ID of a value no node has found", tv.IDs != nil)
		}
	}
	if built.IDs == nil || len(built.Values) != 2 {
		t.Fatalf("snapshot numbering: values %v, IDs %v", built.Values, built.IDs)
	}
}

// TestIndexedMatchesEvery: MatchesEvery tells a match that every node of
// the snapshot meets from one that some node fails, for expressions read
// from tables, nodes without the key, field requirements, an empty
// selector and matches combined with Or and And.
func TestIndexedMatchesEvery(t *testing.T) {
	var nodes []*api.Node
	for i, z := range []string{"a", "b", "a", "b"} {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"z": z, "os": "linux"}}})
	}
	nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: "bare", Labels: map[string]string{"os": "linux"}}})
	snap := fw.MustSnapshot(nodes, nil)
	term := func(fields bool, rs ...api.NodeSelectorRequirement) api.IndexedNodeMatch {
		t.Helper()
		nt := api.NodeSelectorTerm{MatchExpressions: rs}
		if fields {
			nt.MatchFields = []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpNotIn, Values: []string{"n0"}}}
		}
		m, err := api.CompileNodeSelectorTerm(&nt)
		if err != nil {
			t.Fatal(err)
		}
		return m.Indexed(snap)
	}
	req := func(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	linux := term(false, req("os", api.NodeSelectorOpIn, "linux"))
	zoneA := term(false, req("z", api.NodeSelectorOpIn, "a"))
	for _, c := range []struct {
		name string
		m    api.IndexedNodeMatch
		want bool
	}{
		{"a value every node has", linux, true},
		{"a value some nodes have", zoneA, false},
		{"every value, a node without the key", term(false, req("z", api.NodeSelectorOpIn, "a", "b")), false},
		{"NotIn a value no node has (a node without the key passes)", term(false, req("z", api.NodeSelectorOpNotIn, "c")), true},
		{"Exists on a key every node has", term(false, req("os", api.NodeSelectorOpExists)), true},
		{"two expressions every node passes", term(false, req("os", api.NodeSelectorOpExists), req("z", api.NodeSelectorOpNotIn, "c")), true},
		{"with a field requirement", term(true, req("os", api.NodeSelectorOpExists)), false},
		{"the empty selector", api.Selector{}.Indexed(snap), true},
		{"Or of a partial match and a full one", zoneA.Or(linux), true},
		{"And of a partial match and a full one", zoneA.And(linux), false},
	} {
		if got := c.m.MatchesEvery(); got != c.want {
			t.Errorf("%s: MatchesEvery = %v, want %v", c.name, got, c.want)
		}
		every := true
		for k := range snap.Nodes() {
			every = every && c.m.Match(k)
		}
		if every != c.want {
			t.Errorf("%s: the case is wrong: every node matches %v", c.name, every)
		}
	}
}
