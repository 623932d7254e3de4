package frameworktest_test

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
)

// TestHasZone runs the package example's plugin through the harness.
func TestHasZone(t *testing.T) {
	frameworktest.Run(t, func() (framework.Plugin, error) { return HasZone{}, nil })
}
