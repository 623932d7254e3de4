package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestOutput runs the example and checks its key numbers: the documented
// general model (6, 4, 0), the documented customized-model tables of each
// Karmada generation (7/8/10 and 6/4/4 for v1.3–v1.11; 6/4/10 and 0/0/4
// after), the accurate estimator agreeing with v1.18+, and the divisions of
// 12 replicas.
func TestOutput(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	space := regexp.MustCompile(`\s+`)
	norm := space.ReplaceAllString(out, " ")
	for _, want := range []string{
		"member1: 6 member2: 4 member3: 0",
		"member1: grade 2 ×1, grade 3 ×6",
		"member2: grade 2 ×4, grade 3 ×4",
		"member3: grade 6 ×1",
		"cpu=3,memory=20Gi models ContainingGrade(v1.3-v1.11) 7 8 10",
		"cpu=3,memory=20Gi models MinCoversRequest(v1.12-v1.17) 6 4 10",
		"cpu=3,memory=20Gi models FirstFit(v1.18+) 6 4 10",
		"cpu=3,memory=20Gi accurate (per node) 6 4 10",
		"cpu=3,memory=60Gi models ContainingGrade(v1.3-v1.11) 6 4 4",
		"cpu=3,memory=60Gi models MinCoversRequest(v1.12-v1.17) 0 0 4",
		"cpu=3,memory=60Gi models FirstFit(v1.18+) 0 0 4",
		"cpu=3,memory=60Gi accurate (per node) 0 0 4",
		"(available 6/4/10)",
		"Duplicated member1=12 member2=12 member3=12",
		"StaticWeight 3:2:1 member1=6 member2=4 member3=2",
		"StaticWeight (equal) member1=4 member2=4 member3=4",
		"DynamicWeight member1=4 member2=2 member3=6",
		"Aggregated member1=5 member3=7",
		"Clusters available replicas 20 are not enough to schedule.",
	} {
		if !strings.Contains(norm, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
