package framework_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

func omSnapNode(name string, images ...api.ContainerImage) *api.Node {
	n := omTestNode(name)
	n.Status.Images = images
	return n
}

func omBoundPod(name, node string, cpu string) *api.Pod {
	var req omM
	if cpu != "" {
		req = omM{"cpu": cpu}
	}
	p := omNamedPod(name, []api.Container{omC(req, nil)})
	p.Spec.NodeName = node
	return p
}

func omWithAntiAffinity(p *api.Pod) *api.Pod {
	p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		{TopologyKey: "kubernetes.io/hostname", LabelSelector: &api.LabelSelector{MatchLabels: omLabels{"app": p.Name}}}}}}
	return p
}

func omWithPreferredAffinity(p *api.Pod) *api.Pod {
	p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 10, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: &api.LabelSelector{}}}}}}
	return p
}

func omNodeNames(nis []*fw.NodeInfo) []string {
	out := []string{}
	for _, n := range nis {
		out = append(out, n.Name())
	}
	return out
}

func TestNewSnapshotErrors(t *testing.T) {
	n1, n2 := omSnapNode("n1"), omSnapNode("n2")
	badAffinity := omBoundPod("bad", "n1", "")
	badAffinity.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		{TopologyKey: "zone", LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpIn)}}}}}}
	tests := []struct {
		name  string
		nodes []*api.Node
		pods  []*api.Pod
		opts  []fw.SnapshotOption
		want  string
	}{
		{"nil node", []*api.Node{n1, nil}, nil, nil, "framework: snapshot: node 1 is nil"},
		{"nil pod", []*api.Node{n1}, []*api.Pod{omBoundPod("a", "n1", ""), omBoundPod("b", "n1", ""), nil}, nil, "framework: snapshot: pod 2 is nil"},
		{"duplicate node name", []*api.Node{n1, n2, omSnapNode("n1")}, nil, nil, `framework: snapshot: duplicate node name "n1"`},
		{"pod on unknown node", []*api.Node{n1}, []*api.Pod{omBoundPod("p", "ghost", "")}, nil, `framework: snapshot: pod default/p: node "ghost" not found`},
		{"duplicate namespace", []*api.Node{n1}, nil, []fw.SnapshotOption{fw.WithNamespaces(api.Namespace{Name: "ns"}, api.Namespace{Name: "ns"})},
			`framework: snapshot: duplicate namespace "ns"`},
		// An invalid selector in an assigned pod's affinity is an error here
		// (kube-scheduler's cache ignores it; see the report).
		{"invalid affinity of an assigned pod", []*api.Node{n1}, []*api.Pod{badAffinity}, nil,
			`pod default/bad: podAffinity.required[0]: labelSelector.matchExpressions[0] key "k": operator In needs at least one value`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fw.NewSnapshot(tc.nodes, tc.pods, tc.opts...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("NewSnapshot = (%v, %v), want error %q", s, err, tc.want)
			}
			if s != nil {
				t.Error("NewSnapshot returned a snapshot with an error")
			}
		})
	}
}

