// Package frameworktest checks a scheduling plugin's optional fast forms
// against its plain Filter and Score, on random clusters.
//
// A plugin may implement, beside framework.FilterPlugin and
// framework.ScorePlugin, faster forms the runner prefers: batch filters
// (fastpath.BatchFilterPlugin, fastpath.RejectingFilterPlugin), batch
// scores (fastpath.BatchScorePlugin, fastpath.BoundedBatchScorePlugin),
// one score for every node (fastpath.ConstantScorePlugin), batch and
// range normalizers (fastpath.BatchScoreExtensions,
// fastpath.RangeNormalizer), incremental PreFilter and PreScore
// (fastpath.IncrementalPreFilterPlugin,
// fastpath.IncrementalPreScorePlugin), node-local verdicts
// (fastpath.NodeLocalPlugin), pod signatures (framework.SignPlugin,
// framework.SignRefuser), a PreFilter that reads the snapshot's
// indexes when told its nodes are the snapshot's own list
// (framework.CycleState.AllNodes), a PreScore told its nodes' snapshot
// indices (framework.CycleState.ScoredIndices), and what removing pods does to a
// Filter verdict (runtime.VictimRemovalFilter, for preemption). Each is a
// promise that the cycle decides number for number as with the plain
// form. Run checks every one of those the
// plugin implements, and only those, in the manner of cluster-autoscaler's
// one test table run against its plain and optimized snapshots:
//
//   - all-nodes PreFilter: PreFilter with AllNodes set gives the status,
//     the result and every node's Filter verdict that PreFilter over a
//     copy of the list without it gives, also after PreFilterExtensions'
//     AddPod and RemovePod;
//   - batch filters: FilterBatch and FilterRejects give every node
//     Filter's status, with and without snapshot indices, over the
//     snapshot's nodes, a subsequence, copies of them, without PreFilter
//     state, and after PreFilterExtensions' AddPod and RemovePod;
//     FilterRejectsDeferred lists FilterRejects' nodes, each with its
//     status or none, which RejectionStatuses then gives;
//   - told indices: PreScore told its nodes' snapshot indices gives the
//     status, every node's Score and NormalizeScore that PreScore not
//     told gives, over the snapshot's nodes and a subsequence;
//   - batch scores: ScoreBatch gives Score's scores (and a failure where
//     Score fails), chunk by chunk, with and without indices, into
//     buffers holding leftover values;
//     ScoreBatchBounds gives ScoreBatch's scores and their true least and
//     greatest; ScoreBatchAdd adds ScoreBatch's weighted scores exactly
//     when they are all in range; NormalizeScoreBatch and the
//     NormalizeRange table normalize as NormalizeScore does;
//   - incremental: after replicas of the pod and other pods are added, in
//     rounds, PreFilterAfterAdd and PreScoreAfterAdd bring a carried state
//     to what PreFilter and PreScore give on a fresh one: the same status
//     and every node's verdicts and scores (batch forms and normalization
//     included), and, for filters, the same verdicts after a nominated pod
//     is added the kube way;
//   - node-local: when NodeLocal(pod) holds, a state written before pods
//     were added elsewhere gives the verdicts and raw scores a fresh state
//     gives, and a node whose Generation did not move keeps its verdict;
//   - victim removal: with some of a node's pods removed (and RemovePod
//     run), a verdict said to be unchanged is the same, and a pass said to
//     be kept stays a pass;
//   - signatures: RefusesSign agrees with SignPod; a renamed copy of the
//     pod that signs alike gets the same verdicts and scores, and the
//     cluster's other pods of its namespace, unbound, that sign alike get
//     the same verdicts (scores may tell such pods apart: kube-scheduler's
//     NodeResourcesFit signs requests without the defaults its scores
//     give containers without requests).
//
// Run draws clusters with DefaultCase, which exercises schedkit's node,
// resource, image, taint, affinity and topology-spread plugins; RunCases
// takes a generator of its own (for plugins whose interesting cases are
// rare in random clusters, or that need storage objects or namespaces). The test log counts, per form, the
// cases that compared it; a batch or incremental form the plugin
// implements that no case reached fails the test, since its check then
// checked nothing. Failures are shrunk to a minimal cluster by
// pgregory.net/rapid, whose flags (-rapid.checks, -rapid.seed)
// apply. Only RunCases and DefaultCase mention *rapid.T: a plugin author
// who uses Run needs nothing but the testing package.
package frameworktest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// Case is one generated check: a plugin and a cluster to check it on.
type Case struct {
	// Plugin is the plugin under test, a framework.FilterPlugin, a
	// framework.ScorePlugin or both. A new one per case keeps state a
	// plugin carries across cycles out of the other cases.
	Plugin framework.Plugin
	// Nodes, Pods (placed on their Spec.NodeName) and SnapshotOptions
	// (namespaces, storage objects) make the snapshot.
	Nodes           []*api.Node
	Pods            []*api.Pod
	SnapshotOptions []framework.SnapshotOption
	// Incoming is the pod to schedule.
	Incoming *api.Pod
	// Other, when not nil, returns a pod named name placed on node, added
	// to the cluster beside the incoming pod's replicas in the incremental
	// and node-local checks (nil: replicas only).
	Other func(name, node string) *api.Pod
	// ScoresEveryNode asks the incremental check to compare Score on the
	// snapshot's nodes outside those PreScore saw too (for plugins whose
	// Score is defined there).
	ScoresEveryNode bool
}

