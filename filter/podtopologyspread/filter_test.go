package podtopologyspread

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// Test data shared by the PodTopologySpread tests, as in kube-scheduler
// v1.36 podtopologyspread/filtering_test.go.
var (
	ptsFoo    = st.PtsExists("foo")
	ptsBar    = st.PtsExists("bar")
	ptsIgnore = ptsPolicyPtr(api.NodeInclusionPolicyIgnore)
	ptsHonor  = ptsPolicyPtr(api.NodeInclusionPolicyHonor)
)

// ptsT is what the test helpers need of *testing.T, *testing.B and *rapid.T.
type ptsT interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func ptsPolicyPtr(p api.NodeInclusionPolicy) *api.NodeInclusionPolicy { return &p }

func ptsInt32(v int32) *int32 { return &v }

// ptsTainted adds kube's test taint node.kubernetes.io/unschedulable:NoSchedule.
func ptsTainted(w *st.NodeWrapper) *st.NodeWrapper {
	return w.Taint("node.kubernetes.io/unschedulable", "", api.TaintEffectNoSchedule)
}

// ptsNode is a node with the hostname label and "zone"/"node" labels as
// kube's tests build them (empty zone: no zone label).
func ptsNode(name, zone string) *st.NodeWrapper {
	w := st.MakeNode().Name(name).Label("node", name)
	if zone != "" {
		w.Label("zone", zone)
	}
	return w
}

// ptsPodOn is an existing pod on node with the given label keys (value "").
func ptsPodOn(name, node string, keys ...string) *st.PodWrapper {
	w := st.MakePod().Name(name).Node(node)
	for _, k := range keys {
		w.Label(k, "")
	}
	return w
}

// ptsFourNodes are node-a, node-b (zone1) and node-x, node-y (zone2).
func ptsFourNodes() []*api.Node {
	return []*api.Node{
		ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(),
		ptsNode("node-x", "zone2").Obj(), ptsNode("node-y", "zone2").Obj(),
	}
}

