// Package trimaran is scheduler-plugins' Trimaran load-aware score plugins
// (pkg/trimaran) over kube-scheduler's framework (v1.37, the default
// release, or v1.36): TargetLoadPacking and LoadVariationRiskBalancing,
// with their args. They read each node's measured load (api.NodeLoad) from
// their handle (framework.Handle.NodeLoads) or a NodeLoadSource, and their
// scores equal scheduler-plugins' number for number.
package trimaran

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/journal"
	"github.com/schedkit/schedkit/resource"
)

// NodeLoadSource gives the Trimaran plugins each node's measured load (the
// part of load-watcher's report about that node).
type NodeLoadSource interface {
	// NodeLoad returns the load of the named node; ok is false when none is
	// known (the node then scores the minimum, as in scheduler-plugins).
	NodeLoad(node string) (*api.NodeLoad, bool)
}

// NodeLoads is a NodeLoadSource over a fixed set of loads, keyed by node
// name.
type NodeLoads map[string]*api.NodeLoad

// NodeLoad returns m[node].
func (m NodeLoads) NodeLoad(node string) (*api.NodeLoad, bool) {
	l, ok := m[node]
	return l, ok && l != nil
}

// tlpReportingInterval is the metrics agent's reporting interval
// scheduler-plugins assumes (metricsAgentReportingIntervalSeconds): a pod
// bound less than this before the window's end may not show in it yet.
const tlpReportingInterval = 60

// tlpKeep bounds how long a binding is remembered: scheduler-plugins
// cleans its cache every 5 minutes of entries older than 60 s.
const tlpKeep = 6 * time.Minute

const (
	tlpStateKey  framework.StateKey = "PreScore" + config.TargetLoadPackingName
	lvrbStateKey framework.StateKey = "PreScore" + config.LoadVariationRiskBalancingName
)

// TargetLoadPacking is the score plugin of scheduler-plugins' Trimaran
// TargetLoadPacking (pkg/trimaran/targetloadpacking): best-fit packing of
// measured cpu around a target utilization T. For a node with capacity C
// (status.capacity cpu) and measured cpu utilization u % (its last AVG or
// Latest CPU metric), the predicted utilization is
//
//	U = 100·(u/100·C + pod + missing) / C        (U = 0 when C = 0)
//
// where pod is the incoming pod's predicted cpu (per container: its limit,
// else round(request × multiplier), else the default request; plus the
// overhead) and missing sums the predictions of the pods bound to the node
// less than 60 s before the end of the node's load window (or after it),
// which the metrics do not show yet. The score is round(T + (100−T)·U/T)
// when U ≤ T, round(T·(100−U)/(100−T)) when T < U ≤ 100, and 0 when U > 100.
// A node without load, or without a CPU metric, scores 0.
//
// PostBind records each bound pod with the clock's time; pods no longer on
// their node (deleted, reverted) stop counting. The records are part of a
// scheduler's branch (Fork). There is no NormalizeScore.
type TargetLoadPacking struct {
	args       TargetLoadPackingArgs
	target     float64
	defMilli   int64
	multiplier float64
	loads      trimaranLoads
	clock      framework.Clock

	mu    sync.RWMutex
	bound map[string][]tlpBinding // node → recent bindings, oldest first
	// saved journals bound per open fork (Fork).
	saved journal.Map[string, []tlpBinding]
}

type tlpBinding struct {
	pod   *api.Pod
	at    time.Time
	milli int64 // predicted cpu
}

var (
	_ framework.PreScorePlugin  = (*TargetLoadPacking)(nil)
	_ fastpath.BatchScorePlugin = (*TargetLoadPacking)(nil)
	_ framework.PostBindPlugin  = (*TargetLoadPacking)(nil)
	_ framework.ForkablePlugin  = (*TargetLoadPacking)(nil)
)

