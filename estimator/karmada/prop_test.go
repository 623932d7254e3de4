package karmada

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// genModels draws valid resource models over cpu (milli) and memory
// (MiB): 1–6 grades with increasing grade numbers and strictly increasing
// cut points.
func genModels(t *rapid.T) []ResourceModel {
	n := rapid.IntRange(1, 6).Draw(t, "grades")
	cuts := func(label string, unit int64, f resource.Format) []resource.Quantity {
		out := []resource.Quantity{resource.NewQuantity(0, f)}
		v := int64(0)
		for i := 1; i < n; i++ {
			v += rapid.Int64Range(1, 8000).Draw(t, label)
			if unit == 0 {
				out = append(out, resource.NewMilliQuantity(v, f))
			} else {
				out = append(out, resource.NewQuantity(v*unit, f))
			}
		}
		return out
	}
	cpu := cuts("cpuCut", 0, resource.DecimalSI)
	mem := cuts("memCut", 1<<20, resource.BinarySI)
	maxQ := resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
	models := make([]ResourceModel, n)
	grade := uint(0)
	for g := 0; g < n; g++ {
		grade += uint(rapid.IntRange(0, 3).Draw(t, "gradeGap"))
		if g > 0 {
			grade++
		}
		cpuMax, memMax := maxQ, maxQ
		if g+1 < n {
			cpuMax, memMax = cpu[g+1], mem[g+1]
		}
		models[g] = ResourceModel{Grade: grade, Ranges: []ResourceModelRange{
			{Name: resource.CPU, Min: cpu[g], Max: cpuMax},
			{Name: resource.Memory, Min: mem[g], Max: memMax},
		}}
	}
	return models
}

func genModelCluster(t *rapid.T) *Cluster {
	models := genModels(t)
	mods := make([]AllocatableModeling, len(models))
	for i, m := range models {
		mods[i] = AllocatableModeling{Grade: m.Grade, Count: rapid.IntRange(0, 20).Draw(t, "count")}
	}
	return &Cluster{Name: "c", ResourceModels: models, ResourceSummary: &ResourceSummary{
		Allocatable:          parseList(map[string]string{"pods": fmt.Sprint(rapid.IntRange(0, 5000).Draw(t, "pods"))}),
		AllocatableModelings: mods,
	}}
}

func genRequest(t *rapid.T) (cpuMilli, memMiB int64) {
	return rapid.Int64Range(0, 40000).Draw(t, "reqCPU"), rapid.Int64Range(0, 40000).Draw(t, "reqMem")
}

func requestOf(cpuMilli, memMiB int64) *ReplicaRequirements {
	return &ReplicaRequirements{ResourceRequest: resource.List{
		resource.CPU:    resource.NewMilliQuantity(cpuMilli, resource.DecimalSI),
		resource.Memory: resource.NewQuantity(memMiB<<20, resource.BinarySI),
	}}
}

var allGenerations = []ModelGeneration{ModelFirstFit, ModelMinCoversRequest, ModelContainingGrade}

// A larger request never yields more replicas: summary path and every
// resource-model generation.
func TestPropEstimateNonIncreasingInRequest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SampledFrom(allGenerations).Draw(t, "gen")
		c := genModelCluster(t)
		c.ResourceSummary.Allocatable[resource.CPU] = resource.NewMilliQuantity(rapid.Int64Range(0, 1e6).Draw(t, "allocCPU"), resource.DecimalSI)
		c.ResourceSummary.Allocatable[resource.Memory] = resource.NewQuantity(rapid.Int64Range(0, 1e6).Draw(t, "allocMem")<<20, resource.BinarySI)
		disable := rapid.Bool().Draw(t, "disableModels")
		e, _ := NewGeneralEstimator(GeneralOptions{Generation: gen, DisableResourceModels: disable})
		cpu, mem := genRequest(t)
		before, err := e.ClusterReplicas(c, requestOf(cpu, mem), nil)
		if err != nil {
			t.Fatal(err)
		}
		cpu2 := cpu + rapid.Int64Range(0, 5000).Draw(t, "dCPU")
		mem2 := mem + rapid.Int64Range(0, 5000).Draw(t, "dMem")
		after, err := e.ClusterReplicas(c, requestOf(cpu2, mem2), nil)
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			t.Fatalf("%v: request (%dm, %dMi) gives %d, larger (%dm, %dMi) gives %d", gen, cpu, mem, before, cpu2, mem2, after)
		}
	})
}