func ptsNewFilter(t ptsT, args PodTopologySpreadArgs) *PodTopologySpread {
	t.Helper()
	pl, err := New(args, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return pl.(*PodTopologySpread)
}

var ptsListArgs = PodTopologySpreadArgs{DefaultingType: ListDefaulting}

// ptsRunPreFilter runs PreFilter over all nodes of snap.
func ptsRunPreFilter(t ptsT, pl *PodTopologySpread, snap *fw.Snapshot, pod *api.Pod) (*fw.CycleState, *fw.Status) {
	t.Helper()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	state.SetAllNodes(true)
	_, s := pl.PreFilter(context.Background(), state, fw.MustPodInfo(pod), snap.Nodes())
	return state, s
}

// ptsFastAndReference runs PreFilter for pi twice: over snap's own node
// list (fast: the pod index and TopologyValues) and over a copy of it (ref:
// the reference walk of every pod).
func ptsFastAndReference(pl *PodTopologySpread, snap *fw.Snapshot, pi *fw.PodInfo) (fast, ref *fw.CycleState, sFast, sRef *fw.Status) {
	fast, ref = fw.NewCycleState(), fw.NewCycleState()
	fast.SetSnapshot(snap)
	fast.SetAllNodes(true)
	_, sFast = pl.PreFilter(context.Background(), fast, pi, snap.Nodes())
	ref.SetSnapshot(snap)
	_, sRef = pl.PreFilter(context.Background(), ref, pi, slices.Clone(snap.Nodes()))
	return fast, ref, sFast, sRef
}

func ptsState(t ptsT, state *fw.CycleState) *ptsPreFilterState {
	t.Helper()
	s, err := ptsReadPreFilterState(state)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ptsPathView is a critical path by topology value, as kube's tests write it.
type ptsPathView struct {
	Value    string
	MatchNum int
}

// ptsView is the PreFilter state in kube-scheduler's terms: per constraint,
// TpValueToMatchNum and the two critical paths.
type ptsView struct {
	Counts []map[string]int
	Paths  [][2]ptsPathView
}

// ptsViewOf converts s; paths with equal counts are sorted by value, as
// kube's stateCmpOpts comparer does.
func ptsViewOf(s *ptsPreFilterState) ptsView {
	var v ptsView
	for c := range s.Constraints {
		m := map[string]int{}
		for d, val := range s.DomainValues[c] {
			m[val] = s.Counts[c][d]
		}
		v.Counts = append(v.Counts, m)
		var p [2]ptsPathView
		for k, path := range s.Paths[c] {
			p[k] = ptsPathView{MatchNum: path.MatchNum}
			if path.Domain >= 0 {
				p[k].Value = s.DomainValues[c][path.Domain]
			}
		}
		v.Paths = append(v.Paths, ptsSortPaths(p))
	}
	return v
}

func ptsSortPaths(p [2]ptsPathView) [2]ptsPathView {
	if p[0].MatchNum == p[1].MatchNum && p[0].Value > p[1].Value {
		p[0].Value, p[1].Value = p[1].Value, p[0].Value
	}
	return p
}

// ptsP builds the expected paths of one constraint.
func ptsP(v0 string, n0 int, v1 string, n1 int) [2]ptsPathView {
	return ptsSortPaths([2]ptsPathView{{v0, n0}, {v1, n1}})
}

var ptsNoPaths = [2]ptsPathView{{"", math.MaxInt32}, {"", math.MaxInt32}}

// Cases of kube-scheduler v1.36 filtering_test.go TestPreFilterState, in
// schedkit's types (case names kept). Cases that test the v1.36 defaults of
// feature gates (NodeInclusionPolicy, MatchLabelKeys on) are kept; those
// that need a gate off are replaced by their gate-on result, derived by hand.
func TestPodTopologySpreadPreFilterState(t *testing.T) {
	svcFooBar := fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"foo": "bar"}})
	defaults3 := []api.TopologySpreadConstraint{
		{MaxSkew: 3, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule},
		{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: api.ScheduleAnyway},
		{MaxSkew: 5, TopologyKey: "rack", WhenUnsatisfiable: api.DoNotSchedule},
	}
	threeNodes := func(cTaint bool) []*api.Node {
		c := ptsNode("node-c", "").Label("bar", "")
		if cTaint {
			c = ptsTainted(c)
		}
		return []*api.Node{ptsNode("node-a", "").Obj(), ptsNode("node-b", "").Obj(), c.Obj()}
	}
	threeNodesFoo := []*api.Node{
		ptsNode("node-a", "").Label("foo", "").Obj(), ptsNode("node-b", "").Label("foo", "").Obj(), ptsNode("node-c", "").Label("bar", "").Obj(),
	}
	barPodsABBC := []*api.Pod{
		ptsPodOn("p-a", "node-a", "bar").Obj(), ptsPodOn("p-b", "node-b", "bar").Obj(),
		ptsPodOn("p-c", "node-b", "bar").Obj(), ptsPodOn("p-d", "node-c").Obj(),
	}
	fooPods5 := []*api.Pod{
		ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
		ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo").Obj(),
	}
	fooPods7 := append(append([]*api.Pod{}, fooPods5...), ptsPodOn("p-y3", "node-y", "foo").Obj(), ptsPodOn("p-y4", "node-y", "foo").Obj())
	fooA := func(v string) []*api.Pod {
		var ps []*api.Pod
		for _, n := range []struct{ name, node string }{{"p-a1", "node-a"}, {"p-a2", "node-a"}, {"p-b1", "node-b"}, {"p-y1", "node-y"}, {"p-y2", "node-y"}} {
			ps = append(ps, st.MakePod().Name(n.name).Node(n.node).Label("foo", v).Obj())
		}
		return ps
	}
	tests := []struct {
		name       string
		pod        *api.Pod
		nodes      []*api.Node
		existing   []*api.Pod
		opts       []fw.SnapshotOption
		defaults   []api.TopologySpreadConstraint
		want       ptsView
		wantStatus fw.Code
	}{
		{
			name:  "clean cluster with one spreadConstraint",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(5, "zone", api.DoNotSchedule, st.PtsMatchLabels("foo", "bar"), nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(),
			want:  ptsView{Counts: []map[string]int{{"zone1": 0, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone1", 0, "zone2", 0)}},
		},
		{
			name:     "normal case with one spreadConstraint",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooPods5,
			want:     ptsView{Counts: []map[string]int{{"zone1": 3, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone2", 2, "zone1", 3)}},
		},
		{
			name:     "normal case with null label selector",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, nil, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooPods5,
			want:     ptsView{Counts: []map[string]int{{"zone1": 0, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone2", 0, "zone1", 0)}},
		},
		{
			name: "normal case with one spreadConstraint, on a 3-zone cluster",
			pod:  st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: append(ptsFourNodes(),
				ptsNode("node-o", "zone3").Obj(), ptsNode("node-p", "zone3").Obj()),
			existing: fooPods5,
			want:     ptsView{Counts: []map[string]int{{"zone1": 3, "zone2": 2, "zone3": 0}}, Paths: [][2]ptsPathView{ptsP("zone3", 0, "zone2", 2)}},
		},
		{
			name:  "namespace mismatch doesn't count",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Namespace("ns1").Obj(),
				ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Namespace("ns2").Obj(),
				ptsPodOn("p-y2", "node-y", "foo").Obj(),
			},
			want: ptsView{Counts: []map[string]int{{"zone1": 2, "zone2": 1}}, Paths: [][2]ptsPathView{ptsP("zone2", 1, "zone1", 2)}},
		},
		{
			name: "normal case with two spreadConstraints",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooPods7,
			want: ptsView{
				Counts: []map[string]int{{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 3, "zone2", 4), ptsP("node-x", 0, "node-b", 1)},
			},
		},
		{
			name: "soft spreadConstraints should be bypassed",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-y", "zone2").Obj()},
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(), ptsPodOn("p-y4", "node-y", "foo").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 3, "zone2", 4), ptsP("node-b", 1, "node-a", 2)},
			},
		},
		{
			name: "different labelSelectors - simple version",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes:    []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-y", "zone2").Obj()},
			existing: []*api.Pod{ptsPodOn("p-a", "node-a", "foo").Obj(), ptsPodOn("p-b", "node-b", "bar").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}},
				Paths:  [][2]ptsPathView{ptsP("zone2", 0, "zone1", 1), ptsP("node-a", 0, "node-y", 0)},
			},
		},
		{
			name: "different labelSelectors - complex pods",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-y", "zone2").Obj()},
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo", "bar").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo", "bar").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(), ptsPodOn("p-y4", "node-y", "foo", "bar").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 3, "zone2", 4), ptsP("node-b", 0, "node-a", 1)},
			},
		},
		{
			name: "two spreadConstraints, and with podAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("node", api.NodeSelectorOpNotIn, "node-x")).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooPods7,
			want: ptsView{
				Counts: []map[string]int{{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 3, "zone2", 4), ptsP("node-b", 1, "node-a", 2)},
			},
		},
		{
			name:     "default constraints and a service",
			pod:      st.MakePod().Name("p").Label("foo", "bar").Label("baz", "kar").Obj(),
			defaults: defaults3,
			opts:     []fw.SnapshotOption{svcFooBar},
			want:     ptsView{Counts: []map[string]int{{}, {}}, Paths: [][2]ptsPathView{ptsNoPaths, ptsNoPaths}},
		},
		{
			name:       "default constraints and a service that doesn't match",
			pod:        st.MakePod().Name("p").Label("foo", "bar").Obj(),
			defaults:   []api.TopologySpreadConstraint{{MaxSkew: 3, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule}},
			opts:       []fw.SnapshotOption{fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"baz": "kep"}})},
			wantStatus: fw.Skip,
		},
		{
			name: "default constraints and a service, but pod has constraints",
			pod: st.MakePod().Name("p").Label("foo", "bar").Label("baz", "tar").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, st.PtsMatchLabels("baz", "tar"), nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(2, "planet", api.ScheduleAnyway, st.PtsMatchLabels("fot", "rok"), nil, nil, nil, nil)).Obj(),
			defaults: []api.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule}},
			opts:     []fw.SnapshotOption{svcFooBar},
			want:     ptsView{Counts: []map[string]int{{}}, Paths: [][2]ptsPathView{ptsNoPaths}},
		},
		{
			name:       "default soft constraints and a service",
			pod:        st.MakePod().Name("p").Label("foo", "bar").Obj(),
			defaults:   []api.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: api.ScheduleAnyway}},
			opts:       []fw.SnapshotOption{svcFooBar},
			wantStatus: fw.Skip,
		},
		{
			name: "NodeAffinityPolicy honored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes:    threeNodesFoo,
			existing: barPodsABBC,
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2}}, Paths: [][2]ptsPathView{ptsP("node-a", 1, "node-b", 2)}},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, ptsIgnore, nil, nil)).Obj(),
			nodes:    threeNodesFoo,
			existing: barPodsABBC,
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}}, Paths: [][2]ptsPathView{ptsP("node-c", 0, "node-a", 1)}},
		},
		{
			name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes:    threeNodesFoo,
			existing: []*api.Pod{ptsPodOn("p-a", "node-a", "bar").Obj(), ptsPodOn("p-c", "node-b", "bar").Obj(), ptsPodOn("p-d", "node-b", "bar").Obj(), ptsPodOn("p-e", "node-c").Obj()},
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2}}, Paths: [][2]ptsPathView{ptsP("node-a", 1, "node-b", 2)}},
		},
		{
			name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, ptsIgnore, nil, nil)).Obj(),
			nodes:    threeNodesFoo,
			existing: barPodsABBC,
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}}, Paths: [][2]ptsPathView{ptsP("node-c", 0, "node-a", 1)}},
		},
		{
			name:     "NodeTaintsPolicy ignored",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes:    threeNodes(true),
			existing: barPodsABBC,
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}}, Paths: [][2]ptsPathView{ptsP("node-c", 0, "node-a", 1)}},
		},
		{
			name:     "NodeTaintsPolicy honored",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, ptsHonor, nil)).Obj(),
			nodes:    threeNodes(true),
			existing: barPodsABBC,
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2}}, Paths: [][2]ptsPathView{ptsP("node-a", 1, "node-b", 2)}},
		},
		{
			name: "NodeTaintsPolicy honored with tolerated taints",
			pod: st.MakePod().Name("p").Label("foo", "").Toleration(api.Toleration{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, ptsHonor, nil)).Obj(),
			nodes:    threeNodes(true),
			existing: barPodsABBC,
			want:     ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}}, Paths: [][2]ptsPathView{ptsP("node-c", 0, "node-a", 1)}},
		},
		{
			name: "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes: []*api.Node{ptsNode("node-a", "zone1").Label("foo", "").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-x", "zone2").Label("foo", "").Obj()},
			existing: []*api.Pod{
				ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-b2", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 0, "zone2", 1), ptsP("node-a", 0, "node-x", 1)},
			},
		},
		{
			name: "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{ptsNode("node-a", "zone1").Label("foo", "").Obj(), ptsTainted(ptsNode("node-b", "zone1")).Obj(), ptsNode("node-x", "zone2").Label("foo", "").Obj()},
			existing: []*api.Pod{
				ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-b2", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 0, "zone2", 1), ptsP("node-a", 0, "node-x", 1)},
			},
		},
		{
			name: "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Obj(), ptsTainted(ptsNode("node-b", "zone1").Label("foo", "")).Obj(),
				ptsNode("node-x", "zone2").Label("foo", "").Obj(), ptsNode("node-y", "zone2").Obj(),
			},
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 0, "zone2", 1), ptsP("node-b", 0, "node-x", 1)},
			},
		},
		{
			name: "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, ptsIgnore, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Obj(), ptsTainted(ptsNode("node-b", "zone1").Label("foo", "")).Obj(),
				ptsNode("node-x", "zone2").Label("foo", "").Obj(), ptsNode("node-y", "zone2").Label("foo", "").Obj(),
			},
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(),
				ptsPodOn("p-x2", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 2, "zone2", 3), ptsP("node-y", 1, "node-x", 2)},
			},
		},
		{
			// kube's "matchLabelKeys ignored when feature gate disabled", with
			// the v1.36 default (gate on): the selector becomes foo∧bar="",
			// which none of the existing pods carries.
			name:     "matchLabelKeys applied with the v1.36 feature gate on",
			pod:      st.MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, []string{"bar"})).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooPods5,
			want:     ptsView{Counts: []map[string]int{{"zone1": 0, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone1", 0, "zone2", 0)}},
		},
		{
			name:  "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
			pod:   st.MakePod().Name("p").Label("foo", "").Label("bar", "a").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, []string{"bar"})).Obj(),
			nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Label("bar", "a").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Label("bar", "a").Obj(), ptsPodOn("p-y2", "node-y", "bar").Obj(),
			},
			want: ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 1}}, Paths: [][2]ptsPathView{ptsP("zone2", 1, "zone1", 1)}},
		},
		{
			name:     "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
			pod:      st.MakePod().Name("p").Label("foo", "a").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, &api.LabelSelector{}, nil, nil, nil, []string{"foo"})).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooA("a"),
			want:     ptsView{Counts: []map[string]int{{"zone1": 3, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone2", 2, "zone1", 3)}},
		},
		{
			name:     "key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, nil, nil, nil, nil, []string{"bar"})).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooA("a"),
			want:     ptsView{Counts: []map[string]int{{"zone1": 0, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone2", 0, "zone1", 0)}},
		},
		{
			name:     "key in matchLabelKeys is ignored when it isn't exist in pod.labels",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, []string{"bar"})).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooA("a"),
			want:     ptsView{Counts: []map[string]int{{"zone1": 3, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone2", 2, "zone1", 3)}},
		},
		{
			name: "two spreadConstraints with the same topologyKey",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo", "bar").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "bar").Obj(),
				ptsPodOn("p-y1", "node-y", "foo", "bar").Obj(), ptsPodOn("p-y2", "node-y", "bar").Obj(),
			},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}},
				Paths:  [][2]ptsPathView{ptsP("zone2", 1, "zone1", 2), ptsP("zone1", 1, "zone2", 3)},
			},
		},
		{
			name:       "skip if not specified",
			pod:        st.MakePod().Name("p").Label("foo", "").Obj(),
			nodes:      []*api.Node{ptsNode("node-a", "zone1").Obj()},
			wantStatus: fw.Skip,
		},
		// schedkit edge cases.
		{
			name: "terminating pods are not counted",
			pod:  st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "").Obj(), ptsNode("node-b", "").Obj(),
			},
			existing: []*api.Pod{ptsPodOn("p-a", "node-a", "foo").Terminating(st.PtsDeletionTime()).Obj(), ptsPodOn("p-b", "node-b", "foo").Obj()},
			want:     ptsView{Counts: []map[string]int{{"node-a": 0, "node-b": 1}}, Paths: [][2]ptsPathView{ptsP("node-a", 0, "node-b", 1)}},
		},
		{
			name:     "an empty selector counts no pod",
			pod:      st.MakePod().Name("p").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, &api.LabelSelector{}, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: fooPods5,
			want:     ptsView{Counts: []map[string]int{{"zone1": 0, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone1", 0, "zone2", 0)}},
		},
		{
			name: "no nodes",
			pod:  st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			want: ptsView{Counts: []map[string]int{{}}, Paths: [][2]ptsPathView{ptsNoPaths}},
		},
		{
			name: "a node without every key is not counted for any constraint",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "").Obj(), st.MakeNode().Name("node-c").Label("zone", "zone2").Obj()},
			existing: []*api.Pod{ptsPodOn("p-a", "node-a", "foo").Obj(), ptsPodOn("p-b", "node-b", "foo").Obj(), ptsPodOn("p-c", "node-c", "foo").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 1}, {"node-a": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 1, "", math.MaxInt32), ptsP("node-a", 1, "", math.MaxInt32)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: tt.defaults}
			pl := ptsNewFilter(t, args)
			snap := fw.MustSnapshot(tt.nodes, tt.existing, tt.opts...)
			state, s := ptsRunPreFilter(t, pl, snap, tt.pod)
			if s.Code() != tt.wantStatus {
				t.Fatalf("PreFilter() = %v, want code %v", s, tt.wantStatus)
			}
			if !s.IsSuccess() {
				if _, err := state.Read(ptsPreFilterStateKey); err == nil {
					t.Errorf("state written although PreFilter returned %v", s)
				}
				return
			}
			if diff := cmp.Diff(tt.want, ptsViewOf(ptsState(t, state))); diff != "" {
				t.Errorf("PreFilter state (-want +got):\n%s", diff)
			}
		})
	}
}

