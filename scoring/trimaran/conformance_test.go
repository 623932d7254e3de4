package trimaran

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"pgregory.net/rapid"
)

// The conformance harness (framework/frameworktest) holds the Trimaran
// plugins' fast forms (batch scores and bounds, batch and range
// normalizers, incremental PreScore, node-local scores, pod signatures)
// to its plain PreScore, Score and NormalizeScore, on the harness's random
// clusters and, for the plugins whose interesting cases are rare there,
// on clusters of their own.

// TestConformance runs the harness for both Trimaran plugins on the
// harness's random clusters, with default args.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(t *rapid.T) (fw.Plugin, error)
	}{
		{"TargetLoadPacking", func(*rapid.T) (fw.Plugin, error) { return newTargetLoadPacking(nil, trimaranNameLoads{}) }},
		{"LoadVariationRiskBalancing", func(*rapid.T) (fw.Plugin, error) {
			return newLoadVariationRiskBalancing(nil, trimaranNameLoads{})
		}},
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