// The explanation agrees with the answer: Replicas is the smaller of the
// pod-count bound and the resource bound the explanation names (the named
// bound itself when they tie), and the bounds not consulted are -1.
func TestPropExplainClusterReplicasAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SampledFrom(allGenerations).Draw(t, "gen")
		c := genModelCluster(t)
		c.ResourceSummary.Allocatable[resource.CPU] = resource.NewMilliQuantity(rapid.Int64Range(0, 1e6).Draw(t, "allocCPU"), resource.DecimalSI)
		if rapid.Bool().Draw(t, "dropModels") {
			c.ResourceModels = nil
		}
		e, _ := NewGeneralEstimator(GeneralOptions{Generation: gen, DisableResourceModels: rapid.Bool().Draw(t, "disableModels")})
		req := requestOf(genRequest(t))
		x, err := e.ExplainClusterReplicas(c, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		var res int64
		switch x.Bound {
		case BoundResourceModels:
			res = x.ModelReplicas
			if x.SummaryReplicas != -1 || x.ModelErr != nil {
				t.Fatalf("models answered but %+v", x)
			}
		case BoundSummary, BoundSummaryFallback:
			res = x.SummaryReplicas
			if x.ModelReplicas != -1 || (x.ModelErr != nil) != (x.Bound == BoundSummaryFallback) {
				t.Fatalf("summary answered but %+v", x)
			}
		case BoundPods:
			res = max(x.ModelReplicas, x.SummaryReplicas)
			if res >= 0 && res <= x.AllowedPods {
				t.Fatalf("pods named but the resource bound %d is not above them: %+v", res, x)
			}
			res = x.AllowedPods
		default:
			t.Fatalf("bound %v", x.Bound)
		}
		if want := clamp32(min(res, x.AllowedPods)); x.Replicas != want {
			t.Fatalf("Replicas %d, want %d from %+v", x.Replicas, want, x)
		}
		if n, _ := e.ClusterReplicas(c, req, nil); n != x.Replicas {
			t.Fatalf("ClusterReplicas %d, explanation %d", n, x.Replicas)
		}
	})
}

// More capacity never yields fewer replicas: more allocatable in the
// summary, more nodes per grade, larger grade Mins (generation 3).
func TestPropEstimateNonDecreasingInCapacity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SampledFrom(allGenerations).Draw(t, "gen")
		c := genModelCluster(t)
		c.ResourceSummary.Allocatable[resource.CPU] = resource.NewMilliQuantity(rapid.Int64Range(0, 1e6).Draw(t, "allocCPU"), resource.DecimalSI)
		disable := rapid.Bool().Draw(t, "disableModels")
		e, _ := NewGeneralEstimator(GeneralOptions{Generation: gen, DisableResourceModels: disable})
		req := requestOf(genRequest(t))
		before, err := e.ClusterReplicas(c, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		bigger := &Cluster{Name: c.Name, ResourceModels: cloneModels(c.ResourceModels), ResourceSummary: c.ResourceSummary.Clone()}
		s := bigger.ResourceSummary
		s.Allocatable[resource.CPU] = s.Allocatable[resource.CPU].Add(resource.NewMilliQuantity(rapid.Int64Range(0, 1e5).Draw(t, "moreCPU"), resource.DecimalSI))
		s.Allocatable[resource.Pods] = s.Allocatable[resource.Pods].Add(resource.NewQuantity(rapid.Int64Range(0, 100).Draw(t, "morePods"), resource.DecimalSI))
		i := rapid.IntRange(0, len(s.AllocatableModelings)-1).Draw(t, "grade")
		s.AllocatableModelings[i].Count += rapid.IntRange(0, 5).Draw(t, "moreNodes")
		if gen == ModelFirstFit {
			g := &bigger.ResourceModels[rapid.IntRange(0, len(bigger.ResourceModels)-1).Draw(t, "minGrade")]
			g.Ranges[0].Min = g.Ranges[0].Min.Add(resource.NewMilliQuantity(rapid.Int64Range(0, 4000).Draw(t, "moreMin"), resource.DecimalSI))
		}
		after, err := e.ClusterReplicas(bigger, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if after < before {
			t.Fatalf("%v: %d replicas before, %d with more capacity", gen, before, after)
		}
	})
}