// Cases of kube-scheduler v1.36 filtering_test.go TestPreFilterStateAddPod.
func TestPodTopologySpreadAddPod(t *testing.T) {
	twoNodes := []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj()}
	zoneNodeFoo := st.MakePod().Name("p").Label("foo", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	zoneFooNodeBar := st.MakePod().Name("p").Label("foo", "").Label("bar", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj()
	nodeFoo := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	zoneFoo := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	affinityNodes := []*api.Node{ptsNode("node-a", "zone1").Label("foo", "bar").Obj(), ptsNode("node-b", "zone2").Label("foo", "").Obj()}
	taintNodes := []*api.Node{ptsTainted(ptsNode("node-a", "zone1")).Obj(), ptsNode("node-b", "zone2").Obj()}
	tests := []struct {
		name      string
		preemptor *api.Pod
		added     *api.Pod
		existing  []*api.Pod
		nodeIdx   int
		nodes     []*api.Node
		want      ptsView
	}{
		{
			name: "node a and b both impact current min match", preemptor: nodeFoo,
			added: ptsPodOn("p-a1", "node-a", "foo").Obj(), nodeIdx: 0, nodes: twoNodes,
			want: ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 0}}, Paths: [][2]ptsPathView{ptsP("node-b", 0, "node-a", 1)}},
		},
		{
			name: "only node a impacts current min match", preemptor: nodeFoo,
			added: ptsPodOn("p-a1", "node-a", "foo").Obj(), existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "foo").Obj()}, nodeIdx: 0, nodes: twoNodes,
			want: ptsView{Counts: []map[string]int{{"node-a": 1, "node-b": 1}}, Paths: [][2]ptsPathView{ptsP("node-a", 1, "node-b", 1)}},
		},
		{
			name: "add a pod in a different namespace doesn't change topologyKeyToMinPodsMap", preemptor: nodeFoo,
			added: ptsPodOn("p-a1", "node-a", "foo").Namespace("ns1").Obj(), existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "foo").Obj()}, nodeIdx: 0, nodes: twoNodes,
			want: ptsView{Counts: []map[string]int{{"node-a": 0, "node-b": 1}}, Paths: [][2]ptsPathView{ptsP("node-a", 0, "node-b", 1)}},
		},
		{
			name: "add pod on non-critical node won't trigger re-calculation", preemptor: nodeFoo,
			added: ptsPodOn("p-b2", "node-b", "foo").Obj(), existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "foo").Obj()}, nodeIdx: 1, nodes: twoNodes,
			want: ptsView{Counts: []map[string]int{{"node-a": 0, "node-b": 2}}, Paths: [][2]ptsPathView{ptsP("node-a", 0, "node-b", 2)}},
		},
		{
			name: "node a and x both impact topologyKeyToMinPodsMap on zone and node", preemptor: zoneNodeFoo,
			added: ptsPodOn("p-a1", "node-a", "foo").Obj(), nodeIdx: 0,
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}},
				Paths:  [][2]ptsPathView{ptsP("zone2", 0, "zone1", 1), ptsP("node-x", 0, "node-a", 1)},
			},
		},
		{
			name: "only node a impacts topologyKeyToMinPodsMap on zone and node", preemptor: zoneNodeFoo,
			added: ptsPodOn("p-a1", "node-a", "foo").Obj(), existing: []*api.Pod{ptsPodOn("p-x1", "node-x", "foo").Obj()}, nodeIdx: 0,
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 1, "zone2", 1), ptsP("node-a", 1, "node-x", 1)},
			},
		},
		{
			name: "node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone", preemptor: zoneNodeFoo,
			added: ptsPodOn("p-a1", "node-a", "foo").Obj(), nodeIdx: 0,
			existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-b2", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj()},
			nodes:    []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone2", 1, "zone1", 3), ptsP("node-a", 1, "node-x", 1)},
			},
		},
		{
			name: "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone", preemptor: zoneFooNodeBar,
			added: ptsPodOn("p-a1", "node-a", "foo").Obj(), nodeIdx: 0,
			existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(), ptsPodOn("p-x1", "node-x", "foo", "bar").Obj(), ptsPodOn("p-x2", "node-x", "bar").Obj()},
			nodes:    []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}},
				Paths:  [][2]ptsPathView{ptsP("zone2", 1, "zone1", 2), ptsP("node-a", 0, "node-b", 1)},
			},
		},
		{
			name: "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone and node", preemptor: zoneFooNodeBar,
			added: ptsPodOn("p-a1", "node-a", "foo", "bar").Obj(), nodeIdx: 0,
			existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "bar").Obj(), ptsPodOn("p-x1", "node-x", "foo", "bar").Obj(), ptsPodOn("p-x2", "node-x", "bar").Obj()},
			nodes:    []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()},
			want: ptsView{
				Counts: []map[string]int{{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}},
				Paths:  [][2]ptsPathView{ptsP("zone1", 1, "zone2", 1), ptsP("node-a", 1, "node-b", 1)},
			},
		},
		{
			name:      "add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
			preemptor: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpNotIn, "bar")).SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			added:     ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), nodeIdx: 0,
			existing: []*api.Pod{ptsPodOn("p-a2", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b1", "node-b", "foo").Label("zone", "zone2").Obj()},
			nodes:    affinityNodes,
			want:     ptsView{Counts: []map[string]int{{"zone2": 1}}, Paths: [][2]ptsPathView{ptsP("zone2", 1, "", math.MaxInt32)}},
		},
		{
			name: "add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", preemptor: zoneFoo,
			added: ptsPodOn("p-b1", "node-b", "foo").Label("zone", "zone2").Obj(), nodeIdx: 1,
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b2", "node-b", "foo").Label("zone", "zone2").Obj()},
			nodes:    affinityNodes,
			want:     ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 2)}},
		},
		{
			name: "add a label selector not matched pod when with NodeInclusionPolicy enabled", preemptor: zoneFoo,
			added: st.MakePod().Name("p-b1").Node("node-b").Label("zone", "zone2").Obj(), nodeIdx: 1,
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b2", "node-b", "foo").Label("zone", "zone2").Obj()},
			nodes:    affinityNodes,
			want:     ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 1}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 1)}},
		},
		{
			name: "add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled", preemptor: zoneFoo,
			added: ptsPodOn("p-b1", "node-b", "foo").Label("zone", "zone2").Obj(), nodeIdx: 1,
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b2", "node-b", "foo").Label("zone", "zone2").Obj()},
			nodes:    taintNodes,
			want:     ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 2)}},
		},
		{
			name:      "add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
			preemptor: st.MakePod().Name("p").Label("foo", "").Toleration(api.Toleration{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists}).SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			added:     ptsPodOn("p-b1", "node-b", "foo").Label("zone", "zone2").Obj(), nodeIdx: 1,
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b2", "node-b", "foo").Label("zone", "zone2").Obj()},
			nodes:    taintNodes,
			want:     ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 2)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := ptsNewFilter(t, ptsListArgs)
			snap := fw.MustSnapshot(tt.nodes, tt.existing)
			state, s := ptsRunPreFilter(t, pl, snap, tt.preemptor)
			if !s.IsSuccess() {
				t.Fatal(s)
			}
			ni, _ := snap.Get(tt.nodes[tt.nodeIdx].Name)
			if s := pl.AddPod(context.Background(), state, fw.MustPodInfo(tt.preemptor), fw.MustPodInfo(tt.added), ni); !s.IsSuccess() {
				t.Fatal(s)
			}
			if diff := cmp.Diff(tt.want, ptsViewOf(ptsState(t, state))); diff != "" {
				t.Errorf("state after AddPod (-want +got):\n%s", diff)
			}
		})
	}
}