func TestNewSnapshotContents(t *testing.T) {
	nodes := []*api.Node{omSnapNode("zeta"), omSnapNode("alpha"), omSnapNode("mid")}
	pending := omBoundPod("pending", "", "1")
	succeeded := omBoundPod("succeeded", "alpha", "1")
	succeeded.Status.Phase = api.PodSucceeded
	failed := omBoundPod("failed", "alpha", "1")
	failed.Status.Phase = api.PodFailed
	running := omBoundPod("running", "alpha", "250m")
	running.Status.Phase = api.PodRunning
	unknown := omBoundPod("unknown", "zeta", "100m")
	unknown.Status.Phase = api.PodUnknown
	// A terminal pod on an unknown node is skipped before the node lookup.
	ghostDone := omBoundPod("ghost-done", "ghost", "1")
	ghostDone.Status.Phase = api.PodSucceeded
	assumed := omBoundPod("assumed", "alpha", "500m") // nodeName set, phase Pending

	s, err := fw.NewSnapshot(nodes, []*api.Pod{pending, succeeded, failed, running, unknown, ghostDone, assumed},
		fw.WithNamespaces(api.Namespace{Name: "team-a", Labels: omLabels{"tier": "gold"}}, api.Namespace{Name: "bare"}),
		fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: omLabels{"app": "x"}}),
		fw.WithControllers(api.WorkloadController{Kind: "ReplicaSet", Namespace: "default", Name: "rs"}),
		fw.WithDisruptionBudgets(api.PodDisruptionBudget{Namespace: "default", Name: "pdb", DisruptionsAllowed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, omNodeNames(s.Nodes())); diff != "" {
		t.Errorf("node order (-want +got):\n%s", diff)
	}
	if s.NumNodes() != 3 {
		t.Errorf("NumNodes = %d", s.NumNodes())
	}
	for i, name := range []string{"zeta", "alpha", "mid"} {
		ni, ok := s.Get(name)
		if !ok || ni != s.Nodes()[i] || s.Index(name) != i {
			t.Errorf("Get/Index(%q) = %v, %v, %d; want node %d", name, ni, ok, s.Index(name), i)
		}
	}
	if ni, ok := s.Get("ghost"); ok || ni != nil || s.Index("ghost") != -1 {
		t.Errorf("Get/Index of unknown node = %v, %v, %d", ni, ok, s.Index("ghost"))
	}
	alpha, _ := s.Get("alpha")
	zeta, _ := s.Get("zeta")
	mid, _ := s.Get("mid")
	if diff := cmp.Diff([]string{"running", "assumed"}, omPodNames(alpha.Pods)); diff != "" {
		t.Errorf("alpha pods (-want +got):\n%s", diff)
	}
	// 250m + 500m.
	if alpha.Requested.MilliCPU != 750 || zeta.Requested.MilliCPU != 100 || len(mid.Pods) != 0 {
		t.Errorf("requested: alpha %d zeta %d, mid pods %d", alpha.Requested.MilliCPU, zeta.Requested.MilliCPU, len(mid.Pods))
	}
	if diff := cmp.Diff(omLabels{"tier": "gold"}, s.NamespaceLabels("team-a")); diff != "" {
		t.Errorf("NamespaceLabels (-want +got):\n%s", diff)
	}
	if s.NamespaceLabels("bare") != nil || s.NamespaceLabels("nope") != nil {
		t.Errorf("NamespaceLabels of label-less / unknown namespace not nil")
	}
	if len(s.Services) != 1 || len(s.Controllers) != 1 || len(s.DisruptionBudgets) != 1 || s.Services[0].Name != "svc" {
		t.Errorf("options not recorded: %v %v %v", s.Services, s.Controllers, s.DisruptionBudgets)
	}
	// An empty snapshot is valid.
	empty, err := fw.NewSnapshot(nil, nil)
	if err != nil || empty.NumNodes() != 0 || len(empty.Nodes()) != 0 || len(empty.NodesWithPodAffinity()) != 0 {
		t.Errorf("empty snapshot: %v, %v", empty, err)
	}
}

