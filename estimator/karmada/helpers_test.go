package karmada

import (
	"math"

	"github.com/schedkit/schedkit/resource"
)

// Test helpers shared by the Karmada estimator tests.

func mustQty(s string) resource.Quantity { return resource.MustParse(s) }

func parseList(m map[string]string) resource.List { return resource.MustParseList(m) }

func testSummary(alloc, allocated, allocating map[string]string) *ResourceSummary {
	return &ResourceSummary{Allocatable: parseList(alloc), Allocated: parseList(allocated), Allocating: parseList(allocating)}
}

func testReq(m map[string]string) *ReplicaRequirements {
	return &ReplicaRequirements{ResourceRequest: parseList(m)}
}

// testModels builds models from per-grade Mins: mins[g][i] is the Min of
// resource names[i] in grade g; each Max is the next grade's Min (MaxInt64
// for the last grade).
func testModels(names []string, mins ...[]string) []ResourceModel {
	out := make([]ResourceModel, len(mins))
	for g := range mins {
		out[g].Grade = uint(g)
		for i, n := range names {
			r := ResourceModelRange{Name: resource.Name(n), Min: mustQty(mins[g][i])}
			if g+1 < len(mins) {
				r.Max = mustQty(mins[g+1][i])
			} else {
				r.Max = resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
			}
			out[g].Ranges = append(out[g].Ranges, r)
		}
	}
	return out
}

// modelings builds AllocatableModelings for grades 0..len(counts)-1.
func modelings(counts ...int) []AllocatableModeling {
	out := make([]AllocatableModeling, len(counts))
	for g, c := range counts {
		out[g] = AllocatableModeling{Grade: uint(g), Count: c}
	}
	return out
}

// docCluster is one of the three member clusters of the documented
// customized-model example (seed 002): Karmada's default models and the
// given per-grade node counts.
func docCluster(name string, counts map[uint]int) *Cluster {
	models := DefaultResourceModels()
	mods := make([]AllocatableModeling, len(models))
	for i, m := range models {
		mods[i] = AllocatableModeling{Grade: m.Grade, Count: counts[m.Grade]}
	}
	return &Cluster{
		Name:           name,
		ResourceModels: models,
		ResourceSummary: &ResourceSummary{
			Allocatable:          parseList(map[string]string{"cpu": "1000", "memory": "10Ti", "pods": "10000"}),
			AllocatableModelings: mods,
		},
	}
}

func docClusters() []*Cluster {
	return []*Cluster{
		docCluster("member1", map[uint]int{2: 1, 3: 6}),
		docCluster("member2", map[uint]int{2: 4, 3: 4}),
		docCluster("member3", map[uint]int{6: 1}),
	}
}