// Cases of kube-scheduler v1.36 filtering_test.go TestPreFilterStateRemovePod.
func TestPodTopologySpreadRemovePod(t *testing.T) {
	zoneFoo := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	threeNodes := []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()}
	affinityNodes := []*api.Node{ptsNode("node-a", "zone1").Label("foo", "bar").Obj(), ptsNode("node-b", "zone2").Label("foo", "").Obj()}
	tests := []struct {
		name       string
		preemptor  *api.Pod
		nodes      []*api.Node
		existing   []*api.Pod
		deletedIdx int      // index into existing, or -1
		deleted    *api.Pod // when deletedIdx is -1
		nodeIdx    int
		want       ptsView
	}{
		{
			name: "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged", preemptor: zoneFoo, nodes: threeNodes,
			existing:   []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj()},
			deletedIdx: 0, nodeIdx: 0,
			want: ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 1}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 1)}},
		},
		{
			name: "one spreadConstraint on node, topologyKeyToMinPodsMap changed", preemptor: zoneFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			deletedIdx: 0, nodeIdx: 0,
			want: ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 2)}},
		},
		{
			name: "delete an irrelevant pod won't help", preemptor: zoneFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a0", "node-a", "bar").Obj(), ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			deletedIdx: 0, nodeIdx: 0,
			want: ptsView{Counts: []map[string]int{{"zone1": 2, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 2, "zone2", 2)}},
		},
		{
			name: "delete a non-existing pod won't help", preemptor: zoneFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			deletedIdx: -1, deleted: ptsPodOn("p-a0", "node-a", "bar").Obj(), nodeIdx: 0,
			want: ptsView{Counts: []map[string]int{{"zone1": 2, "zone2": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 2, "zone2", 2)}},
		},
		{
			name: "two spreadConstraints",
			preemptor: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: threeNodes,
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-x2", "node-x", "foo").Obj(),
			},
			deletedIdx: 3, nodeIdx: 2,
			want: ptsView{
				Counts: []map[string]int{{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}},
				Paths:  [][2]ptsPathView{ptsP("zone2", 1, "zone1", 3), ptsP("node-b", 1, "node-x", 1)},
			},
		},
		{
			name:       "remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
			preemptor:  st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpNotIn, "bar")).SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:      affinityNodes,
			existing:   []*api.Pod{ptsPodOn("p-a2", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b1", "node-b", "foo").Label("zone", "zone2").Obj()},
			deletedIdx: -1, deleted: ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), nodeIdx: 0,
			want: ptsView{Counts: []map[string]int{{"zone2": 1}}, Paths: [][2]ptsPathView{ptsP("zone2", 1, "", math.MaxInt32)}},
		},
		{
			name: "remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", preemptor: zoneFoo,
			nodes:      affinityNodes,
			existing:   []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Label("zone", "zone1").Obj(), ptsPodOn("p-b2", "node-b", "foo").Label("zone", "zone2").Obj()},
			deletedIdx: -1, deleted: ptsPodOn("p-b1", "node-b", "foo").Label("zone", "zone2").Obj(), nodeIdx: 1,
			want: ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone2", 0, "zone1", 1)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := ptsNewFilter(t, ptsListArgs)
			snap := fw.MustSnapshot(tt.nodes, tt.existing)
			state, s := ptsRunPreFilter(t, pl, snap, tt.preemptor)
			if !s.IsSuccess() {
				t.Fatal(s)
			}
			deleted := tt.deleted
			if tt.deletedIdx >= 0 {
				deleted = tt.existing[tt.deletedIdx]
			}
			ni, _ := snap.Get(tt.nodes[tt.nodeIdx].Name)
			if s := pl.RemovePod(context.Background(), state, fw.MustPodInfo(tt.preemptor), fw.MustPodInfo(deleted), ni); !s.IsSuccess() {
				t.Fatal(s)
			}
			if diff := cmp.Diff(tt.want, ptsViewOf(ptsState(t, state))); diff != "" {
				t.Errorf("state after RemovePod (-want +got):\n%s", diff)
			}
		})
	}
}

