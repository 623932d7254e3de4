package karmada_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/estimator/karmada"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

const (
	benchClusters = 100
	benchNodes    = 5000
	// benchShapes distinct member clusters are built and reused round
	// robin for the 100 clusters, to keep the benchmark's memory small; the
	// estimators treat every cluster independently, so the work is that of
	// 100 distinct clusters.
	benchShapes = 4
)

// benchCluster builds one member cluster of n nodes of mixed sizes, a
// quarter of them tainted, labelled by zone, with 5 pods each.
func benchCluster(shape, n int) ([]*api.Node, []*api.Pod) {
	sizes := []map[string]string{
		{"cpu": "8", "memory": "32Gi", "pods": "110"},
		{"cpu": "16", "memory": "64Gi", "pods": "110"},
		{"cpu": "32", "memory": "128Gi", "pods": "110"},
		{"cpu": "4", "memory": "16Gi", "pods": "110"},
	}
	nodes := make([]*api.Node, n)
	pods := make([]*api.Pod, 0, 5*n)
	for i := range nodes {
		name := fmt.Sprintf("s%d-n%d", shape, i)
		w := st.MakeNode().Name(name).Capacity(sizes[(i+shape)%len(sizes)]).Label("zone", fmt.Sprint("z", i%3))
		if i%4 == 0 {
			w.Taint("dedicated", "batch", api.TaintEffectNoSchedule)
		}
		nodes[i] = w.Obj()
		for j := 0; j < 5; j++ {
			pods = append(pods, st.MakePod().Name(fmt.Sprintf("%s-p%d", name, j)).Node(name).Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).Obj())
		}
	}
	return nodes, pods
}

func benchRequest() *karmada.ReplicaRequirements {
	return &karmada.ReplicaRequirements{
		ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1500m", "memory": "3Gi"}),
		NodeClaim: &karmada.NodeClaim{
			NodeSelector: map[string]string{"zone": "z1"},
			Tolerations:  []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "batch", Effect: api.TaintEffectNoSchedule}},
		},
	}
}

// BenchmarkAccurate100x5k: the accurate estimator over 100 clusters
// of 5,000 nodes (NodeResourceEstimator with the filter package's
// NodeAffinity, TaintToleration and NodeUnschedulable); one op estimates
// all 100 clusters.
func BenchmarkAccurate100x5k(b *testing.B) {
	snaps := make([]*framework.Snapshot, benchShapes)
	for s := range snaps {
		nodes, pods := benchCluster(s, benchNodes)
		snaps[s] = framework.MustSnapshot(nodes, pods)
	}
	clusters := make([]karmada.ClusterSnapshot, benchClusters)
	for i := range clusters {
		clusters[i] = karmada.ClusterSnapshot{Name: fmt.Sprint("member", i), Snapshot: snaps[i%benchShapes]}
	}
	req := benchRequest()
	for _, bc := range []struct {
		name    string
		filters bool
		par     int
	}{{"filters/par1", true, 1}, {"filters/par2", true, 2}, {"nofilters/par1", false, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			var filters []framework.FilterPlugin
			if bc.filters {
				filters = karmadaFilters(b)
			}
			p, err := karmada.NewNodeResourceEstimator(filters...)
			if err != nil {
				b.Fatal(err)
			}
			e, _ := karmada.NewAccurateEstimator(karmada.AccurateOptions{Parallelism: bc.par}, p)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.MaxAvailableReplicas(context.Background(), clusters, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(benchClusters*benchNodes), "ns/node")
		})
	}
}

// BenchmarkGeneral100x5k: the general estimator over 100 clusters
// built from 5,000 nodes each (summary and per-grade counts of the default
// models), on the summary path and on each resource-model generation.
func BenchmarkGeneral100x5k(b *testing.B) {
	shapes := make([]*karmada.Cluster, benchShapes)
	for s := range shapes {
		nodes, pods := benchCluster(s, benchNodes)
		c, err := karmada.BuildCluster("shape", karmada.DefaultResourceModels(), nodes, pods, karmada.SummaryOptions{})
		if err != nil {
			b.Fatal(err)
		}
		shapes[s] = c
	}
	clusters := make([]*karmada.Cluster, benchClusters)
	for i := range clusters {
		c := *shapes[i%benchShapes]
		c.Name = fmt.Sprint("member", i)
		clusters[i] = &c
	}
	req := &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1500m", "memory": "3Gi"})}
	for _, bc := range []struct {
		name string
		opts karmada.GeneralOptions
	}{
		{"summary", karmada.GeneralOptions{DisableResourceModels: true}},
		{"models-gen3", karmada.GeneralOptions{}},
		{"models-gen2", karmada.GeneralOptions{Generation: karmada.ModelMinCoversRequest}},
		{"models-gen1", karmada.GeneralOptions{Generation: karmada.ModelContainingGrade}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, _ := karmada.NewGeneralEstimator(bc.opts)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := e.MaxAvailableReplicas(clusters, req, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("component-sets-gen3", func(b *testing.B) {
		e, _ := karmada.NewGeneralEstimator(karmada.GeneralOptions{})
		comps := []karmada.Component{
			{Name: "jobmanager", Replicas: 1, Requirements: &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1", "memory": "2Gi"})}},
			{Name: "taskmanager", Replicas: 3, Requirements: &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "2", "memory": "6Gi"})}},
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := e.MaxAvailableComponentSets(clusters, comps, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBuildCluster5k: the cluster status controller's work for
// one cluster of 5,000 nodes and 25,000 pods (summary and grading).
func BenchmarkBuildCluster5k(b *testing.B) {
	nodes, pods := benchCluster(0, benchNodes)
	models := karmada.DefaultResourceModels()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := karmada.BuildCluster("member", models, nodes, pods, karmada.SummaryOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDivide100: dividing 1,000 replicas over 100 clusters by
// their available replicas.
func BenchmarkDivide100(b *testing.B) {
	cands := make([]karmada.Candidate, benchClusters)
	for i := range cands {
		cands[i] = karmada.Candidate{Name: fmt.Sprint("member", i), AvailableReplicas: int32(50 + i%37)}
	}
	for _, s := range []karmada.DivisionStrategy{karmada.StrategyDynamicWeight, karmada.StrategyAggregated, karmada.StrategyStaticWeight} {
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := karmada.DivideReplicas(karmada.DivisionRequest{Strategy: s, Replicas: 1000, Candidates: cands}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
