package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
)

// TestOutput runs the example and checks its key numbers and what they are
// estimates of: the documented general model (6, 4, 0, with the free cpu and
// pod slots behind them), the documented customized-model tables of each
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
		// The general model's clusters, with the summary numbers behind
		// each estimate (member3's pod slots are all allocated) ...
		"member1: 6 (free cpu 3050m, free pod slots 99) member2: 4 (free cpu 2, free pod slots 99) member3: 0 (free cpu 2, free pod slots 0)",
		// ... are not the customized models' clusters, and the output says so.
		"the documentation's other example, three clusters of the same names built from idle nodes (member3 is now one free 32 cpu / 256Gi node)",
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
		"(available 6/4/10, the models FirstFit(v1.18+) estimate)",
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

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestCommandLine: -h prints the usage and exits 0; an unknown flag or an
// argument exits 2 with the usage.
func TestCommandLine(t *testing.T) { exampletest.CheckNoFlags(t, "multicluster", usage) }
