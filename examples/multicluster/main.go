// Command multicluster reproduces Karmada's multi-cluster replica
// estimation on the three member clusters of its documentation (seed 002):
// the general cluster model, the customized resource models under each
// generation of Karmada's algorithm, the accurate per-node estimator, and
// the division of a 12-replica workload under each replica scheduling
// strategy.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/estimator/karmada"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

const usage = `usage: multicluster

Reproduces Karmada's replica estimation on the three member clusters of its
documentation: the general cluster model, the customized resource models of
each generation of Karmada, the accurate per-node estimator, and the division
of 12 replicas under each replica scheduling strategy. It takes no flags.
`

func main() {
	flag.Usage = func() { fmt.Fprint(flag.CommandLine.Output(), usage) }
	flag.Parse() // -h prints the usage and exits 0; an unknown flag exits 2
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "multicluster: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "multicluster:", err)
		os.Exit(1)
	}
}

var members = []string{"member1", "member2", "member3"}

// generalClusters are the resource summaries of the documentation's general
// cluster model.
func generalClusters() []*karmada.Cluster {
	summary := func(cpuUsed, podsUsed string) *karmada.ResourceSummary {
		return &karmada.ResourceSummary{
			Allocatable: resource.MustParseList(map[string]string{"cpu": "4", "ephemeral-storage": "206291924Ki", "memory": "16265856Ki", "pods": "110"}),
			Allocated:   resource.MustParseList(map[string]string{"cpu": cpuUsed, "memory": "290Mi", "pods": podsUsed}),
		}
	}
	return []*karmada.Cluster{
		{Name: "member1", ResourceSummary: summary("950m", "11")},
		{Name: "member2", ResourceSummary: summary("2", "11")},
		{Name: "member3", ResourceSummary: summary("2", "110")},
	}
}

// modelNodes are nodes whose free resources put them in the grades of the
// documentation's customized-model example: grade 2 is 2 cpu / 16Gi, grade
// 3 is 4 cpu / 32Gi, grade 6 is 32 cpu / 256Gi (each grade's Min).
func modelNodes(cluster string) []*api.Node {
	node := func(name, cpu, mem string) *api.Node {
		return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": mem}).Obj()
	}
	groups := map[string][]struct {
		n        int
		cpu, mem string
	}{
		"member1": {{1, "2", "16Gi"}, {6, "4", "32Gi"}},
		"member2": {{4, "2", "16Gi"}, {4, "4", "32Gi"}},
		"member3": {{1, "32", "256Gi"}},
	}
	var nodes []*api.Node
	for gi, g := range groups[cluster] {
		for i := 0; i < g.n; i++ {
			nodes = append(nodes, node(fmt.Sprintf("%s-g%d-%d", cluster, gi, i), g.cpu, g.mem))
		}
	}
	return nodes
}

func req(m map[string]string) *karmada.ReplicaRequirements {
	return &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(m)}
}

