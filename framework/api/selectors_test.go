package api_test

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

type omLabels = map[string]string

// omExpr is a label selector requirement.
func omExpr(key string, op api.LabelSelectorOperator, values ...string) api.LabelSelectorRequirement {
	return api.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

// LabelSelector.Compile follows apimachinery's LabelSelectorAsSelector
// (pkg/apis/meta/v1/helpers.go) and labels.Requirement.Matches
// (pkg/labels/selector.go). The first five selectors are kube's
// TestLabelSelectorAsSelector (helpers_test.go): nil → Nothing, {} →
// Everything, foo=bar, baz in (norf,qux), and both.
func TestLabelSelectorCompileMatches(t *testing.T) {
	fooBar := omLabels{"foo": "bar"}
	bazIn := omExpr("baz", api.LabelSelectorOpIn, "qux", "norf")
	tests := []struct {
		name  string
		sel   *api.LabelSelector
		match []omLabels
		miss  []omLabels
	}{
		{name: "nil selects nothing", sel: nil, miss: []omLabels{nil, {}, {"a": "b"}}},
		{name: "empty selects everything", sel: &api.LabelSelector{}, match: []omLabels{nil, {}, {"a": "b"}}},
		{name: "kube foo=bar", sel: &api.LabelSelector{MatchLabels: fooBar},
			match: []omLabels{{"foo": "bar"}, {"foo": "bar", "x": "y"}}, miss: []omLabels{nil, {"foo": "baz"}, {"Foo": "bar"}}},
		{name: "kube baz in (norf,qux)", sel: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{bazIn}},
			match: []omLabels{{"baz": "qux"}, {"baz": "norf"}}, miss: []omLabels{{"baz": "quux"}, {}, {"baz": ""}}},
		{name: "kube matchLabels AND matchExpressions", sel: &api.LabelSelector{MatchLabels: fooBar, MatchExpressions: []api.LabelSelectorRequirement{bazIn}},
			match: []omLabels{{"foo": "bar", "baz": "norf"}}, miss: []omLabels{{"foo": "bar"}, {"baz": "norf"}, {"foo": "x", "baz": "norf"}}},
		{name: "NotIn: absent key matches", sel: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpNotIn, "a", "b")}},
			match: []omLabels{nil, {"k": "c"}, {"k": ""}, {"other": "a"}}, miss: []omLabels{{"k": "a"}, {"k": "b"}}},
		{name: "Exists", sel: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpExists)}},
			match: []omLabels{{"k": ""}, {"k": "v"}}, miss: []omLabels{nil, {"K": "v"}}},
		{name: "DoesNotExist", sel: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpDoesNotExist)}},
			match: []omLabels{nil, {"x": "k"}}, miss: []omLabels{{"k": ""}, {"k": "v"}}},
		{name: "matchLabels with empty value", sel: &api.LabelSelector{MatchLabels: omLabels{"k": ""}},
			match: []omLabels{{"k": ""}}, miss: []omLabels{nil, {"k": "v"}}},
		// Many values: matching relies on the values being sorted.
		{name: "In with unsorted values", sel: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpIn, "zeta", "alpha", "mid", "beta")}},
			match: []omLabels{{"k": "zeta"}, {"k": "alpha"}, {"k": "mid"}, {"k": "beta"}}, miss: []omLabels{{"k": "gamma"}}},
		{name: "contradiction matches nothing", sel: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpExists), omExpr("k", api.LabelSelectorOpDoesNotExist)}},
			miss: []omLabels{nil, {"k": "v"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := tc.sel.Compile()
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			for _, l := range tc.match {
				if !sel.Matches(l) {
					t.Errorf("Matches(%v) = false, want true", l)
				}
			}
			for _, l := range tc.miss {
				if sel.Matches(l) {
					t.Errorf("Matches(%v) = true, want false", l)
				}
			}
		})
	}
	nothing, _ := (*api.LabelSelector)(nil).Compile()
	everything, _ := (&api.LabelSelector{}).Compile()
	if !nothing.IsNothing() || nothing.IsEverything() || everything.IsNothing() || !everything.IsEverything() {
		t.Errorf("IsNothing/IsEverything wrong: nothing=%v/%v everything=%v/%v",
			nothing.IsNothing(), nothing.IsEverything(), everything.IsNothing(), everything.IsEverything())
	}
	if zero := (api.Selector{}); !zero.IsEverything() || !zero.Matches(omLabels{"a": "b"}) {
		t.Error("zero Selector should match everything")
	}
}

