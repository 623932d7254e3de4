package runtime

import (
	"testing"

	"github.com/schedkit/schedkit/internal/doccheck"
)

// TestPackageDocNamesExist: every Go name the package doc's map cites
// (a camel-case word such as NodeMetricWarning, or Type.Method) is an
// exported name of the package, so that a rename or a removal cannot leave
// the map stale. Names of plugins and of other packages' identifiers are
// listed below.
func TestPackageDocNamesExist(t *testing.T) {
	doccheck.PackageDocNamesExist(t, ".", map[string]bool{
		"Framework_Schedule":  true, // the godoc example
		"GangScheduling":      true, // plugin names
		"LoadAwareScheduling": true,
		"SnapshotOptions":     true, // plural of SnapshotOption
	})
}
