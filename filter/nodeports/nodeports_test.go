package nodeports

import (
	"context"
	"fmt"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

type npPort struct {
	ip    string
	proto api.Protocol
	port  int32
}

func npPod(ports ...npPort) *st.PodWrapper {
	w := st.MakePod().Name("p")
	for _, p := range ports {
		w = w.HostPort(p.ip, p.proto, p.port)
	}
	return w
}

// Cases of kube-scheduler v1.36 nodeports/node_ports_test.go (TestNodePorts),
// rewritten in our types.
func TestNodePortsFilter(t *testing.T) {
	reject := fw.NewStatus(fw.Unschedulable, Reason)
	tcp, udp := api.ProtocolTCP, api.ProtocolUDP
	tests := []struct {
		name     string
		pod      *api.Pod
		existing *api.Pod
		want     *fw.Status
	}{
		{"same udp port", npPod(npPort{"127.0.0.1", udp, 8080}).Obj(), npPod(npPort{"127.0.0.1", udp, 8080}).Obj(), reject},
		{"same tcp port", npPod(npPort{"127.0.0.1", tcp, 8080}).Obj(), npPod(npPort{"127.0.0.1", tcp, 8080}).Obj(), reject},
		{"different host ip", npPod(npPort{"127.0.0.1", tcp, 8080}).Obj(), npPod(npPort{"127.0.0.2", tcp, 8080}).Obj(), nil},
		{"different protocol", npPod(npPort{"127.0.0.1", tcp, 8080}).Obj(), npPod(npPort{"127.0.0.1", udp, 8080}).Obj(), nil},
		{"first udp port conflict", npPod(npPort{"127.0.0.1", udp, 8000}, npPort{"127.0.0.1", udp, 8080}).Obj(), npPod(npPort{"127.0.0.1", udp, 8080}).Obj(), reject},
		{"first tcp port conflict", npPod(npPort{"127.0.0.1", tcp, 8001}, npPort{"127.0.0.1", tcp, 8080}).Obj(), npPod(npPort{"127.0.0.1", tcp, 8001}).Obj(), reject},
		{"first tcp port conflict due to 0.0.0.0 hostIP", npPod(npPort{"0.0.0.0", tcp, 8001}).Obj(), npPod(npPort{"127.0.0.1", tcp, 8001}).Obj(), reject},
		{"TCP hostPort conflict due to 0.0.0.0 hostIP", npPod(npPort{"10.0.10.10", tcp, 8001}, npPort{"0.0.0.0", tcp, 8001}).Obj(), npPod(npPort{"127.0.0.1", tcp, 8001}).Obj(), reject},
		{"second tcp port conflict to 0.0.0.0 hostIP", npPod(npPort{"127.0.0.1", tcp, 8001}).Obj(), npPod(npPort{"0.0.0.0", tcp, 8001}).Obj(), reject},
		{"second different protocol", npPod(npPort{"127.0.0.1", udp, 8001}).Obj(), npPod(npPort{"0.0.0.0", tcp, 8001}).Obj(), nil},
		{"UDP hostPort conflict due to 0.0.0.0 hostIP", npPod(npPort{"127.0.0.1", udp, 8001}).Obj(), npPod(npPort{"0.0.0.0", tcp, 8001}, npPort{"0.0.0.0", udp, 8001}).Obj(), reject},
		{"empty IP and protocol mean 0.0.0.0/TCP", npPod(npPort{"", "", 9000}).Obj(), npPod(npPort{"10.1.1.1", tcp, 9000}).Obj(), reject},
		// Sidecar (restartable) init containers bind their host ports for the
		// pod's whole life and count; plain init containers do not.
		{"sidecar port conflicts", st.MakePod().Name("p").InitHostPort("", tcp, 7000, true).Obj(), npPod(npPort{"", tcp, 7000}).Obj(), reject},
		{"existing sidecar port conflicts", npPod(npPort{"", tcp, 7000}).Obj(), st.MakePod().Name("e").InitHostPort("", tcp, 7000, true).Obj(), reject},
		{"plain init container port ignored", st.MakePod().Name("p").InitHostPort("", tcp, 7000, false).Req(nil).Obj(), npPod(npPort{"", tcp, 7000}).Obj(), nil},
	}
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.existing.Name, tc.existing.UID = "e", "e"
			ni := st.NodeInfo(t, "n", map[string]string{"pods": "10"}, tc.existing)
			state := fw.NewCycleState()
			pi := fw.MustPodInfo(tc.pod)
			_, s := pl.(fw.PreFilterPlugin).PreFilter(context.Background(), state, pi, nil)
			if s.IsSkip() {
				if tc.want != nil {
					t.Fatalf("PreFilter skipped, want %v", tc.want)
				}
				return
			}
			if got := pl.(fw.FilterPlugin).Filter(context.Background(), state, pi, ni); !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

// kube's TestPreFilterDisabled and the Skip rule.
func TestNodePortsPreFilter(t *testing.T) {
	pl, _ := New(nil, nil)
	_, s := pl.(fw.PreFilterPlugin).PreFilter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Req(nil).Obj()), nil)
	if !s.IsSkip() {
		t.Errorf("pod without host ports: PreFilter = %v, want Skip", s)
	}
	ni := st.NodeInfo(t, "n", nil)
	got := pl.(fw.FilterPlugin).Filter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(npPod(npPort{"", "", 80}).Obj()), ni)
	if got.Code() != fw.Error || got.Message() != `reading "PreFilterNodePorts" from cycleState: framework: state key not found` {
		t.Errorf("without PreFilter: %v", got)
	}
}