func TestSnapshotImageNumNodes(t *testing.T) {
	app := api.ContainerImage{Names: []string{"app:v1", "app@sha256:1"}, SizeBytes: 100}
	side := api.ContainerImage{Names: []string{"sidecar:v2"}, SizeBytes: 10}
	// n1 lists app:v1 twice (two entries): it still counts once.
	s := fw.MustSnapshot([]*api.Node{
		omSnapNode("n1", app, side, api.ContainerImage{Names: []string{"app:v1"}, SizeBytes: 100}),
		omSnapNode("n2", app),
		omSnapNode("n3"),
	}, nil)
	check := func(what string, want map[string]int) {
		t.Helper()
		for img, n := range want {
			if got := s.ImageNumNodes(img); got != n {
				t.Errorf("%s: ImageNumNodes(%q) = %d, want %d", what, img, got, n)
			}
		}
	}
	check("initial", map[string]int{"app:v1": 2, "app@sha256:1": 2, "sidecar:v2": 1, "app": 0, "unknown": 0})

	c := s.Clone()
	if err := s.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	check("after RemoveNode(n1)", map[string]int{"app:v1": 1, "app@sha256:1": 1, "sidecar:v2": 0})

	// n2 now carries only the sidecar image.
	if err := s.UpdateNode(omSnapNode("n2", side)); err != nil {
		t.Fatal(err)
	}
	check("after UpdateNode(n2)", map[string]int{"app:v1": 0, "app@sha256:1": 0, "sidecar:v2": 1})

	// The clone taken before keeps the original counts.
	for img, n := range map[string]int{"app:v1": 2, "sidecar:v2": 1} {
		if got := c.ImageNumNodes(img); got != n {
			t.Errorf("clone: ImageNumNodes(%q) = %d, want %d", img, got, n)
		}
	}
	// And a change on the clone does not reach the original.
	if err := c.AddNode(omSnapNode("n4", app)); err != nil {
		t.Fatal(err)
	}
	if c.ImageNumNodes("app:v1") != 3 || s.ImageNumNodes("app:v1") != 0 {
		t.Errorf("after AddNode on clone: clone %d, original %d", c.ImageNumNodes("app:v1"), s.ImageNumNodes("app:v1"))
	}
}

func TestSnapshotAffinityLists(t *testing.T) {
	s := fw.MustSnapshot([]*api.Node{omSnapNode("n1"), omSnapNode("n2"), omSnapNode("n3")}, []*api.Pod{
		omWithPreferredAffinity(omBoundPod("pref", "n3", "")),
		omWithAntiAffinity(omBoundPod("anti", "n1", "")),
		omBoundPod("plain", "n2", ""),
	})
	check := func(what string, wantAff, wantAnti []string) {
		t.Helper()
		if diff := cmp.Diff(wantAff, omNodeNames(s.NodesWithPodAffinity()), omViewOpts); diff != "" {
			t.Errorf("%s: NodesWithPodAffinity (-want +got):\n%s", what, diff)
		}
		if diff := cmp.Diff(wantAnti, omNodeNames(s.NodesWithRequiredAntiAffinity()), omViewOpts); diff != "" {
			t.Errorf("%s: NodesWithRequiredAntiAffinity (-want +got):\n%s", what, diff)
		}
		// The listed NodeInfos are the snapshot's current ones.
		for _, ni := range append(s.NodesWithPodAffinity(), s.NodesWithRequiredAntiAffinity()...) {
			if cur, _ := s.Get(ni.Name()); cur != ni {
				t.Errorf("%s: stale NodeInfo for %s in affinity lists", what, ni.Name())
			}
		}
	}
	// Snapshot order, not insertion order of the pods.
	check("initial", []string{"n1", "n3"}, []string{"n1"})
	held := s.NodesWithPodAffinity()

	if err := s.AddPod(omWithAntiAffinity(omBoundPod("anti2", "n2", ""))); err != nil {
		t.Fatal(err)
	}
	check("after AddPod(anti2 on n2)", []string{"n1", "n2", "n3"}, []string{"n1", "n2"})
	// A slice handed out earlier is not rewritten by the refresh.
	if diff := cmp.Diff([]string{"n1", "n3"}, omNodeNames(held)); diff != "" {
		t.Errorf("earlier result changed (-want +got):\n%s", diff)
	}

	if err := s.RemovePod(omBoundPod("anti", "n1", "")); err != nil {
		t.Fatal(err)
	}
	check("after RemovePod(anti)", []string{"n2", "n3"}, []string{"n2"})

	// After a Clone, a plain pod added to n3 copies n3's NodeInfo: the
	// affinity list must point at the new copy, which holds the new pod.
	c := s.Clone()
	if err := s.AddPod(omBoundPod("plain2", "n3", "")); err != nil {
		t.Fatal(err)
	}
	check("after copy-on-write of n3", []string{"n2", "n3"}, []string{"n2"})
	n3 := s.NodesWithPodAffinity()[1]
	if diff := cmp.Diff([]string{"pref", "plain2"}, omPodNames(n3.Pods)); diff != "" {
		t.Errorf("n3 pods via affinity list (-want +got):\n%s", diff)
	}
	// The clone's lists still show its own (unchanged) n3.
	if cn3 := c.NodesWithPodAffinity()[1]; len(cn3.Pods) != 1 {
		t.Errorf("clone's n3 has %d pods, want 1", len(cn3.Pods))
	}

	if err := s.RemoveNode("n2"); err != nil {
		t.Fatal(err)
	}
	check("after RemoveNode(n2)", []string{"n3"}, nil)
	if err := s.UpdateNode(omSnapNode("n3")); err != nil {
		t.Fatal(err)
	}
	check("after UpdateNode(n3)", []string{"n3"}, nil)
}