// newTLP builds the plugin (a *TargetLoadPacking) reading
// loads from the WithNodeLoadSource option, or without it from h
// (framework.Handle.NodeLoads: a scheduler's NodeLoads; without a handle
// no node has a load); args are defaulted and validated.
// NewTargetLoadPacking is its framework.Factory.
func newTLP(args TargetLoadPackingArgs, h framework.Handle, opts ...Option) (framework.Plugin, error) {
	a, err := TargetLoadPackingArgsFrom(args)
	if err != nil {
		return nil, err
	}
	loads, err := trimaranSource(config.TargetLoadPackingName, h, opts)
	if err != nil {
		return nil, err
	}
	mult, _ := a.Multiplier() // validated
	cpu := a.DefaultRequests[resource.CPU]
	return &TargetLoadPacking{args: a, target: float64(a.TargetUtilization), defMilli: cpu.MilliValue(), multiplier: mult,
		loads: loads, clock: clockOf(h), bound: map[string][]tlpBinding{}}, nil
}

func clockOf(h framework.Handle) framework.Clock {
	if h != nil && h.Clock() != nil {
		return h.Clock()
	}
	return framework.RealClock{}
}

// Name returns "TargetLoadPacking".
func (pl *TargetLoadPacking) Name() string { return config.TargetLoadPackingName }

// Args returns the defaulted args.
func (pl *TargetLoadPacking) Args() TargetLoadPackingArgs { return pl.args }

// PredictCPU is TargetLoadPacking's cpu prediction for a pod in millicores:
// per container its cpu limit, else round(request × multiplier), else the
// default; plus the pod overhead's cpu. Init containers do not count.
func (pl *TargetLoadPacking) PredictCPU(pod *api.Pod) int64 {
	var sum int64
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if q, ok := c.Resources.Limits[resource.CPU]; ok {
			sum += q.MilliValue()
		} else if q, ok := c.Resources.Requests[resource.CPU]; ok {
			sum += int64(math.Round(float64(q.MilliValue()) * pl.multiplier))
		} else {
			sum += pl.defMilli
		}
	}
	if q, ok := pod.Spec.Overhead[resource.CPU]; ok {
		sum += q.MilliValue()
	}
	return sum
}

type tlpState struct {
	src   NodeLoadSource
	milli int64
}

func (s *tlpState) Clone() framework.StateData { return s }

var _ fastpath.CycleScopedPreScorePlugin = (*TargetLoadPacking)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *TargetLoadPacking) PreScoreNodesInCycle() {}

// PreScore predicts the incoming pod's cpu once per cycle.
func (pl *TargetLoadPacking) PreScore(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	cs.Write(tlpStateKey, &tlpState{src: pl.loads.source(), milli: pl.PredictCPU(pod.Pod)})
	return nil
}

func (pl *TargetLoadPacking) state(cs *framework.CycleState, pod *api.Pod) *tlpState {
	if d, err := cs.Read(tlpStateKey); err == nil {
		if s, ok := d.(*tlpState); ok {
			return s
		}
	}
	return &tlpState{src: pl.loads.source(), milli: pl.PredictCPU(pod)}
}

// trimaranNoNode is the status of a NodeInfo without node (shared).
var trimaranNoNode = framework.NewStatus(framework.Error, "node not found")

// Score scores one node; see TargetLoadPacking.
func (pl *TargetLoadPacking) Score(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	st := pl.state(cs, pod.Pod)
	pl.mu.RLock()
	defer pl.mu.RUnlock()
	return pl.score(st, ni)
}

// ScoreBatch scores nodes as Score does, reading the cycle's state and
// taking the bindings' lock once.
func (pl *TargetLoadPacking) ScoreBatch(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	st := pl.state(cs, pod.Pod)
	pl.mu.RLock()
	defer pl.mu.RUnlock()
	return trimaranBatch(nodes, out, func(ni *framework.NodeInfo) (int64, *framework.Status) { return pl.score(st, ni) })
}

