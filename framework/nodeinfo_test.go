package framework_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// omNodeInfoView is the comparable part of a NodeInfo: pod lists by name,
// aggregates and ports.
type omNodeInfoView struct {
	Pods, WithAffinity, WithReqAnti []string
	Requested, NonZero              resource.Vector
	Ports                           fw.HostPortInfo
}

func omPodNames(pis []*fw.PodInfo) []string {
	var out []string
	for _, pi := range pis {
		out = append(out, pi.Pod.Name)
	}
	return out
}

func omView(n *fw.NodeInfo) omNodeInfoView {
	return omNodeInfoView{
		Pods: omPodNames(n.Pods), WithAffinity: omPodNames(n.PodsWithAffinity), WithReqAnti: omPodNames(n.PodsWithRequiredAntiAffinity),
		Requested: n.Requested, NonZero: n.NonZeroRequested, Ports: n.UsedPorts,
	}
}

// cmp uses resource.Vector's Equal method; nil and empty lists and maps
// compare equal.
var omViewOpts = cmpopts.EquateEmpty()

func omAssertView(t *testing.T, what string, n *fw.NodeInfo, want omNodeInfoView) {
	t.Helper()
	if diff := cmp.Diff(want, omView(n), omViewOpts); diff != "" {
		t.Errorf("%s: NodeInfo (-want +got):\n%s", what, diff)
	}
}

func omNamedPod(name string, containers []api.Container, inits ...api.Container) *api.Pod {
	p := omPod(containers, inits...)
	p.Name, p.UID = name, name
	return p
}

func omWithPorts(c api.Container, ports ...api.ContainerPort) api.Container {
	c.Ports = ports
	return c
}

func omTestNode(name string) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name},
		Status: api.NodeStatus{
			Allocatable: omL(omM{"cpu": "4", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": "2", "ephemeral-storage": "100Gi"}),
			Images: []api.ContainerImage{
				{Names: []string{"registry/app:v1", "registry/app@sha256:abc"}, SizeBytes: 300},
				{Names: []string{"busybox"}, SizeBytes: 5},
			},
		},
	}
}

// The three pods of the add/remove test, with their contributions worked
// out by hand (kube semantics: pkg/scheduler/framework/types.go
// NodeInfo.update, calculateResource; util GetHostPorts):
//
//   - a: cpu 500m, memory 1Gi, gpu 1; hostPort TCP 80 on "" (= 0.0.0.0);
//     preferred pod affinity → PodsWithAffinity only.
//     Requested 500m/1Gi/gpu 1; non-zero 500m/1Gi.
//   - b: no requests; a sidecar with hostPort UDP 8080 on 10.0.0.1;
//     required anti-affinity → both lists. Requested nothing; non-zero:
//     container 100m/200Mi + sidecar 100m/200Mi = 200m/400Mi.
//   - c: container cpu 1 with a containerPort but no hostPort; plain init
//     container cpu 2 with hostPort 9090 (not counted: not a sidecar).
//     Requested max(1, 2) = 2 cpu; non-zero cpu 2000m, memory max(200Mi,
//     200Mi) = 200Mi.
func omAddRemovePods() (a, b, c *api.Pod) {
	a = omNamedPod("a", []api.Container{omWithPorts(omC(omM{"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}, nil), api.ContainerPort{ContainerPort: 80, HostPort: 80})})
	a.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 1, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: &api.LabelSelector{}}}}}}
	b = omNamedPod("b", []api.Container{omC(nil, nil)},
		omWithPorts(omSidecar(nil, nil), api.ContainerPort{ContainerPort: 8080, HostPort: 8080, Protocol: api.ProtocolUDP, HostIP: "10.0.0.1"}))
	b.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		{TopologyKey: "kubernetes.io/hostname", LabelSelector: &api.LabelSelector{MatchLabels: omLabels{"app": "b"}}}}}}
	c = omNamedPod("c", []api.Container{omWithPorts(omC(omM{"cpu": "1"}, nil), api.ContainerPort{ContainerPort: 8443})},
		omWithPorts(omC(omM{"cpu": "2"}, nil), api.ContainerPort{ContainerPort: 9090, HostPort: 9090}))
	return a, b, c
}

