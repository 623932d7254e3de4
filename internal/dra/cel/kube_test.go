package cel

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/resource"
)

// The table of testdata/cases.jsonl is evaluated by Kubernetes v1.37.2
// itself (filter/testdata/draoracle, CEL mode) and its answers are pinned
// in testdata/kube.jsonl. To re-check them against Kubernetes:
//
//	cd filter/testdata/draoracle && go build -o /tmp/draoracle . &&
//	/tmp/draoracle < ../../../internal/dra/cel/testdata/cases.jsonl > /tmp/kube.jsonl &&
//	diff /tmp/kube.jsonl ../../../internal/dra/cel/testdata/kube.jsonl

type caseDevice struct {
	Driver     string `json:"driver"`
	Multi      *bool  `json:"allowMultipleAllocations"`
	Attributes map[string]struct {
		Int      *int64   `json:"int"`
		Bool     *bool    `json:"bool"`
		String   *string  `json:"string"`
		Version  *string  `json:"version"`
		Ints     []int64  `json:"ints"`
		Bools    []bool   `json:"bools"`
		Strings  []string `json:"strings"`
		Versions []string `json:"versions"`
	} `json:"attributes"`
	Capacity map[string]struct {
		Value string `json:"value"`
	} `json:"capacity"`
}

type celCase struct {
	Name string `json:"name"`
	CEL  struct {
		Expression string     `json:"expression"`
		Device     caseDevice `json:"device"`
	} `json:"cel"`
}

// kubeAnswer is the oracle's output for one case.
type kubeAnswer struct {
	StoredCompileError string  `json:"storedCompileError,omitempty"`
	StoredMaxCost      *uint64 `json:"storedMaxCost,omitempty"`
	NewCompileError    string  `json:"newCompileError,omitempty"`
	NewMaxCost         *uint64 `json:"newMaxCost,omitempty"`
	Match              *bool   `json:"match,omitempty"`
	Error              string  `json:"error,omitempty"`
	Enhanced           string  `json:"enhanced,omitempty"`
	ActualCost         *uint64 `json:"actualCost,omitempty"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (d caseDevice) device(t *testing.T) Device {
	t.Helper()
	out := Device{Driver: d.Driver, Attributes: map[string]AttributeValue{}, Capacity: map[string]resource.Quantity{}}
	if d.Multi != nil {
		out.AllowMultipleAllocations = *d.Multi
	}
	for n, a := range d.Attributes {
		out.Attributes[n] = AttributeValue{Int: a.Int, Bool: a.Bool, String: a.String, Version: a.Version,
			Ints: a.Ints, Bools: a.Bools, Strings: a.Strings, Versions: a.Versions}
	}
	for n, c := range d.Capacity {
		q, err := resource.ParseQuantity(c.Value)
		if err != nil {
			t.Fatalf("capacity %s: %v", n, err)
		}
		out.Capacity[n] = q
	}
	return out
}

// evaluate answers one case the way the oracle does: compile in both
// environments with cost estimates, then evaluate the Stored program.
func evaluate(t *testing.T, c *Compiler, cs celCase) kubeAnswer {
	var a kubeAnswer
	stored, err := c.Compile(cs.CEL.Expression, Stored, true)
	if err != nil {
		a.StoredCompileError = err.Error()
	} else {
		a.StoredMaxCost = &stored.MaxCost
	}
	fresh, err := c.Compile(cs.CEL.Expression, New, true)
	if err != nil {
		a.NewCompileError = err.Error()
	} else {
		a.NewMaxCost = &fresh.MaxCost
	}
	if stored == nil {
		return a
	}
	in := c.NewInput(cs.CEL.Device.device(t))
	match, cost, err := stored.Match(context.Background(), in)
	if in.err == nil {
		a.ActualCost = &cost
	}
	if err != nil {
		a.Error = err.Error()
		a.Enhanced = EnhanceRuntimeError(err).Error()
		return a
	}
	a.Match = &match
	return a
}

// deviations are the cases where schedkit deliberately answers otherwise
// than Kubernetes, with the answer schedkit gives instead.
var deviations = map[string]func(t *testing.T, got kubeAnswer){
	// Kubernetes' URL and IP libraries are not declared.
	"url-not-declared": wantCompileError("undeclared reference to 'url'"),
	"ip-not-declared":  wantCompileError("undeclared reference to 'ip'"),
	// A decimal exponent beyond ±10000 is a parse error.
	"quantity-exp-big": func(t *testing.T, got kubeAnswer) {
		if got.Error != errQuantityRange.Error() {
			t.Errorf("error = %q, want %q", got.Error, errQuantityRange)
		}
	},
}

func wantCompileError(substr string) func(t *testing.T, got kubeAnswer) {
	return func(t *testing.T, got kubeAnswer) {
		if !strings.Contains(got.StoredCompileError, substr) || !strings.Contains(got.NewCompileError, substr) {
			t.Errorf("compile errors = %q / %q, want both to contain %q", got.StoredCompileError, got.NewCompileError, substr)
		}
	}
}

func TestSelectorsMatchKube(t *testing.T) {
	cases := readJSONL[celCase](t, "testdata/cases.jsonl")
	answers := readJSONL[struct {
		Name string     `json:"name"`
		CEL  kubeAnswer `json:"cel"`
	}](t, "testdata/kube.jsonl")
	if len(cases) != len(answers) {
		t.Fatalf("%d cases, %d kube answers", len(cases), len(answers))
	}
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	for i, cs := range cases {
		want := answers[i]
		if want.Name != cs.Name {
			t.Fatalf("case %d: %q, kube answer for %q", i, cs.Name, want.Name)
		}
		t.Run(cs.Name, func(t *testing.T) {
			got := evaluate(t, c, cs)
			if dev, ok := deviations[cs.Name]; ok {
				dev(t, got)
				return
			}
			if diff := cmp.Diff(want.CEL, got); diff != "" {
				t.Errorf("%s\n(-kube +schedkit):\n%s", cs.CEL.Expression, diff)
			}
		})
	}
}
