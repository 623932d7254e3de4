package whatif

import "testing"

// Every method of a zero WhatIf{} returns nothing or an error saying to
// build it with NewWhatIf; none panics.
func TestZeroWhatIfMethods(t *testing.T) {
	callZero(t, func() any { return &WhatIf{} })
}