func TestNodeInfoAddRemovePod(t *testing.T) {
	a, b, c := omAddRemovePods()
	ni, err := fw.NewNodeInfo(omTestNode("n1"))
	if err != nil {
		t.Fatal(err)
	}
	omAssertView(t, "new", ni, omNodeInfoView{})

	gen := ni.Generation
	for _, p := range []*api.Pod{a, b, c} {
		ni.AddPodInfo(fw.MustPodInfo(p))
		if ni.Generation <= gen {
			t.Errorf("Generation did not increase on AddPodInfo(%s): %d → %d", p.Name, gen, ni.Generation)
		}
		gen = ni.Generation
	}
	full := omNodeInfoView{
		Pods: []string{"a", "b", "c"}, WithAffinity: []string{"a", "b"}, WithReqAnti: []string{"b"},
		// 500m + 0 + 2000m; 1Gi; gpu 1.
		Requested: resource.Vector{MilliCPU: 2500, Memory: 1 << 30, Scalars: []resource.Scalar{{Name: "nvidia.com/gpu", Value: 1}}},
		// 500 + 200 + 2000 = 2700m; 1024Mi + 400Mi + 200Mi = 1624Mi.
		NonZero: resource.Vector{MilliCPU: 2700, Memory: 1624 << 20},
		Ports: fw.HostPortInfo{
			"0.0.0.0":  {{Protocol: api.ProtocolTCP, Port: 80}: 1},
			"10.0.0.1": {{Protocol: api.ProtocolUDP, Port: 8080}: 1},
		},
	}
	omAssertView(t, "after adding a, b, c", ni, full)

	// Remove b by an equal pod object (same UID): the last pod moves into
	// its slot, as kube's removeFromSlice does.
	bCopy := *b
	if err := ni.RemovePod(&bCopy); err != nil {
		t.Fatal(err)
	}
	omAssertView(t, "after removing b", ni, omNodeInfoView{
		Pods: []string{"a", "c"}, WithAffinity: []string{"a"},
		Requested: full.Requested,
		// 2700 - 200 = 2500m; 1624Mi - 400Mi = 1224Mi.
		NonZero: resource.Vector{MilliCPU: 2500, Memory: 1224 << 20},
		Ports:   fw.HostPortInfo{"0.0.0.0": {{Protocol: api.ProtocolTCP, Port: 80}: 1}},
	})
	if ni.Generation <= gen {
		t.Errorf("Generation did not increase on RemovePod")
	}

	// Removing b again fails and names the pod and the node.
	if err := ni.RemovePod(b); err == nil || err.Error() != `framework: pod default/b is not on node "n1"` {
		t.Errorf("second RemovePod(b) error = %v", err)
	}

	for _, p := range []*api.Pod{a, c} {
		if err := ni.RemovePod(p); err != nil {
			t.Fatal(err)
		}
	}
	omAssertView(t, "after removing all", ni, omNodeInfoView{})
	if !ni.Requested.IsZero() || !ni.NonZeroRequested.IsZero() || ni.UsedPorts.Len() != 0 {
		t.Errorf("not back to zero: %+v %+v %v", ni.Requested, ni.NonZeroRequested, ni.UsedPorts)
	}

	// Re-adding restores exactly the same state.
	for _, p := range []*api.Pod{a, b, c} {
		ni.AddPodInfo(fw.MustPodInfo(p))
	}
	omAssertView(t, "after re-adding", ni, full)
}