type ptsFilterCase struct {
	name     string
	pod      *api.Pod
	nodes    []*api.Node
	existing []*api.Pod
	want     map[string]fw.Code
}

func ptsRunFilterCases(t *testing.T, tests []ptsFilterCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := ptsNewFilter(t, ptsListArgs)
			snap := fw.MustSnapshot(tt.nodes, tt.existing)
			state, s := ptsRunPreFilter(t, pl, snap, tt.pod)
			if !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			pi := fw.MustPodInfo(tt.pod)
			for _, ni := range snap.Nodes() {
				st := pl.Filter(context.Background(), state, pi, ni)
				if st.Code() != tt.want[ni.Name()] {
					t.Errorf("%s: Filter() = %v, want code %v", ni.Name(), st, tt.want[ni.Name()])
				}
				// The slow path (a copy of the node, as in the nominated-pods
				// pass) gives the same verdict.
				if st2 := pl.Filter(context.Background(), state, pi, ni.Clone()); st2.Code() != st.Code() {
					t.Errorf("%s: Filter(clone) = %v, Filter(node) = %v", ni.Name(), st2, st)
				}
				if cp, _ := fw.NewNodeInfo(ptsCopyNode(ni.Node()), ni.Pods...); cp != nil {
					if st3 := pl.Filter(context.Background(), state, pi, cp); st3.Code() != st.Code() {
						t.Errorf("%s: Filter(new node object) = %v, Filter(node) = %v", ni.Name(), st3, st)
					}
				}
			}
		})
	}
}