func TestNodePortsFilterAllocs(t *testing.T) {
	pl, _ := New(nil, nil)
	pi := fw.MustPodInfo(npPod(npPort{"", "", 8080}, npPort{"10.0.0.1", api.ProtocolUDP, 53}).Obj())
	state := fw.NewCycleState()
	pl.(fw.PreFilterPlugin).PreFilter(context.Background(), state, pi, nil)
	free := st.NodeInfo(t, "a", nil)
	busy := st.NodeInfo(t, "b", nil, npPod(npPort{"", "", 8080}).Obj())
	for _, ni := range []*fw.NodeInfo{free, busy} {
		if a := testing.AllocsPerRun(100, func() { pl.(fw.FilterPlugin).Filter(context.Background(), state, pi, ni) }); a != 0 {
			t.Errorf("%s: %v allocs, want 0", ni.Name(), a)
		}
	}
}

func BenchmarkNodePortsFilter(b *testing.B) {
	pl, _ := New(nil, nil)
	st.BenchFilter(b, pl, fw.MustPodInfo(npPod(npPort{"", api.ProtocolTCP, 8080}).Obj()))
}

// nodeports/node_ports_test.go Test_isSchedulableAfterPodDeleted.
func TestNodePortsHints(t *testing.T) {
	pl := st.HintPlugin[*NodePorts](t)(New(nil, nil))
	pod := builder.MakePod().Name("p").HostPort("", api.ProtocolTCP, 8080).Obj()
	st.RunHints(t, pl.afterPodDeleted, nil, []st.HintCase{
		{Name: "backoff-wrong-old-object", Pod: pod, Old: "not-a-pod", Want: fw.Queue, WantErr: true},
		{Name: "skip-queue-on-unscheduled", Pod: pod, Old: st.HintPod(t, builder.MakePod().Name("q").Obj()), Want: fw.QueueSkip},
		{Name: "skip-queue-on-non-hostport", Pod: pod, Old: st.HintPod(t, builder.MakePod().Name("q").Node("fake-node").Obj()), Want: fw.QueueSkip},
		{Name: "skip-queue-on-unrelated-hostport", Pod: pod, Old: st.HintPod(t, builder.MakePod().Name("q").Node("fake-node").HostPort("", api.ProtocolTCP, 8081).Obj()), Want: fw.QueueSkip},
		{Name: "queue-on-released-hostport", Pod: pod, Old: st.HintPod(t, builder.MakePod().Name("q").Node("fake-node").HostPort("", api.ProtocolTCP, 8080).Obj()), Want: fw.Queue},
	})
}

