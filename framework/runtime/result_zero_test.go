package runtime

import (
	"strings"
	"testing"
)

// TestResultNilAndZero: every exported method of a nil or zero Result
// answers (empty answers, no panic), so that code handling a Decision
// without explanations or a failed cycle's nil Result is safe.
func TestResultNilAndZero(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Result
	}{{"nil", nil}, {"zero", &Result{}}} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			if got := r.SelectedNode(); got != "" {
				t.Errorf("SelectedNode = %q", got)
			}
			if got := r.EvaluatedNodes(); got != 0 {
				t.Errorf("EvaluatedNodes = %d", got)
			}
			if got := r.FeasibleNodes(); len(got) != 0 {
				t.Errorf("FeasibleNodes = %v", got)
			}
			if got := r.FitError(); got != nil {
				t.Errorf("FitError = %v", got)
			}
			if got := r.NodeToStatus(); got == nil || got.Len() != 0 {
				t.Errorf("NodeToStatus = %v", got)
			}
			if got := r.NodeVerdicts(); len(got) != 0 {
				t.Errorf("NodeVerdicts = %v", got)
			}
			if got := r.Scores(); len(got) != 0 {
				t.Errorf("Scores = %v", got)
			}
			var b strings.Builder
			if err := r.WriteTable(&b); err != nil {
				t.Errorf("WriteTable: %v", err)
			}
			if s := r.String(); s != b.String() || s == "" {
				t.Errorf("String = %q, WriteTable wrote %q", s, b.String())
			}
		})
	}
}
