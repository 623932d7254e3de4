package filter

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
)

// TestConformance holds LoadAware's usage-threshold filter to its plain
// PreFilter and Filter on the conformance harness's random clusters, with
// default args.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return NewLoadAware(config.DefaultLoadAwareSchedulingArgs(), nil) })
}