// TestConformance holds NodePorts' fast forms to its PreFilter and Filter
// on the harness's random clusters.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, nil) })
}

// TestEventsToRegister pins NodePorts' registered events: a pod deleted, a
// node added (nodeports/node_ports.go, SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourcePod, ActionType: fw.Delete}, {Resource: fw.ResourceNode, ActionType: fw.Add}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// TestPropFilterRejectsByRowsEqualsFilter: after any sequence of pods with
// host ports added to and removed from a snapshot and its clones, the
// rejections FilterRejects reports with the runner's indices (reading the
// nodes binding the pod's ports that PreFilter kept over the snapshot's
// own nodes, brought up to date from cycle to cycle, or the rows'
// HostPorts when the snapshot changed since or PreFilter kept none) are
// those of Filter node by node, for any incoming pod.
func TestPropFilterRejectsByRowsEqualsFilter(t *testing.T) {
	pl, _ := New(nil, nil)
	np := pl.(*NodePorts)
	ips := []string{"", "0.0.0.0", "10.0.0.1", "10.0.0.2"}
	protos := []api.Protocol{"", api.ProtocolTCP, api.ProtocolUDP}
	rapid.Check(t, func(t *rapid.T) {
		drawPod := func(name, node string) *api.Pod {
			w := builder.MakePod().Name(name).UID(name).Node(node)
			for range rapid.IntRange(0, 2).Draw(t, "ports") {
				w = w.HostPort(rapid.SampledFrom(ips).Draw(t, "ip"), rapid.SampledFrom(protos).Draw(t, "proto"), int32(rapid.IntRange(79, 81).Draw(t, "port")))
			}
			return w.Obj()
		}
		var nodes []*api.Node
		for i := range rapid.SampledFrom([]int{1, 2, 3, 4, 6, 65, 70}).Draw(t, "nodes") {
			nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"pods": "100"}).Obj())
		}
		snaps := []*fw.Snapshot{fw.MustSnapshot(nodes, nil)}
		seq := 0
		for range rapid.IntRange(1, 25).Draw(t, "ops") {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			var placed []*api.Pod
			for _, ni := range s.Nodes() {
				for _, pi := range ni.Pods {
					placed = append(placed, pi.Pod)
				}
			}
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); {
			case op <= 1 || len(placed) == 0:
				seq++
				node := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "node")].Name()
				if err := s.AddPod(drawPod(fmt.Sprintf("p%d", seq), node)); err != nil {
					t.Fatal(err)
				}
			case op <= 3:
				if err := s.RemovePod(placed[rapid.IntRange(0, len(placed)-1).Draw(t, "victim")]); err != nil {
					t.Fatal(err)
				}
			case op == 4:
				snaps = append(snaps, s.Clone())
			default: // a node leaves: the others are numbered anew
				if s.NumNodes() == 1 {
					continue
				}
				if err := s.RemoveNode(s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "removed")].Name()); err != nil {
					t.Fatal(err)
				}
			}
			pi := fw.MustPodInfo(drawPod("incoming", ""))
			for k, sn := range snaps {
				state := fw.NewCycleState()
				state.SetSnapshot(sn)
				// Over the snapshot's own nodes, PreFilter keeps the
				// nodes binding the pod's ports (holders), which
				// FilterRejects reads while the snapshot is unchanged.
				state.SetAllNodes(rapid.Bool().Draw(t, "allNodes"))
				if _, st := np.PreFilter(context.Background(), state, pi, nil); st.IsSkip() {
					continue
				}
				if rapid.IntRange(0, 3).Draw(t, "changedAfterPreFilter") == 0 {
					seq++
					node := sn.Nodes()[rapid.IntRange(0, sn.NumNodes()-1).Draw(t, "node")].Name()
					if err := sn.AddPod(drawPod(fmt.Sprintf("p%d", seq), node)); err != nil {
						t.Fatal(err)
					}
				}
				// Some of the snapshot's nodes, in any order, as the
				// runner's indices and round-robin start give them.
				all := sn.Nodes()
				idx := rapid.SliceOfNDistinct(rapid.Int32Range(0, int32(len(all)-1)), 1, len(all), rapid.ID[int32]).Draw(t, "idx")
				if rapid.Bool().Draw(t, "run") {
					// A run of positions from any start, wrapping
					// past the last node, as the runner's chunks
					// of a round-robin start are.
					first := rapid.IntRange(0, len(all)-1).Draw(t, "first")
					idx = sn.IndexRuns()[first : first+rapid.IntRange(1, len(all)).Draw(t, "length")]
				}
				if got, want := rejectsAndFilter(np, state, pi, sn, idx); !slices.Equal(got, want) {
					t.Fatalf("snapshot %d: FilterRejects by rows rejects %v, Filter %v", k, got, want)
				}
			}
		}
	})
}