func TestSnapshotCloneCopyOnWrite(t *testing.T) {
	s := fw.MustSnapshot([]*api.Node{omSnapNode("n1"), omSnapNode("n2"), omSnapNode("n3")}, []*api.Pod{
		omBoundPod("a", "n1", "1"), omBoundPod("b", "n2", "2"),
	}, fw.WithServices(api.Service{Name: "svc"}))
	c := s.Clone()
	if len(c.Services) != 1 || c.NumNodes() != 3 {
		t.Fatalf("clone lost contents")
	}
	for i := range s.Nodes() {
		if c.Nodes()[i] != s.Nodes()[i] {
			t.Errorf("node %d not shared right after Clone", i)
		}
	}

	// Mutating the clone copies only n2.
	if err := c.AddPod(omBoundPod("c", "n2", "500m")); err != nil {
		t.Fatal(err)
	}
	sn1, _ := s.Get("n1")
	sn2, _ := s.Get("n2")
	cn1, _ := c.Get("n1")
	cn2, _ := c.Get("n2")
	if cn2 == sn2 || cn1 != sn1 {
		t.Errorf("copy-on-write: n2 shared=%v (want false), n1 shared=%v (want true)", cn2 == sn2, cn1 == sn1)
	}
	if sn2.Requested.MilliCPU != 2000 || len(sn2.Pods) != 1 || cn2.Requested.MilliCPU != 2500 || len(cn2.Pods) != 2 {
		t.Errorf("n2: original %d/%d pods, clone %d/%d pods", sn2.Requested.MilliCPU, len(sn2.Pods), cn2.Requested.MilliCPU, len(cn2.Pods))
	}
	// A second mutation of the same node on the clone does not copy again.
	if err := c.RemovePod(omBoundPod("b", "n2", "")); err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Get("n2"); again != cn2 || len(again.Pods) != 1 {
		t.Errorf("second write copied again or lost the change")
	}

	// Mutating the original copies its n1; the clone's n1 is unchanged.
	if err := s.RemovePod(omBoundPod("a", "n1", "")); err != nil {
		t.Fatal(err)
	}
	sn1b, _ := s.Get("n1")
	if sn1b == cn1 || len(cn1.Pods) != 1 || cn1.Requested.MilliCPU != 1000 || len(sn1b.Pods) != 0 {
		t.Errorf("original's write leaked into the clone: clone n1 pods %d cpu %d", len(cn1.Pods), cn1.Requested.MilliCPU)
	}
	// n3 is still shared by both.
	sn3, _ := s.Get("n3")
	cn3, _ := c.Get("n3")
	if sn3 != cn3 {
		t.Error("untouched n3 no longer shared")
	}

	// Structural changes stay on their side.
	if err := c.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	if err := c.AddNode(omSnapNode("n4")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n1", "n2", "n3"}, omNodeNames(s.Nodes())); diff != "" {
		t.Errorf("original order changed (-want +got):\n%s", diff)
	}
	if s.Index("n3") != 2 || s.Index("n4") != -1 || c.Index("n3") != 1 || c.Index("n4") != 2 {
		t.Errorf("indexes: original n3=%d n4=%d, clone n3=%d n4=%d", s.Index("n3"), s.Index("n4"), c.Index("n3"), c.Index("n4"))
	}
	if err := s.AddNode(omSnapNode("n5")); err != nil {
		t.Fatal(err)
	}
	if c.Index("n5") != -1 || s.Index("n5") != 3 {
		t.Errorf("AddNode on the original leaked: clone n5=%d", c.Index("n5"))
	}

	// A clone of a clone is isolated from both.
	cc := c.Clone()
	if err := cc.AddPod(omBoundPod("d", "n3", "1")); err != nil {
		t.Fatal(err)
	}
	for _, snap := range []*fw.Snapshot{s, c} {
		if n3, _ := snap.Get("n3"); len(n3.Pods) != 0 {
			t.Errorf("clone-of-clone write leaked: n3 has %d pods", len(n3.Pods))
		}
	}
}

