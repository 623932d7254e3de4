package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
)

// zoned returns nodes named n0, n1, … with the given zone labels ("" for
// none).
func zoned(zones ...string) []*api.Node {
	out := make([]*api.Node, len(zones))
	for i, z := range zones {
		w := st.MakeNode().Name(fmt.Sprintf("n%d", i))
		if z != "" {
			w.Label(st.VariedZoneKey, z)
		}
		out[i] = w.Obj()
	}
	return out
}

func names(nodes []*api.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}

// TestKubeNodeOrder checks the order against kube's node tree worked by
// hand: zones in the order first seen, one node of each zone in turn,
// exhausted zones skipped.
func TestKubeNodeOrder(t *testing.T) {
	regional := func(region, zone string) *api.Node {
		return st.MakeNode().Name(region+zone).Label("topology.kubernetes.io/region", region).Label(st.VariedZoneKey, zone).Obj()
	}
	tests := []struct {
		name  string
		nodes []*api.Node
		want  []string
	}{
		{"empty", nil, []string{}},
		{"one zone keeps its order", zoned("a", "a", "a"), []string{"n0", "n1", "n2"}},
		{"zones in turn", zoned("a", "b", "a", "c", "b", "a"), []string{"n0", "n1", "n3", "n2", "n4", "n5"}},
		{"no zone is a zone of its own", zoned("", "a", "", "a"), []string{"n0", "n1", "n2", "n3"}},
		{"first-seen zone order", zoned("c", "c", "a", "b"), []string{"n0", "n2", "n3", "n1"}},
		{"region and zone make the key", []*api.Node{regional("r1", "a"), regional("r2", "a"), regional("r1", "a")},
			[]string{"r1a", "r2a", "r1a"}},
		{"deprecated zone label wins", []*api.Node{
			st.MakeNode().Name("x").Label("failure-domain.beta.kubernetes.io/zone", "old").Label(st.VariedZoneKey, "a").Obj(),
			st.MakeNode().Name("y").Label(st.VariedZoneKey, "a").Obj(),
			st.MakeNode().Name("z").Label(st.VariedZoneKey, "old").Obj(),
		}, []string{"x", "y", "z"}}, // x shares z's zone "old", not y's "a" (that would give x, z, y)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(kubeNodeOrder(tc.nodes)); !slices.Equal(got, tc.want) {
				t.Errorf("kubeNodeOrder = %v, want %v", got, tc.want)
			}
		})
	}
	if got := zoneKey(map[string]string{"failure-domain.beta.kubernetes.io/zone": "old", st.VariedZoneKey: "a"}); got != ":\x00:old" {
		t.Errorf("zoneKey = %q, want the deprecated label's zone", got)
	}
}

// TestPropKubeNodeOrder: the order is a permutation that keeps each
// zone's nodes in their order, lists the zones in turn (no zone gets its
// (k+1)-th node before every zone with k+1 nodes got its k-th), and is a
// fixed point: kube's cache adding nodes in that order lists them so.
func TestPropKubeNodeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		zs := rapid.SliceOfN(rapid.SampledFrom([]string{"", "a", "b", "c", "d"}), 0, 40).Draw(t, "zones")
		nodes := zoned(zs...)
		got := kubeNodeOrder(nodes)
		if !slices.Equal(slices.Sorted(slices.Values(names(got))), slices.Sorted(slices.Values(names(nodes)))) {
			t.Fatalf("not a permutation: %v of %v", names(got), names(nodes))
		}
		rank := map[string]int{} // node name → its index within its zone
		seen := map[string]int{}
		for _, n := range nodes {
			z := n.Labels[st.VariedZoneKey]
			rank[n.Name] = seen[z]
			seen[z]++
		}
		for i := 1; i < len(got); i++ {
			if rank[got[i].Name] < rank[got[i-1].Name] {
				t.Fatalf("%v: node %s (turn %d) after %s (turn %d)", names(got), got[i].Name, rank[got[i].Name], got[i-1].Name, rank[got[i-1].Name])
			}
		}
		if again := kubeNodeOrder(got); !slices.Equal(names(again), names(got)) {
			t.Fatalf("not a fixed point: %v then %v", names(got), names(again))
		}
	})
}

