package defaultpreemption

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/nodeports"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/tainttoleration"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// memoNominator is a PodNominator the test changes between preemptions.
type memoNominator map[string][]*framework.PodInfo

func (n memoNominator) NominatedPodsForNode(node string) []*framework.PodInfo { return n[node] }

// memoEvictor records each eviction as "node: victims".
type memoEvictor struct{ got []string }

func (e *memoEvictor) Evict(_ *framework.CycleState, _ *api.Pod, node string, victims []*framework.PodInfo, _ string) error {
	keys := make([]string, len(victims))
	for i, v := range victims {
		keys[i] = v.Pod.Key()
	}
	e.got = append(e.got, fmt.Sprintf("%s: %v", node, keys))
	return nil
}

// hotZone is a node-local Filter plugin whose state reads every node: with
// an odd number of nodes labelled hot=true it rejects the nodes of zone
// z0. A relabelled node changes its verdict on the other nodes.
type hotZone struct{}

type hotCount int

func (c hotCount) Clone() framework.StateData { return c }

func (hotZone) Name() string { return "HotZone" }
func (hotZone) PreFilter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	n := 0
	for _, ni := range nodes {
		if ni.Node().Labels["hot"] == "true" {
			n++
		}
	}
	state.Write("HotZone", hotCount(n))
	return nil, nil
}
func (hotZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }
func (hotZone) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	c, err := state.Read("HotZone")
	if err != nil {
		return framework.AsStatus(err)
	}
	if c.(hotCount)%2 == 1 && ni.Node().Labels["zone"] == "z0" {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "odd hot nodes")
	}
	return nil
}
func (hotZone) NodeLocal(*framework.PodInfo) bool { return true }
func (hotZone) SignPod(context.Context, *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return nil, nil
}

// memoOutcome is what one preemption decided, after a dry run over every
// node that failed.
type memoOutcome struct {
	Candidates []string
	Statuses   []string
	Nominated  string
	Code       framework.Code
	Message    string
	Evicted    []string
}