func TestSnapshotRemoveNodeAndMutationErrors(t *testing.T) {
	var nodes []*api.Node
	for i := 1; i <= 5; i++ {
		nodes = append(nodes, omSnapNode(fmt.Sprintf("n%d", i)))
	}
	s := fw.MustSnapshot(nodes, []*api.Pod{omBoundPod("a", "n4", "1")})
	held := s.Nodes()
	if err := s.RemoveNode("n2"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n1", "n3", "n4", "n5"}, omNodeNames(s.Nodes())); diff != "" {
		t.Errorf("order after RemoveNode (-want +got):\n%s", diff)
	}
	for i, ni := range s.Nodes() {
		if got, ok := s.Get(ni.Name()); !ok || got != ni || s.Index(ni.Name()) != i {
			t.Errorf("index of %s inconsistent: %d", ni.Name(), s.Index(ni.Name()))
		}
	}
	if _, ok := s.Get("n2"); ok || s.Index("n2") != -1 || s.NumNodes() != 4 {
		t.Error("n2 still reachable")
	}
	if diff := cmp.Diff([]string{"n1", "n2", "n3", "n4", "n5"}, omNodeNames(held)); diff != "" {
		t.Errorf("a Nodes() slice handed out earlier changed (-want +got):\n%s", diff)
	}
	// The pods of the remaining nodes survive.
	if n4, _ := s.Get("n4"); len(n4.Pods) != 1 {
		t.Error("n4 lost its pod")
	}

	noNode := omBoundPod("lost", "", "")
	addErr := func(_ int, err error) error { return err }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"RemoveNode unknown", s.RemoveNode("n2"), `framework: snapshot: unknown node "n2"`},
		{"AddNode nil", s.AddNode(nil), "framework: snapshot: nil node"},
		{"AddNode duplicate", s.AddNode(omSnapNode("n1")), `framework: snapshot: duplicate node name "n1"`},
		{"UpdateNode nil", s.UpdateNode(nil), "framework: snapshot: nil node"},
		{"UpdateNode unknown", s.UpdateNode(omSnapNode("zz")), `framework: snapshot: unknown node "zz"`},
		{"AddPod without nodeName", s.AddPod(noNode), "framework: snapshot: pod default/lost has no nodeName"},
		{"AddPodInfo nil", addErr(s.AddPodInfo(nil, fw.PodAdd{})), "framework: snapshot: nil pod"},
		{"AddPod unknown node", s.AddPod(omBoundPod("x", "n2", "")), `framework: snapshot: pod default/x: node "n2" not found`},
		{"RemovePod nil", s.RemovePod(nil), "framework: snapshot: nil pod"},
		{"RemovePod unknown node", s.RemovePod(omBoundPod("x", "n2", "")), `framework: snapshot: pod default/x: node "n2" not found`},
		{"RemovePod not on node", s.RemovePod(omBoundPod("x", "n1", "")), `framework: pod default/x is not on node "n1"`},
	}
	for _, tc := range tests {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: error = %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

// Readers of a fresh snapshot and of a clone never write to it: run with
// -race, concurrent calls must not race.
func TestSnapshotConcurrentReads(t *testing.T) {
	s := fw.MustSnapshot([]*api.Node{omSnapNode("n1"), omSnapNode("n2")}, []*api.Pod{omWithAntiAffinity(omBoundPod("a", "n2", ""))})
	c := s.Clone()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, snap := range []*fw.Snapshot{s, c} {
				if got := omNodeNames(snap.NodesWithRequiredAntiAffinity()); len(got) != 1 || got[0] != "n2" {
					t.Errorf("NodesWithRequiredAntiAffinity = %v", got)
				}
				_ = snap.NodesWithPodAffinity()
				_ = snap.ImageNumNodes("busybox")
				_, _ = snap.Get("n1")
			}
		}()
	}
	wg.Wait()
}

