package cel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

func newTestCompiler(t testing.TB) *Compiler {
	t.Helper()
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// genDevice draws a device with a few attributes of every kind and a few
// capacities, in the driver's domain and in another one.
func genDevice(t *rapid.T) Device {
	d := Device{
		Driver:                   rapid.SampledFrom([]string{"gpu.example.com", "nic.example.com"}).Draw(t, "driver"),
		AllowMultipleAllocations: rapid.Bool().Draw(t, "multi"),
		Attributes:               map[string]AttributeValue{},
		Capacity:                 map[string]resource.Quantity{},
	}
	names := []string{"model", "cores", "ecc", "version", "numa", "other.example.com/pcie"}
	for _, n := range names {
		if !rapid.Bool().Draw(t, "has-"+n) {
			continue
		}
		switch n {
		case "model", "other.example.com/pcie":
			d.Attributes[n] = AttributeValue{String: ptr(rapid.SampledFrom([]string{"a100", "h100", "root-0"}).Draw(t, n))}
		case "cores":
			d.Attributes[n] = AttributeValue{Int: ptr(rapid.Int64Range(-5, 200).Draw(t, n))}
		case "ecc":
			d.Attributes[n] = AttributeValue{Bool: ptr(rapid.Bool().Draw(t, n))}
		case "version":
			d.Attributes[n] = AttributeValue{Version: ptr(rapid.SampledFrom([]string{"1.0.0", "2.1.3-rc.1", "1.0", "535.104.5"}).Draw(t, n))}
		case "numa":
			d.Attributes[n] = AttributeValue{Ints: rapid.SliceOfN(rapid.Int64Range(0, 3), 0, 3).Draw(t, n)}
		}
	}
	for _, n := range []string{"memory", "cores"} {
		if rapid.Bool().Draw(t, "cap-"+n) {
			d.Capacity[n] = resource.MustParse(rapid.SampledFrom([]string{"80Gi", "1536Mi", "1500m", "108", "0"}).Draw(t, n))
		}
	}
	return d
}

// genSelector draws a selector from pieces that reach every kind of
// value, including ones that fail to compile or to evaluate.
func genSelector(t *rapid.T) string {
	atoms := []string{
		`device.driver == "gpu.example.com"`,
		`device.attributes["gpu.example.com"].model == "a100"`,
		`device.attributes["gpu.example.com"].cores > 100`,
		`device.attributes["gpu.example.com"].ecc`,
		`device.attributes["gpu.example.com"].version.isGreaterThan(semver("1.5.0"))`,
		`device.attributes["gpu.example.com"].numa.exists(n, n == 1)`,
		`"model" in device.attributes["gpu.example.com"]`,
		`device.attributes["other.example.com"].pcie.startsWith("root")`,
		`device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40Gi"))`,
		`device.capacity["gpu.example.com"].cores.isInteger()`,
		`device.allowMultipleAllocations`,
		`has(device.attributes["gpu.example.com"].model)`,
		`device.attributes["gpu.example.com"].?model.orValue("") == "h100"`,
		`isQuantity("1.5Gi")`,
		`device.attributes["gpu.example.com"].model`,
		`1 +`,
		`device.nope`,
	}
	n := rapid.IntRange(1, 3).Draw(t, "atoms")
	parts := make([]string, n)
	for i := range parts {
		parts[i] = rapid.SampledFrom(atoms).Draw(t, fmt.Sprintf("atom%d", i))
		if rapid.Bool().Draw(t, fmt.Sprintf("not%d", i)) {
			parts[i] = "!(" + parts[i] + ")"
		}
	}
	op := rapid.SampledFrom([]string{" && ", " || "}).Draw(t, "op")
	return strings.Join(parts, op)
}

type outcome struct {
	compileErr string
	match      bool
	cost       uint64
	err        string
}

func run(c *Compiler, p *Program, compileErr error, d Device) outcome {
	if compileErr != nil {
		return outcome{compileErr: compileErr.Error()}
	}
	m, cost, err := p.Match(context.Background(), c.NewInput(d))
	o := outcome{match: m, cost: cost}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

// TestPropCacheMatchesFreshCompile checks that a program taken from the
// cache, on first use and on later uses, answers exactly as a program
// compiled afresh: same compile error, result, cost and runtime error.
func TestPropCacheMatchesFreshCompile(t *testing.T) {
	c := newTestCompiler(t)
	cache := NewCache(c)
	rapid.Check(t, func(t *rapid.T) {
		expr := genSelector(t)
		d := genDevice(t)
		fresh, ferr := c.Compile(expr, Stored, false)
		want := run(c, fresh, ferr, d)
		for i := range 2 {
			p, err := cache.Get(expr)
			if got := run(c, p, err, d); got != want {
				t.Fatalf("%s: cache use %d = %+v, fresh compile = %+v", expr, i, got, want)
			}
		}
	})
}

// TestCacheConcurrentGet checks that concurrent first uses of one selector
// all get one program.
func TestCacheConcurrentGet(t *testing.T) {
	cache := NewCache(newTestCompiler(t))
	const n = 8
	progs := make([]*Program, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := cache.Get(`device.driver == "x"`)
			if err != nil {
				t.Error(err)
			}
			progs[i] = p
		}()
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if progs[i] != progs[0] {
			t.Fatalf("use %d got another program than use 0", i)
		}
	}
	if cache.Len() != 1 {
		t.Fatalf("Len = %d, want 1", cache.Len())
	}
}

// genQuantity draws a quantity string of Kubernetes' grammar.
func genQuantity(t *rapid.T, label string) string {
	sign := rapid.SampledFrom([]string{"", "-", "+"}).Draw(t, label+"-sign")
	num := rapid.StringMatching(`[0-9]{1,20}`).Draw(t, label+"-num")
	frac := ""
	if rapid.Bool().Draw(t, label+"-hasfrac") {
		frac = "." + rapid.StringMatching(`[0-9]{1,12}`).Draw(t, label+"-frac")
	}
	suffix := rapid.SampledFrom([]string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "e-2", "E12"}).Draw(t, label+"-suffix")
	return sign + num + frac + suffix
}