// readList decodes a List of the export into its namespaces, nodes and
// pods.
func readList(t *testing.T, path string) (ns []api.Namespace, nodes []*api.Node, pods []*api.Pod) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		APIVersion, Kind string
		Items            []json.RawMessage
	}
	if err := json.Unmarshal(b, &list); err != nil || list.APIVersion != "v1" || list.Kind != "List" {
		t.Fatalf("%s: %v, apiVersion %q, kind %q: want a v1 List", path, err, list.APIVersion, list.Kind)
	}
	for i, raw := range list.Items {
		var head struct{ APIVersion, Kind string }
		if err := json.Unmarshal(raw, &head); err != nil {
			t.Fatal(err)
		}
		var obj any
		switch head.Kind {
		case "Namespace":
			var w struct {
				Metadata struct {
					Name   string
					Labels map[string]string
				}
			}
			if err := json.Unmarshal(raw, &w); err != nil {
				t.Fatal(err)
			}
			ns = append(ns, api.Namespace{Name: w.Metadata.Name, Labels: w.Metadata.Labels})
			continue
		case "Node":
			n := &api.Node{}
			nodes, obj = append(nodes, n), n
		case "Pod":
			p := &api.Pod{}
			pods, obj = append(pods, p), p
		default:
			t.Fatalf("%s: items[%d]: kind %q", path, i, head.Kind)
		}
		if head.APIVersion != "v1" {
			t.Errorf("%s: items[%d]: apiVersion %q, want v1", path, i, head.APIVersion)
		}
		if err := json.Unmarshal(raw, obj); err != nil {
			t.Fatal(err)
		}
	}
	return ns, nodes, pods
}