// The accurate estimator is monotone too.
func TestPropAccurateMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "nodes")
		alloc := make([]int64, n)
		var nodes []*api.Node
		var pods []*api.Pod
		build := func(extra int64, at int) *framework.Snapshot {
			nodes, pods = nodes[:0], pods[:0]
			for i := 0; i < n; i++ {
				a := alloc[i]
				if i == at {
					a += extra
				}
				nodes = append(nodes, st.MakeNode().Name(fmt.Sprint("n", i)).Capacity(map[string]string{"cpu": fmt.Sprint(a, "m"), "pods": "20"}).Obj())
			}
			for i := 0; i < n; i++ {
				pods = append(pods, st.MakePod().Name(fmt.Sprint("p", i)).Node(fmt.Sprint("n", i)).Req(map[string]string{"cpu": "700m"}).Obj())
			}
			return framework.MustSnapshot(nodes, pods)
		}
		for i := range alloc {
			alloc[i] = rapid.Int64Range(0, 16000).Draw(t, "alloc")
		}
		p, _ := NewNodeResourceEstimator()
		req := rapid.Int64Range(1, 4000).Draw(t, "req")
		at := rapid.IntRange(0, n-1).Draw(t, "at")
		extra := rapid.Int64Range(0, 8000).Draw(t, "extra")
		base, _ := p.Estimate(context.Background(), build(0, at), requestOf(req, 0))
		more, _ := p.Estimate(context.Background(), build(extra, at), requestOf(req, 0))
		bigger, _ := p.Estimate(context.Background(), build(0, at), requestOf(req+rapid.Int64Range(0, 2000).Draw(t, "dreq"), 0))
		if more < base || bigger > base {
			t.Fatalf("base %d, more capacity %d, larger request %d", base, more, bigger)
		}
	})
}

// A division always sums to the target and, except for Aggregated (whose
// kept clusters follow the candidate order among equal weights, as
// Karmada's), does not depend on the order in which clusters (or the
// previous assignment) are listed.
func TestPropDivisionSumsAndIgnoresOrder(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, len(names)).Draw(t, "clusters")
		cands := make([]Candidate, k)
		for i := range cands {
			cands[i] = Candidate{Name: names[i], AvailableReplicas: rapid.Int32Range(0, 30).Draw(t, "avail"),
				Labels: map[string]string{"tier": rapid.SampledFrom([]string{"x", "y"}).Draw(t, "tier")}}
		}
		var prev []TargetCluster
		for _, n := range names {
			if rapid.Bool().Draw(t, "hasPrev") {
				prev = append(prev, TargetCluster{Name: n, Replicas: rapid.Int32Range(0, 20).Draw(t, "prev")})
			}
		}
		r := DivisionRequest{
			Strategy:   DivisionStrategy(rapid.IntRange(0, 3).Draw(t, "strategy")),
			Mode:       AssignmentMode(rapid.IntRange(0, 1).Draw(t, "mode")),
			Generation: DivisionGeneration(rapid.IntRange(0, 1).Draw(t, "generation")),
			Replicas:   rapid.Int32Range(0, 60).Draw(t, "replicas"),
			Candidates: cands,
			Previous:   prev,
			BindingUID: rapid.SampledFrom([]string{"", "uid-1", "uid-2"}).Draw(t, "uid"),
			StaticWeights: []StaticWeightRule{
				{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"tier": "x"}}, Weight: rapid.Int64Range(0, 5).Draw(t, "wx")},
				{ClusterNames: []string{"a", "c"}, Weight: rapid.Int64Range(0, 5).Draw(t, "wac")},
			},
		}
		got, err := DivideReplicas(r)
		r2 := r
		r2.Candidates = rapid.Permutation(cands).Draw(t, "permCands")
		r2.Previous = rapid.Permutation(prev).Draw(t, "permPrev")
		got2, err2 := DivideReplicas(r2)
		if (err == nil) != (err2 == nil) || (r.Strategy != StrategyAggregated && !equalTargets(got, got2)) {
			t.Fatalf("order matters: %v, %v vs %v, %v", got, err, got2, err2)
		}
		if err != nil {
			return
		}
		var sum int64
		for _, tc := range got {
			sum += int64(tc.Replicas)
		}
		want := int64(r.Replicas)
		if r.Strategy == StrategyDuplicated {
			want *= int64(k)
		}
		if sum != want {
			t.Fatalf("%v: sum %d, want %d (%v)", r.Strategy, sum, want, got)
		}
	})
}