// TestPropQuantityAgreesWithResource checks the CEL quantity's exact
// comparisons, signs and arithmetic against schedkit's resource.Quantity,
// an independent implementation of Kubernetes' quantity semantics.
func TestPropQuantityAgreesWithResource(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genQuantity(t, "a"), genQuantity(t, "b")
		ka, err := parseKubeQuantity(a)
		if err != nil {
			t.Fatalf("parse %q: %v", a, err)
		}
		kb, err := parseKubeQuantity(b)
		if err != nil {
			t.Fatalf("parse %q: %v", b, err)
		}
		ra, rb := resource.MustParse(a), resource.MustParse(b)
		if got, want := ka.Cmp(kb), ra.Cmp(rb); got != want {
			t.Fatalf("Cmp(%s, %s) = %d, resource says %d", a, b, got, want)
		}
		if got, want := ka.Sign(), ra.Sign(); got != want {
			t.Fatalf("Sign(%s) = %d, resource says %d", a, got, want)
		}
		// Compare in resource's terms: parse the plain decimal of the CEL
		// result (no binary suffix, so no capping) and compare exactly.
		if got := resource.MustParse(ka.Add(kb).String()); got.Cmp(ra.Add(rb)) != 0 {
			t.Fatalf("%s + %s = %s, resource says %s", a, b, got, ra.Add(rb))
		}
		if got := resource.MustParse(ka.Sub(kb).String()); got.Cmp(ra.Sub(rb)) != 0 {
			t.Fatalf("%s - %s = %s, resource says %s", a, b, got, ra.Sub(rb))
		}
	})
}