// TestPropMemoDecidesAsEveryDryRun: a DefaultPreemption that keeps its
// nodes' dry-run answers, and its dry run's buffers, from one preemption
// to the next decides every preemption exactly as one that dry-runs every
// node each time into buffers of its own (a user-set IsEligiblePod turns
// the memo off), over a stream of
// preemptors of a few kinds between which the cluster changes a few times:
// victims evicted and the preemptor bound, pods added and removed, node
// labels changed, pods nominated and their nominations cleared, a
// budget's allowed disruptions. The pods have
// start times or none, under the RealClock or an injected one; some pods
// carry host ports or required anti-affinity over a zone (InterPodAffinity
// is then not node-local), some nodes taints; a node-local plugin's state
// reads the labels of every node, and a PodDisruptionBudget may cover the
// pods.
func TestPropMemoDecidesAsEveryDryRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// The injected clock starts among the pods' start times and
		// advances after each preemption: a pod without a start time
		// ranks among the others as the clock says.
		fake := framework.NewFakeClock(ppEpochN(3))
		var clock framework.Clock = fake
		if rapid.Bool().Draw(t, "realClock") {
			clock = framework.RealClock{}
		}
		nn := rapid.IntRange(2, 6).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range nn {
			w := st.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "2", "pods": "8"}).Label("zone", fmt.Sprintf("z%d", i%2))
			if rapid.IntRange(0, 3).Draw(t, "tainted") == 0 {
				w = w.Taint("dedicated", "x", api.TaintEffectNoSchedule)
			}
			nodes = append(nodes, w.Obj())
		}
		serial := 0
		lowPod := func(node string) *api.Pod {
			serial++
			w := st.MakePod().Name(fmt.Sprintf("p%d", serial)).Label("app", fmt.Sprintf("a%d", serial%3)).
				Priority(int32(rapid.SampledFrom([]int{0, 0, 1, 55}).Draw(t, "prio"))).Node(node).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 100*rapid.IntRange(1, 8).Draw(t, "cpu"))}).
				Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists})
			if rapid.Bool().Draw(t, "started") {
				w = w.StartTime(ppEpochN(rapid.IntRange(0, 12).Draw(t, "start")))
			}
			switch rapid.IntRange(0, 9).Draw(t, "extra") {
			case 0:
				w = w.HostPort("", api.ProtocolTCP, 8080)
			case 1:
				w = w.PodAntiAffinityIn("app", "zone", []string{"a2"}, builder.PodAntiAffinityWithRequiredReq)
			}
			return w.Obj()
		}
		var pods []*api.Pod
		for range rapid.IntRange(0, 16).Draw(t, "pods") {
			pods = append(pods, lowPod(nodes[rapid.IntRange(0, nn-1).Draw(t, "on")].Name))
		}
		var pdbs []api.PodDisruptionBudget
		if rapid.IntRange(0, 2).Draw(t, "pdb") == 0 {
			pdbs = append(pdbs, api.PodDisruptionBudget{Namespace: "default", Name: "pdb",
				Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "a1"}}, DisruptionsAllowed: 1})
		}
		snap, err := framework.NewSnapshot(nodes, pods, framework.WithDisruptionBudgets(pdbs...))
		if err != nil {
			t.Fatal(err)
		}
		nominated := memoNominator{}

		reg := framework.NewRegistry()
		for name, f := range map[string]framework.Factory{
			config.NodeResourcesFitName:  noderesources.NewFit,
			config.TaintTolerationName:   tainttoleration.New,
			config.NodePortsName:         nodeports.New,
			config.InterPodAffinityName:  interpodaffinity.New,
			config.DefaultPreemptionName: New,
			"HotZone":                    func(any, framework.Handle) (framework.Plugin, error) { return hotZone{}, nil },
		} {
			if err := reg.Register(name, f); err != nil {
				t.Fatal(err)
			}
		}
		filters := []string{config.NodeResourcesFitName, config.TaintTolerationName, config.NodePortsName, config.InterPodAffinityName, "HotZone"}
		prof := framework.Profile{PreFilter: filters, Filter: filters, PostFilter: []string{config.DefaultPreemptionName}}
		// Both sides search on the same workers: with more than one, the
		// memo's answers are written by parallel chunks.
		workers := rapid.IntRange(1, 3).Draw(t, "workers")
		type side struct {
			fw *runtime.Framework
			ev *memoEvictor
			// memo: the side keeping answers, which also reuses its
			// dry-run scratch from one preemption to the next.
			memo bool
		}
		build := func(memo bool) side {
			ev := &memoEvictor{}
			fw, err := runtime.NewFramework(reg, prof, runtime.WithClock(clock), runtime.WithEvictor(ev), runtime.WithPodNominator(nominated),
				runtime.WithRand(rand.New(rand.NewPCG(4, 5))), runtime.WithParallelism(workers))
			if err != nil {
				t.Fatal(err)
			}
			if !memo {
				pl, _ := fw.Plugin(config.DefaultPreemptionName)
				pl.(*DefaultPreemption).IsEligiblePod = func(*framework.NodeInfo, *framework.PodInfo, *api.Pod) bool { return true }
			}
			return side{fw, ev, memo}
		}
		memo, plain := build(true), build(false)
		preempt := func(s side, pi *framework.PodInfo) memoOutcome {
			ctx := context.Background()
			state := framework.NewCycleState()
			state.SetSnapshot(snap)
			if _, st, _ := s.fw.RunPreFilterPlugins(ctx, state, pi); !st.IsSuccess() {
				return memoOutcome{Code: st.Code(), Message: st.Message()}
			}
			m := framework.NewNodeToStatus(nil)
			for _, ni := range snap.Nodes() {
				if st := s.fw.RunFilterPluginsWithNominatedPods(ctx, state, pi, ni, nominated[ni.Name()]); !st.IsSuccess() {
					m.SetNode(ni, st)
				}
			}
			var out memoOutcome
			pl, _ := s.fw.Plugin(config.DefaultPreemptionName)
			potential := m.NodesWithCode(snap, framework.Unschedulable)
			sc := &dryRunScratch{}
			if s.memo {
				sc = &pl.(*DefaultPreemption).scratch
			}
			cands, statuses, err := pl.(*DefaultPreemption).dryRun(ctx, state, pi, m, potential, 0, len(potential), sc)
			for _, c := range cands {
				keys := make([]string, len(c.victims))
				for i, v := range c.victims {
					keys[i] = v.Pod.Key()
				}
				out.Candidates = append(out.Candidates, fmt.Sprintf("%s %v %d", c.node, keys, c.pdbViolations))
			}
			for _, st := range statuses {
				out.Statuses = append(out.Statuses, fmt.Sprintf("%v %s %s", st.Code(), st.Plugin(), st.Message()))
			}
			if err != nil {
				out.Statuses = append(out.Statuses, err.Error())
			}
			s.ev.got = nil
			res, st := s.fw.RunPostFilterPlugins(ctx, state, pi, m)
			out.Code, out.Message, out.Evicted = st.Code(), st.Message(), s.ev.got
			if res != nil && res.NominatingInfo != nil {
				out.Nominated = res.NominatedNodeName
			}
			return out
		}

		for step := range rapid.IntRange(1, 20).Draw(t, "steps") {
			kind := rapid.IntRange(0, 2).Draw(t, "kind")
			w := st.MakePod().Name(fmt.Sprintf("pre%d", step)).Label("app", rapid.SampledFrom([]string{"a0", "a0", "a2"}).Draw(t, "app")).
				Priority(int32(50 + 10*rapid.IntRange(0, 1).Draw(t, "preprio"))).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 400*(kind+1))})
			if kind == 2 {
				w = w.HostPort("", api.ProtocolTCP, 8080)
			}
			pod := w.Obj()
			pi := framework.MustPodInfo(pod)
			want, got := preempt(plain, pi), preempt(memo, pi)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("step %d, %s: preemption (-every node dry-run +memo):\n%s", step, pod.Name, d)
			}
			if err := fake.Advance(time.Nanosecond); err != nil {
				t.Fatal(err)
			}
			// A few changes to the cluster before the next preemptor.
			bound := false
			for range rapid.IntRange(0, 3).Draw(t, "changes") {
				switch rapid.SampledFrom([]int{0, 1, 2, 3, 4, 4, 4, 5, 5, 5, 6, 6}).Draw(t, "change") {
				case 0: // the preemption's outcome: victims gone, the preemptor bound
					if got.Nominated == "" || bound {
						break
					}
					bound = true
					ni, _ := snap.Get(got.Nominated)
					for _, v := range slices.Clone(ni.Pods) {
						if v.PriorityValue() < pod.PriorityValue() && snap.RemovePod(v.Pod) != nil {
							t.Fatal("removing a victim")
						}
					}
					pod.Spec.NodeName = got.Nominated
					if err := snap.AddPod(pod); err != nil {
						t.Fatal(err)
					}
				case 1:
					if err := snap.AddPod(lowPod(nodes[rapid.IntRange(0, nn-1).Draw(t, "addOn")].Name)); err != nil {
						t.Fatal(err)
					}
				case 2:
					ni := snap.Nodes()[rapid.IntRange(0, nn-1).Draw(t, "removeOn")]
					if len(ni.Pods) > 0 {
						if err := snap.RemovePod(ni.Pods[rapid.IntRange(0, len(ni.Pods)-1).Draw(t, "victim")].Pod); err != nil {
							t.Fatal(err)
						}
					}
				case 3:
					n := snap.NodeAt(rapid.IntRange(0, nn-1).Draw(t, "relabel")).DeepCopy()
					n.Labels["hot"] = fmt.Sprint(rapid.Bool().Draw(t, "hot"))
					if err := snap.UpdateNode(n); err != nil {
						t.Fatal(err)
					}
				case 4:
					node := nodes[rapid.IntRange(0, nn-1).Draw(t, "nominateOn")].Name
					np := st.MakePod().Name(fmt.Sprintf("nom%d", step)).Priority(int32(rapid.SampledFrom([]int{10, 100, 100, 100}).Draw(t, "nomprio"))).
						Req(map[string]string{"cpu": fmt.Sprintf("%dm", 200*rapid.IntRange(1, 5).Draw(t, "nomcpu"))}).Obj()
					nominated[node] = append(nominated[node], framework.MustPodInfo(np))
				case 6: // the node's nominated pods are scheduled elsewhere
					delete(nominated, nodes[rapid.IntRange(0, nn-1).Draw(t, "unnominateOn")].Name)
				case 5:
					if len(snap.DisruptionBudgets) > 0 {
						b := slices.Clone(snap.DisruptionBudgets)
						b[0].DisruptionsAllowed = int32(rapid.IntRange(0, 1).Draw(t, "allowed"))
						snap.DisruptionBudgets = b
					}
				}
			}
		}
	})
}
