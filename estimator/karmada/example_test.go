package karmada_test

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/estimator/karmada"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

// The general cluster model of Karmada's documentation (seed 002): three
// member clusters' resource summaries and a 500m replica.
func ExampleGeneralEstimator_MaxAvailableReplicas() {
	summary := func(cpuUsed, podsUsed string) *karmada.ResourceSummary {
		return &karmada.ResourceSummary{
			Allocatable: resource.MustParseList(map[string]string{"cpu": "4", "memory": "16265856Ki", "pods": "110"}),
			Allocated:   resource.MustParseList(map[string]string{"cpu": cpuUsed, "memory": "290Mi", "pods": podsUsed}),
		}
	}
	clusters := []*karmada.Cluster{
		{Name: "member1", ResourceSummary: summary("950m", "11")},
		{Name: "member2", ResourceSummary: summary("2", "11")},
		{Name: "member3", ResourceSummary: summary("2", "110")},
	}
	e, _ := karmada.NewGeneralEstimator(karmada.GeneralOptions{})
	req := &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "500m"})}
	got, err := e.MaxAvailableReplicas(clusters, req, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tc := range got {
		fmt.Printf("%s: %d\n", tc.Name, tc.Replicas)
	}
	// Output:
	// member1: 6
	// member2: 4
	// member3: 0
}

// Which bound answered each cluster's general estimate: member1's resource
// summary (cpu: (4 − 0.95) / 0.5 = 6), member3's two free pod slots, and
// member4's resource models (two grade-2 nodes of 2 cpu: 4 replicas each).
func ExampleGeneralEstimator_ExplainClusterReplicas() {
	summary := func(cpuUsed, podsUsed string) *karmada.ResourceSummary {
		return &karmada.ResourceSummary{
			Allocatable: resource.MustParseList(map[string]string{"cpu": "4", "memory": "16265856Ki", "pods": "110"}),
			Allocated:   resource.MustParseList(map[string]string{"cpu": cpuUsed, "memory": "290Mi", "pods": podsUsed}),
		}
	}
	models := karmada.DefaultResourceModels()
	counts := make([]karmada.AllocatableModeling, len(models))
	for i, m := range models {
		counts[i] = karmada.AllocatableModeling{Grade: m.Grade}
	}
	counts[2].Count = 2
	withModels := summary("0", "0")
	withModels.AllocatableModelings = counts
	clusters := []*karmada.Cluster{
		{Name: "member1", ResourceSummary: summary("950m", "11")},
		{Name: "member3", ResourceSummary: summary("2", "108")},
		{Name: "member4", ResourceModels: models, ResourceSummary: withModels},
	}
	e, _ := karmada.NewGeneralEstimator(karmada.GeneralOptions{})
	req := &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "500m"})}
	for _, c := range clusters {
		x, err := e.ExplainClusterReplicas(c, req, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d by %v (pods %d, models %d, summary %d %q)\n", c.Name, x.Replicas, x.Bound, x.AllowedPods, x.ModelReplicas, x.SummaryReplicas, x.SummaryResource)
	}
	// Output:
	// member1: 6 by Summary (pods 99, models -1, summary 6 "cpu")
	// member3: 2 by Pods (pods 2, models -1, summary 4 "cpu")
	// member4: 8 by ResourceModels (pods 110, models 8, summary -1 "")
}

// The customized resource models of Karmada's documentation (seed 002):
// default models, member1 with one grade-2 node and six grade-3 nodes, a
// 3 cpu / 20Gi replica, under each generation of the algorithm.
func ExampleResourceModelReplicas() {
	models := karmada.DefaultResourceModels()
	counts := make([]karmada.AllocatableModeling, len(models))
	for i, m := range models {
		counts[i] = karmada.AllocatableModeling{Grade: m.Grade}
	}
	counts[2].Count, counts[3].Count = 1, 6
	member1 := &karmada.Cluster{Name: "member1", ResourceModels: models, ResourceSummary: &karmada.ResourceSummary{AllocatableModelings: counts}}
	req := &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "3", "memory": "20Gi"})}
	for _, gen := range []karmada.ModelGeneration{karmada.ModelContainingGrade, karmada.ModelMinCoversRequest, karmada.ModelFirstFit} {
		n, err := karmada.ResourceModelReplicas(member1, req, gen, nil)
		fmt.Println(gen, n, err)
	}
	// Output:
	// ContainingGrade(v1.3-v1.11) 7 <nil>
	// MinCoversRequest(v1.12-v1.17) 6 <nil>
	// FirstFit(v1.18+) 6 <nil>
}