// trimaranBatch fills out[i] with score(nodes[i]), stopping at the first
// failure.
func trimaranBatch(nodes []*framework.NodeInfo, out []int64, score func(*framework.NodeInfo) (int64, *framework.Status)) *framework.Status {
	for i, ni := range nodes {
		v, s := score(ni)
		if s != nil {
			return s
		}
		out[i] = v
	}
	return nil
}

// score is Score with pl.mu read-locked.
func (pl *TargetLoadPacking) score(st *tlpState, ni *framework.NodeInfo) (int64, *framework.Status) {
	node := ni.Node()
	if node == nil {
		return 0, trimaranNoNode
	}
	load, ok := st.src.NodeLoad(node.Name)
	if !ok {
		return framework.MinNodeScore, nil
	}
	util, ok := load.Latest(api.LoadMetricCPU)
	if !ok {
		return framework.MinNodeScore, nil
	}
	capMilli := float64(node.Status.Capacity[resource.CPU].MilliValue())
	missing := pl.missing(ni, load.Window.End)
	return TargetLoadPackingScore(pl.target, util, capMilli, st.milli, missing), nil
}

// missing sums the predictions of the pods bound to the node that the load
// window may not show: bound less than 60 s before its end, or after it.
// pl.mu is read-locked.
func (pl *TargetLoadPacking) missing(ni *framework.NodeInfo, windowEnd int64) int64 {
	var sum int64
	for _, b := range pl.bound[ni.Name()] {
		if windowEnd-b.at.Unix() < tlpReportingInterval && ni.HasPod(b.pod) {
			sum += b.milli
		}
	}
	return sum
}

// TargetLoadPackingScore is the score of a node with target T %, measured
// cpu utilization util % of capMilli millicores, the incoming pod's
// predicted podMilli and the missing millicores; see TargetLoadPacking.
func TargetLoadPackingScore(target, util, capMilli float64, podMilli, missingMilli int64) int64 {
	utilMilli := (util / 100) * capMilli
	var predicted float64
	if capMilli != 0 {
		predicted = 100 * (utilMilli + float64(podMilli) + float64(missingMilli)) / capMilli
	}
	if predicted > target {
		if predicted > 100 {
			return framework.MinNodeScore
		}
		return int64(math.Round(target * (100 - predicted) / (100 - target)))
	}
	return int64(math.Round((100-target)*predicted/target + target))
}

// ScoreExtensions returns nil: TargetLoadPacking's NormalizeScore does
// nothing.
func (pl *TargetLoadPacking) ScoreExtensions() framework.ScoreExtensions { return nil }

// PostBind remembers the bound pod with its predicted cpu and the clock's
// time, dropping the node's bindings older than 6 minutes.
func (pl *TargetLoadPacking) PostBind(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodeName string) {
	now := pl.clock.Now()
	milli := pl.PredictCPU(pod.Pod)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	list := pl.bound[nodeName]
	drop := 0
	for drop < len(list) && now.Sub(list[drop].at) >= tlpKeep {
		drop++
	}
	// A list saved by a fork stays intact: the list only grows at its end,
	// past every saved list's end.
	pl.saved.Save(pl.bound, nodeName)
	list = append(list[drop:], tlpBinding{pod: pod.Pod, at: now, milli: milli})
	pl.bound[nodeName] = list
}

// Fork opens a branch of the recent bindings with a scheduler's fork:
// Revert forgets the bindings PostBind recorded since (and restores those
// it dropped as too old); Commit keeps them. Branches nest; Revert costs
// O(nodes bound to in the branch).
func (pl *TargetLoadPacking) Fork() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.saved.Open()
}

// Commit keeps the innermost branch's bindings (see Fork).
func (pl *TargetLoadPacking) Commit() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.saved.Commit()
}

// Revert undoes the innermost branch's bindings (see Fork).
func (pl *TargetLoadPacking) Revert() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.saved.Revert(pl.bound)
}