// omSnapState is what a snapshot shows: per node, in order, its pods and
// requested cpu.
type omSnapState struct {
	Names []string
	Pods  map[string][]string
	CPU   map[string]int64
	Aff   []string
}

func omCapture(s *fw.Snapshot) omSnapState {
	st := omSnapState{Names: omNodeNames(s.Nodes()), Pods: map[string][]string{}, CPU: map[string]int64{}, Aff: omNodeNames(s.NodesWithPodAffinity())}
	for _, ni := range s.Nodes() {
		st.Pods[ni.Name()] = omPodNames(ni.Pods)
		st.CPU[ni.Name()] = ni.Requested.MilliCPU
	}
	return st
}

// omCheckResources checks that Snapshot.Resources and Snapshot.Free mirror
// every NodeInfo.
func omCheckResources(t *rapid.T, s *fw.Snapshot) {
	res, free := s.Resources(), s.Free()
	if len(res) != s.NumNodes() || len(free) != s.NumNodes() {
		t.Fatalf("%d resource entries and %d free entries for %d nodes", len(res), len(free), s.NumNodes())
	}
	for i, ni := range s.Nodes() {
		want := fw.NodeFree{Pods: ni.Allocatable.Pods - int64(len(ni.Pods)), MilliCPU: ni.Allocatable.MilliCPU - ni.Requested.MilliCPU,
			Memory: ni.Allocatable.Memory - ni.Requested.Memory, EphemeralStorage: ni.Allocatable.EphemeralStorage - ni.Requested.EphemeralStorage}
		if free[i] != want {
			t.Fatalf("node %d (%s): Free %+v, NodeInfo gives %+v", i, ni.Name(), free[i], want)
		}
	}
	for i, ni := range s.Nodes() {
		want := fw.NodeResources{
			AllocatableMilliCPU: ni.Allocatable.MilliCPU, AllocatableMemory: ni.Allocatable.Memory,
			AllocatableEphemeralStorage: ni.Allocatable.EphemeralStorage, AllocatablePods: ni.Allocatable.Pods,
			RequestedMilliCPU: ni.Requested.MilliCPU, RequestedMemory: ni.Requested.Memory,
			RequestedEphemeralStorage: ni.Requested.EphemeralStorage,
			NonZeroMilliCPU:           ni.NonZeroRequested.MilliCPU, NonZeroMemory: ni.NonZeroRequested.Memory,
			NumPods: int64(len(ni.Pods)), HasScalars: len(ni.Allocatable.Scalars) > 0,
		}
		for name := range ni.ImageSizes {
			want.ImageMask |= fw.ImageMaskBit(s.ImageID(name))
		}
		want.CPUMemoryBalance = int32(fw.BalanceOfTwo(want.RequestedMilliCPU, want.AllocatableMilliCPU, want.RequestedMemory, want.AllocatableMemory))
		if res[i] != want {
			t.Fatalf("node %d (%s): Resources %+v, NodeInfo gives %+v", i, ni.Name(), res[i], want)
		}
	}
}

