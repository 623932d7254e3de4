package whatif_test

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/kubegen"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

var whatifLarge = flag.Bool("whatif.large", false, "benchmark the what-if questions on 5,000 nodes and 100,000 pods")

// wbCluster loads a generated kubectl dump (internal/kubegen) into a
// WhatIf with kube's default profile.
func wbCluster(b *testing.B, nodes, pods, scale int) (*whatif.WhatIf, *kubeload.Dump) {
	b.Helper()
	data, err := kubegen.Cached(kubegen.Config{Nodes: nodes, Pods: pods, Seed: 1, NodeScale: scale, Compact: true}, kubegen.JSON)
	if err != nil {
		b.Fatal(err)
	}
	l := kubeload.NewLoader(kubeload.Options{})
	if err := l.ReadBytes(data, "bench"); err != nil {
		b.Fatal(err)
	}
	d, err := l.Dump()
	if err != nil {
		b.Fatal(err)
	}
	c, err := d.Cluster()
	if err != nil {
		b.Fatal(err)
	}
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		b.Fatal(err)
	}
	return w, d
}

func wbTemplate(b *testing.B, d *kubeload.Dump, manifest string) *kubeload.Template {
	b.Helper()
	t, err := d.ReadTemplate(strings.NewReader(manifest), "template")
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// wbSpread is a web deployment: 500m / 1Gi, preferred hostname
// anti-affinity and a soft zone spread.
const wbSpread = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web-v2","namespace":"shop"},"spec":{"template":{
"metadata":{"labels":{"app":"web-v2"}},"spec":{"containers":[{"name":"web","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}}],
"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web-v2"}},"topologyKey":"kubernetes.io/hostname"}}]}},
"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"web-v2"}}}]}}}}`

// wbOnePerNode is a search API: 2 / 6Gi, required hostname anti-affinity
// and a hard zone spread (at most one replica per node).
const wbOnePerNode = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"search-api","namespace":"search"},"spec":{"template":{
"metadata":{"labels":{"app":"search-api"}},"spec":{"containers":[{"name":"api","resources":{"requests":{"cpu":"2","memory":"6Gi"}}}],
"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"search-api"}},"topologyKey":"kubernetes.io/hostname"}]}},
"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"search-api"}}}]}}}}`

// wbStatefulSet is a database: 1 / 4Gi, a soft zone spread, and a 100Gi
// claim of the default class (WaitForFirstConsumer) per replica.
const wbStatefulSet = `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"pg","namespace":"payments"},"spec":{"template":{
"metadata":{"labels":{"app":"pg"}},"spec":{"containers":[{"name":"pg","resources":{"requests":{"cpu":"1","memory":"4Gi"}}}],
"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"pg"}}}]}},
"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"100Gi"}}}}]}}`

const wbGPUNode = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-new","labels":{"cloud.google.com/gke-nodepool":"gpu","topology.kubernetes.io/zone":"europe-west1-b"}},
"spec":{"taints":[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}]},
"status":{"allocatable":{"cpu":"31590m","memory":"230Gi","nvidia.com/gpu":"4","pods":"110"}}}`

// BenchmarkWhatIf asks each question of a generated cluster (100 nodes
// and 1,600 pods; with -whatif.large 5,000 nodes of twice the size and
// 100,000 pods) with kube's default profile and adaptive node sampling.
func BenchmarkWhatIf(b *testing.B) {
	type size struct {
		name               string
		nodes, pods, scale int
	}
	sizes := []size{{"100nodes", 100, 1400, 1}}
	if *whatifLarge {
		sizes = append(sizes, size{"5knodes", 5000, 90000, 2})
	}
	ctx := context.Background()
	for _, sz := range sizes {
		w, d := wbCluster(b, sz.nodes, sz.pods, sz.scale)
		b.Run(sz.name+"/place", func(b *testing.B) {
			p := wbTemplate(b, d, wbSpread).Pod
			for b.Loop() {
				if _, err := w.Place(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, tc := range []struct{ name, manifest string }{{"capacity-spread", wbSpread}, {"capacity-one-per-node", wbOnePerNode}, {"capacity-statefulset", wbStatefulSet}} {
			b.Run(sz.name+"/"+tc.name, func(b *testing.B) {
				t := wbTemplate(b, d, tc.manifest)
				replicas := 0
				cpu0, cpuOK := procstat.CPUTime()
				for b.Loop() {
					// Max past DefaultMaxReplicas: the whole capacity.
					ans, err := w.Capacity(ctx, t.Pod, whatif.CapacityOptions{Max: 1 << 30, ClaimTemplates: t.ClaimTemplates})
					if err != nil {
						b.Fatal(err)
					}
					replicas = ans.Replicas
				}
				b.ReportMetric(float64(replicas), "replicas")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(replicas+1), "µs/cycle")
				if cpu1, ok := procstat.CPUTime(); ok && cpuOK {
					// CPU time (garbage collection included) is steadier
					// than wall clock on a loaded machine.
					b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
				}
			})
		}
		b.Run(sz.name+"/drain", func(b *testing.B) {
			node := ""
			for _, p := range d.Pods {
				if p.Labels["app"] == "web" && p.Spec.NodeName != "" {
					node = p.Spec.NodeName
					break
				}
			}
			moved := 0
			for b.Loop() {
				ans, err := w.Drain(ctx, []string{node}, whatif.DrainOptions{})
				if err != nil {
					b.Fatal(err)
				}
				moved = ans.Count(whatif.DrainMoved)
			}
			b.ReportMetric(float64(moved), "moved")
		})
		b.Run(sz.name+"/scale-up", func(b *testing.B) {
			l := kubeload.NewLoader(kubeload.Options{})
			if err := l.ReadBytes([]byte(wbGPUNode), "node"); err != nil {
				b.Fatal(err)
			}
			nd, err := l.Dump()
			if err != nil {
				b.Fatal(err)
			}
			nodes, pending := 0, 0
			for b.Loop() {
				ans, err := w.ScaleUp(ctx, nd.Nodes[0], whatif.ScaleUpOptions{})
				if err != nil {
					b.Fatal(err)
				}
				nodes, pending = ans.Nodes, ans.Pods
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(pending), "pending")
		})
	}
}