// Cases of kube-scheduler v1.36 filtering_test.go TestSingleConstraint.
func TestPodTopologySpreadSingleConstraint(t *testing.T) {
	const (
		ok    = fw.Success
		unsch = fw.Unschedulable
		uu    = fw.UnschedulableAndUnresolvable
	)
	zoneFoo := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	nodeFoo := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	pods2103 := []*api.Pod{
		ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
		ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(),
	}
	abcNodes := []*api.Node{ptsNode("node-a", "").Obj(), ptsNode("node-b", "").Obj(), ptsNode("node-c", "").Obj()}
	pods221 := []*api.Pod{
		ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
		ptsPodOn("p-b2", "node-b", "foo").Obj(), ptsPodOn("p-c1", "node-c", "foo").Obj(),
	}
	pods21 := []*api.Pod{ptsPodOn("p-b1", "node-a", "foo").Obj(), ptsPodOn("p-b2", "node-b", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj()}
	fooNodes := []*api.Node{
		ptsNode("node-a", "").Label("foo", "").Obj(), ptsNode("node-b", "").Label("foo", "").Obj(),
		ptsNode("node-x", "").Label("foo", "").Obj(), ptsNode("node-y", "").Obj(),
	}
	taintedY := []*api.Node{
		ptsNode("node-a", "").Label("foo", "").Obj(), ptsNode("node-b", "").Label("foo", "").Obj(),
		ptsNode("node-x", "").Label("foo", "").Obj(), ptsTainted(ptsNode("node-y", "")).Obj(),
	}
	ptsRunFilterCases(t, []ptsFilterCase{
		{name: "no existing pods", pod: zoneFoo, nodes: ptsFourNodes(),
			want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok}},
		{name: "no existing pods, incoming pod doesn't match itself",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(), want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok}},
		{name: "existing pods in a different namespace do not count", pod: zoneFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Namespace("ns1").Obj(), ptsPodOn("p-b1", "node-a", "foo").Namespace("ns2").Obj(),
				ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": unsch, "node-y": unsch}},
		{name: "existing pods do not match null selector",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, nil, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: []*api.Pod{ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj()},
			want:     map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok}},
		{name: "pods spread across zones as 3/3, all nodes fit", pod: zoneFoo, nodes: ptsFourNodes(), existing: pods2103,
			want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok}},
		{name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b", pod: zoneFoo,
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "").Label("zon", "zone1").Obj(), ptsNode("node-x", "zone2").Obj(), ptsNode("node-y", "zone2").Obj()},
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": ok, "node-b": uu, "node-x": unsch, "node-y": unsch}},
		{name: "pod cannot be scheduled as all nodes don't have label 'rack'",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "rack", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-x", "zone2").Obj()},
			want:  map[string]fw.Code{"node-a": uu, "node-x": uu}},
		{name: "pods spread across nodes as 2/1/0/3, only node-x fits", pod: nodeFoo, nodes: ptsFourNodes(), existing: pods2103,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(), existing: pods2103,
			want: map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-x": ok, "node-y": unsch}},
		{name: "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
			pod:   st.MakePod().Name("p").Label("bar", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(), existing: pods2103,
			want: map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-x": ok, "node-y": unsch}},
		{name: "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("node", api.NodeSelectorOpIn, "node-a", "node-y")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(), existing: pods2103,
			want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": unsch}},
		{name: "terminating Pods should be excluded", pod: nodeFoo,
			nodes:    []*api.Node{ptsNode("node-a", "").Obj(), ptsNode("node-b", "").Obj()},
			existing: []*api.Pod{ptsPodOn("p-a", "node-a", "foo").Terminating(st.PtsDeletionTime()).Obj(), ptsPodOn("p-b", "node-b", "foo").Obj()},
			want:     map[string]fw.Code{"node-a": ok, "node-b": unsch}},
		{name: "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("node", api.NodeSelectorOpNotIn, "node-b")).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-b2", "node-b", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj()},
			want:     map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": unsch, "node-y": unsch}},
		{name: "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, "node", api.DoNotSchedule, ptsFoo, ptsInt32(4), nil, nil, nil)).Obj(),
			nodes: abcNodes, existing: pods221,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-c": ok}},
		{name: "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, "node", api.DoNotSchedule, ptsFoo, ptsInt32(2), nil, nil, nil)).Obj(),
			nodes: abcNodes, existing: pods221,
			want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-c": ok}},
		{name: "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, "zone", api.DoNotSchedule, ptsFoo, ptsInt32(3), nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(), existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok}},
		{name: "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, "zone", api.DoNotSchedule, ptsFoo, ptsInt32(1), nil, nil, nil)).Obj(),
			nodes: ptsFourNodes(), existing: pods21,
			want: map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok}},
		{name: "NodeAffinityPolicy honored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: fooNodes, existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok}},
		{name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes: fooNodes, existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: fooNodes, existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok}},
		{name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes: fooNodes, existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "NodeTaintsPolicy honored",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).Obj(),
			nodes: taintedY, existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok}},
		{name: "NodeTaintsPolicy ignored",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: taintedY, existing: pods21,
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		// schedkit edge cases.
		{name: "empty label value is a value: domain \"\" counts",
			pod:      zoneFoo,
			nodes:    []*api.Node{ptsNode("node-a", "").Label("zone", "").Obj(), ptsNode("node-b", "zone1").Obj()},
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj()},
			want:     map[string]fw.Code{"node-a": unsch, "node-b": ok}},
		{name: "a node of an uncounted domain has count 0 but the global minimum still applies",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).Obj(),
			nodes: []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone2").Obj(), ptsTainted(ptsNode("node-c", "zone3")).Obj()},
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-c1", "node-c", "foo").Obj(), ptsPodOn("p-c2", "node-c", "foo").Obj(),
			},
			// zone3 is not counted (tainted): min is 1 (zone2); node-c sees
			// count 0: 0+1-1 = 0 ≤ 1.
			want: map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-c": ok}},
	})
}

// Cases of kube-scheduler v1.36 filtering_test.go TestMultipleConstraints.
func TestPodTopologySpreadMultipleConstraints(t *testing.T) {
	const (
		ok    = fw.Success
		unsch = fw.Unschedulable
		uu    = fw.UnschedulableAndUnresolvable
	)
	zoneNodeFoo := st.MakePod().Name("p").Label("foo", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	zoneFooNodeBar := st.MakePod().Name("p").Label("foo", "").Label("bar", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj()
	zoneBarZoneFoo := st.MakePod().Name("p").Label("foo", "").Label("bar", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	incl3 := []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj()}
	ptsRunFilterCases(t, []ptsFilterCase{
		{name: "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]", pod: zoneNodeFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]", pod: zoneNodeFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(), ptsPodOn("p-y4", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": unsch, "node-y": unsch}},
		{name: "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]", pod: zoneFooNodeBar, nodes: ptsFourNodes(),
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-y1", "node-y", "bar").Obj()},
			want:     map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]", pod: zoneFooNodeBar, nodes: ptsFourNodes(),
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-x1", "node-x", "bar").Obj(), ptsPodOn("p-y1", "node-y", "bar").Obj()},
			want:     map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": unsch, "node-y": unsch}},
		{name: "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]", pod: zoneFooNodeBar, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo", "bar").Obj(), ptsPodOn("p-y1", "node-y", "foo").Obj(),
				ptsPodOn("p-y2", "node-y", "foo", "bar").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-x": unsch, "node-y": unsch}},
		{name: "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
			pod: st.MakePod().Name("p").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes:    ptsFourNodes(),
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-x1", "node-x", "bar").Obj(), ptsPodOn("p-y1", "node-y", "bar").Obj()},
			want:     map[string]fw.Code{"node-a": ok, "node-b": ok, "node-x": unsch, "node-y": unsch}},
		{name: "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]", pod: zoneNodeFoo,
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(),
				st.MakeNode().Name("node-x").Label("zone", "zone2").Obj(), ptsNode("node-y", "zone2").Obj(),
			},
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj()},
			want:     map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-x": uu, "node-y": unsch}},
		{name: "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Label("foo", "").Obj(), ptsNode("node-b", "zone1").Label("foo", "").Obj(),
				ptsNode("node-x", "zone2").Label("foo", "").Obj(), ptsNode("node-y", "zone2").Obj(),
			},
			existing: incl3,
			want:     map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Label("foo", "").Obj(), ptsNode("node-b", "zone1").Label("foo", "").Obj(),
				ptsNode("node-x", "zone2").Label("foo", "").Obj(), ptsTainted(ptsNode("node-y", "zone2")).Obj(),
			},
			existing: incl3,
			want:     map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Label("foo", "").Obj(), ptsNode("node-b", "zone1").Obj(),
				ptsNode("node-x", "zone2").Label("foo", "").Obj(), ptsTainted(ptsNode("node-y", "zone2").Label("foo", "")).Obj(),
			},
			existing: incl3,
			want:     map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-x": ok, "node-y": unsch}},
		{name: "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes: []*api.Node{
				ptsNode("node-a", "zone1").Label("foo", "").Obj(), ptsNode("node-b", "zone1").Obj(),
				ptsNode("node-x", "zone2").Label("foo", "").Obj(), ptsTainted(ptsNode("node-y", "zone2").Label("foo", "")).Obj(),
			},
			existing: incl3,
			want:     map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch}},
		{name: "two Constraints on zone, spreads = [3/3, 2/1]", pod: zoneBarZoneFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo", "bar").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo", "bar").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok}},
		{name: "two Constraints on zone, spreads = [3/4, 2/1]", pod: zoneBarZoneFoo, nodes: ptsFourNodes(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo", "bar").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo", "bar").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(), ptsPodOn("p-y4", "node-y", "foo").Obj(),
			},
			want: map[string]fw.Code{"node-a": unsch, "node-b": unsch, "node-x": unsch, "node-y": unsch}},
		// schedkit: constraint order decides the code when two fail.
		{name: "first failing constraint decides: skew before a missing key",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "rack", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    []*api.Node{ptsNode("node-a", "").Label("rack", "r1").Obj(), ptsNode("node-b", "").Label("rack", "r1").Obj(), ptsNode("node-c", "").Obj()},
			existing: []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj()},
			// node-a: 1+1-0 = 2 > 1 on "node" → Unschedulable before "rack";
			// node-c: "node" passes, then "rack" is missing.
			want: map[string]fw.Code{"node-a": unsch, "node-b": ok, "node-c": uu}},
	})
}