// The error cases of labels.NewRequirement and LabelSelectorAsSelector: In
// and NotIn need values, Exists and DoesNotExist take none, an unknown
// operator is rejected (kube TestLabelSelectorAsSelector's "Exists with
// values" case is the third row). Messages name the expression, key and
// operator.
func TestLabelSelectorCompileErrors(t *testing.T) {
	ok := omExpr("fine", api.LabelSelectorOpExists)
	tests := []struct {
		name string
		sel  api.LabelSelector
		want string
	}{
		{"In without values", api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpIn)}},
			`labelSelector.matchExpressions[0] key "k": operator In needs at least one value`},
		{"NotIn without values, second expression", api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ok, omExpr("k2", api.LabelSelectorOpNotIn)}},
			`labelSelector.matchExpressions[1] key "k2": operator NotIn needs at least one value`},
		{"Exists with values", api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("baz", api.LabelSelectorOpExists, "qux", "norf")}},
			`labelSelector.matchExpressions[0] key "baz": operator Exists takes no values, got ["qux" "norf"]`},
		{"DoesNotExist with values", api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpDoesNotExist, "v")}},
			`labelSelector.matchExpressions[0] key "k": operator DoesNotExist takes no values, got ["v"]`},
		{"unknown operator", api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", "Gt", "1")}},
			`labelSelector.matchExpressions[0] key "k": unknown operator "Gt"`},
		{"empty operator", api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", "")}},
			`labelSelector.matchExpressions[0] key "k": unknown operator ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.sel.Compile()
			if err == nil || err.Error() != tc.want {
				t.Errorf("Compile error = %v, want %q", err, tc.want)
			}
			// MustCompile turns an invalid selector into Nothing.
			if got := tc.sel.MustCompile(); !got.IsNothing() || got.Matches(omLabels{"k": "v", "k2": "v", "baz": "qux", "fine": ""}) {
				t.Errorf("MustCompile of an invalid selector = %+v, want Nothing", got)
			}
		})
	}
}

func TestSelectorWith(t *testing.T) {
	base := (&api.LabelSelector{MatchLabels: omLabels{"app": "web"}}).MustCompile()
	in := base.With("zone", api.LabelSelectorOpIn, "z2", "a1", "m3")
	notIn := base.With("zone", api.LabelSelectorOpNotIn, "z1")

	cases := []struct {
		name   string
		sel    api.Selector
		labels omLabels
		want   bool
	}{
		{"base ignores zone", base, omLabels{"app": "web", "zone": "anything"}, true},
		{"in: listed value (unsorted input)", in, omLabels{"app": "web", "zone": "a1"}, true},
		{"in: other value", in, omLabels{"app": "web", "zone": "z1"}, false},
		{"in: still needs app=web", in, omLabels{"app": "db", "zone": "a1"}, false},
		{"notIn: excluded value", notIn, omLabels{"app": "web", "zone": "z1"}, false},
		{"notIn: absent zone", notIn, omLabels{"app": "web"}, true},
		// Two With calls on one base do not see each other's requirement.
		{"in does not carry notIn", in, omLabels{"app": "web", "zone": "z2"}, true},
		{"notIn does not carry in", notIn, omLabels{"app": "web", "zone": "q"}, true},
		{"everything.With", api.Selector{}.With("k", api.LabelSelectorOpIn, "v"), omLabels{"k": "v"}, true},
		{"nothing.With stays nothing", api.NothingSelector().With("k", api.LabelSelectorOpIn, "v"), omLabels{"k": "v"}, false},
	}
	for _, tc := range cases {
		if got := tc.sel.Matches(tc.labels); got != tc.want {
			t.Errorf("%s: Matches(%v) = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	if base.IsEverything() || in.IsNothing() {
		t.Error("With changed the nothing/everything flags")
	}
}

func TestSelectorFromSet(t *testing.T) {
	for _, set := range []omLabels{nil, {}} {
		if s := api.SelectorFromSet(set); !s.IsEverything() || !s.Matches(omLabels{"x": "y"}) {
			t.Errorf("SelectorFromSet(%v) should select everything", set)
		}
	}
	s := api.SelectorFromSet(omLabels{"a": "1", "b": "2"})
	for _, tc := range []struct {
		labels omLabels
		want   bool
	}{
		{omLabels{"a": "1", "b": "2"}, true},
		{omLabels{"a": "1", "b": "2", "c": "3"}, true},
		{omLabels{"a": "1"}, false},
		{omLabels{"a": "1", "b": "3"}, false},
		{nil, false},
	} {
		if got := s.Matches(tc.labels); got != tc.want {
			t.Errorf("SelectorFromSet{a=1,b=2}.Matches(%v) = %v, want %v", tc.labels, got, tc.want)
		}
	}
}

// Node selector helpers.

func omNSR(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func omTerm(exprs []api.NodeSelectorRequirement, fields ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: exprs, MatchFields: fields}
}

func omExprs(r ...api.NodeSelectorRequirement) []api.NodeSelectorRequirement { return r }

func omNode(name string, labels omLabels) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}}
}

// CompileNodeSelector follows component-helpers nodeaffinity.go
// (LazyErrorNodeSelector): terms ORed, requirements ANDed, an empty term
// matches nothing, a term that fails to parse is dropped while the others
// still match. Rows marked kube are TestNodeSelectorMatch and
// TestPodMatchesNodeSelectorAndAffinityTerms of nodeaffinity_test.go.
func TestCompileNodeSelectorMatch(t *testing.T) {
	nameIn := func(v ...string) api.NodeSelectorRequirement {
		return omNSR("metadata.name", api.NodeSelectorOpIn, v...)
	}
	tests := []struct {
		name    string
		terms   []api.NodeSelectorTerm
		node    *api.Node
		want    bool
		wantErr int // number of dropped terms
	}{
		{name: "no terms", terms: nil, node: omNode("n", omLabels{"a": "b"}), want: false},
		{name: "empty term matches nothing", terms: []api.NodeSelectorTerm{{}}, node: omNode("n", omLabels{"a": "b"}), want: false},
		{name: "kube empty matchExpressions slice", terms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{}}}, node: omNode("n", omLabels{"foo": "bar"}), want: false},
		{name: "kube In matches", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpIn, "bar", "value2")))}, node: omNode("n", omLabels{"foo": "bar"}), want: true},
		{name: "kube In does not match", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpIn, "value1", "value2")))}, node: omNode("n", omLabels{"foo": "bar"}), want: false},
		// 0206 > 0204 as integers (ParseInt ignores the leading zero).
		{name: "kube Gt", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("kernel-version", api.NodeSelectorOpGt, "0204")))}, node: omNode("n", omLabels{"kernel-version": "0206"}), want: true},
		{name: "Gt equal is false", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpGt, "5")))}, node: omNode("n", omLabels{"v": "5"}), want: false},
		{name: "Lt", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpLt, "7")))}, node: omNode("n", omLabels{"v": "6"}), want: true},
		{name: "Lt equal is false", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpLt, "7")))}, node: omNode("n", omLabels{"v": "7"}), want: false},
		{name: "Lt with non-integer label is false", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpLt, "7")))}, node: omNode("n", omLabels{"v": "six"}), want: false},
		{name: "Gt on missing label is false", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpGt, "0")))}, node: omNode("n", nil), want: false},
		{name: "kube NotIn", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("mem-type", api.NodeSelectorOpNotIn, "DDR", "DDR2")))}, node: omNode("n", omLabels{"mem-type": "DDR3"}), want: true},
		{name: "NotIn on missing label matches", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("mem-type", api.NodeSelectorOpNotIn, "DDR")))}, node: omNode("n", nil), want: true},
		{name: "kube Exists", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("GPU", api.NodeSelectorOpExists)))}, node: omNode("n", omLabels{"GPU": "NVIDIA-GRID-K1"}), want: true},
		{name: "DoesNotExist", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("GPU", api.NodeSelectorOpDoesNotExist)))}, node: omNode("n", omLabels{"GPU": "x"}), want: false},
		{name: "kube ANDed expressions match", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("GPU", api.NodeSelectorOpExists), omNSR("GPU", api.NodeSelectorOpNotIn, "AMD", "INTER")))},
			node: omNode("n", omLabels{"GPU": "NVIDIA-GRID-K1"}), want: true},
		{name: "kube ANDed expressions do not match", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("GPU", api.NodeSelectorOpExists), omNSR("GPU", api.NodeSelectorOpIn, "AMD", "INTER")))},
			node: omNode("n", omLabels{"GPU": "NVIDIA-GRID-K1"}), want: false},
		{name: "kube ORed terms", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpIn, "bar", "value2"))), omTerm(omExprs(omNSR("diffkey", api.NodeSelectorOpIn, "wrong", "value2")))},
			node: omNode("n", omLabels{"foo": "bar"}), want: true},
		// matchFields on metadata.name.
		{name: "kube matchFields In matches", terms: []api.NodeSelectorTerm{omTerm(nil, nameIn("node_1"))}, node: omNode("node_1", nil), want: true},
		{name: "kube matchFields In does not match", terms: []api.NodeSelectorTerm{omTerm(nil, nameIn("node_1"))}, node: omNode("node_2", nil), want: false},
		{name: "matchFields NotIn", terms: []api.NodeSelectorTerm{omTerm(nil, omNSR("metadata.name", api.NodeSelectorOpNotIn, "node_1"))}, node: omNode("node_2", nil), want: true},
		{name: "matchFields NotIn excludes", terms: []api.NodeSelectorTerm{omTerm(nil, omNSR("metadata.name", api.NodeSelectorOpNotIn, "node_1"))}, node: omNode("node_1", nil), want: false},
		{name: "kube two terms: fields miss, expressions match", terms: []api.NodeSelectorTerm{omTerm(nil, nameIn("node_1")), omTerm(omExprs(omNSR("foo", api.NodeSelectorOpIn, "bar")))},
			node: omNode("node_2", omLabels{"foo": "bar"}), want: true},
		{name: "kube one term: fields miss, expressions match", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpIn, "bar")), nameIn("node_1"))},
			node: omNode("node_2", omLabels{"foo": "bar"}), want: false},
		{name: "kube one term: both match", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpIn, "bar")), nameIn("node_1"))},
			node: omNode("node_1", omLabels{"foo": "bar"}), want: true},
		{name: "kube node matches field selector but not labels", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("label_1", api.NodeSelectorOpIn, "label_1_val")), nameIn("host_1"))},
			node: omNode("host_1", nil), want: false},
		// A label named metadata.name is not the field, and vice versa.
		{name: "label metadata.name is not the field", terms: []api.NodeSelectorTerm{omTerm(nil, nameIn("host_1"))}, node: omNode("other", omLabels{"metadata.name": "host_1"}), want: false},
		{name: "field is not a label", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("metadata.name", api.NodeSelectorOpIn, "host_1")))}, node: omNode("host_1", nil), want: false},
		// A node without a name has no fields: kube skips matchFields.
		{name: "unnamed node skips matchFields", terms: []api.NodeSelectorTerm{omTerm(nil, nameIn("host_1"))}, node: omNode("", nil), want: true},
		// Unknown field keys read as "": In [""] matches.
		{name: "unknown field key reads empty", terms: []api.NodeSelectorTerm{omTerm(nil, omNSR("spec.unknown", api.NodeSelectorOpIn, ""))}, node: omNode("n", nil), want: true},
		// kube "invalid field selector and label selector": term 0 (two
		// values for a field In) and term 2 (key with a space) fail to
		// parse and are dropped; term 1 still matches a suitable node.
		{name: "kube invalid terms dropped, valid term still matches",
			terms: []api.NodeSelectorTerm{
				omTerm(nil, nameIn("host_1", "host_2")),
				omTerm(omExprs(omNSR("label_1", api.NodeSelectorOpIn, "label_1_val")), nameIn("host_1")),
				omTerm(omExprs(omNSR("invalid key", api.NodeSelectorOpIn, "label_value"))),
			},
			node: omNode("host_1", omLabels{"label_1": "label_1_val", "invalid key": "label_value"}), want: true, wantErr: 2},
		{name: "invalid terms dropped: the invalid ones would have matched",
			terms: []api.NodeSelectorTerm{
				omTerm(nil, nameIn("host_1", "host_2")),
				omTerm(omExprs(omNSR("invalid key", api.NodeSelectorOpIn, "label_value"))),
			},
			node: omNode("host_1", omLabels{"invalid key": "label_value"}), want: false, wantErr: 2},
		// kube "invalid value in Affinity term": NotIn with an invalid
		// label value fails to parse, so even foo=bar does not match.
		{name: "kube invalid label value drops the term", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpNotIn, "invalid value: ___@#$%^")))},
			node: omNode("n", omLabels{"foo": "bar"}), want: false, wantErr: 1},
		// labels.NewRequirement validates Gt/Lt values as label values too:
		// "-5" parses as an integer but starts with '-'.
		{name: "Gt with negative value is invalid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpGt, "-5")))}, node: omNode("n", omLabels{"v": "3"}), want: false, wantErr: 1},
		{name: "Gt with two values is invalid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpGt, "1", "2")))}, node: omNode("n", omLabels{"v": "3"}), want: false, wantErr: 1},
		{name: "Gt with non-integer is invalid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpGt, "x")))}, node: omNode("n", omLabels{"v": "3"}), want: false, wantErr: 1},
		{name: "In without values is invalid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("v", api.NodeSelectorOpIn)))}, node: omNode("n", omLabels{"v": "3"}), want: false, wantErr: 1},
		{name: "kube Exists with values is invalid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", api.NodeSelectorOpExists, "bar", "baz")))}, node: omNode("n", omLabels{"foo": "bar"}), want: false, wantErr: 1},
		{name: "unknown operator is invalid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("foo", "Like", "bar")))}, node: omNode("n", omLabels{"foo": "bar"}), want: false, wantErr: 1},
		{name: "field Exists is invalid", terms: []api.NodeSelectorTerm{omTerm(nil, omNSR("metadata.name", api.NodeSelectorOpExists))}, node: omNode("n", nil), want: false, wantErr: 1},
		{name: "prefixed label key is valid", terms: []api.NodeSelectorTerm{omTerm(omExprs(omNSR("topology.kubernetes.io/zone", api.NodeSelectorOpIn, "us-east-1a")))},
			node: omNode("n", omLabels{"topology.kubernetes.io/zone": "us-east-1a"}), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := api.CompileNodeSelector(&api.NodeSelector{NodeSelectorTerms: tc.terms})
			if got := m.Match(tc.node); got != tc.want {
				t.Errorf("Match = %v, want %v", got, tc.want)
			}
			if len(m.Errs) != tc.wantErr {
				t.Errorf("Errs = %v, want %d", m.Errs, tc.wantErr)
			}
		})
	}
	if m := api.CompileNodeSelector(nil); m.Match(omNode("n", nil)) || len(m.Errs) != 0 {
		t.Errorf("nil selector: Match true or errors %v", m.Errs)
	}
}

func TestCompileNodeSelectorTermErrors(t *testing.T) {
	tests := []struct {
		name string
		term api.NodeSelectorTerm
		want string
	}{
		{"field two values", omTerm(nil, omNSR("metadata.name", api.NodeSelectorOpIn, "a", "b")),
			`matchFields[0]: key "metadata.name": field operator In must have exactly one value, got ["a" "b"]`},
		{"field operator", omTerm(nil, omNSR("metadata.name", api.NodeSelectorOpGt, "1")),
			`matchFields[0]: key "metadata.name": field operator "Gt" not supported`},
		{"second expression", omTerm(omExprs(omNSR("a", api.NodeSelectorOpExists), omNSR("b", api.NodeSelectorOpNotIn))),
			`matchExpressions[1]: key "b": operator NotIn needs at least one value`},
		{"Gt integer", omTerm(omExprs(omNSR("v", api.NodeSelectorOpLt, "1.5"))),
			`matchExpressions[0]: key "v": operator Lt needs an integer value, got "1.5"`},
		{"invalid key", omTerm(omExprs(omNSR("a b", api.NodeSelectorOpExists))),
			`matchExpressions[0]: key "a b": not a valid label key`},
		{"invalid value", omTerm(omExprs(omNSR("k", api.NodeSelectorOpIn, "ok", "not ok"))),
			`matchExpressions[0]: key "k": value "not ok" is not a valid label value`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := api.CompileNodeSelectorTerm(&tc.term)
			if err == nil || err.Error() != tc.want || m != nil {
				t.Errorf("CompileNodeSelectorTerm = (%v, %v), want error %q", m, err, tc.want)
			}
			// Inside a selector the error is prefixed with the term index.
			sel := api.CompileNodeSelector(&api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{}, tc.term}})
			if len(sel.Errs) != 1 || !strings.HasPrefix(sel.Errs[0].Error(), "nodeSelectorTerms[1]: "+tc.want) {
				t.Errorf("selector Errs = %v", sel.Errs)
			}
		})
	}
	// An empty term compiles to nil without error, and a nil term matcher
	// never matches.
	m, err := api.CompileNodeSelectorTerm(&api.NodeSelectorTerm{})
	if m != nil || err != nil || m.Match(omNode("n", nil)) {
		t.Errorf("empty term = (%v, %v)", m, err)
	}
}

// GetRequiredNodeAffinity: nodeSelector AND required node affinity (kube
// TestPodMatchesNodeSelectorAndAffinityTerms in nodeaffinity_test.go).
func TestGetRequiredNodeAffinity(t *testing.T) {
	affinity := func(terms ...api.NodeSelectorTerm) *api.Affinity {
		return &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms}}}
	}
	fooExists := omTerm(omExprs(omNSR("foo", api.NodeSelectorOpExists)))
	tests := []struct {
		name      string
		selector  omLabels
		affinity  *api.Affinity
		labels    omLabels
		want      bool
		wantEmpty bool
	}{
		{name: "kube no selector", want: true, wantEmpty: true},
		{name: "kube missing labels", selector: omLabels{"foo": "bar"}, want: false},
		{name: "kube same labels", selector: omLabels{"foo": "bar"}, labels: omLabels{"foo": "bar"}, want: true},
		{name: "kube node labels are superset", selector: omLabels{"foo": "bar"}, labels: omLabels{"foo": "bar", "baz": "blah"}, want: true},
		{name: "kube node labels are subset", selector: omLabels{"foo": "bar", "baz": "blah"}, labels: omLabels{"foo": "bar"}, want: false},
		{name: "kube nil NodeSelectorTerms", affinity: affinity(), labels: omLabels{"foo": "bar"}, want: false},
		{name: "kube affinity without required selector", affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{}}, labels: omLabels{"foo": "bar"}, want: true, wantEmpty: true},
		{name: "affinity with only pod affinity", affinity: &api.Affinity{PodAffinity: &api.PodAffinity{}}, labels: omLabels{"foo": "bar"}, want: true, wantEmpty: true},
		{name: "kube affinity and nodeSelector both satisfied", selector: omLabels{"foo": "bar"}, affinity: affinity(fooExists), labels: omLabels{"foo": "bar"}, want: true},
		{name: "kube affinity satisfied, nodeSelector not", selector: omLabels{"foo": "bar"}, affinity: affinity(fooExists), labels: omLabels{"foo": "barrrrrr"}, want: false},
		{name: "nodeSelector satisfied, affinity not", selector: omLabels{"foo": "bar"}, affinity: affinity(omTerm(omExprs(omNSR("zone", api.NodeSelectorOpIn, "a")))), labels: omLabels{"foo": "bar"}, want: false},
		{name: "empty nodeSelector map is no constraint", selector: omLabels{}, labels: nil, want: true, wantEmpty: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{NodeSelector: tc.selector, Affinity: tc.affinity}}
			r := api.GetRequiredNodeAffinity(pod)
			if got := r.Match(omNode("node", tc.labels)); got != tc.want {
				t.Errorf("Match = %v, want %v", got, tc.want)
			}
			if got := r.IsEmpty(); got != tc.wantEmpty {
				t.Errorf("IsEmpty = %v, want %v", got, tc.wantEmpty)
			}
		})
	}
}
