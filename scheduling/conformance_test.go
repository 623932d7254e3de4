package scheduling

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/scheduling/internal/compose"
)

// TestConformanceComposed runs the conformance harness
// (framework/frameworktest) on every plugin the default registry composes
// of a filter half and a score half, built as the registry builds it with
// its default args: the composed plugin must offer its halves' fast forms
// (batch filters and scores, incremental PreFilter and PreScore,
// node-local verdicts, signatures) as faithfully as the halves do.
func TestConformanceComposed(t *testing.T) {
	composed := 0
	for _, p := range DefaultPlugins() {
		build := func() (framework.Plugin, error) { return p.Factory(nil, nil) }
		pl, err := build()
		if err != nil {
			continue // needs a handle: not one of the composed plugins
		}
		switch pl.(type) {
		case *compose.Split, *compose.SplitWithPreFilter, *compose.SplitWithPlacement:
		default:
			continue
		}
		composed++
		t.Run(p.Name, func(t *testing.T) { frameworktest.Run(t, build) })
	}
	if composed == 0 {
		t.Fatal("the registry composes no plugin")
	}
}