// A cluster built from its nodes and pods: the summary sums allocatable and
// requests; the grading counts nodes per grade by their scarcest free
// resource.
func ExampleBuildCluster() {
	nodes := []*api.Node{
		builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "8", "memory": "64Gi", "pods": "110"}).Obj(),
		builder.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110"}).Obj(),
	}
	pods := []*api.Pod{
		builder.MakePod().Name("web").Node("n1").Req(map[string]string{"cpu": "5", "memory": "8Gi"}).Obj(),
		builder.MakePod().Name("queued").Req(map[string]string{"cpu": "1"}).Obj(),
	}
	c, err := karmada.BuildCluster("member1", karmada.DefaultResourceModels(), nodes, pods, karmada.SummaryOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := c.ResourceSummary
	fmt.Println("allocatable:", s.Allocatable)
	fmt.Println("allocated:  ", s.Allocated)
	fmt.Println("allocating: ", s.Allocating)
	for _, m := range s.AllocatableModelings {
		if m.Count > 0 {
			fmt.Printf("grade %d: %d node(s)\n", m.Grade, m.Count)
		}
	}
	// Output:
	// allocatable: cpu=16,memory=80Gi,pods=220
	// allocated:   cpu=5,memory=8Gi,pods=1
	// allocating:  cpu=1,pods=1
	// grade 2: 2 node(s)
}

// Karmada's validation reports the first broken rule with its message.
func ExampleValidateResourceModels() {
	models := karmada.DefaultResourceModels()
	models[3].Ranges[0].Min = resource.MustParse("5") // grade 2 ends at 4
	fmt.Println(karmada.ValidateResourceModels(models))
	// Output:
	// estimator: resourceModels[3] (grade 3): ranges[0] "cpu" [min=5, max=8): Model intervals for resources must be contiguous and non-overlapping
}

// The accurate estimator sums, over the nodes that pass the node filters,
// how many replicas each node can still take.
func ExampleAccurateEstimator_MaxAvailableReplicas() {
	snap := framework.MustSnapshot([]*api.Node{
		builder.MakeNode().Name("a").Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110"}).Obj(),
		builder.MakeNode().Name("b").Capacity(map[string]string{"cpu": "4", "memory": "32Gi", "pods": "3"}).Obj(),
	}, []*api.Pod{
		builder.MakePod().Name("p").Node("a").Req(map[string]string{"cpu": "3", "memory": "1Gi"}).Obj(),
	})
	nodes, _ := karmada.NewNodeResourceEstimator() // pass filter plugins to honour node claims
	e, _ := karmada.NewAccurateEstimator(karmada.AccurateOptions{}, nodes)
	req := &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1", "memory": "2Gi"})}
	got, err := e.MaxAvailableReplicas(context.Background(), []karmada.ClusterSnapshot{{Name: "member1", Snapshot: snap}}, req)
	fmt.Println(got, err)
	// Output:
	// [{member1 8}] <nil>
}

// Dividing 12 replicas over three clusters by static weights and by their
// available replicas, with Webster's method.
func ExampleDivideReplicas() {
	cands := []karmada.Candidate{
		{Name: "member1", AvailableReplicas: 6},
		{Name: "member2", AvailableReplicas: 4},
		{Name: "member3", AvailableReplicas: 10},
	}
	static, _ := karmada.DivideReplicas(karmada.DivisionRequest{
		Strategy: karmada.StrategyStaticWeight, Replicas: 12, Candidates: cands,
		StaticWeights: []karmada.StaticWeightRule{
			{ClusterNames: []string{"member1"}, Weight: 3},
			{ClusterNames: []string{"member2"}, Weight: 2},
			{ClusterNames: []string{"member3"}, Weight: 1},
		},
	})
	dynamic, _ := karmada.DivideReplicas(karmada.DivisionRequest{Strategy: karmada.StrategyDynamicWeight, Replicas: 12, Candidates: cands})
	aggregated, _ := karmada.DivideReplicas(karmada.DivisionRequest{Strategy: karmada.StrategyAggregated, Replicas: 12, Candidates: cands})
	_, err := karmada.DivideReplicas(karmada.DivisionRequest{Strategy: karmada.StrategyDynamicWeight, Replicas: 30, Candidates: cands})
	fmt.Println(static)
	fmt.Println(dynamic)
	fmt.Println(aggregated)
	fmt.Println(err)
	// Output:
	// [{member1 6} {member2 4} {member3 2}]
	// [{member1 4} {member2 2} {member3 6}]
	// [{member1 5} {member3 7}]
	// estimator: divide 30 replicas (DynamicWeight, scale up): Clusters available replicas 20 are not enough to schedule.
}

// Sainte-Laguë on Karmada's example votes.
func ExampleAllocateWebsterSeats() {
	got, _ := karmada.AllocateWebsterSeats(4, []karmada.WebsterParty{
		{Name: "Alpha", Votes: 1200}, {Name: "Beta", Votes: 900}, {Name: "Gamma", Votes: 400},
	}, karmada.TieBreakOrder(""))
	for _, p := range got {
		fmt.Printf("%s: %d\n", p.Name, p.Seats)
	}
	// Output:
	// Alpha: 2
	// Beta: 1
	// Gamma: 1
}