// kube's TestPreFilterDisabled: Filter without PreFilter state is an error.
func TestPodTopologySpreadFilterWithoutPreFilter(t *testing.T) {
	pl := ptsNewFilter(t, ptsListArgs)
	ni, _ := fw.NewNodeInfo(&api.Node{})
	got := pl.Filter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(&api.Pod{}), ni)
	if got.Code() != fw.Error || !strings.Contains(got.Message(), `"PreFilterPodTopologySpread"`) {
		t.Errorf("Filter() = %v, want an Error naming the missing state", got)
	}
	if s := pl.AddPod(context.Background(), fw.NewCycleState(), fw.MustPodInfo(&api.Pod{}), fw.MustPodInfo(&api.Pod{}), ni); s.Code() != fw.Error {
		t.Errorf("AddPod() = %v, want Error", s)
	}
	if s := pl.RemovePod(context.Background(), fw.NewCycleState(), fw.MustPodInfo(&api.Pod{}), fw.MustPodInfo(&api.Pod{}), ni); s.Code() != fw.Error {
		t.Errorf("RemovePod() = %v, want Error", s)
	}
}

func TestPodTopologySpreadReasons(t *testing.T) {
	pl := ptsNewFilter(t, ptsListArgs)
	snap := fw.MustSnapshot(
		[]*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "").Obj(), ptsNode("node-c", "zone2").Obj()},
		[]*api.Pod{ptsPodOn("p1", "node-a", "foo").Obj(), ptsPodOn("p2", "node-a", "foo").Obj()})
	pod := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	state, _ := ptsRunPreFilter(t, pl, snap, pod)
	pi := fw.MustPodInfo(pod)
	a, _ := snap.Get("node-a")
	b, _ := snap.Get("node-b")
	if got := pl.Filter(context.Background(), state, pi, a); got.Code() != fw.Unschedulable || got.Message() != "node(s) didn't match pod topology spread constraints" {
		t.Errorf("skew: Filter() = %v", got)
	}
	if got := pl.Filter(context.Background(), state, pi, b); got.Code() != fw.UnschedulableAndUnresolvable || got.Message() != "node(s) didn't match pod topology spread constraints (missing required label)" {
		t.Errorf("missing key: Filter() = %v", got)
	}
}

func TestPodTopologySpreadPreFilterErrors(t *testing.T) {
	pl := ptsNewFilter(t, PodTopologySpreadArgs{DefaultingType: ListDefaulting,
		DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule}}})
	snap := fw.MustSnapshot([]*api.Node{ptsNode("node-a", "zone1").Obj()}, nil)
	// An invalid selector is an Error naming the pod.
	bad := st.MakePod().Name("p").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "k", Operator: "Near"}}}, nil, nil, nil, nil)).Obj()
	if _, s := ptsRunPreFilter(t, pl, snap, bad); s.Code() != fw.Error || !strings.Contains(s.Message(), "pod default/p") {
		t.Errorf("PreFilter(bad selector) = %v", s)
	}
	// maxSkew 0 is rejected, not silently used.
	zero := st.MakePod().Name("p").SpreadConstraint(st.PtsConstraint(0, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	if _, s := ptsRunPreFilter(t, pl, snap, zero); s.Code() != fw.Error || !strings.Contains(s.Message(), "maxSkew=0") {
		t.Errorf("PreFilter(maxSkew 0) = %v", s)
	}
	// Defaults without a snapshot cannot derive the selector: Error.
	state := fw.NewCycleState()
	state.SetAllNodes(true)
	if _, s := pl.PreFilter(context.Background(), state, fw.MustPodInfo(st.MakePod().Name("q").Obj()), snap.Nodes()); s.Code() != fw.Error {
		t.Errorf("PreFilter(defaults, no snapshot) = %v, want Error", s)
	}
	// Invalid args are rejected by the constructor.
	if _, err := New(PodTopologySpreadArgs{DefaultingType: "Other"}, nil); err == nil || !strings.Contains(err.Error(), `defaultingType="Other"`) {
		t.Errorf("New(bad args) error = %v", err)
	}
}

// List defaulting with a ReplicaSet selecting the pod builds hard default
// constraints; System defaulting has none, so PreFilter skips.
func TestPodTopologySpreadDefaulting(t *testing.T) {
	nodes := []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone2").Obj()}
	existing := []*api.Pod{
		st.MakePod().Name("e1").Node("node-a").Label("app", "web").Obj(),
		st.MakePod().Name("e2").Node("node-a").Label("app", "web").Obj(),
		st.MakePod().Name("e3").Node("node-a").Label("app", "db").Obj(),
	}
	rs := fw.WithControllers(api.WorkloadController{Kind: "ReplicaSet", Namespace: "default", Name: "web-1",
		Selector: api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
	snap := fw.MustSnapshot(nodes, existing, rs)
	pod := st.MakePod().Name("p").Label("app", "web").Owner("apps/v1", "ReplicaSet", "web-1").Obj()

	sys := ptsNewFilter(t, DefaultPodTopologySpreadArgs())
	if _, s := ptsRunPreFilter(t, sys, snap, pod); !s.IsSkip() {
		t.Errorf("System defaulting: PreFilter() = %v, want Skip", s)
	}
	list := ptsNewFilter(t, PodTopologySpreadArgs{DefaultingType: ListDefaulting,
		DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule}}})
	state, s := ptsRunPreFilter(t, list, snap, pod)
	if !s.IsSuccess() {
		t.Fatalf("List defaulting: PreFilter() = %v", s)
	}
	want := ptsView{Counts: []map[string]int{{"zone1": 2, "zone2": 0}}, Paths: [][2]ptsPathView{ptsP("zone2", 0, "zone1", 2)}}
	if diff := cmp.Diff(want, ptsViewOf(ptsState(t, state))); diff != "" {
		t.Errorf("List defaulting state (-want +got):\n%s", diff)
	}
	pi := fw.MustPodInfo(pod)
	a, _ := snap.Get("node-a")
	b, _ := snap.Get("node-b")
	if got := list.Filter(context.Background(), state, pi, a); got.Code() != fw.Unschedulable {
		t.Errorf("node-a: %v, want Unschedulable (2+1-0 > 1)", got)
	}
	if got := list.Filter(context.Background(), state, pi, b); got != nil {
		t.Errorf("node-b: %v, want Success", got)
	}
	// A pod not owned by the ReplicaSet and selected by no Service has no
	// default selector: Skip.
	orphan := st.MakePod().Name("o").Label("app", "web").Obj()
	if _, s := ptsRunPreFilter(t, list, snap, orphan); !s.IsSkip() {
		t.Errorf("orphan: PreFilter() = %v, want Skip", s)
	}
}

// The Clone of the PreFilter state is independent: AddPod on the clone does
// not change the original (preemption dry runs each work on a clone).
func TestPodTopologySpreadCloneIndependent(t *testing.T) {
	pl := ptsNewFilter(t, ptsListArgs)
	snap := fw.MustSnapshot(ptsFourNodes(), []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj()})
	pod := st.MakePod().Name("p").Label("foo", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "node", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj()
	state, _ := ptsRunPreFilter(t, pl, snap, pod)
	before := ptsViewOf(ptsState(t, state))
	clone := state.Clone()
	x, _ := snap.Get("node-x")
	pi := fw.MustPodInfo(pod)
	for range 3 {
		if s := pl.AddPod(context.Background(), clone, pi, fw.MustPodInfo(ptsPodOn("n", "node-x", "foo").Obj()), x); !s.IsSuccess() {
			t.Fatal(s)
		}
	}
	// A node the snapshot does not have, with a new zone: AddPod creates a
	// domain in the clone only.
	z := fw.MustSnapshot([]*api.Node{ptsNode("node-z", "zone9").Obj()}, nil).Nodes()[0]
	if s := pl.AddPod(context.Background(), clone, pi, fw.MustPodInfo(ptsPodOn("n", "node-z", "foo").Obj()), z); !s.IsSuccess() {
		t.Fatal(s)
	}
	if diff := cmp.Diff(before, ptsViewOf(ptsState(t, state))); diff != "" {
		t.Errorf("original changed by AddPod on the clone (-before +after):\n%s", diff)
	}
	got := ptsViewOf(ptsState(t, clone))
	want := ptsView{
		Counts: []map[string]int{{"zone1": 1, "zone2": 3, "zone9": 1}, {"node-a": 1, "node-b": 0, "node-x": 3, "node-y": 0, "node-z": 1}},
		// kube's critical paths are not exact after updates: node-y (0)
		// is the true second smallest, but node-z took path [1].
		Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone9", 1), ptsP("node-b", 0, "node-z", 1)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clone after AddPod (-want +got):\n%s", diff)
	}
	// Filter on the clone sees the raised zone2 count for node-y, and the
	// new domains for node-z (not in the snapshot: read by labels).
	if s := pl.Filter(context.Background(), clone, pi, z); s.Code() != fw.Unschedulable {
		t.Errorf("clone: node-z = %v, want Unschedulable (node-z: 1+1-0 > 1)", s)
	}
	y, _ := snap.Get("node-y")
	if s := pl.Filter(context.Background(), clone, pi, y); s.Code() != fw.Unschedulable {
		t.Errorf("clone: node-y = %v, want Unschedulable (3+1-1 > 1)", s)
	}
	if s := pl.Filter(context.Background(), state, pi, y); s != nil {
		t.Errorf("original: node-y = %v, want Success", s)
	}
}

