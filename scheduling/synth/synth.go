// Package synth generates synthetic clusters and workloads for replays,
// and builds the comparison profiles that examples/simulate and
// scheduling/sweep share: kube-scheduler's default profile with its
// resource scores replaced by one strategy (LeastAllocated,
// MostAllocated, BalancedAllocation, Koordinator's LoadAwareScheduling,
// Trimaran's TargetLoadPacking or LoadVariationRiskBalancing).
//
// A generated cluster is nodes of a few shapes in fixed proportions, in
// zones, each reporting some background usage in a NodeMetric; a
// generated workload is pods of a few shapes arriving evenly over a
// window, some running for a drawn time, one in N at a high priority.
// Both depend only on their configuration and the random source given, so
// the same seed gives the same cluster and workload. Pods of one shape
// (nodes of one shape) share their containers (capacity lists): the
// scheduler never modifies an object it is given, and a million pods cost
// little more than their names.
package synth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/validation"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/replay"
)

// Start returns the virtual time generated NodeMetrics are stamped with:
// replays of generated clusters start there, so the metrics are fresh.
func Start() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// HighPriority is the priority of a generated workload's high-priority
// pods (the others have 0): they may preempt.
const HighPriority = 1000

// Bounds of a configuration: larger values are errors.
const (
	// MaxShapes bounds the shapes of a cluster or a workload.
	MaxShapes = 64
	// MaxWeight bounds a shape's weight.
	MaxWeight = 1000
	// MaxZones is the number of zones a cluster may have (zone-a …
	// zone-z).
	MaxZones = 26
)

// NodeShape is one kind of node of a generated cluster.
type NodeShape struct {
	// CPU and Memory are the node's capacity (and allocatable), in
	// Kubernetes quantity syntax ("16", "64Gi").
	CPU, Memory string
	// Pods is the node's pod slots (0: kubelet's default, 110).
	Pods int
	// Weight is the shape's share of the nodes (at least 1).
	Weight int
}

// ClusterConfig sizes a generated cluster.
type ClusterConfig struct {
	// Nodes is the number of nodes, named node-0000, node-0001, ….
	Nodes int
	// Shapes are the node shapes: the nodes cycle through a pattern in
	// which each shape appears Weight times in a row, so the proportions
	// hold in every run of nodes as long as the pattern.
	Shapes []NodeShape
	// Zones is the number of zones (node i is in zone-<'a'+i%Zones>);
	// between 1 and MaxZones.
	Zones int
}

// DefaultCluster is the cluster examples/simulate builds: n nodes of
// 8, 16, 32 and 64 cpu (4 GiB of memory per cpu) in proportions 4:3:2:1,
// in three zones.
func DefaultCluster(n int) ClusterConfig {
	return ClusterConfig{Nodes: n, Zones: 3, Shapes: []NodeShape{
		{CPU: "8", Memory: "32Gi", Weight: 4},
		{CPU: "16", Memory: "64Gi", Weight: 3},
		{CPU: "32", Memory: "128Gi", Weight: 2},
		{CPU: "64", Memory: "256Gi", Weight: 1},
	}}
}

// checkShapes checks the common bounds of a shape list.
func checkShapes(n int, weight func(int) int) error {
	if n == 0 {
		return errors.New("shapes: none given")
	}
	if n > MaxShapes {
		return fmt.Errorf("shapes: %d given: more than %d", n, MaxShapes)
	}
	for i := range n {
		if w := weight(i); w < 1 || w > MaxWeight {
			return fmt.Errorf("shapes[%d].weight=%d: must be within [1,%d]", i, w, MaxWeight)
		}
	}
	return nil
}

// Validate checks c as AddCluster does, without building anything.
func (c ClusterConfig) Validate() error {
	_, _, err := c.templates()
	return err
}

// templates checks c and returns one node per shape, unnamed, and the
// pattern of shape indexes the nodes cycle through.
func (c ClusterConfig) templates() ([]*api.Node, []int, error) {
	if c.Nodes < 0 {
		return nil, nil, fmt.Errorf("synth: cluster: nodes=%d: must not be negative", c.Nodes)
	}
	if c.Zones < 1 || c.Zones > MaxZones {
		return nil, nil, fmt.Errorf("synth: cluster: zones=%d: must be within [1,%d]", c.Zones, MaxZones)
	}
	if err := checkShapes(len(c.Shapes), func(i int) int { return c.Shapes[i].Weight }); err != nil {
		return nil, nil, fmt.Errorf("synth: cluster: %w", err)
	}
	nodes := make([]*api.Node, len(c.Shapes))
	var pattern []int
	for i, s := range c.Shapes {
		capacity := map[string]string{"cpu": s.CPU, "memory": s.Memory}
		if s.Pods < 0 {
			return nil, nil, fmt.Errorf("synth: cluster: shapes[%d].pods=%d: must not be negative", i, s.Pods)
		}
		if s.Pods > 0 {
			capacity["pods"] = fmt.Sprint(s.Pods)
		}
		n, err := builder.MakeNode().Capacity(capacity).Build()
		if err != nil {
			return nil, nil, fmt.Errorf("synth: cluster: shapes[%d]: %w", i, err)
		}
		for _, r := range []resource.Name{resource.CPU, resource.Memory} {
			if q := n.Status.Allocatable[r]; q.Sign() <= 0 {
				return nil, nil, fmt.Errorf("synth: cluster: shapes[%d].%s=%q: must be positive", i, r, q.String())
			}
		}
		nodes[i] = n
		for range s.Weight {
			pattern = append(pattern, i)
		}
	}
	return nodes, pattern, nil
}