// TestVersionPrecedence checks the precedence example of the semver 2.0.0
// specification (§11): each version precedes the next.
func TestVersionPrecedence(t *testing.T) {
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0"}
	vs := make([]Version, len(order))
	for i, s := range order {
		v, err := ParseVersion(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if v.String() != s {
			t.Errorf("String(%s) = %s", s, v.String())
		}
		vs[i] = v
	}
	for i := range vs {
		for j := range vs {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := vs[i].Compare(vs[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestNormalizeVersion(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "v1", want: "1.0.0"},
		{in: "v01.002.0003", want: "1.2.3"},
		{in: "1.2", want: "1.2.0"},
		{in: "1.00.0-rc.1", want: "1.0.0-rc.1"},
		{in: "1.2-rc", err: "short version cannot contain PreRelease/Build meta data"},
		{in: "00", want: "0.0.0"},
	} {
		got, err := normalizeVersion(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("normalize(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestMatchCancelled checks that a cancelled context stops an evaluation
// with an error that wraps the context's cause.
func TestMatchCancelled(t *testing.T) {
	c := newTestCompiler(t)
	p, err := c.Compile(`device.attributes["d"].map(k, device.attributes["d"][k] * 20).filter(e, e > 50).exists(e, e == 60)`, Stored, false)
	if err != nil {
		t.Fatal(err)
	}
	d := Device{Driver: "d", Attributes: map[string]AttributeValue{}}
	for i := range 1000 {
		d.Attributes[fmt.Sprintf("attr%d", i)] = AttributeValue{Int: ptr(int64(i))}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = p.Match(ctx, c.NewInput(d))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want one wrapping context.Canceled", err)
	}
	if _, _, err := p.Match(context.Background(), c.NewInput(d)); err != nil {
		t.Fatalf("uncancelled: %v", err)
	}
}

func TestCheckCost(t *testing.T) {
	c := newTestCompiler(t)
	cheap, err := c.Compile(`device.driver == "x"`, New, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := cheap.CheckCost(); err != nil {
		t.Errorf("cheap selector: %v", err)
	}
	// Five nested comprehensions over attribute maps of up to 32 entries.
	dear, err := c.Compile(`device.attributes.all(d, device.attributes[d].all(k, device.attributes.all(d2, device.attributes[d2].all(k2, device.attributes.all(d3, true)))))`, New, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := dear.CheckCost(); !errors.Is(err, ErrTooComplex) {
		t.Errorf("dear selector (estimate %d): %v, want ErrTooComplex", dear.MaxCost, err)
	}
}

func BenchmarkMatch(b *testing.B) {
	c := newTestCompiler(b)
	p, err := c.Compile(`device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40Gi"))`, Stored, false)
	if err != nil {
		b.Fatal(err)
	}
	in := c.NewInput(Device{
		Driver:     "gpu.example.com",
		Attributes: map[string]AttributeValue{"model": {String: ptr("a100")}, "cores": {Int: ptr(int64(108))}},
		Capacity:   map[string]resource.Quantity{"memory": resource.MustParse("80Gi")},
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if m, _, err := p.Match(ctx, in); err != nil || !m {
			b.Fatal(m, err)
		}
	}
}

func BenchmarkNewInput(b *testing.B) {
	c := newTestCompiler(b)
	d := Device{
		Driver:     "gpu.example.com",
		Attributes: map[string]AttributeValue{"model": {String: ptr("a100")}, "cores": {Int: ptr(int64(108))}, "v": {Version: ptr("535.104.5")}},
		Capacity:   map[string]resource.Quantity{"memory": resource.MustParse("80Gi")},
	}
	b.ReportAllocs()
	for b.Loop() {
		c.NewInput(d)
	}
}

// BenchmarkMatchFreshInput converts the device for every evaluation, as
// Kubernetes' DeviceMatches does, for a side-by-side comparison.
func BenchmarkMatchFreshInput(b *testing.B) {
	c := newTestCompiler(b)
	p, err := c.Compile(`device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40Gi"))`, Stored, false)
	if err != nil {
		b.Fatal(err)
	}
	d := Device{
		Driver:     "gpu.example.com",
		Attributes: map[string]AttributeValue{"model": {String: ptr("a100")}, "cores": {Int: ptr(int64(108))}},
		Capacity:   map[string]resource.Quantity{"memory": resource.MustParse("80Gi")},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if m, _, err := p.Match(ctx, c.NewInput(d)); err != nil || !m {
			b.Fatal(m, err)
		}
	}
}