// Up to 12 candidates Go's sort.Sort is an insertion sort, so Karmada's
// Aggregated first division keeps exactly the shortest prefix of the
// candidates stably sorted by available replicas (descending) that reaches
// the target: ties keep the candidate order.
func TestPropAggregatedTiesKeepCandidateOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "clusters")
		cands := make([]Candidate, n)
		var total int32
		for i := range cands {
			cands[i] = Candidate{Name: fmt.Sprintf("c%02d", i), AvailableReplicas: rapid.Int32Range(1, 4).Draw(t, "avail")}
			total += cands[i].AvailableReplicas
		}
		cands = rapid.Permutation(cands).Draw(t, "order")
		replicas := rapid.Int32Range(1, total).Draw(t, "replicas")
		got, err := DivideReplicas(DivisionRequest{Strategy: StrategyAggregated, Replicas: replicas, Candidates: cands})
		if err != nil {
			t.Fatal(err)
		}
		stable := slices.Clone(cands)
		slices.SortStableFunc(stable, func(a, b Candidate) int { return cmp.Compare(b.AvailableReplicas, a.AvailableReplicas) })
		var want []string
		var sum int32
		for _, c := range stable {
			want = append(want, c.Name)
			if sum += c.AvailableReplicas; sum >= replicas {
				break
			}
		}
		slices.Sort(want)
		var names []string
		for _, tc := range got {
			names = append(names, tc.Name)
		}
		if !slices.Equal(names, want) {
			t.Fatalf("kept %v, want the stable prefix %v", got, want)
		}
	})
}

func genParties(t *rapid.T) []WebsterParty {
	n := rapid.IntRange(1, 6).Draw(t, "parties")
	ps := make([]WebsterParty, n)
	for i := range ps {
		ps[i] = WebsterParty{Name: string(rune('a' + i)), Votes: rapid.SampledFrom([]int64{0, 1, 2, 3, 5, 6, 7, 10, 12, 1000, 1 << 40}).Draw(t, "votes")}
		if rapid.Bool().Draw(t, "initial") {
			ps[i].Seats = rapid.Int32Range(0, 5).Draw(t, "seats")
		}
	}
	return ps
}

// Webster is house-monotone: one more seat never takes a seat away.
func TestPropWebsterHouseMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ps := genParties(t)
		order := NameOrder(rapid.IntRange(0, 1).Draw(t, "order"))
		h := rapid.Int32Range(0, 200).Draw(t, "seats")
		a, err := AllocateWebsterSeats(h, ps, order)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := AllocateWebsterSeats(h+1, ps, order)
		var gained int32
		for i := range a {
			if b[i].Seats < a[i].Seats {
				t.Fatalf("%s lost a seat: %d → %d", a[i].Name, a[i].Seats, b[i].Seats)
			}
			gained += b[i].Seats - a[i].Seats
		}
		if gained != 1 {
			t.Fatalf("house %d → %d gained %d seats", h, h+1, gained)
		}
	})
}