// AddCluster adds c's nodes to w, each with a NodeMetric stamped Start()
// reporting background usage (cpu 0–15 %, memory 5–20 % of allocatable,
// drawn from rng node by node), so LoadAwareScheduling has something to
// read. progress, when not nil, is called after each node with the nodes
// added and the total.
func AddCluster(w *replay.Scenario, c ClusterConfig, rng *rand.Rand, progress func(done, total int)) error {
	templates, pattern, err := c.templates()
	if err != nil {
		return err
	}
	n := c.Nodes
	nodes := make([]api.Node, n) // one allocation for every node
	w.Nodes = slices.Grow(w.Nodes, n)
	w.NodeMetrics = slices.Grow(w.NodeMetrics, n)
	for i := range n {
		node := &nodes[i]
		*node = *templates[pattern[i%len(pattern)]]
		node.Name = fmt.Sprintf("node-%04d", i)
		// The labels the builder's Name and Label set.
		node.Labels = map[string]string{"kubernetes.io/hostname": node.Name, api.LabelTopologyZone: fmt.Sprintf("zone-%c", 'a'+i%c.Zones)}
		w.Nodes = append(w.Nodes, node)
		cpu := node.Status.Allocatable[resource.CPU]
		mem := node.Status.Allocatable[resource.Memory]
		usedCPU := cpu.MilliValue() * int64(rng.IntN(16)) / 100
		usedMem := mem.Value() * int64(5+rng.IntN(16)) / 100
		w.NodeMetrics = append(w.NodeMetrics, builder.MakeNodeMetric(node.Name).UpdateTime(Start()).
			Usage(map[string]string{"cpu": fmt.Sprintf("%dm", usedCPU), "memory": fmt.Sprint(usedMem)}).Obj())
		if progress != nil {
			progress(i+1, n)
		}
	}
	return nil
}

// AddLoads gives every node of w that has a NodeMetric a NodeLoad, as
// Trimaran's plugins read it: the mean cpu and memory usage of its
// NodeMetric, in percent of allocatable, and a standard deviation of
// 2–20 % drawn from a source of its own seeded by seed (so the rest of a
// generated cluster and workload does not depend on it).
func AddLoads(w *replay.Scenario, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x10ad))
	nodes := map[string]*api.Node{}
	for _, n := range w.Nodes {
		nodes[n.Name] = n
	}
	for _, m := range w.NodeMetrics {
		n := nodes[m.Name]
		if n == nil || m.Status.NodeMetric == nil {
			continue
		}
		pct := func(r resource.Name) float64 {
			used, alloc := m.Status.NodeMetric.NodeUsage.Resources[r], n.Status.Allocatable[r]
			if alloc.IsZero() {
				return 0
			}
			return 100 * used.AsApproximateFloat64() / alloc.AsApproximateFloat64()
		}
		w.NodeLoads = append(w.NodeLoads, builder.MakeNodeLoad(m.Name).
			Metric(api.LoadMetricCPU, api.LoadOperatorAverage, pct(resource.CPU)).
			Metric(api.LoadMetricCPU, api.LoadOperatorStd, float64(2+rng.IntN(19))).
			Metric(api.LoadMetricMemory, api.LoadOperatorAverage, pct(resource.Memory)).
			Metric(api.LoadMetricMemory, api.LoadOperatorStd, float64(2+rng.IntN(19))).Obj())
	}
}

// PodShape is one kind of pod of a generated workload.
type PodShape struct {
	// Name is the app label of the shape's pods and the prefix of their
	// names (<name>-00042): a DNS label.
	Name string
	// CPU and Memory are the pod's requests, in quantity syntax.
	CPU, Memory string
	// Weight is the shape's share of the pods (at least 1).
	Weight int
	// MinDuration and MaxDuration bound how long a pod runs once bound,
	// drawn uniformly in whole seconds from MinDuration up to MaxDuration;
	// both 0: it runs until the end.
	MinDuration, MaxDuration time.Duration
}

// WorkloadConfig sizes a generated workload.
type WorkloadConfig struct {
	// Pods is the number of pods.
	Pods int
	// Window is the time over which the pods arrive, evenly spaced from
	// the start (pod i of n at Window·i/n).
	Window time.Duration
	// Shapes are the pod shapes, each pod drawing one by weight.
	Shapes []PodShape
	// HighPriorityOneIn gives one pod in HighPriorityOneIn (drawn at
	// random) HighPriority; 0: none.
	HighPriorityOneIn int
}