// TestPropSnapshotCloneIsolation: any sequence of mutations on a clone
// leaves the original's view unchanged, and vice versa, and both keep
// Resources equal to their NodeInfos.
func TestPropSnapshotCloneIsolation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nNodes := rapid.IntRange(1, 5).Draw(t, "nodes")
		var nodes []*api.Node
		for i := 0; i < nNodes; i++ {
			nodes = append(nodes, omSnapNode(fmt.Sprintf("n%d", i)))
		}
		var pods []*api.Pod
		for i := rapid.IntRange(0, 8).Draw(t, "pods"); i > 0; i-- {
			p := omBoundPod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", rapid.IntRange(0, nNodes-1).Draw(t, "node")), fmt.Sprintf("%dm", i*100))
			if rapid.Bool().Draw(t, "affinity") {
				omWithPreferredAffinity(p)
			}
			pods = append(pods, p)
		}
		orig := fw.MustSnapshot(nodes, pods)
		clone := orig.Clone()
		before := omCapture(orig)
		// Mutate either side; the other must not change.
		target, other := clone, orig
		if rapid.Bool().Draw(t, "mutate original") {
			target, other = orig, clone
		}
		live := append([]*api.Pod(nil), pods...)
		for step := rapid.IntRange(1, 10).Draw(t, "steps"); step > 0; step-- {
			names := omNodeNames(target.Nodes())
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				if len(names) == 0 {
					continue
				}
				p := omBoundPod(fmt.Sprintf("new%d", step), rapid.SampledFrom(names).Draw(t, "add to"), "50m")
				if rapid.Bool().Draw(t, "new affinity") {
					omWithPreferredAffinity(p)
				}
				if err := target.AddPod(p); err != nil {
					t.Fatal(err)
				}
				live = append(live, p)
			case 1:
				if len(live) == 0 {
					continue
				}
				i := rapid.IntRange(0, len(live)-1).Draw(t, "remove")
				if _, ok := target.Get(live[i].Spec.NodeName); ok {
					if err := target.RemovePod(live[i]); err != nil {
						t.Fatal(err)
					}
				}
				live = append(live[:i], live[i+1:]...)
			case 2:
				if len(names) == 0 {
					continue
				}
				if err := target.RemoveNode(rapid.SampledFrom(names).Draw(t, "remove node")); err != nil {
					t.Fatal(err)
				}
			case 3:
				if len(names) == 0 {
					continue
				}
				n := omSnapNode(rapid.SampledFrom(names).Draw(t, "update node"))
				if rapid.Bool().Draw(t, "resize") {
					n.Status.Allocatable = omL(omM{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 8000).Draw(t, "cpu")), "memory": "8Gi", "pods": "110"})
				}
				if err := target.UpdateNode(n); err != nil {
					t.Fatal(err)
				}
			case 4:
				if err := target.AddNode(omSnapNode(fmt.Sprintf("added%d", step))); err != nil {
					t.Fatal(err)
				}
			}
		}
		omCheckResources(t, orig)
		omCheckResources(t, clone)
		if diff := cmp.Diff(before, omCapture(other)); diff != "" {
			t.Fatalf("untouched side changed (-before +after):\n%s", diff)
		}
		// And the mutated side is internally consistent.
		for i, ni := range target.Nodes() {
			if target.Index(ni.Name()) != i {
				t.Fatalf("index of %s = %d, want %d", ni.Name(), target.Index(ni.Name()), i)
			}
			var sum resource.Vector
			for _, pi := range ni.Pods {
				sum.Add(pi.Requests)
			}
			if !sum.Equal(ni.Requested) {
				t.Fatalf("%s: Requested %+v != sum of pods %+v", ni.Name(), ni.Requested, sum)
			}
		}
	})
}