// The threshold computation used for large houses equals Karmada's
// seat-by-seat algorithm.
func TestPropWebsterThresholdMatchesSequential(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ps := genParties(t)
		order := NameOrder(rapid.IntRange(0, 1).Draw(t, "order"))
		h := rapid.Int32Range(0, 3000).Draw(t, "seats")
		a := websterSequential(h, ps, order)
		b := websterThreshold(h, ps, order)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("sequential %v, threshold %v", a, b)
			}
		}
	})
}

// Validation accepts every model standardization produces from contiguous
// models listed in any order with any outer bounds.
func TestPropStandardizedModelsValidate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		models := genModels(t)
		for i := range models[0].Ranges {
			models[0].Ranges[i].Min = resource.NewQuantity(rapid.Int64Range(0, 3).Draw(t, "firstMin"), resource.DecimalSI)
		}
		last := &models[len(models)-1]
		for i := range last.Ranges {
			if len(models) > 1 {
				last.Ranges[i].Max = last.Ranges[i].Min.Add(resource.NewQuantity(rapid.Int64Range(1, 1e6).Draw(t, "lastMax"), resource.DecimalSI))
			}
		}
		shuffled := rapid.Permutation(models).Draw(t, "order")
		std := StandardizeResourceModels(shuffled)
		if err := ValidateResourceModels(std); err != nil {
			t.Fatalf("standardized models rejected: %v\n%+v", err, std)
		}
	})
}

// naiveSets is Karmada's SchedulingSimulator written plainly: one node per
// virtual node, every component scanning from the first node.
func naiveSets(c *Cluster, comps []Component, upper int32) int32 {
	grades := map[uint][2]int64{}
	for _, m := range c.ResourceModels {
		var v [2]int64
		for _, r := range m.Ranges {
			if r.Name == resource.CPU {
				v[0] = r.Min.MilliValue()
			} else if r.Name == resource.Memory {
				v[1] = r.Min.Value()
			}
		}
		grades[m.Grade] = v
	}
	keys := make([]uint, 0, len(grades))
	for g := range grades {
		keys = append(keys, g)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	type node struct{ cpu, mem, pods int64 }
	var nodes []*node
	for _, g := range keys {
		var n int
		for _, am := range c.ResourceSummary.AllocatableModelings {
			if am.Grade == g {
				n += am.Count
			}
		}
		for i := 0; i < n; i++ {
			nodes = append(nodes, &node{grades[g][0], grades[g][1], MaxPodsPerVirtualNode})
		}
	}
	var sets int32
	for sets < upper {
		for _, comp := range comps {
			cpu := comp.Requirements.ResourceRequest[resource.CPU]
			mem := comp.Requirements.ResourceRequest[resource.Memory]
			rc, rm := cpu.MilliValue(), mem.Value()
			remaining := int64(comp.Replicas)
			for _, nd := range nodes {
				if remaining == 0 {
					break
				}
				fit := nd.pods
				if rc > 0 {
					fit = min(fit, nd.cpu/rc)
				}
				if rm > 0 {
					fit = min(fit, nd.mem/rm)
				}
				take := min(fit, remaining)
				nd.cpu -= take * rc
				nd.mem -= take * rm
				nd.pods -= take
				remaining -= take
			}
			if remaining > 0 {
				return sets
			}
		}
		sets++
	}
	return sets
}

// The run-compressed simulator equals the plain one.
func TestPropSimulatorMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genModelCluster(t)
		k := rapid.IntRange(1, 3).Draw(t, "components")
		comps := make([]Component, k)
		for i := range comps {
			cpu, mem := rapid.Int64Range(0, 6000).Draw(t, "cpu"), rapid.Int64Range(0, 6000).Draw(t, "mem")
			comps[i] = Component{Name: fmt.Sprint("c", i), Replicas: rapid.Int32Range(0, 4).Draw(t, "replicas"), Requirements: requestOf(cpu, mem)}
		}
		upper := rapid.Int32Range(0, 400).Draw(t, "upper")
		got, err := ResourceModelComponentSets(c, comps, nil, upper)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveSets(c, comps, upper); got != want {
			t.Fatalf("simulator %d, naive %d", got, want)
		}
	})
}

