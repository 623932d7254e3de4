package scoring

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// The conformance harness (framework/frameworktest) holds every score
// plugin's fast forms (batch scores and bounds, batch and range
// normalizers, incremental PreScore, node-local scores, pod signatures)
// to its plain PreScore, Score and NormalizeScore, on the harness's random
// clusters and, for the plugins whose interesting cases are rare there,
// on clusters of their own.

// TestConformance runs the harness for every score plugin on the
// harness's random clusters, with default args and with drawn strategies,
// resources and modes.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(t *rapid.T) (fw.Plugin, error)
	}{
		{"NodeResourcesFit", func(*rapid.T) (fw.Plugin, error) {
			return NewNodeResourcesFit(config.DefaultNodeResourcesFitArgs(), nil)
		}},
		{"NodeResourcesFit/drawn", func(t *rapid.T) (fw.Plugin, error) {
			nrf := config.DefaultNodeResourcesFitArgs()
			strat := rapid.SampledFrom([]config.ScoringStrategyType{config.LeastAllocated, config.MostAllocated, config.RequestedToCapacityRatio}).Draw(t, "strategy")
			nrf.ScoringStrategy = nrfStrategyArgs(strat, conformanceResources(t), []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})
			return NewNodeResourcesFit(nrf, nil)
		}},
		{"NodeResourcesBalancedAllocation", func(*rapid.T) (fw.Plugin, error) {
			return NewNodeResourcesBalancedAllocation(config.DefaultNodeResourcesBalancedAllocationArgs(), nil)
		}},
		{"NodeResourcesBalancedAllocation/drawn", func(t *rapid.T) (fw.Plugin, error) {
			ba := config.DefaultNodeResourcesBalancedAllocationArgs()
			ba.Mode = rapid.SampledFrom([]config.BalancedAllocationMode{config.BalancedAllocationDelta, config.BalancedAllocationStdDev, config.BalancedAllocationClassic}).Draw(t, "baMode")
			if ba.Mode != config.BalancedAllocationClassic { // Classic takes cpu and memory only
				ba.Resources = nil
				for _, r := range conformanceResources(t) {
					ba.Resources = append(ba.Resources, config.ResourceSpec{Name: r.Name, Weight: 1})
				}
			}
			return NewNodeResourcesBalancedAllocation(ba, nil)
		}},
		{"ImageLocality", func(*rapid.T) (fw.Plugin, error) { return NewImageLocality(nil, nil) }},
		{"ImageLocality/v1.36", func(*rapid.T) (fw.Plugin, error) { return NewImageLocality(nil, ilHandle(fw.KubeV136)) }},
		{"PodTopologySpread", func(*rapid.T) (fw.Plugin, error) {
			return NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
		}},
		{"InterPodAffinity", func(*rapid.T) (fw.Plugin, error) {
			return NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
		}},
		{"TargetLoadPacking", func(*rapid.T) (fw.Plugin, error) { return newTargetLoadPacking(nil, trimaranNameLoads{}) }},
		{"LoadVariationRiskBalancing", func(*rapid.T) (fw.Plugin, error) {
			return newLoadVariationRiskBalancing(nil, trimaranNameLoads{})
		}},
		{"LoadAware", func(*rapid.T) (fw.Plugin, error) { return NewLoadAware(config.DefaultLoadAwareSchedulingArgs(), nil) }},
		{"VolumeBinding", func(*rapid.T) (fw.Plugin, error) { return NewVolumeBinding(config.DefaultVolumeBindingArgs(), nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.RunCases(t, func(rt *rapid.T) frameworktest.Case {
				c := frameworktest.DefaultCase(rt)
				pl, err := tc.new(rt)
				if err != nil {
					rt.Fatal(err)
				}
				c.Plugin = pl
				return c
			})
		})
	}
}

// conformanceResources draws the resources a resource score weighs.
func conformanceResources(t *rapid.T) []config.ResourceSpec {
	return rapid.SampledFrom([][]config.ResourceSpec{
		{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
		{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}},
		{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 2}},
		{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 2}},
		{{Name: "cpu", Weight: 1}, {Name: "ephemeral-storage", Weight: 1}},
	}).Draw(t, "resources")
}

// TestConformancePodTopologySpread: soft constraints over zone and
// hostname (nodes lacking keys, ignored when every key is required),
// system and List defaults, inclusion policies with taints and a
// nodeSelector, pods in another namespace and being deleted, several
// constraints; Score outside the scored nodes is compared too.
func TestConformancePodTopologySpread(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		c := ptsDrawScoreCase(t)
		pl, err := NewPodTopologySpread(c.args, ptsHandle(rapid.IntRange(1, 3).Draw(t, "parallelism")))
		if err != nil {
			t.Fatal(err)
		}
		other := func(name, node string) *api.Pod {
			w := st.MakePod().Name(name).Node(node)
			if rapid.IntRange(0, 4).Draw(t, "otherNS") == 0 {
				w.Namespace("other")
			}
			if rapid.IntRange(0, 5).Draw(t, "otherTerm") == 0 {
				w.Terminating(st.PtsDeletionTime())
			}
			switch rapid.IntRange(0, 2).Draw(t, "otherApp") {
			case 1:
				w.Label("app", "a")
			case 2:
				w.Label("app", "b")
			}
			return w.Obj()
		}
		return frameworktest.Case{Plugin: pl, Nodes: c.nodes, Pods: c.existing, Incoming: c.pod, SnapshotOptions: c.opts,
			Other: other, ScoresEveryNode: true}
	})
}

// TestConformanceImageLocality: incoming pods with image volumes (present
// on some node, on none, repeated), in both releases.
func TestConformanceImageLocality(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		c := frameworktest.DefaultCase(t)
		pod := c.Incoming.DeepCopy()
		for i := range rapid.IntRange(0, 3).Draw(t, "imageVolumes") {
			ref := rapid.SampledFrom([]string{"app:v1", "app", "side:latest", "absent:v1"}).Draw(t, "volumeImage")
			pod.Spec.Volumes = append(pod.Spec.Volumes, api.Volume{Name: fmt.Sprint("image", i), VolumeSource: api.VolumeSource{Image: &api.ImageVolumeSource{Reference: ref}}})
		}
		c.Incoming = pod
		c.Plugin = ilNewFor(t, rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version"))
		return c
	})
}

// TestConformanceInterPodAffinity: preferred and required (anti-)affinity
// of the pod and of the existing and added pods in both directions,
// hardPodAffinityWeight 0 and positive,
// ignorePreferredTermsOfExistingPods, namespace lists and selectors
// (v1.36's every-namespace rule for NotIn and DoesNotExist selectors
// included), the pod-index path and the reference walk, in both releases.
func TestConformanceInterPodAffinity(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		c := ipaGenScoreCluster(t)
		v := rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version")
		pl, err := NewInterPodAffinity(c.args, ipaScoreHandle(rapid.IntRange(1, 3).Draw(t, "parallelism"), v))
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*InterPodAffinity)
		p.reference = rapid.IntRange(0, 3).Draw(t, "reference") == 0
		other := func(name, node string) *api.Pod { return ipaGenScorePod(t, name, node) }
		return frameworktest.Case{Plugin: p, Nodes: c.nodes, Pods: c.pods, Incoming: c.pod, Other: other,
			SnapshotOptions: []fw.SnapshotOption{fw.WithNamespaces(ipaGenNS...)}}
	})
}
