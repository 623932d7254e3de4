package replay

import (
	"math"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
)

// ResourceUtilization summarizes one resource across nodes: each node's
// utilization is requested / allocatable in [0, 1] (nodes without that
// resource are left out); Mean and StdDev (population) are over nodes,
// Spread is max − min.
type ResourceUtilization struct {
	Resource resource.Name
	Nodes    int
	Mean     float64
	StdDev   float64
	Min, Max float64
	// Requested and Allocatable are the cluster totals (Vector units:
	// milli-cpu, bytes, counts).
	Requested, Allocatable int64
}

// Spread returns Max − Min.
func (u ResourceUtilization) Spread() float64 { return u.Max - u.Min }

// Fragmentation measures free capacity that a reference pod shape cannot
// use: on each node the number of reference pods that still fit is
// k = min over resources (and pod slots) of ⌊free / request⌋; the node's
// free capacity beyond k reference pods is stranded.
type Fragmentation struct {
	// Reference is the pod shape (Vector units).
	Reference resource.Vector
	// Fits is Σ k: reference pods the cluster could still take.
	Fits int64
	// StrandedCPU and StrandedMemory are the shares of free cpu and memory
	// that no further reference pod can use (0 when nothing is free).
	StrandedCPU, StrandedMemory float64
	// FreeCPU and FreeMemory are the cluster's free totals.
	FreeCPU, FreeMemory int64
}

// PackingMetrics describe how pods are packed onto the nodes of a snapshot:
// utilization, balance and fragmentation.
type PackingMetrics struct {
	Nodes int
	Pods  int
	// CPU and Memory utilization across nodes; Pods is the pod-slot
	// utilization.
	CPU, Memory, PodSlots ResourceUtilization
	// Imbalance is the mean over nodes of |cpu utilization − memory
	// utilization| (what BalancedAllocation reduces); 0 is perfectly
	// balanced.
	Imbalance     float64
	Fragmentation Fragmentation
	// EmptyNodes counts nodes without pods (what bin-packing frees).
	EmptyNodes int
	// PerNode is every node's utilization, in snapshot order (for charts).
	PerNode []NodeUtilization
}

// NodeUtilization is one node's requested / allocatable cpu and memory (0
// when the node has none of that resource).
type NodeUtilization struct {
	Node        string
	CPU, Memory float64
}

// MeasurePacking computes the packing metrics of the nodes of snap, with
// reference as the pod shape for fragmentation (a zero shape gives zero
// fragmentation figures). A nil snap measures as an empty cluster.
func MeasurePacking(snap *framework.Snapshot, reference resource.Vector) PackingMetrics {
	var nodes []*framework.NodeInfo
	if snap != nil {
		nodes = snap.Nodes()
	}
	m := PackingMetrics{Nodes: len(nodes)}
	var cpu, mem, slots []float64
	var imb float64
	imbN := 0
	m.Fragmentation.Reference = reference
	var strandCPU, strandMem int64
	for _, ni := range nodes {
		a, r := ni.Allocatable, ni.Requested
		npods := int64(len(ni.Pods))
		m.Pods += len(ni.Pods)
		if npods == 0 {
			m.EmptyNodes++
		}
		m.CPU.Requested += r.MilliCPU
		m.CPU.Allocatable += a.MilliCPU
		m.Memory.Requested += r.Memory
		m.Memory.Allocatable += a.Memory
		m.PodSlots.Requested += npods
		m.PodSlots.Allocatable += a.Pods
		cu, cok := ratio(r.MilliCPU, a.MilliCPU)
		mu, mok := ratio(r.Memory, a.Memory)
		if cok {
			cpu = append(cpu, cu)
		}
		if mok {
			mem = append(mem, mu)
		}
		if su, ok := ratio(npods, a.Pods); ok {
			slots = append(slots, su)
		}
		if cok && mok {
			imb += math.Abs(cu - mu)
			imbN++
		}
		m.PerNode = append(m.PerNode, NodeUtilization{Node: ni.Name(), CPU: cu, Memory: mu})
		freeCPU, freeMem, freeSlots := max(a.MilliCPU-r.MilliCPU, 0), max(a.Memory-r.Memory, 0), max(a.Pods-npods, 0)
		m.Fragmentation.FreeCPU += freeCPU
		m.Fragmentation.FreeMemory += freeMem
		if reference.MilliCPU > 0 || reference.Memory > 0 {
			k := freeSlots
			if reference.MilliCPU > 0 {
				k = min(k, freeCPU/reference.MilliCPU)
			}
			if reference.Memory > 0 {
				k = min(k, freeMem/reference.Memory)
			}
			m.Fragmentation.Fits += k
			strandCPU += freeCPU - k*reference.MilliCPU
			strandMem += freeMem - k*reference.Memory
		}
	}
	m.CPU = summarize(resource.CPU, cpu, m.CPU)
	m.Memory = summarize(resource.Memory, mem, m.Memory)
	m.PodSlots = summarize(resource.Pods, slots, m.PodSlots)
	if imbN > 0 {
		m.Imbalance = imb / float64(imbN)
	}
	if f := m.Fragmentation.FreeCPU; f > 0 && (reference.MilliCPU > 0 || reference.Memory > 0) {
		m.Fragmentation.StrandedCPU = float64(strandCPU) / float64(f)
	}
	if f := m.Fragmentation.FreeMemory; f > 0 && (reference.MilliCPU > 0 || reference.Memory > 0) {
		m.Fragmentation.StrandedMemory = float64(strandMem) / float64(f)
	}
	return m
}

func ratio(req, alloc int64) (float64, bool) {
	if alloc <= 0 {
		return 0, false
	}
	return float64(req) / float64(alloc), true
}

// summarize fills mean, population standard deviation, min and max,
// summing in sorted order so the result does not depend on node order.
func summarize(name resource.Name, xs []float64, u ResourceUtilization) ResourceUtilization {
	u.Resource, u.Nodes = name, len(xs)
	if len(xs) == 0 {
		return u
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	u.Mean = sum / float64(len(s))
	var ss float64
	for _, x := range s {
		ss += (x - u.Mean) * (x - u.Mean)
	}
	u.StdDev = math.Sqrt(ss / float64(len(s)))
	u.Min, u.Max = s[0], s[len(s)-1]
	return u
}