// Run checks the fast forms of the plugins newPlugin returns (a new one
// per case) on clusters DefaultCase draws. It fails the test when
// newPlugin fails or returns a plugin that is neither a Filter nor a Score
// plugin.
func Run(t *testing.T, newPlugin func() (framework.Plugin, error)) {
	t.Helper()
	RunCases(t, func(rt *rapid.T) Case {
		c := DefaultCase(rt)
		pl, err := newPlugin()
		if err != nil {
			rt.Fatalf("frameworktest: new plugin: %v", err)
		}
		c.Plugin = pl
		return c
	})
}

// RunCases is Run on the cases gen draws.
func RunCases(t *testing.T, gen func(t *rapid.T) Case) {
	t.Helper()
	runCases(t, gen)
}

// runCases is RunCases reporting to any rapid.TB.
func runCases(t rapid.TB, gen func(t *rapid.T) Case) {
	t.Helper()
	var cov coverage
	rapid.Check(t, func(rt *rapid.T) {
		c := gen(rt)
		check(rt, &cov, c)
	})
	cov.log(t)
	cov.requireReached(t)
}

// DefaultCase draws a small cluster and an incoming pod that exercise the
// filter and score paths of schedkit's node, resource, image, taint,
// affinity and topology-spread plugins (no storage objects): nodes with or
// without zone, rack and hostname labels, taints of every effect,
// cordons, extended resources, images and host ports in use; placed pods
// with labels, requests, host ports, pod (anti-)affinity and spread
// constraints; an incoming pod with the same features plus tolerations, a
// nodeSelector, node affinity and now and then a nodeName. Plugin is nil.
func DefaultCase(t *rapid.T) Case {
	nodes, pods, incoming := st.BatchCluster(t)
	return Case{Nodes: nodes, Pods: pods, Incoming: incoming}
}

// coverage counts, per check, the cases in which it compared something,
// so that a generator that never reaches a form shows in the test log.
type coverage struct {
	mu     sync.Mutex
	name   string
	last   framework.Plugin
	counts map[string]int
}

func (c *coverage) hit(pl framework.Plugin, check string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[check]++
}

// saw records the plugin under test.
func (c *coverage) saw(pl framework.Plugin) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.name, c.last = pl.Name(), pl
}

// requireReached fails the test when the plugin implements a batch or
// incremental form that no case compared (the generator never reached
// it, so the check checked nothing). Node-local and signature checks are
// not required: whether they apply depends on the pod.
func (c *coverage) requireReached(t rapid.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	pl := c.last
	if pl == nil || t.Failed() {
		return
	}
	var forms []string
	add := func(ok bool, form string) {
		if ok {
			forms = append(forms, form)
		}
	}
	_, bf := pl.(fastpath.BatchFilterPlugin)
	_, rf := pl.(fastpath.RejectingFilterPlugin)
	_, df := pl.(fastpath.DeferringRejectingFilterPlugin)
	_, bs := pl.(fastpath.BatchScorePlugin)
	_, bb := pl.(fastpath.BoundedBatchScorePlugin)
	_, ba := pl.(fastpath.AddingBatchScorePlugin)
	_, cs := pl.(fastpath.ConstantScorePlugin)
	_, ipf := pl.(fastpath.IncrementalPreFilterPlugin)
	_, ips := pl.(fastpath.IncrementalPreScorePlugin)
	add(bf, "FilterBatch")
	add(rf, "FilterRejects")
	add(df, "FilterRejectsDeferred")
	add(bs, "ScoreBatch")
	add(bb, "ScoreBatchBounds")
	add(cs, "ConstantScore")
	add(ipf, "PreFilterAfterAdd")
	add(ips, "PreScoreAfterAdd")
	if sp, ok := pl.(framework.ScorePlugin); ok {
		_, bn := sp.ScoreExtensions().(fastpath.BatchScoreExtensions)
		_, rn := sp.ScoreExtensions().(fastpath.RangeNormalizer)
		add(bn, "NormalizeScoreBatch")
		add(rn, "NormalizeRange")
		add(ba && sp.ScoreExtensions() == nil, "ScoreBatchAdd")
	}
	for _, f := range forms {
		if c.counts[f] == 0 {
			t.Errorf("frameworktest: %s implements %s but no case compared it: the cases never reach it", c.name, f)
		}
	}
}