// LoadVariationRiskBalancing is the score plugin of scheduler-plugins'
// Trimaran LoadVariationRiskBalancing
// (pkg/trimaran/loadvariationriskbalancing): it balances the risk of load
// variation. For cpu (millicores of status.allocatable) and memory (MiB),
// from the node's mean m % and standard deviation s % (NodeLoad.Stat) and
// the pod's request r (containers summed, at least each init container,
// plus overhead):
//
//	μ = clamp((m·C/100 + r) / C, 0, 1)      σ = clamp(s·C/100 / C, 0, 1)
//	σ' = clamp(margin · σ^(1/sensitivity), 0, 1)   (no root when sensitivity < 0)
//	score = (1 − (μ + σ')/2) · 100
//
// (usage clamped to [0, C], a capacity ≤ 0 scoring 0); the node's score is
// round(min(cpu, memory)) when both have metrics, otherwise round of the one
// that has (0 when neither). A node without load scores 0. There is no
// NormalizeScore.
type LoadVariationRiskBalancing struct {
	args  LoadVariationRiskBalancingArgs
	loads trimaranLoads
}

var (
	_ framework.PreScorePlugin  = (*LoadVariationRiskBalancing)(nil)
	_ fastpath.BatchScorePlugin = (*LoadVariationRiskBalancing)(nil)
)

// newLVRB builds the plugin (a *LoadVariationRiskBalancing) reading loads
// as TargetLoadPacking does (the WithNodeLoadSource option, else h's);
// args are defaulted and validated. NewLoadVariationRiskBalancing is its
// framework.Factory.
func newLVRB(args LoadVariationRiskBalancingArgs, h framework.Handle, opts ...Option) (framework.Plugin, error) {
	a, err := LoadVariationRiskBalancingArgsFrom(args)
	if err != nil {
		return nil, err
	}
	loads, err := trimaranSource(config.LoadVariationRiskBalancingName, h, opts)
	if err != nil {
		return nil, err
	}
	return &LoadVariationRiskBalancing{args: a, loads: loads}, nil
}

// Name returns "LoadVariationRiskBalancing".
func (pl *LoadVariationRiskBalancing) Name() string { return config.LoadVariationRiskBalancingName }

// Args returns the defaulted args.
func (pl *LoadVariationRiskBalancing) Args() LoadVariationRiskBalancingArgs { return pl.args }

type lvrbState struct {
	src           NodeLoadSource
	milli, memory int64
}

func (s *lvrbState) Clone() framework.StateData { return s }

// Requests is the pod's cpu (millicores) and memory (bytes)
// request as Trimaran's GetResourceRequested: the containers' requests
// summed, raised to any init container's, plus the overhead.
func Requests(pod *api.Pod) (milliCPU, memory int64) {
	for i := range pod.Spec.Containers {
		r := pod.Spec.Containers[i].Resources.Requests
		milliCPU += r[resource.CPU].MilliValue()
		memory += r[resource.Memory].Value()
	}
	for i := range pod.Spec.InitContainers {
		r := pod.Spec.InitContainers[i].Resources.Requests
		if q, ok := r[resource.CPU]; ok {
			milliCPU = max(milliCPU, q.MilliValue())
		}
		if q, ok := r[resource.Memory]; ok {
			memory = max(memory, q.Value())
		}
	}
	milliCPU += pod.Spec.Overhead[resource.CPU].MilliValue()
	memory += pod.Spec.Overhead[resource.Memory].Value()
	return milliCPU, memory
}

var _ fastpath.CycleScopedPreScorePlugin = (*LoadVariationRiskBalancing)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *LoadVariationRiskBalancing) PreScoreNodesInCycle() {}

// PreScore computes the pod's requests once per cycle.
func (pl *LoadVariationRiskBalancing) PreScore(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	cs.Write(lvrbStateKey, pl.newState(cs, pod.Pod))
	return nil
}

func (pl *LoadVariationRiskBalancing) newState(cs *framework.CycleState, pod *api.Pod) *lvrbState {
	s := &lvrbState{src: pl.loads.source()}
	s.milli, s.memory = Requests(pod)
	return s
}

// trimaranMega converts bytes to MiB, as Trimaran's MegaFactor.
const trimaranMega = 1. / 1024. / 1024.

