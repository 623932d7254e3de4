package scoring

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"pgregory.net/rapid"
)

// The conformance harness (framework/frameworktest) holds every score
// plugin's fast forms (batch scores and bounds, batch and range
// normalizers, incremental PreScore, node-local scores, pod signatures)
// to its plain PreScore, Score and NormalizeScore, on the harness's random
// clusters and, for the plugins whose interesting cases are rare there,
// on clusters of their own.

// TestConformance runs the harness for every score plugin on the
// harness's random clusters, with default args.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(t *rapid.T) (fw.Plugin, error)
	}{
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