func (c *coverage) log(t rapid.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for k, v := range c.counts {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		parts = []string{"none (no fast form)"}
	}
	t.Logf("frameworktest: %s: cases that compared: %s", c.name, strings.Join(parts, ", "))
}

// check runs every check that c.Plugin's forms call for.
func check(t *rapid.T, cov *coverage, c Case) {
	pl := c.Plugin
	if pl == nil {
		t.Fatalf("frameworktest: the case has no plugin")
	}
	cov.saw(pl)
	fp, isFilter := pl.(framework.FilterPlugin)
	sp, isScore := pl.(framework.ScorePlugin)
	if !isFilter && !isScore {
		t.Fatalf("frameworktest: %s (%T) is neither a Filter nor a Score plugin", pl.Name(), pl)
	}
	snap, err := framework.NewSnapshot(c.Nodes, c.Pods, c.SnapshotOptions...)
	if err != nil {
		t.Fatalf("frameworktest: snapshot: %v", err)
	}
	pod, err := framework.NewPodInfo(c.Incoming)
	if err != nil {
		t.Fatalf("frameworktest: incoming pod: %v", err)
	}
	all := snap.Nodes()
	var sub, copies []*framework.NodeInfo
	for _, n := range all {
		if rapid.Bool().Draw(t, "inSubset") {
			sub = append(sub, n)
		}
		if rapid.Bool().Draw(t, "copy") {
			n = n.Clone()
		}
		copies = append(copies, n)
	}
	lists := []nodeList{{"all nodes", all}, {"subset", sub}, {"copies", copies}}
	if isFilter {
		checkAllNodesPreFilter(t, cov, fp, snap, pod, c.Pods)
		checkBatchFilter(t, cov, fp, snap, pod, lists, c.Pods)
		checkVictimRemoval(t, cov, fp, snap, pod)
	}
	if isScore {
		checkBatchScore(t, cov, sp, snap, pod, lists)
	}
	checkSign(t, cov, pl, snap, pod, c.Pods)
	if len(all) == 0 {
		return
	}
	checkNodeLocal(t, cov, pl, snap, pod, c.Other)
	if isFilter {
		if ip, ok := pl.(fastpath.IncrementalPreFilterPlugin); ok {
			checkIncrementalPreFilter(t, cov, fp, ip, snap.Clone(), pod, c.Other)
		}
	}
	if isScore {
		if ip, ok := pl.(fastpath.IncrementalPreScorePlugin); ok {
			checkIncrementalPreScore(t, cov, sp, ip, snap.Clone(), pod, c.Other, c.ScoresEveryNode)
		}
	}
}

// nodeList is a list of nodes a check runs over, with its description.
type nodeList struct {
	what  string
	nodes []*framework.NodeInfo
}

// sameVerdict reports whether two filter statuses say the same thing:
// both a success (nil included), or the same code, plugin, reasons and
// error text.
func sameVerdict(a, b *framework.Status) bool {
	if a.IsSuccess() || b.IsSuccess() {
		return a.IsSuccess() && b.IsSuccess()
	}
	return a.Equal(b) && a.AsError().Error() == b.AsError().Error()
}

// freshState returns a new cycle state over snap.
func freshState(snap *framework.Snapshot) *framework.CycleState {
	s := framework.NewCycleState()
	s.SetSnapshot(snap)
	s.SetAllNodes(true) // the harness runs PreFilter over snap.Nodes()
	return s
}

// preFilter runs pl's PreFilter on state when it has one; a plugin
// without one succeeds.
func preFilter(pl framework.Plugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	pf, ok := pl.(framework.PreFilterPlugin)
	if !ok {
		return nil, nil
	}
	return pf.PreFilter(context.Background(), state, pod, nodes)
}

// preScore runs pl's PreScore on state when it has one, with ScoredNodes
// set as the runner sets it.
func preScore(pl framework.Plugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	ps, ok := pl.(framework.PreScorePlugin)
	if !ok {
		return nil
	}
	state.SetScoredNodes(len(nodes))
	return ps.PreScore(context.Background(), state, pod, nodes)
}

// snapshotIndices returns each node's index in state's snapshot, as the
// runner passes them to batch forms, or nil when some node is a copy.
func snapshotIndices(state *framework.CycleState, nodes []*framework.NodeInfo) []int32 {
	return st.SnapshotIndices(state, nodes)
}