// Score scores one node; see LoadVariationRiskBalancing.
func (pl *LoadVariationRiskBalancing) Score(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	return pl.score(pl.state(cs, pod.Pod), ni)
}

// ScoreBatch scores nodes as Score does, reading the cycle's state once.
func (pl *LoadVariationRiskBalancing) ScoreBatch(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	st := pl.state(cs, pod.Pod)
	return trimaranBatch(nodes, out, func(ni *framework.NodeInfo) (int64, *framework.Status) { return pl.score(st, ni) })
}

func (pl *LoadVariationRiskBalancing) state(cs *framework.CycleState, pod *api.Pod) *lvrbState {
	if d, err := cs.Read(lvrbStateKey); err == nil {
		if st, ok := d.(*lvrbState); ok {
			return st
		}
	}
	return pl.newState(cs, pod)
}

// score reads the node's allocatable from its dense form (cpu in
// millicores, memory in bytes, as Trimaran's Quantity conversions).
func (pl *LoadVariationRiskBalancing) score(st *lvrbState, ni *framework.NodeInfo) (int64, *framework.Status) {
	node := ni.Node()
	if node == nil {
		return 0, trimaranNoNode
	}
	load, ok := st.src.NodeLoad(node.Name)
	if !ok {
		return framework.MinNodeScore, nil
	}
	margin, sens := pl.args.SafeVarianceMargin, pl.args.SafeVarianceSensitivity
	var cpuScore, memScore float64
	cpuAvg, cpuStd, cpuOK := load.Stat(api.LoadMetricCPU)
	if cpuOK {
		c := float64(ni.Allocatable.MilliCPU)
		cpuScore = LoadRiskScore(ResourceStats{Capacity: c, Req: float64(st.milli), UsedAvg: cpuAvg * c / 100, UsedStdev: cpuStd * c / 100}, margin, sens)
	}
	memAvg, memStd, memOK := load.Stat(api.LoadMetricMemory)
	if memOK {
		c := float64(ni.Allocatable.Memory) * trimaranMega
		memScore = LoadRiskScore(ResourceStats{Capacity: c, Req: float64(st.memory) * trimaranMega, UsedAvg: memAvg * c / 100, UsedStdev: memStd * c / 100}, margin, sens)
	}
	total := max(cpuScore, memScore)
	if cpuOK && memOK {
		total = min(cpuScore, memScore)
	}
	return int64(math.Round(total)), nil
}

// ScoreExtensions returns nil: LoadVariationRiskBalancing's NormalizeScore
// does nothing.
func (pl *LoadVariationRiskBalancing) ScoreExtensions() framework.ScoreExtensions { return nil }

// ResourceStats is one resource of a node as Trimaran's
// ResourceStats: capacity, the pod's request, and the measured mean and
// standard deviation of usage, all in the same absolute unit.
type ResourceStats struct {
	Capacity, Req, UsedAvg, UsedStdev float64
}

// LoadRiskScore is LoadVariationRiskBalancing's score of one resource
// (Trimaran's computeScore, before rounding); see LoadVariationRiskBalancing.
func LoadRiskScore(rs ResourceStats, margin, sensitivity float64) float64 {
	if rs.Capacity <= 0 {
		return 0
	}
	req := max(rs.Req, 0)
	avg := clampF(rs.UsedAvg, 0, rs.Capacity)
	std := clampF(rs.UsedStdev, 0, rs.Capacity)
	mu := clampF((avg+req)/rs.Capacity, 0, 1)
	sigma := clampF(std/rs.Capacity, 0, 1)
	if sensitivity >= 0 {
		sigma = math.Pow(sigma, 1/sensitivity)
	}
	sigma = clampF(sigma*margin, 0, 1)
	risk := (mu + sigma) / 2
	return (1 - risk) * float64(framework.MaxNodeScore)
}

func clampF(v, lo, hi float64) float64 { return max(min(v, hi), lo) }
