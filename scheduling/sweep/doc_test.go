package sweep

import (
	"testing"

	"github.com/schedkit/schedkit/internal/doccheck"
)

// TestPackageDocNames: every name the package doc cites is declared here.
func TestPackageDocNames(t *testing.T) {
	doccheck.PackageDocNamesExist(t, ".", nil)
}