func run(w io.Writer) error {
	ctx := context.Background()

	// 1. General cluster model: resource summaries only.
	general, err := karmada.NewGeneralEstimator(karmada.GeneralOptions{})
	if err != nil {
		return err
	}
	small := req(map[string]string{"cpu": "500m"})
	summaries := generalClusters()
	got, err := general.MaxAvailableReplicas(summaries, small, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "General cluster model (each cluster's resource summary), replicas of %v:\n", small.ResourceRequest)
	for i, tc := range got {
		s := summaries[i].ResourceSummary
		free := func(n resource.Name) resource.Quantity { return s.Allocatable[n].Sub(s.Allocated[n]) }
		fmt.Fprintf(w, "  %s: %d (free cpu %v, free pod slots %v)\n", tc.Name, tc.Replicas, free(resource.CPU), free(resource.Pods))
	}

	// 2. Customized resource models: clusters built from their nodes.
	clusters := make([]*karmada.Cluster, len(members))
	snaps := make([]karmada.ClusterSnapshot, len(members))
	fmt.Fprintln(w, "\nCustomized resource models (Karmada defaults): the documentation's other example, three clusters")
	fmt.Fprintln(w, "of the same names built from idle nodes (member3 is now one free 32 cpu / 256Gi node). Nodes per grade:")
	for i, name := range members {
		nodes := modelNodes(name)
		c, err := karmada.BuildCluster(name, karmada.DefaultResourceModels(), nodes, nil, karmada.SummaryOptions{})
		if err != nil {
			return err
		}
		clusters[i] = c
		snap, err := framework.NewSnapshot(nodes, nil)
		if err != nil {
			return err
		}
		snaps[i] = karmada.ClusterSnapshot{Name: name, Snapshot: snap}
		var grades []string
		for _, m := range c.ResourceSummary.AllocatableModelings {
			if m.Count > 0 {
				grades = append(grades, fmt.Sprintf("grade %d ×%d", m.Grade, m.Count))
			}
		}
		fmt.Fprintf(w, "  %s: %s\n", name, strings.Join(grades, ", "))
	}

	fmt.Fprintln(w, "\nAvailable replicas:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "request\testimator\tmember1\tmember2\tmember3\t")
	nodeRes, err := karmada.NewNodeResourceEstimator()
	if err != nil {
		return err
	}
	accurate, err := karmada.NewAccurateEstimator(karmada.AccurateOptions{}, nodeRes)
	if err != nil {
		return err
	}
	row := func(r *karmada.ReplicaRequirements, label string, res []karmada.TargetCluster) {
		fmt.Fprintf(tw, "%v\t%s\t", r.ResourceRequest, label)
		for _, tc := range res {
			fmt.Fprintf(tw, "%d\t", tc.Replicas)
		}
		fmt.Fprintln(tw)
	}
	var divisionAvail []karmada.TargetCluster
	big := req(map[string]string{"cpu": "3", "memory": "20Gi"})
	for _, r := range []*karmada.ReplicaRequirements{big, req(map[string]string{"cpu": "3", "memory": "60Gi"})} {
		for _, gen := range []karmada.ModelGeneration{karmada.ModelContainingGrade, karmada.ModelMinCoversRequest, karmada.ModelFirstFit} {
			e, err := karmada.NewGeneralEstimator(karmada.GeneralOptions{Generation: gen})
			if err != nil {
				return err
			}
			res, err := e.MaxAvailableReplicas(clusters, r, nil)
			if err != nil {
				return err
			}
			row(r, "models "+gen.String(), res)
			if r == big && gen == karmada.ModelFirstFit {
				divisionAvail = res
			}
		}
		res, err := accurate.MaxAvailableReplicas(ctx, snaps, r)
		if err != nil {
			return err
		}
		row(r, "accurate (per node)", res)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "models: the customized-model estimate of each Karmada generation; accurate: Karmada's scheduler-estimator,")
	fmt.Fprintln(w, "fitting replicas onto each node.")

	// 3. Division of a 12-replica workload of 3 cpu / 20Gi replicas, with the
	// available replicas merged from the general (v1.18+) estimator.
	avail, err := karmada.CalAvailableReplicas(members, 12, karmada.EstimatorAnswer{Name: general.Name(), Clusters: divisionAvail})
	if err != nil {
		return err
	}
	cands := make([]karmada.Candidate, len(avail))
	var av []string
	for i, a := range avail {
		cands[i] = karmada.Candidate{Name: a.Name, AvailableReplicas: a.Replicas}
		av = append(av, fmt.Sprint(a.Replicas))
	}
	fmt.Fprintf(w, "\nDivision of 12 replicas of %v (available %s, the models FirstFit(v1.18+) estimate):\n", big.ResourceRequest, strings.Join(av, "/"))
	weights := []karmada.StaticWeightRule{
		{ClusterNames: []string{"member1"}, Weight: 3},
		{ClusterNames: []string{"member2"}, Weight: 2},
		{ClusterNames: []string{"member3"}, Weight: 1},
	}
	for _, s := range []struct {
		label string
		r     karmada.DivisionRequest
	}{
		{"Duplicated", karmada.DivisionRequest{Strategy: karmada.StrategyDuplicated}},
		{"StaticWeight 3:2:1", karmada.DivisionRequest{Strategy: karmada.StrategyStaticWeight, StaticWeights: weights}},
		{"StaticWeight (equal)", karmada.DivisionRequest{Strategy: karmada.StrategyStaticWeight}},
		{"DynamicWeight", karmada.DivisionRequest{Strategy: karmada.StrategyDynamicWeight}},
		{"Aggregated", karmada.DivisionRequest{Strategy: karmada.StrategyAggregated}},
	} {
		s.r.Replicas, s.r.Candidates = 12, cands
		out, err := karmada.DivideReplicas(s.r)
		if err != nil {
			return err
		}
		var parts []string
		for _, tc := range out {
			if tc.Replicas > 0 {
				parts = append(parts, fmt.Sprintf("%s=%d", tc.Name, tc.Replicas))
			}
		}
		fmt.Fprintf(w, "  %-21s %s\n", s.label, strings.Join(parts, " "))
	}
	// Scaling the dynamic division up to 30 exceeds the 20 available.
	_, err = karmada.DivideReplicas(karmada.DivisionRequest{Strategy: karmada.StrategyDynamicWeight, Replicas: 30, Candidates: cands})
	fmt.Fprintf(w, "  %-21s %v\n", "DynamicWeight (30)", err)
	return nil
}