// DefaultWorkload is the workload examples/simulate builds: n pods
// arriving over 100 s, of five shapes — web (250m, 512Mi, 40 %), api
// (500m, 1Gi, 25 %), batch (1 cpu, 2Gi, 15 %, running 30–90 s), cache
// (500m, 4Gi, 12 %) and ml (2 cpu, 8Gi, 8 %) — one in ten at a high
// priority.
func DefaultWorkload(n int) WorkloadConfig {
	return WorkloadConfig{Pods: n, Window: 100 * time.Second, HighPriorityOneIn: 10, Shapes: []PodShape{
		{Name: "web", CPU: "250m", Memory: "512Mi", Weight: 40},
		{Name: "api", CPU: "500m", Memory: "1Gi", Weight: 25},
		{Name: "batch", CPU: "1", Memory: "2Gi", Weight: 15, MinDuration: 30 * time.Second, MaxDuration: 90 * time.Second},
		{Name: "cache", CPU: "500m", Memory: "4Gi", Weight: 12},
		{Name: "ml", CPU: "2", Memory: "8Gi", Weight: 8},
	}}
}

// Validate checks c as AddWorkload does, without building anything.
func (c WorkloadConfig) Validate() error {
	_, err := c.templates()
	return err
}

// templates checks c and returns, per shape, its pod at the normal (0)
// and the high (1) priority, unnamed.
func (c WorkloadConfig) templates() ([][2]*api.Pod, error) {
	switch {
	case c.Pods < 0:
		return nil, fmt.Errorf("synth: workload: pods=%d: must not be negative", c.Pods)
	case c.Window < 0:
		return nil, fmt.Errorf("synth: workload: window=%v: must not be negative", c.Window)
	case c.HighPriorityOneIn < 0:
		return nil, fmt.Errorf("synth: workload: highPriorityOneIn=%d: must not be negative", c.HighPriorityOneIn)
	}
	if err := checkShapes(len(c.Shapes), func(i int) int { return c.Shapes[i].Weight }); err != nil {
		return nil, fmt.Errorf("synth: workload: %w", err)
	}
	out := make([][2]*api.Pod, len(c.Shapes))
	seen := map[string]bool{}
	for i, s := range c.Shapes {
		if errs := append(validation.IsDNS1123Subdomain(s.Name), validation.IsValidLabelValue(s.Name)...); len(errs) > 0 {
			return nil, fmt.Errorf("synth: workload: shapes[%d].name=%q: %s", i, s.Name, errs[0])
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("synth: workload: shapes[%d].name=%q: given twice", i, s.Name)
		}
		seen[s.Name] = true
		if s.MinDuration < 0 || s.MaxDuration < s.MinDuration {
			return nil, fmt.Errorf("synth: workload: shapes[%d] (%s): duration %v–%v: must be 0 ≤ min ≤ max", i, s.Name, s.MinDuration, s.MaxDuration)
		}
		for h, prio := range []int32{0, HighPriority} {
			p, err := builder.MakePod().Label("app", s.Name).Priority(prio).
				Req(map[string]string{"cpu": s.CPU, "memory": s.Memory}).Build()
			if err != nil {
				return nil, fmt.Errorf("synth: workload: shapes[%d] (%s): %w", i, s.Name, err)
			}
			out[i][h] = p
		}
	}
	return out, nil
}

// AddWorkload adds c's pods to w's arrivals. Each pod draws from rng, in
// order, its shape (by weight), whether it has the high priority (when
// HighPriorityOneIn > 0) and, when its shape's durations differ, its run
// time. progress, when not nil, is called after each pod with the pods
// added and the total.
func AddWorkload(w *replay.Scenario, c WorkloadConfig, rng *rand.Rand, progress func(done, total int)) error {
	templates, err := c.templates()
	if err != nil {
		return err
	}
	total := 0
	for _, s := range c.Shapes {
		total += s.Weight
	}
	n := c.Pods
	pods := make([]api.Pod, n) // one allocation for every pod
	w.Arrivals = slices.Grow(w.Arrivals, n)
	for i := range n {
		pick := rng.IntN(total)
		k := 0
		for j, s := range c.Shapes {
			if pick < s.Weight {
				k = j
				break
			}
			pick -= s.Weight
		}
		s := c.Shapes[k]
		h := 0
		if c.HighPriorityOneIn > 0 && rng.IntN(c.HighPriorityOneIn) == 0 {
			h = 1
		}
		pod := &pods[i]
		*pod = *templates[k][h]
		pod.Name = fmt.Sprintf("%s-%05d", s.Name, i)
		pod.UID = pod.Name // as the builder sets it
		dur := s.MinDuration
		if s.MaxDuration > s.MinDuration {
			dur += time.Duration(rng.IntN(int((s.MaxDuration-s.MinDuration)/time.Second)+1)) * time.Second
		}
		// Window·i/n without overflow: Window = q·n + r with r < n.
		q, r := c.Window/time.Duration(n), c.Window%time.Duration(n)
		at := q*time.Duration(i) + r*time.Duration(i)/time.Duration(n)
		w.Arrivals = append(w.Arrivals, replay.PodArrival{At: at, Duration: dur, Pod: pod})
		if progress != nil {
			progress(i+1, n)
		}
	}
	return nil
}
