package whatif

import (
	"testing"

	"github.com/schedkit/schedkit/internal/zerocheck"
)

// Every method of a zero WhatIf{} returns nothing or an error saying to
// build it with New; none panics.
func TestZeroWhatIfMethods(t *testing.T) {
	zerocheck.Methods(t, func() any { return &WhatIf{} }, zeroArg)
}