// TestExportReadsBack: the exported Lists of v1 objects decode back into
// the generated namespaces, nodes, existing pods and incoming streams (with
// the nodes their churn adds, and the churn events), in order: the
// kube-shaped JSON carries the whole workload, varied or scheduler_perf.
func TestExportReadsBack(t *testing.T) {
	tests := []struct {
		workload    string
		streams     []string
		churnEvents bool
	}{
		{workloadVaried, []string{streamDaemonSets, streamReqImages, streamVaried}, false},
		{"SchedulingRequiredPodAntiAffinityWithNSSelector", []string{"SchedulingRequiredPodAntiAffinityWithNSSelector"}, false},
		{"SchedulingWithMixedChurn", []string{"SchedulingWithMixedChurn"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.workload, func(t *testing.T) {
			o := workloadOptions{workload: tc.workload, nodes: 200, seed: defaultSeed, pods: 30, order: orderKube}
			w, err := generate(o)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			meta := exportMeta{Workload: tc.workload, Nodes: o.nodes, Seed: o.seed, Order: o.order, Existing: len(w.pods)}
			if err := w.export(dir, meta); err != nil {
				t.Fatal(err)
			}
			opts := []cmp.Option{cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }), cmpopts.EquateEmpty()}
			ns, nodes, pods := readList(t, filepath.Join(dir, clusterFile))
			if diff := cmp.Diff(w.nodes, nodes, opts...); diff != "" {
				t.Errorf("nodes (-generated +read):\n%s", diff)
			}
			if diff := cmp.Diff(w.pods, pods, opts...); diff != "" {
				t.Errorf("existing pods (-generated +read):\n%s", diff)
			}
			if diff := cmp.Diff(w.namespaces, ns, opts...); diff != "" {
				t.Errorf("namespaces (-generated +read):\n%s", diff)
			}
			if len(w.nodes) != o.nodes || len(ns) == 0 {
				t.Errorf("%d nodes, %d namespaces: want %d and some", len(w.nodes), len(ns), o.nodes)
			}
			meta.Streams = tc.streams
			for _, s := range tc.streams {
				_, nodes, pods := readList(t, filepath.Join(dir, streamFile(s)))
				meta.StreamPods = append(meta.StreamPods, len(w.streams[s]))
				if len(w.streams[s]) == 0 {
					t.Errorf("%s: no pods generated", s)
				}
				if diff := cmp.Diff(w.streams[s], pods, opts...); diff != "" {
					t.Errorf("%s stream (-generated +read):\n%s", s, diff)
				}
				if diff := cmp.Diff(w.churnNodes[s], nodes, opts...); diff != "" {
					t.Errorf("%s churn nodes (-generated +read):\n%s", s, diff)
				}
				b, err := os.ReadFile(filepath.Join(dir, eventsFile(s)))
				if !tc.churnEvents {
					if err == nil {
						t.Errorf("%s: %s written for a stream without churn", s, eventsFile(s))
					}
					continue
				}
				var evs []churnEvent
				if err != nil || json.Unmarshal(b, &evs) != nil || len(evs) == 0 {
					t.Fatalf("%s: events %s (%v): want churn events", s, b, err)
				}
				if diff := cmp.Diff(w.events[s], evs); diff != "" {
					t.Errorf("%s events (-generated +read):\n%s", s, diff)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, metaFile))
			if err != nil {
				t.Fatal(err)
			}
			var got exportMeta
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(meta, got); diff != "" {
				t.Errorf("meta.json (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGenerateIsTheBenchmarkWorkload: the streams are
// BenchmarkVariedCycle's (the cluster's generator continued for the varied
// stream, a requests-and-images generator seeded seed+1), and the nodes
// are the generator's, in its order or in kube's.
func TestGenerateIsTheBenchmarkWorkload(t *testing.T) {
	w, err := generate(workloadOptions{workload: workloadVaried, nodes: 25, seed: 7, pods: 5, order: orderGenerated})
	if err != nil {
		t.Fatal(err)
	}
	wk, err := generate(workloadOptions{workload: workloadVaried, nodes: 25, seed: 7, pods: 5, order: orderKube})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(wk.nodes), names(kubeNodeOrder(w.nodes)); !slices.Equal(got, want) || slices.Equal(got, names(w.nodes)) {
		t.Errorf("kube order %v, want %v (and not the generator's %v)", got, want, names(w.nodes))
	}
	v := st.NewVaried(st.VariedOptions{Seed: 7, Nodes: 25})
	simple := st.NewVaried(st.VariedOptions{Seed: 8, RequestsAndImagesOnly: true})
	var varied, reqimages []*api.Pod
	for range 5 {
		varied, reqimages = append(varied, v.Next()), append(reqimages, simple.Next())
	}
	opts := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
	for _, c := range []struct {
		name      string
		got, want any
	}{{"nodes", w.nodes, v.Nodes}, {"pods", w.pods, v.Pods}, {"varied", w.streams[streamVaried], varied},
		{"reqimages", w.streams[streamReqImages], reqimages}} {
		if diff := cmp.Diff(c.want, c.got, opts); diff != "" {
			t.Errorf("%s (-benchmark +generated):\n%s", c.name, diff)
		}
	}
}

// TestNodeOrderKeepsDecisions: over every node, the node order changes no
// pod's feasible count, best total or ties (the order matters to sampling
// and tie-breaks only), fresh and assumed; with -follow, a run in the
// other order and with other tie draws places every tied pod where the
// first run did, so that even assumed, the two runs agree pod for pod.
func TestNodeOrderKeepsDecisions(t *testing.T) {
	for _, assumed := range []bool{false, true} {
		t.Run(fmt.Sprintf("assumed=%v", assumed), func(t *testing.T) {
			o := runOptions{workloadOptions: workloadOptions{nodes: 120, seed: defaultSeed, order: orderKube},
				stream: streamVaried, assumed: assumed, warm: 5, timed: 40, workers: 1, profile: profileDefault, tieSeed: 1}
			o.pods = o.warm + o.timed
			_, first, err := measure(o)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "first.jsonl")
			if err := writeFile(path, func(w io.Writer) error { return writeRecords(w, first) }); err != nil {
				t.Fatal(err)
			}
			o.order, o.tieSeed = orderGenerated, 99
			_, free, err := measure(o)
			if err != nil {
				t.Fatal(err)
			}
			o.follow = path
			_, following, err := measure(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(first) != o.pods || len(following) != o.pods {
				t.Fatalf("%d and %d records, want %d", len(first), len(following), o.pods)
			}
			scored, differ := 0, 0
			for i := range first {
				if first[i] != following[i] {
					t.Errorf("pod %d: first run %+v, following run %+v", i, first[i], following[i])
				}
				if first[i].Scored {
					scored++
				}
				if free[i].Node != first[i].Node {
					differ++
				}
			}
			if scored < o.pods/2 || differ == 0 {
				t.Errorf("%d of %d pods scored, %d placed elsewhere without -follow: the comparison is too thin", scored, o.pods, differ)
			}
		})
	}
}

// TestNoVolumeProfile: the novolume profile has none of the volume
// plugins, keeps every other plugin and weight, and builds.
func TestNoVolumeProfile(t *testing.T) {
	def, err := profileOf(profileDefault, framework.DefaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	nv, err := profileOf(profileNoVolume, framework.DefaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	lists := func(p framework.Profile) [][]string {
		return [][]string{p.PreEnqueue, p.QueueSort, p.PreFilter, p.Filter, p.PostFilter, p.PreScore, p.Score, p.Reserve, p.Permit, p.PreBind, p.Bind, p.PostBind}
	}
	dl, nl := lists(def), lists(nv)
	for i := range dl {
		want := slices.DeleteFunc(slices.Clone(dl[i]), func(s string) bool { return slices.Contains(volumePlugins, s) })
		if !slices.Equal(nl[i], want) {
			t.Errorf("extension point %d: %v, want %v", i, nl[i], want)
		}
	}
	if _, ok := nv.Weights[config.VolumeBindingName]; ok || len(nv.Weights) != len(def.Weights)-1 {
		t.Errorf("weights %v from %v: want VolumeBinding's dropped only", nv.Weights, def.Weights)
	}
	if !slices.Contains(def.Filter, config.VolumeZoneName) {
		t.Errorf("default profile's filters %v lack VolumeZone: the test checks nothing", def.Filter)
	}
	if _, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), nv); err != nil {
		t.Error(err)
	}
	if _, err := profileOf("nope", framework.DefaultKubeVersion); err == nil {
		t.Error("profileOf(nope): no error")
	}
}

// TestNoTopologyProfile: the notopology profile is the default one with
// PodTopologySpread's args alone set, defaulting List with no
// constraints (so no pod gets default constraints), and it builds.
func TestNoTopologyProfile(t *testing.T) {
	def, err := profileOf(profileDefault, framework.DefaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	nt, err := profileOf(profileNoTopology, framework.DefaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	args, ok := nt.Args[config.PodTopologySpreadName].(podtopologyspread.PodTopologySpreadArgs)
	if !ok || args.DefaultingType != podtopologyspread.ListDefaulting || len(args.EffectiveDefaultConstraints()) != 0 {
		t.Errorf("PodTopologySpread args %+v: want defaulting List, no constraints", nt.Args[config.PodTopologySpreadName])
	}
	if _, ok := def.Args[config.PodTopologySpreadName]; ok {
		t.Errorf("the default profile's PodTopologySpread args changed: %+v", def.Args[config.PodTopologySpreadName])
	}
	rest := maps.Clone(nt.Args)
	delete(rest, config.PodTopologySpreadName)
	nt.Args = rest
	if diff := cmp.Diff(def, nt, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("beyond PodTopologySpread's args (-default +notopology):\n%s", diff)
	}
	if _, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), nt); err != nil {
		t.Error(err)
	}
}

// TestProfileNote: a scheduler_perf stream measured with the profile of
// its case's configuration (or, for the default one, without the volume
// plugins) gets no note; another profile gets one naming the right one.
func TestProfileNote(t *testing.T) {
	for _, tc := range []struct {
		stream, profile, want string
	}{
		{"HostPortConflict", profileNoTopology, ""},
		{"HostPortConflict", profileDefault, "-profile notopology reproduces"},
		{"ResourceSaturation", profileNoVolume, "-profile notopology reproduces"},
		{"SchedulingBasic", profileDefault, ""},
		{"SchedulingBasic", profileNoVolume, ""},
		{"SchedulingBasic", profileNoTopology, "-profile default reproduces"},
		{streamVaried, profileNoTopology, ""},
	} {
		got := profileNote(tc.stream, tc.profile)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("profileNote(%s, %s) = %q, want %q", tc.stream, tc.profile, got, tc.want)
		}
	}
}

// TestListStreams: list names every stream once with its workload and
// kind, and run and export accept each (streamWorkload, the workload
// option).
func TestListStreams(t *testing.T) {
	var b strings.Builder
	if err := listStreams(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5+len(perfCases) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 5+len(perfCases), b.String())
	}
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 || seen[f[0]] {
			t.Fatalf("line %q: want a new stream, its workload and its kind", l)
		}
		seen[f[0]] = true
		wl, ok := streamWorkload(f[0])
		if !ok || wl != f[1] {
			t.Errorf("line %q: streamWorkload = %q, %v", l, wl, ok)
		}
		if want := map[bool]string{true: kindVaried, false: kindPerf}[variedKind(wl)]; f[2] != want {
			t.Errorf("line %q: kind %q, want %q", l, f[2], want)
		}
		o := workloadOptions{workload: wl, nodes: 10, pods: 1, order: orderKube}
		if err := o.validate(); err != nil {
			t.Errorf("line %q: %v", l, err)
		}
	}
	if _, ok := streamWorkload("nope"); ok {
		t.Error("streamWorkload(nope) is a stream")
	}
	if err := (&workloadOptions{workload: "nope", nodes: 10, pods: 1, order: orderKube}).validate(); err == nil {
		t.Error("workload nope: no error")
	}
}

// TestStepsTimeTheCycles: -steps changes no pod's record and reports every
// step a scored cycle reaches, each at most the row's wall time per pod;
// without it the row has no steps.
func TestStepsTimeTheCycles(t *testing.T) {
	o := runOptions{workloadOptions: workloadOptions{nodes: 120, seed: defaultSeed, order: orderKube},
		stream: streamVaried, warm: 5, timed: 40, workers: 1, profile: profileDefault, tieSeed: 1}
	o.pods = o.warm + o.timed
	plain, plainRecs, err := measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Steps != nil {
		t.Fatalf("a row without -steps has steps %+v", plain.Steps)
	}
	o.steps = true
	timed, recs, err := measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs, plainRecs) {
		t.Fatal("-steps changed the pods' records")
	}
	s := timed.Steps
	if s == nil {
		t.Fatal("a row with -steps has no steps")
	}
	perPod := float64(timed.WallNanos) / float64(timed.Timed)
	sum := s.PreFilter + s.Filter + s.PreScore + s.Score + s.NormalizeScore + s.SelectHost
	for name, v := range map[string]float64{"prefilter": s.PreFilter, "filter": s.Filter, "prescore": s.PreScore,
		"score": s.Score, "normalize_score": s.NormalizeScore, "select_host": s.SelectHost} {
		if v <= 0 {
			t.Errorf("%s: %v ns a pod, want a positive time (the stream's pods are scored)", name, v)
		}
	}
	if sum > perPod {
		t.Errorf("steps sum to %.0f ns a pod, above the row's wall time of %.0f", sum, perPod)
	}
}