// ptsCopyNode returns a new Node object with the same content.
func ptsCopyNode(n *api.Node) *api.Node {
	c := *n
	c.Labels = maps.Clone(n.Labels)
	return &c
}

// ptsExported lets go-cmp look into unexported fields and types.
var ptsExported = cmp.Exporter(func(reflect.Type) bool { return true })

// A value that was no domain at PreFilter (its only node is excluded by the
// taints policy) becomes one when AddPod counts a pod on another node of
// that value; Filter then reads the new count for the excluded node too.
func TestPodTopologySpreadDomainCreatedAfterPreFilter(t *testing.T) {
	pl := ptsNewFilter(t, ptsListArgs)
	snap := fw.MustSnapshot([]*api.Node{
		ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone2").Obj(), ptsTainted(ptsNode("node-c", "zone3")).Obj(),
	}, []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo").Obj()})
	pod := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, ptsHonor, nil)).Obj()
	state, s := ptsRunPreFilter(t, pl, snap, pod)
	if !s.IsSuccess() {
		t.Fatal(s)
	}
	pi := fw.MustPodInfo(pod)
	c, _ := snap.Get("node-c")
	// zone3 is no domain: node-c sees 0 + 1 - 1 = 0.
	if got := pl.Filter(context.Background(), state, pi, c); got != nil {
		t.Fatalf("before: node-c = %v, want Success", got)
	}
	other := fw.MustSnapshot([]*api.Node{ptsNode("node-z", "zone3").Obj()}, nil).Nodes()[0]
	for i := range 2 {
		added := fw.MustPodInfo(ptsPodOn(fmt.Sprintf("z%d", i), "node-z", "foo").Obj())
		if s := pl.AddPod(context.Background(), state, pi, added, other); !s.IsSuccess() {
			t.Fatal(s)
		}
	}
	want := ptsView{Counts: []map[string]int{{"zone1": 1, "zone2": 1, "zone3": 2}}, Paths: [][2]ptsPathView{ptsP("zone1", 1, "zone2", 1)}}
	if diff := cmp.Diff(want, ptsViewOf(ptsState(t, state))); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	// Now node-c's zone3 holds 2: 2 + 1 - 1 = 2 > 1.
	if got := pl.Filter(context.Background(), state, pi, c); got.Code() != fw.Unschedulable {
		t.Errorf("after: node-c = %v, want Unschedulable", got)
	}
}

// The filter half inside a scheduling cycle: the FitError message, and the
// nominated-pods pass (a cloned state and node, updated by AddPod).
func TestPodTopologySpreadInCycle(t *testing.T) {
	reg := fw.NewRegistry()
	if err := reg.Register(config.PodTopologySpreadName, New); err != nil {
		t.Fatal(err)
	}
	f, err := runtime.NewFramework(reg, fw.Profile{
		PreFilter: []string{config.PodTopologySpreadName},
		Filter:    []string{config.PodTopologySpreadName},
		Args:      map[string]any{config.PodTopologySpreadName: ptsListArgs},
	})
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*api.Node{ptsNode("node-a", "zone1").Obj(), ptsNode("node-b", "zone1").Obj(), ptsNode("node-x", "zone2").Obj(), ptsNode("node-n", "").Obj()}
	existing := []*api.Pod{ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj()}
	snap := fw.MustSnapshot(nodes, existing)
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

	// zone1 holds 2, zone2 1: with maxSkew 1 only zone2 (node-x: 1+1-1) fits.
	pod := fw.MustPodInfo(st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj())
	res, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rng()})
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	if got := res.SelectedNode(); got != "node-x" {
		t.Errorf("selected %q, want node-x", got)
	}

	// One nominated foo pod on node-x (priority ≥ the pod's) makes the
	// zones 2/2: node-x still fits (2+1-2). Two make them 2/3: node-x fails
	// in the first pass (3+1-2 > 1), and nothing fits.
	nominated := []*fw.PodInfo{fw.MustPodInfo(ptsPodOn("nom1", "", "foo").Obj()), fw.MustPodInfo(ptsPodOn("nom2", "", "foo").Obj())}
	nominate := func(n int) func(string) []*fw.PodInfo {
		return func(node string) []*fw.PodInfo {
			if node == "node-x" {
				return nominated[:n]
			}
			return nil
		}
	}
	res, err = f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rng(), NominatedPods: nominate(1)})
	if err != nil || res.SelectedNode() != "node-x" {
		t.Errorf("one nominated pod: selected %q (%v), want node-x", res.SelectedNode(), err)
	}
	_, err = f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rng(), NominatedPods: nominate(2)})
	want := "0/4 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), 3 node(s) didn't match pod topology spread constraints."
	if err == nil || err.Error() != want {
		t.Errorf("Schedule with a nominated pod: error %v, want %q", err, want)
	}
}