// Arbitrary input — negative quantities and counts, ragged or unsorted
// models, odd requests — gives an answer or an error, never a panic.
func TestPropNoPanicOnArbitraryInput(t *testing.T) {
	qty := rapid.SampledFrom([]string{"-1", "0", "1", "500m", "3", "1Gi", "-2Gi", "1e3", "9223372036854775807"})
	names := rapid.SampledFrom([]string{"cpu", "memory", "pods", "nvidia.com/gpu", "storage"})
	rapid.Check(t, func(t *rapid.T) {
		list := func(label string) resource.List {
			l := resource.List{}
			for i := rapid.IntRange(0, 3).Draw(t, label); i > 0; i-- {
				l[resource.Name(names.Draw(t, label+"Name"))] = mustQty(qty.Draw(t, label+"Qty"))
			}
			return l
		}
		var models []ResourceModel
		for g := rapid.IntRange(0, 4).Draw(t, "grades"); g > 0; g-- {
			m := ResourceModel{Grade: uint(rapid.IntRange(0, 5).Draw(t, "grade"))}
			for r := rapid.IntRange(0, 2).Draw(t, "ranges"); r > 0; r-- {
				m.Ranges = append(m.Ranges, ResourceModelRange{Name: resource.Name(names.Draw(t, "rname")), Min: mustQty(qty.Draw(t, "min")), Max: mustQty(qty.Draw(t, "max"))})
			}
			models = append(models, m)
		}
		var mods []AllocatableModeling
		for g := rapid.IntRange(0, 4).Draw(t, "mods"); g > 0; g-- {
			mods = append(mods, AllocatableModeling{Grade: uint(rapid.IntRange(0, 5).Draw(t, "mgrade")), Count: rapid.IntRange(-2, 5).Draw(t, "count")})
		}
		c := &Cluster{Name: "c", ResourceModels: models}
		if rapid.Bool().Draw(t, "hasSummary") {
			c.ResourceSummary = &ResourceSummary{Allocatable: list("alloc"), Allocated: list("used"), Allocating: list("pending"), AllocatableModelings: mods}
		}
		req := &ReplicaRequirements{ResourceRequest: list("req")}
		for _, gen := range allGenerations {
			e, _ := NewGeneralEstimator(GeneralOptions{Generation: gen, OvercommitProtection: true})
			_, _ = e.MaxAvailableReplicas([]*Cluster{c}, req, map[string][]AssumedWorkload{"c": {{Components: []Component{{Replicas: 2, Requirements: req}}}}})
			_, _ = e.MaxAvailableComponentSets([]*Cluster{c}, []Component{{Replicas: 1, Requirements: req}, {Replicas: 2}}, nil)
		}
		_ = ValidateResourceModels(models)
		_ = ValidateResourceModels(StandardizeResourceModels(models))
		_, _ = GradeNodes(models, []*api.Node{{ObjectMeta: api.ObjectMeta{Name: "n"}, Status: api.NodeStatus{Allocatable: list("nalloc")}}}, nil, SummaryOptions{})
		cands := []Candidate{{Name: "a", AvailableReplicas: rapid.Int32Range(-1, 5).Draw(t, "av")}, {Name: "b"}}
		_, _ = DivideReplicas(DivisionRequest{Strategy: DivisionStrategy(rapid.IntRange(-1, 4).Draw(t, "s")), Replicas: rapid.Int32Range(-1, 20).Draw(t, "r"), Candidates: cands,
			Previous: []TargetCluster{{Name: "a", Replicas: rapid.Int32Range(-1, 5).Draw(t, "pa")}, {Name: "z", Replicas: 3}}})
	})
}