// Pod identity: by UID when either side has one, else namespace/name.
func TestNodeInfoRemovePodIdentity(t *testing.T) {
	noUID := func(ns, name string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
	}
	tests := []struct {
		name    string
		stored  *api.Pod
		remove  *api.Pod
		wantErr string
	}{
		{"same UID, other name", &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "x", UID: "u1"}},
			&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "renamed", UID: "u1"}}, ""},
		{"other UID, same name", &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "x", UID: "u1"}},
			&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "x", UID: "u2"}}, `framework: pod ns/x is not on node "n1"`},
		{"no UIDs, same namespace/name", noUID("ns", "x"), noUID("ns", "x"), ""},
		{"no UIDs, other namespace", noUID("ns", "x"), noUID("other", "x"), `framework: pod other/x is not on node "n1"`},
		{"stored has UID, remove has none", &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "x", UID: "u1"}}, noUID("ns", "x"), `framework: pod ns/x is not on node "n1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ni, _ := fw.NewNodeInfo(omTestNode("n1"), fw.MustPodInfo(tc.stored))
			if got := ni.HasPod(tc.remove); got != (tc.wantErr == "") {
				t.Errorf("HasPod = %v", got)
			}
			err := ni.RemovePod(tc.remove)
			if tc.wantErr == "" {
				if err != nil || len(ni.Pods) != 0 {
					t.Errorf("RemovePod = %v, pods left %d", err, len(ni.Pods))
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("RemovePod error = %v, want %q", err, tc.wantErr)
			}
			if len(ni.Pods) != 1 {
				t.Errorf("failed RemovePod changed the pods: %d", len(ni.Pods))
			}
		})
	}
}

func TestNewNodeInfo(t *testing.T) {
	if _, err := fw.NewNodeInfo(nil); err == nil || err.Error() != "framework: nil node" {
		t.Errorf("NewNodeInfo(nil) error = %v", err)
	}
	a, b, c := omAddRemovePods()
	ni, err := fw.NewNodeInfo(omTestNode("n1"), fw.MustPodInfo(a), fw.MustPodInfo(b), fw.MustPodInfo(c))
	if err != nil {
		t.Fatal(err)
	}
	if ni.Name() != "n1" || ni.Node().Name != "n1" || len(ni.Pods) != 3 {
		t.Errorf("NewNodeInfo: name %q, pods %d", ni.Name(), len(ni.Pods))
	}
	// Allocatable in Vector units; the pods slot is the allowed pod count.
	wantAlloc := resource.Vector{MilliCPU: 4000, Memory: 8 << 30, EphemeralStorage: 100 << 30, Pods: 110,
		Scalars: []resource.Scalar{{Name: "nvidia.com/gpu", Value: 2}}}
	if !ni.Allocatable.Equal(wantAlloc) {
		t.Errorf("Allocatable = %+v, want %+v", ni.Allocatable, wantAlloc)
	}
	wantImages := map[string]int64{"registry/app:v1": 300, "registry/app@sha256:abc": 300, "busybox": 5}
	if diff := cmp.Diff(wantImages, ni.ImageSizes); diff != "" {
		t.Errorf("ImageSizes (-want +got):\n%s", diff)
	}
	// SetNode refreshes allocatable and images, keeps the pods.
	n2 := omTestNode("n1")
	n2.Status.Allocatable = omL(omM{"cpu": "2"})
	n2.Status.Images = nil
	gen := ni.Generation
	ni.SetNode(n2)
	if ni.Allocatable.MilliCPU != 2000 || ni.Allocatable.Pods != 0 || len(ni.ImageSizes) != 0 || len(ni.Pods) != 3 || ni.Generation <= gen {
		t.Errorf("after SetNode: alloc %+v images %v pods %d gen %d→%d", ni.Allocatable, ni.ImageSizes, len(ni.Pods), gen, ni.Generation)
	}
	var zero fw.NodeInfo
	if zero.Name() != "" || zero.Node() != nil {
		t.Errorf("zero NodeInfo name %q", zero.Name())
	}
}

func TestNodeInfoCloneIndependent(t *testing.T) {
	a, b, c := omAddRemovePods()
	orig, _ := fw.NewNodeInfo(omTestNode("n1"), fw.MustPodInfo(a), fw.MustPodInfo(b))
	before := omView(orig)
	before.Requested = orig.Requested.Clone()
	before.NonZero = orig.NonZeroRequested.Clone()
	before.Ports = orig.UsedPorts.Clone()

	clone := orig.Clone()
	if diff := cmp.Diff(before, omView(clone), omViewOpts); diff != "" {
		t.Fatalf("clone differs (-orig +clone):\n%s", diff)
	}
	if clone.Node() != orig.Node() || clone.Generation != orig.Generation {
		t.Error("clone should share the node object and generation")
	}

	// Mutate the clone: add c and a gpu pod, remove a.
	gpu := omNamedPod("gpu", []api.Container{omWithPorts(omC(omM{"nvidia.com/gpu": "1"}, nil), api.ContainerPort{HostPort: 80})})
	clone.AddPodInfo(fw.MustPodInfo(c))
	clone.AddPodInfo(fw.MustPodInfo(gpu))
	if err := clone.RemovePod(a); err != nil {
		t.Fatal(err)
	}
	omAssertView(t, "original after mutating the clone", orig, before)

	// Mutate the original: the clone keeps its own state.
	cloneBefore := omView(clone)
	cloneBefore.Requested = clone.Requested.Clone()
	cloneBefore.NonZero = clone.NonZeroRequested.Clone()
	cloneBefore.Ports = clone.UsedPorts.Clone()
	if err := orig.RemovePod(b); err != nil {
		t.Fatal(err)
	}
	orig.AddPodInfo(fw.MustPodInfo(omNamedPod("d", []api.Container{omC(omM{"nvidia.com/gpu": "5"}, nil)})))
	omAssertView(t, "clone after mutating the original", clone, cloneBefore)
}

// TestNodeInfoCloneIntoReusesAScratch: CloneInto a NodeInfo that held
// another node (more pods, ports on another address, scalars) gives
// what Clone gives, and mutating the copy leaves the original alone, as
// with Clone.
func TestNodeInfoCloneIntoReusesAScratch(t *testing.T) {
	a, b, c := omAddRemovePods()
	gpu := omNamedPod("gpu", []api.Container{omWithPorts(omC(omM{"nvidia.com/gpu": "1"}, nil), api.ContainerPort{HostPort: 80})})
	orig, _ := fw.NewNodeInfo(omTestNode("n1"), fw.MustPodInfo(a), fw.MustPodInfo(b))
	exporter := omNamedPod("exporter", []api.Container{omWithPorts(omC(omM{"example.com/dongle": "2"}, nil), api.ContainerPort{HostPort: 9100, HostIP: "127.0.0.1"})})
	other, _ := fw.NewNodeInfo(omTestNode("n2"), fw.MustPodInfo(a), fw.MustPodInfo(b), fw.MustPodInfo(c), fw.MustPodInfo(gpu), fw.MustPodInfo(exporter))
	for _, scratch := range []*fw.NodeInfo{other.Clone(), new(fw.NodeInfo)} {
		before := omView(orig)
		before.Requested = orig.Requested.Clone()
		before.NonZero = orig.NonZeroRequested.Clone()
		before.Ports = orig.UsedPorts.Clone()
		got := orig.CloneInto(scratch)
		if got != scratch {
			t.Fatal("CloneInto did not return its scratch")
		}
		if diff := cmp.Diff(omView(orig.Clone()), omView(got), omViewOpts); diff != "" {
			t.Fatalf("CloneInto differs from Clone (-Clone +CloneInto):\n%s", diff)
		}
		if got.Node() != orig.Node() || got.Generation != orig.Generation || got.Index() != orig.Index() || got.Name() != "n1" {
			t.Error("the copy should share the node object, generation and index")
		}
		lo, ok := got.LowestPodPriority()
		lo0, ok0 := orig.LowestPodPriority()
		if lo != lo0 || ok != ok0 {
			t.Errorf("lowest priority %d %v, the original's %d %v", lo, ok, lo0, ok0)
		}
		got.AddPodInfo(fw.MustPodInfo(gpu))
		if err := got.RemovePod(a); err != nil {
			t.Fatal(err)
		}
		omAssertView(t, "original after mutating the copy", orig, before)
	}
}

// HostPortInfo cases from kubernetes pkg/scheduler/framework/types_test.go
// (TestHostPortInfo_AddRemove, TestHostPortInfo_Check).
type omHP struct {
	protocol api.Protocol
	ip       string
	port     int32
}

func TestHostPortInfoAddRemove(t *testing.T) {
	tests := []struct {
		name           string
		added, removed []omHP
		length         int
	}{
		{"normal add case", []omHP{
			{"TCP", "127.0.0.1", 79}, {"UDP", "127.0.0.1", 80}, {"TCP", "127.0.0.1", 81}, {"TCP", "127.0.0.1", 82},
			{"TCP", "0.0.0.0", 79}, {"UDP", "0.0.0.0", 80}, {"TCP", "0.0.0.0", 81}, {"TCP", "0.0.0.0", 82},
			{"TCP", "0.0.0.0", 0}, {"TCP", "0.0.0.0", -1}}, nil, 8},
		{"empty ip and protocol add should work", []omHP{
			{"", "127.0.0.1", 79}, {"UDP", "127.0.0.1", 80}, {"", "127.0.0.1", 81}, {"", "127.0.0.1", 82},
			{"", "", 79}, {"UDP", "", 80}, {"", "", 81}, {"", "", 82}, {"", "", 0}, {"", "", -1}}, nil, 8},
		{"normal remove case", []omHP{
			{"TCP", "127.0.0.1", 79}, {"UDP", "127.0.0.1", 80}, {"TCP", "127.0.0.1", 81}, {"TCP", "127.0.0.1", 82},
			{"TCP", "0.0.0.0", 79}, {"UDP", "0.0.0.0", 80}, {"TCP", "0.0.0.0", 81}, {"TCP", "0.0.0.0", 82}},
			[]omHP{
				{"TCP", "127.0.0.1", 79}, {"UDP", "127.0.0.1", 80}, {"TCP", "127.0.0.1", 81}, {"TCP", "127.0.0.1", 82},
				{"TCP", "0.0.0.0", 79}, {"UDP", "0.0.0.0", 80}, {"TCP", "0.0.0.0", 81}, {"TCP", "0.0.0.0", 82}}, 0},
		{"empty ip and protocol remove should work", []omHP{
			{"TCP", "127.0.0.1", 79}, {"UDP", "127.0.0.1", 80}, {"TCP", "127.0.0.1", 81}, {"TCP", "127.0.0.1", 82},
			{"TCP", "0.0.0.0", 79}, {"UDP", "0.0.0.0", 80}, {"TCP", "0.0.0.0", 81}, {"TCP", "0.0.0.0", 82}},
			[]omHP{
				{"", "127.0.0.1", 79}, {"", "127.0.0.1", 81}, {"", "127.0.0.1", 82}, {"UDP", "127.0.0.1", 80},
				{"", "", 79}, {"", "", 81}, {"", "", 82}, {"UDP", "", 80}}, 0},
		// Ours counts uses (kube keeps a set): two adds need two removes.
		{"counted: add twice, remove once", []omHP{{"TCP", "", 80}, {"", "0.0.0.0", 80}}, []omHP{{"TCP", "0.0.0.0", 80}}, 1},
		{"counted: add twice, remove twice", []omHP{{"TCP", "", 80}, {"", "0.0.0.0", 80}}, []omHP{{"TCP", "0.0.0.0", 80}, {"", "", 80}}, 0},
		{"remove of an unknown entry is a no-op", []omHP{{"TCP", "1.2.3.4", 80}}, []omHP{{"UDP", "1.2.3.4", 80}, {"TCP", "5.6.7.8", 80}, {"TCP", "1.2.3.4", 0}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hp := fw.HostPortInfo{}
			for _, p := range tc.added {
				hp.Add(p.ip, p.protocol, p.port)
			}
			for _, p := range tc.removed {
				hp.Remove(p.ip, p.protocol, p.port)
			}
			if hp.Len() != tc.length {
				t.Errorf("Len = %d, want %d (%v)", hp.Len(), tc.length, hp)
			}
			if tc.length == 0 && len(hp) != 0 {
				t.Errorf("empty per-IP maps left behind: %v", hp)
			}
		})
	}
}

func TestHostPortInfoCheckConflict(t *testing.T) {
	tests := []struct {
		name   string
		added  []omHP
		check  omHP
		expect bool
	}{
		{"empty check should check 0.0.0.0 and TCP", []omHP{{"TCP", "127.0.0.1", 80}}, omHP{"", "", 81}, false},
		{"empty check should check 0.0.0.0 and TCP (conflicted)", []omHP{{"TCP", "127.0.0.1", 80}}, omHP{"", "", 80}, true},
		{"empty port check should pass", []omHP{{"TCP", "127.0.0.1", 80}}, omHP{"", "", 0}, false},
		{"0.0.0.0 should check all registered IPs", []omHP{{"TCP", "127.0.0.1", 80}}, omHP{"TCP", "0.0.0.0", 80}, true},
		{"0.0.0.0 with different protocol should be allowed", []omHP{{"UDP", "127.0.0.1", 80}}, omHP{"TCP", "0.0.0.0", 80}, false},
		{"0.0.0.0 with different port should be allowed", []omHP{{"TCP", "127.0.0.1", 79}, {"TCP", "127.0.0.1", 81}, {"TCP", "127.0.0.1", 82}}, omHP{"TCP", "0.0.0.0", 80}, false},
		{"normal ip should check all registered 0.0.0.0", []omHP{{"TCP", "0.0.0.0", 80}}, omHP{"TCP", "127.0.0.1", 80}, true},
		{"normal ip with different port/protocol should be allowed (0.0.0.0)", []omHP{{"TCP", "0.0.0.0", 79}, {"UDP", "0.0.0.0", 80}, {"TCP", "0.0.0.0", 81}, {"TCP", "0.0.0.0", 82}}, omHP{"TCP", "127.0.0.1", 80}, false},
		{"normal ip with different port/protocol should be allowed", []omHP{{"TCP", "127.0.0.1", 79}, {"UDP", "127.0.0.1", 80}, {"TCP", "127.0.0.1", 81}, {"TCP", "127.0.0.1", 82}}, omHP{"TCP", "127.0.0.1", 80}, false},
		// Hand-derived: two specific IPs do not conflict with each other.
		{"different specific IPs", []omHP{{"TCP", "10.0.0.1", 80}}, omHP{"TCP", "10.0.0.2", 80}, false},
		{"same specific IP", []omHP{{"SCTP", "10.0.0.1", 80}}, omHP{"SCTP", "10.0.0.1", 80}, true},
		{"nothing recorded", nil, omHP{"TCP", "0.0.0.0", 80}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hp := fw.HostPortInfo{}
			for _, p := range tc.added {
				hp.Add(p.ip, p.protocol, p.port)
			}
			if got := hp.CheckConflict(tc.check.ip, tc.check.protocol, tc.check.port); got != tc.expect {
				t.Errorf("CheckConflict = %v, want %v", got, tc.expect)
			}
		})
	}
	// Counting: after two adds and one remove the port still conflicts.
	hp := fw.HostPortInfo{}
	hp.Add("", "", 80)
	hp.Add("", "", 80)
	hp.Remove("", "", 80)
	if !hp.CheckConflict("10.0.0.1", "TCP", 80) {
		t.Error("port used twice and released once should still conflict")
	}
	// Clone is deep.
	c := hp.Clone()
	c.Remove("", "", 80)
	if !hp.CheckConflict("", "", 80) || c.CheckConflict("", "", 80) {
		t.Error("HostPortInfo.Clone is not independent")
	}
}

// HostPorts follows kube's util.GetHostPorts: ports with hostPort > 0 of
// sidecar init containers (first) and of containers; plain init containers
// are skipped.
func TestHostPorts(t *testing.T) {
	p80 := api.ContainerPort{ContainerPort: 80, HostPort: 80}
	p81 := api.ContainerPort{ContainerPort: 81, HostPort: 81, Protocol: api.ProtocolUDP, HostIP: "10.0.0.1"}
	p82 := api.ContainerPort{ContainerPort: 82, HostPort: 82}
	noHost := api.ContainerPort{ContainerPort: 83}
	pod := omPod([]api.Container{omWithPorts(omC(nil, nil), p80, noHost)},
		omWithPorts(omC(nil, nil), p82), omWithPorts(omSidecar(nil, nil), p81, noHost))
	want := []api.ContainerPort{p81, p80}
	if diff := cmp.Diff(want, fw.MustPodInfo(pod).HostPorts()); diff != "" {
		t.Errorf("HostPorts (-want +got):\n%s", diff)
	}
	if got := fw.MustPodInfo(omPod(nil)).HostPorts(); len(got) != 0 {
		t.Errorf("HostPorts of an empty pod = %v", got)
	}
	// A PodInfo built without NewPodInfo looks at the pod too.
	if diff := cmp.Diff(want, (&fw.PodInfo{Pod: pod}).HostPorts()); diff != "" {
		t.Errorf("HostPorts of a PodInfo literal (-want +got):\n%s", diff)
	}
}

// TestPropNodeInfoAddRemoveRestores: adding any pods and then removing all
// of them, in any order, restores Requested, NonZeroRequested, UsedPorts and
// the pod lists to the empty state; while they are all present, Requested is
// the sum of their PodRequests and NonZeroRequested the sum of their
// non-zero requests.
func TestPropNodeInfoAddRemoveRestores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "pods")
		ni, _ := fw.NewNodeInfo(omTestNode("n"))
		var pods []*api.Pod
		var sum, sumNZ resource.Vector
		for i := 0; i < n; i++ {
			pod := omDrawPod(t, i)
			pods = append(pods, pod)
			pi := fw.MustPodInfo(pod)
			ni.AddPodInfo(pi)
			sum.Add(api.PodRequestVector(pod))
			cpu, mem := api.PodNonZeroRequests(pod)
			sumNZ.MilliCPU += cpu
			sumNZ.Memory += mem
		}
		if !ni.Requested.Equal(sum) || !ni.NonZeroRequested.Equal(sumNZ) {
			t.Fatalf("with all pods: Requested %+v want %+v; NonZero %+v want %+v", ni.Requested, sum, ni.NonZeroRequested, sumNZ)
		}
		if len(ni.Pods) != n {
			t.Fatalf("Pods = %d, want %d", len(ni.Pods), n)
		}
		order := rapid.Permutation(pods).Draw(t, "removal order")
		for _, p := range order {
			if err := ni.RemovePod(p); err != nil {
				t.Fatal(err)
			}
		}
		if !ni.Requested.IsZero() || !ni.NonZeroRequested.IsZero() {
			t.Fatalf("not restored: Requested %+v NonZero %+v", ni.Requested, ni.NonZeroRequested)
		}
		if ni.UsedPorts.Len() != 0 || len(ni.UsedPorts) != 0 {
			t.Fatalf("ports not restored: %v", ni.UsedPorts)
		}
		if len(ni.Pods)+len(ni.PodsWithAffinity)+len(ni.PodsWithRequiredAntiAffinity) != 0 {
			t.Fatalf("pod lists not empty: %d %d %d", len(ni.Pods), len(ni.PodsWithAffinity), len(ni.PodsWithRequiredAntiAffinity))
		}
	})
}

// omDrawPod draws a pod with random containers, init containers, sidecars,
// requests (some missing, some zero), extended resources, host ports from a
// small set (so that pods share ports) and affinity.
func omDrawPod(t *rapid.T, i int) *api.Pod {
	drawReq := func(label string) omM {
		m := omM{}
		if v := rapid.IntRange(-1, 4000).Draw(t, label+" cpu"); v >= 0 {
			m["cpu"] = fmt.Sprintf("%dm", v)
		}
		if v := rapid.IntRange(-1, 1<<12).Draw(t, label+" mem"); v >= 0 {
			m["memory"] = fmt.Sprintf("%dMi", v)
		}
		if rapid.Bool().Draw(t, label+" gpu") {
			m["nvidia.com/gpu"] = fmt.Sprint(rapid.IntRange(0, 3).Draw(t, label+" gpus"))
		}
		return m
	}
	drawPorts := func(label string) []api.ContainerPort {
		var ps []api.ContainerPort
		for j := rapid.IntRange(0, 2).Draw(t, label+" ports"); j > 0; j-- {
			ps = append(ps, api.ContainerPort{
				HostPort: int32(rapid.IntRange(0, 3).Draw(t, label+" port")) + 8080,
				Protocol: rapid.SampledFrom([]api.Protocol{"", api.ProtocolTCP, api.ProtocolUDP}).Draw(t, label+" proto"),
				HostIP:   rapid.SampledFrom([]string{"", "0.0.0.0", "10.0.0.1"}).Draw(t, label+" ip"),
			})
		}
		return ps
	}
	var containers, inits []api.Container
	for j := rapid.IntRange(0, 3).Draw(t, "containers"); j > 0; j-- {
		containers = append(containers, omWithPorts(omC(drawReq("c"), nil), drawPorts("c")...))
	}
	for j := rapid.IntRange(0, 3).Draw(t, "inits"); j > 0; j-- {
		c := omC(drawReq("i"), nil)
		if rapid.Bool().Draw(t, "sidecar") {
			c = omSidecar(drawReq("s"), nil)
		}
		inits = append(inits, omWithPorts(c, drawPorts("i")...))
	}
	pod := omNamedPod(fmt.Sprintf("p%d", i), containers, inits...)
	if rapid.Bool().Draw(t, "overhead") {
		pod.Spec.Overhead = omL(omM{"cpu": "10m", "memory": "1Mi"})
	}
	switch rapid.IntRange(0, 2).Draw(t, "affinity") {
	case 1:
		pod.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{}}
	case 2:
		pod.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
			{TopologyKey: "zone", LabelSelector: &api.LabelSelector{}}}}}
	}
	return pod
}

// NewPodInfo compiles affinity terms as kube-scheduler's NewPodInfo /
// newAffinityTerm (pkg/scheduler/framework/types.go): namespaces default to
// the pod's own when neither namespaces nor a namespace selector is given;
// matchLabelKeys / mismatchLabelKeys are merged into a non-nil label
// selector as kube-apiserver's applyMatchLabelKeysAndMismatchLabelKeys does.
func TestNewPodInfoAffinityTerms(t *testing.T) {
	term := func(sel *api.LabelSelector, namespaces []string, nsSel *api.LabelSelector) api.PodAffinityTerm {
		return api.PodAffinityTerm{LabelSelector: sel, Namespaces: namespaces, NamespaceSelector: nsSel, TopologyKey: "zone"}
	}
	app := &api.LabelSelector{MatchLabels: omLabels{"app": "web"}}
	other := func(ns string, labels omLabels) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: "o", Labels: labels}}
	}
	tests := []struct {
		name     string
		term     api.PodAffinityTerm
		ownLabel omLabels
		other    *api.Pod
		nsLabels omLabels
		want     bool
	}{
		{"own namespace by default", term(app, nil, nil), nil, other("team", omLabels{"app": "web"}), nil, true},
		{"other namespace not selected by default", term(app, nil, nil), nil, other("else", omLabels{"app": "web"}), nil, false},
		{"explicit namespaces replace the default", term(app, []string{"else"}, nil), nil, other("team", omLabels{"app": "web"}), nil, false},
		{"explicit namespace listed", term(app, []string{"else"}, nil), nil, other("else", omLabels{"app": "web"}), nil, true},
		{"empty namespace selector selects all namespaces", term(app, nil, &api.LabelSelector{}), nil, other("else", omLabels{"app": "web"}), nil, true},
		{"namespace selector by labels", term(app, nil, &api.LabelSelector{MatchLabels: omLabels{"env": "prod"}}), nil, other("else", omLabels{"app": "web"}), omLabels{"env": "prod"}, true},
		{"namespace selector miss", term(app, nil, &api.LabelSelector{MatchLabels: omLabels{"env": "prod"}}), nil, other("else", omLabels{"app": "web"}), omLabels{"env": "dev"}, false},
		{"nil label selector selects nothing", term(nil, nil, nil), nil, other("team", omLabels{"app": "web"}), nil, false},
		{"matchLabelKeys merged", api.PodAffinityTerm{LabelSelector: app, TopologyKey: "zone", MatchLabelKeys: []string{"rev"}},
			omLabels{"rev": "7"}, other("team", omLabels{"app": "web", "rev": "8"}), nil, false},
		{"matchLabelKeys merged, same value", api.PodAffinityTerm{LabelSelector: app, TopologyKey: "zone", MatchLabelKeys: []string{"rev"}},
			omLabels{"rev": "7"}, other("team", omLabels{"app": "web", "rev": "7"}), nil, true},
		{"matchLabelKeys key absent on own pod: ignored", api.PodAffinityTerm{LabelSelector: app, TopologyKey: "zone", MatchLabelKeys: []string{"rev"}},
			nil, other("team", omLabels{"app": "web", "rev": "8"}), nil, true},
		{"mismatchLabelKeys merged", api.PodAffinityTerm{LabelSelector: app, TopologyKey: "zone", MismatchLabelKeys: []string{"tenant"}},
			omLabels{"tenant": "a"}, other("team", omLabels{"app": "web", "tenant": "a"}), nil, false},
		{"mismatchLabelKeys other value", api.PodAffinityTerm{LabelSelector: app, TopologyKey: "zone", MismatchLabelKeys: []string{"tenant"}},
			omLabels{"tenant": "a"}, other("team", omLabels{"app": "web", "tenant": "b"}), nil, true},
		{"matchLabelKeys with nil selector stays nothing", api.PodAffinityTerm{TopologyKey: "zone", MatchLabelKeys: []string{"rev"}},
			omLabels{"rev": "7"}, other("team", omLabels{"rev": "7"}), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			own := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "team", Name: "own", Labels: tc.ownLabel}}
			own.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{tc.term}}}
			pi, err := fw.NewPodInfo(own)
			if err != nil {
				t.Fatal(err)
			}
			if len(pi.RequiredAffinityTerms) != 1 || pi.RequiredAffinityTerms[0].TopologyKey != "zone" {
				t.Fatalf("terms = %+v", pi.RequiredAffinityTerms)
			}
			if got := pi.RequiredAffinityTerms[0].Matches(tc.other, tc.nsLabels); got != tc.want {
				t.Errorf("Matches = %v, want %v", got, tc.want)
			}
			if !pi.HasAffinity() || pi.HasRequiredAntiAffinity() {
				t.Errorf("HasAffinity %v HasRequiredAntiAffinity %v", pi.HasAffinity(), pi.HasRequiredAntiAffinity())
			}
		})
	}

	// Preferred and anti terms land in their own lists with their weights;
	// errors name the pod and the term.
	bad := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{omExpr("k", api.LabelSelectorOpIn)}}
	own := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "team", Name: "own"}}
	own.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  []api.PodAffinityTerm{term(app, nil, nil)},
		PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{Weight: 30, PodAffinityTerm: term(app, nil, nil)}, {Weight: 70, PodAffinityTerm: term(app, nil, nil)}},
	}}
	pi := fw.MustPodInfo(own)
	if len(pi.RequiredAntiAffinityTerms) != 1 || len(pi.PreferredAntiAffinityTerms) != 2 || pi.PreferredAntiAffinityTerms[1].Weight != 70 ||
		len(pi.RequiredAffinityTerms)+len(pi.PreferredAffinityTerms) != 0 || !pi.HasRequiredAntiAffinity() {
		t.Errorf("term lists: %+v", pi)
	}
	own.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[1].PodAffinityTerm.NamespaceSelector = bad
	if _, err := fw.NewPodInfo(own); err == nil || err.Error() != `pod team/own: podAntiAffinity.preferred[1]: namespaceSelector: labelSelector.matchExpressions[0] key "k": operator In needs at least one value` {
		t.Errorf("NewPodInfo error = %v", err)
	}
	if _, err := fw.NewPodInfo(nil); err == nil || err.Error() != "framework: nil pod" {
		t.Errorf("NewPodInfo(nil) error = %v", err)
	}
	// An empty affinity (no pod affinity / anti-affinity) is not "with
	// affinity" (kube podWithAffinity).
	plain := &api.Pod{Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{}}}}
	if fw.MustPodInfo(plain).HasAffinity() {
		t.Error("node affinity alone counted as pod affinity")
	}
}

// RequestsDRAExtended: any container's or init container's request of a
// name a DeviceClass may back (an extended resource or a class's implicit
// name), a zero quantity included; native resources do not count.
func TestRequestsDRAExtended(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		want bool
	}{
		{"no containers", omPod(nil), false},
		{"cpu and memory", omPod([]api.Container{omC(omM{"cpu": "1", "memory": "1Gi"}, nil)}), false},
		{"hugepages", omPod([]api.Container{omC(omM{"hugepages-2Mi": "2Mi"}, nil)}), false},
		{"extended in a container", omPod([]api.Container{omC(omM{"cpu": "1"}, nil), omC(omM{"example.com/gpu": "1"}, nil)}), true},
		{"extended at zero", omPod([]api.Container{omC(omM{"example.com/gpu": "0"}, nil)}), true},
		{"class name in an init container", omPod([]api.Container{omC(nil, nil)}, omC(omM{"deviceclass.resource.kubernetes.io/gpu": "1"}, nil)), true},
	}
	for _, tc := range tests {
		if got := fw.MustPodInfo(tc.pod).RequestsDRAExtended(); got != tc.want {
			t.Errorf("%s: NewPodInfo's RequestsDRAExtended = %v, want %v", tc.name, got, tc.want)
		}
		// A PodInfo built without NewPodInfo looks at the pod.
		if got := (&fw.PodInfo{Pod: tc.pod}).RequestsDRAExtended(); got != tc.want {
			t.Errorf("%s: a literal's RequestsDRAExtended = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// HostPortKey names a port as HostPortInfo records it: an empty IP is
// 0.0.0.0 and an empty protocol TCP, and a port recorded under the key is
// what CheckConflict finds for the same IP.
func TestHostPortKey(t *testing.T) {
	for _, tc := range []struct {
		ip, proto, wantIP string
		wantProto         api.Protocol
	}{
		{"", "", "0.0.0.0", api.ProtocolTCP},
		{"10.0.0.1", "UDP", "10.0.0.1", api.ProtocolUDP},
		{"0.0.0.0", "SCTP", "0.0.0.0", api.ProtocolSCTP},
	} {
		ip, pp := fw.HostPortKey(tc.ip, api.Protocol(tc.proto), 80)
		if ip != tc.wantIP || pp != (fw.ProtocolPort{tc.wantProto, 80}) {
			t.Errorf("HostPortKey(%q, %q, 80) = %q, %v; want %q, {%s 80}", tc.ip, tc.proto, ip, pp, tc.wantIP, tc.wantProto)
		}
		h := fw.HostPortInfo{}
		h.Add(tc.ip, api.Protocol(tc.proto), 80)
		if h[ip][pp] != 1 || !h.CheckConflict(tc.ip, api.Protocol(tc.proto), 80) {
			t.Errorf("%q %q: recorded as %v, not under the key", tc.ip, tc.proto, h)
		}
	}
}

// TestPodInfoPriorityValue: a PodInfo reads its pod's priority as the
// pod does, whether NewPodInfo built it or not, and a node's lowest
// priority follows its pods'.
func TestPodInfoPriorityValue(t *testing.T) {
	prio := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		name string
		p    *int32
		want int32
	}{{"unset", nil, 0}, {"negative", prio(-5), -5}, {"high", prio(9999999), 9999999}} {
		t.Run(tc.name, func(t *testing.T) {
			p := omNamedPod("p", []api.Container{omC(omM{"cpu": "1"}, nil)})
			p.Spec.Priority = tc.p
			if got := fw.MustPodInfo(p).PriorityValue(); got != tc.want {
				t.Errorf("NewPodInfo's PriorityValue = %d, want %d", got, tc.want)
			}
			if got := (&fw.PodInfo{Pod: p}).PriorityValue(); got != tc.want {
				t.Errorf("a literal PodInfo's PriorityValue = %d, want %d", got, tc.want)
			}
		})
	}
	low := omNamedPod("low", []api.Container{omC(omM{"cpu": "1"}, nil)})
	low.Spec.Priority = prio(-5)
	high := omNamedPod("high", []api.Container{omC(omM{"cpu": "1"}, nil)})
	high.Spec.Priority = prio(100)
	ni, _ := fw.NewNodeInfo(omTestNode("n"), fw.MustPodInfo(high), fw.MustPodInfo(low))
	if lo, ok := ni.LowestPodPriority(); !ok || lo != -5 {
		t.Errorf("lowest priority %d %v, want -5", lo, ok)
	}
	if err := ni.RemovePod(low); err != nil {
		t.Fatal(err)
	}
	if lo, ok := ni.LowestPodPriority(); !ok || lo != 100 {
		t.Errorf("after removing the low pod: lowest priority %d %v, want 100", lo, ok)
	}
}

// TestNodeInfoCordonAndTaintsFollowTheNode: Unschedulable and Tainted
// answer what the node's spec says, after NewNodeInfo, after SetNode
// replaces the node (either way), and in Clone and CloneInto copies.
func TestNodeInfoCordonAndTaintsFollowTheNode(t *testing.T) {
	node := func(unschedulable bool, taints ...api.Taint) *api.Node {
		n := omTestNode("n1")
		n.Spec.Unschedulable, n.Spec.Taints = unschedulable, taints
		return n
	}
	taint := api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}
	prefer := api.Taint{Key: "spot", Effect: api.TaintEffectPreferNoSchedule}
	nodes := []*api.Node{node(false), node(true), node(false, taint), node(true, taint, prefer), node(false, prefer)}
	check := func(name string, ni *fw.NodeInfo, want *api.Node) {
		t.Helper()
		if got := ni.Unschedulable(); got != want.Spec.Unschedulable {
			t.Errorf("%s: Unschedulable() = %v, spec says %v", name, got, want.Spec.Unschedulable)
		}
		if got := ni.Tainted(); got != (len(want.Spec.Taints) > 0) {
			t.Errorf("%s: Tainted() = %v, spec has %d taints", name, got, len(want.Spec.Taints))
		}
	}
	for i, n := range nodes {
		ni, err := fw.NewNodeInfo(n)
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("NewNodeInfo(node %d)", i), ni, n)
		check(fmt.Sprintf("Clone of node %d", i), ni.Clone(), n)
		for j, m := range nodes {
			scratch, _ := fw.NewNodeInfo(m)
			check(fmt.Sprintf("node %d CloneInto a NodeInfo of node %d", i, j), ni.CloneInto(scratch), n)
			moved, _ := fw.NewNodeInfo(n)
			moved.SetNode(m)
			check(fmt.Sprintf("node %d set to node %d", i, j), moved, m)
		}
	}
	var zero fw.NodeInfo
	if zero.Unschedulable() || zero.Tainted() {
		t.Error("a NodeInfo without a node reports a cordon or taints")
	}
}
