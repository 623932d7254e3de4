package filter_test

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/filter"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// afreshPlugin records what its PreFilter was given and writes a fresh
// state under its key.
type afreshPlugin struct {
	key       fw.StateKey
	nodes     []*fw.NodeInfo
	allNodes  bool
	keyBefore bool
	status    *fw.Status
}

func (p *afreshPlugin) Name() string { return "Afresh" }

func (p *afreshPlugin) PreFilter(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	p.nodes, p.allNodes = nodes, state.AllNodes()
	_, err := state.Read(p.key)
	p.keyBefore = err == nil
	state.Write(p.key, &afreshState{})
	return nil, p.status
}

func (p *afreshPlugin) PreFilterExtensions() fw.PreFilterExtensions { return nil }

// afreshState counts its releases.
type afreshState struct{ released int }

func (s *afreshState) Clone() fw.StateData { return s }
func (s *afreshState) Release()            { s.released++ }

// TestPreFilterAfresh: the plugin's PreFilter runs over every snapshot
// node with AllNodes set and without the old state, whose Release runs
// once; AllNodes is restored and PreFilter's status returned.
func TestPreFilterAfresh(t *testing.T) {
	const key fw.StateKey = "PreFilterAfresh"
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()}, nil)
	pod := fw.MustPodInfo(st.MakePod().Name("p").Obj())
	for _, want := range []*fw.Status{nil, fw.NewStatus(fw.Skip), fw.NewStatus(fw.Error, "boom")} {
		pl := &afreshPlugin{key: key, status: want}
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		old := &afreshState{}
		state.Write(key, old)
		got := filter.PreFilterAfresh(context.Background(), state, pl, key, pod)
		if got.Code() != want.Code() || got.Message() != want.Message() {
			t.Errorf("status %v, want %v", got, want)
		}
		if len(pl.nodes) != snap.NumNodes() || pl.nodes[0] != snap.Nodes()[0] || pl.nodes[1] != snap.Nodes()[1] {
			t.Errorf("PreFilter got nodes %v, want the snapshot's %v", pl.nodes, snap.Nodes())
		}
		if !pl.allNodes {
			t.Error("PreFilter ran without AllNodes")
		}
		if pl.keyBefore {
			t.Error("PreFilter found the old state under its key")
		}
		if state.AllNodes() {
			t.Error("AllNodes left set")
		}
		if old.released != 1 {
			t.Errorf("old state released %d times, want 1", old.released)
		}
		if d, err := state.Read(key); err != nil || d == fw.StateData(old) {
			t.Errorf("state under key %v (%v), want PreFilter's fresh one", d, err)
		}
	}
}

// TestPreFilterAfreshNoSnapshot: without a snapshot PreFilter gets no
// nodes and AllNodes stays as it was.
func TestPreFilterAfreshNoSnapshot(t *testing.T) {
	pl := &afreshPlugin{key: "k"}
	state := fw.NewCycleState()
	if s := filter.PreFilterAfresh(context.Background(), state, pl, "k", fw.MustPodInfo(st.MakePod().Name("p").Obj())); !s.IsSuccess() {
		t.Fatalf("status %v, want success", s)
	}
	if pl.nodes != nil || pl.allNodes {
		t.Errorf("PreFilter got nodes %v, AllNodes %v; want none, false", pl.nodes, pl.allNodes)
	}
}