// TestFilterRejectsOverRuns: over runs of the snapshot's positions that
// start and end inside, at and across the bitmaps' 64-position words and
// wrap past the last node, FilterRejects rejects exactly the nodes Filter
// does, with every node binding the port and with every third.
func TestFilterRejectsOverRuns(t *testing.T) {
	pl, _ := New(nil, nil)
	np := pl.(*NodePorts)
	const n = 130
	for _, every := range []int{1, 3} {
		var nodes []*api.Node
		var pods []*api.Pod
		for i := range n {
			nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%03d", i)).Capacity(map[string]string{"pods": "10"}).Obj())
			if i%every == 0 {
				pods = append(pods, builder.MakePod().Name(fmt.Sprintf("p%d", i)).UID(fmt.Sprintf("p%d", i)).Node(nodes[i].Name).HostPort("", api.ProtocolTCP, 80).Obj())
			}
		}
		snap := fw.MustSnapshot(nodes, pods)
		pi := fw.MustPodInfo(builder.MakePod().Name("in").HostPort("", api.ProtocolTCP, 80).Obj())
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		state.SetAllNodes(true)
		if _, st := np.PreFilter(context.Background(), state, pi, nil); st.IsSkip() {
			t.Fatal("PreFilter skipped a pod with a host port")
		}
		for _, first := range []int{0, 1, 62, 63, 64, 100, 127, 129} {
			for _, length := range []int{1, 2, 63, 64, 65, 66, 128, 129, 130} {
				idx := snap.IndexRuns()[first : first+length]
				if _, ok := snap.IndexRun(idx); !ok {
					t.Fatalf("run from %d of %d: not recognized", first, length)
				}
				if got, want := rejectsAndFilter(np, state, pi, snap, idx); !slices.Equal(got, want) {
					t.Fatalf("every %d, run from %d of %d: rejects %v, Filter %v", every, first, length, got, want)
				}
			}
		}
	}
}

// rejectsAndFilter returns the positions in idx (snapshot indices of
// snap's nodes) that FilterRejects rejects, given the nodes idx names,
// and those that Filter rejects node by node.
func rejectsAndFilter(np *NodePorts, state *fw.CycleState, pi *fw.PodInfo, snap *fw.Snapshot, idx []int32) (got, want []int32) {
	nodes := make([]*fw.NodeInfo, len(idx))
	for i, k := range idx {
		nodes[i] = snap.Nodes()[k]
		if np.Filter(context.Background(), state, pi, nodes[i]) != nil {
			want = append(want, int32(i))
		}
	}
	for _, r := range np.FilterRejects(context.Background(), state, pi, nodes, idx, nil) {
		got = append(got, r.Node)
	}
	return got, want
}
