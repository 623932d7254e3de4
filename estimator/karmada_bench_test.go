package estimator_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

const (
	kmBenchClusters = 100
	kmBenchNodes    = 5000
	// kmBenchShapes distinct member clusters are built and reused round
	// robin for the 100 clusters, to keep the benchmark's memory small; the
	// estimators treat every cluster independently, so the work is that of
	// 100 distinct clusters.
	kmBenchShapes = 4
)

// kmBenchCluster builds one member cluster of n nodes of mixed sizes, a
// quarter of them tainted, labelled by zone, with 5 pods each.
func kmBenchCluster(shape, n int) ([]*api.Node, []*api.Pod) {
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

func kmBenchRequest() *estimator.ReplicaRequirements {
	return &estimator.ReplicaRequirements{
		ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1500m", "memory": "3Gi"}),
		NodeClaim: &estimator.NodeClaim{
			NodeSelector: map[string]string{"zone": "z1"},
			Tolerations:  []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "batch", Effect: api.TaintEffectNoSchedule}},
		},
	}
}

// BenchmarkKarmadaAccurate100x5k: the accurate estimator over 100 clusters
// of 5,000 nodes (NodeResourceEstimator with the filter package's
// NodeAffinity, TaintToleration and NodeUnschedulable); one op estimates
// all 100 clusters.
func BenchmarkKarmadaAccurate100x5k(b *testing.B) {
	snaps := make([]*framework.Snapshot, kmBenchShapes)
	for s := range snaps {
		nodes, pods := kmBenchCluster(s, kmBenchNodes)
		snaps[s] = framework.MustSnapshot(nodes, pods)
	}
	clusters := make([]estimator.ClusterSnapshot, kmBenchClusters)
	for i := range clusters {
		clusters[i] = estimator.ClusterSnapshot{Name: fmt.Sprint("member", i), Snapshot: snaps[i%kmBenchShapes]}
	}
	req := kmBenchRequest()
	for _, bc := range []struct {
		name    string
		filters bool
		par     int
	}{{"filters/par1", true, 1}, {"filters/par2", true, 2}, {"nofilters/par1", false, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			var filters []framework.FilterPlugin
			if bc.filters {
				filters = kmKarmadaFilters(b)
			}
			p, err := estimator.NewNodeResourceEstimator(filters...)
			if err != nil {
				b.Fatal(err)
			}
			e, _ := estimator.NewAccurateEstimator(estimator.AccurateOptions{Parallelism: bc.par}, p)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.MaxAvailableReplicas(context.Background(), clusters, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kmBenchClusters*kmBenchNodes), "ns/node")
		})
	}
}

// BenchmarkKarmadaGeneral100x5k: the general estimator over 100 clusters
// built from 5,000 nodes each (summary and per-grade counts of the default
// models), on the summary path and on each resource-model generation.
func BenchmarkKarmadaGeneral100x5k(b *testing.B) {
	shapes := make([]*estimator.Cluster, kmBenchShapes)
	for s := range shapes {
		nodes, pods := kmBenchCluster(s, kmBenchNodes)
		c, err := estimator.BuildCluster("shape", estimator.DefaultResourceModels(), nodes, pods, estimator.SummaryOptions{})
		if err != nil {
			b.Fatal(err)
		}
		shapes[s] = c
	}
	clusters := make([]*estimator.Cluster, kmBenchClusters)
	for i := range clusters {
		c := *shapes[i%kmBenchShapes]
		c.Name = fmt.Sprint("member", i)
		clusters[i] = &c
	}
	req := &estimator.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1500m", "memory": "3Gi"})}
	for _, bc := range []struct {
		name string
		opts estimator.GeneralOptions
	}{
		{"summary", estimator.GeneralOptions{DisableResourceModels: true}},
		{"models-gen3", estimator.GeneralOptions{}},
		{"models-gen2", estimator.GeneralOptions{Generation: estimator.ModelMinCoversRequest}},
		{"models-gen1", estimator.GeneralOptions{Generation: estimator.ModelContainingGrade}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, _ := estimator.NewGeneralEstimator(bc.opts)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := e.MaxAvailableReplicas(clusters, req, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("component-sets-gen3", func(b *testing.B) {
		e, _ := estimator.NewGeneralEstimator(estimator.GeneralOptions{})
		comps := []estimator.Component{
			{Name: "jobmanager", Replicas: 1, Requirements: &estimator.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1", "memory": "2Gi"})}},
			{Name: "taskmanager", Replicas: 3, Requirements: &estimator.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "2", "memory": "6Gi"})}},
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := e.MaxAvailableComponentSets(clusters, comps, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkKarmadaBuildCluster5k: the cluster status controller's work for
// one cluster of 5,000 nodes and 25,000 pods (summary and grading).
func BenchmarkKarmadaBuildCluster5k(b *testing.B) {
	nodes, pods := kmBenchCluster(0, kmBenchNodes)
	models := estimator.DefaultResourceModels()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := estimator.BuildCluster("member", models, nodes, pods, estimator.SummaryOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKarmadaDivide100: dividing 1,000 replicas over 100 clusters by
// their available replicas.
func BenchmarkKarmadaDivide100(b *testing.B) {
	cands := make([]estimator.Candidate, kmBenchClusters)
	for i := range cands {
		cands[i] = estimator.Candidate{Name: fmt.Sprint("member", i), AvailableReplicas: int32(50 + i%37)}
	}
	for _, s := range []estimator.DivisionStrategy{estimator.StrategyDynamicWeight, estimator.StrategyAggregated, estimator.StrategyStaticWeight} {
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := estimator.DivideReplicas(estimator.DivisionRequest{Strategy: s, Replicas: 1000, Candidates: cands}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
