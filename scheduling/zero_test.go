package scheduling

import (
	"testing"

	"github.com/schedkit/schedkit/internal/zerocheck"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// Every method of a zero Cluster{} answers as an empty cluster or fails
// with an error saying to build it with cluster.New; none panics.
func TestZeroClusterMethods(t *testing.T) {
	zerocheck.Methods(t, func() any { return &cluster.Cluster{} }, zerocheck.Arg)
}
