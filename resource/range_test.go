package resource

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestParseErrorEchoIsBounded: a million-digit quantity is named in its
// error by its first bytes and its length, not whole; the ParseError keeps
// the whole input.
func TestParseErrorEchoIsBounded(t *testing.T) {
	for _, in := range []string{strings.Repeat("9", 1_000_000), "1" + strings.Repeat("x", 100_000)} {
		_, err := ParseQuantity(in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %v", err)
		}
		if pe.Input != in {
			t.Errorf("ParseError.Input lost the input")
		}
		msg := err.Error()
		if len(msg) > 250 || !strings.Contains(msg, `"`+in[:20]) || !strings.Contains(msg, "bytes)") {
			t.Errorf("error of %d bytes: %.300s", len(msg), msg)
		}
	}
	// Short input is quoted whole, as before.
	if _, err := ParseQuantity("12Q"); err == nil || err.Error() != `resource: quantity "12Q": unknown suffix "Q"` {
		t.Errorf("short input: %v", err)
	}
}

// TestAmountRange: an amount scheduling cannot count in int64 (cpu in
// milli-units, every other resource in units, VectorFrom's units) is an
// error naming the resource and the value. Kubernetes' API server accepts
// such a quantity, and kube-scheduler reads it with MilliValue/Value,
// which return 0 or a wrapped value for it (apimachinery resource
// int64Amount.AsScaledInt64 and scaledValue): no answer to reproduce.
func TestAmountRange(t *testing.T) {
	for _, tc := range []struct {
		name Name
		q    string
		ok   bool
	}{
		{CPU, "9223372036854775807m", true},
		{CPU, "9223372036854775808m", false},
		{CPU, "9223372036854775.807", true},
		{CPU, "9223372036854775.8071", false}, // rounds up past MaxInt64 milli
		{CPU, "9223372036854776", false},
		{CPU, "1e309", false},
		{CPU, "-1e309", false},
		{Memory, "9223372036854775807", true},
		{Memory, "9223372036854775808", false},
		{Memory, "8Ei", true}, // BinarySI is capped at 2^63-1, as in Kubernetes
		{Memory, "7Ei", true},
		{Memory, "1e19", false},
		{"nvidia.com/gpu", "1e19", false},
		{"hugepages-2Mi", "1e309", false},
		{Pods, "1e309", false},
		{EphemeralStorage, "1e18", true},
		{"foo", "1e309", true}, // not counted: VectorFrom ignores names neither well-known nor scalar
	} {
		err := CheckAmount(tc.name, MustParse(tc.q))
		if (err == nil) != tc.ok {
			t.Errorf("CheckAmount(%s, %s) = %v, want ok %v", tc.name, tc.q, err, tc.ok)
			continue
		}
		if err != nil {
			var re *RangeError
			if !errors.As(err, &re) || re.Name != tc.name || !strings.Contains(err.Error(), string(tc.name)) || !strings.Contains(err.Error(), `"`+MustParse(tc.q).String()+`"`) {
				t.Errorf("error %v does not name %s and %s", err, tc.name, tc.q)
			}
		}
	}
}

// TestPropAmountRange: CheckAmount accepts exactly the quantities whose
// amount in VectorFrom's unit, rounded away from zero, fits an int64
// (computed here with big.Rat).
func TestPropAmountRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		digits := rapid.StringMatching(`[1-9][0-9]{0,24}`).Draw(t, "digits")
		exp := rapid.IntRange(-12, 24).Draw(t, "exp")
		neg := rapid.Bool().Draw(t, "neg")
		name := rapid.SampledFrom([]Name{CPU, Memory, "nvidia.com/gpu"}).Draw(t, "name")
		s := digits + "e" + itoa(exp)
		if neg {
			s = "-" + s
		}
		q := MustParse(s)
		r, _ := new(big.Rat).SetString(s)
		if name == CPU {
			r.Mul(r, big.NewRat(1000, 1))
		}
		// Round away from zero.
		n := new(big.Int).Quo(r.Num(), r.Denom())
		if new(big.Rat).SetInt(n).Cmp(r) != 0 {
			n.Add(n, big.NewInt(int64(r.Sign())))
		}
		fits := n.IsInt64()
		if err := CheckAmount(name, q); (err == nil) != fits {
			t.Fatalf("CheckAmount(%s, %s) = %v; amount %s fits int64: %v", name, s, err, n, fits)
		}
		if fits {
			want := n.Int64()
			v := VectorFrom(List{name: q})
			got := v.Get(name)
			if got != want {
				t.Fatalf("VectorFrom %s %s = %d, want %d", name, s, got, want)
			}
		}
	})
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// TestListJSONRange: a resource list read from JSON refuses an amount
// scheduling cannot count, naming the resource and the value.
func TestListJSONRange(t *testing.T) {
	var l List
	err := json.Unmarshal([]byte(`{"memory": "1Gi", "cpu": "1e309"}`), &l)
	var re *RangeError
	if !errors.As(err, &re) || re.Name != CPU || !strings.Contains(err.Error(), `"1e309"`) {
		t.Fatalf("error %v", err)
	}
	if err := json.Unmarshal([]byte(`{"memory": "1Gi", "cpu": 2}`), &l); err != nil || l[CPU].Value() != 2 || l[Memory].Value() != 1<<30 {
		t.Fatalf("%v %v", l, err)
	}
	// Into an existing list the keys are added, as encoding/json fills a
	// map; null empties it.
	l = List{CPU: MustParse("1")}
	if err := json.Unmarshal([]byte(`{"memory": "2Gi"}`), &l); err != nil || len(l) != 2 || l[CPU].Value() != 1 || l[Memory].Value() != 2<<30 {
		t.Fatalf("into a list: %v %v", l, err)
	}
	if err := json.Unmarshal([]byte(`null`), &l); err != nil || l != nil {
		t.Fatalf("null: %v %v", l, err)
	}
	if err := json.Unmarshal([]byte(`{"cpu": "12Q"}`), &l); err == nil || !strings.Contains(err.Error(), "12Q") {
		t.Fatalf("bad quantity: %v", err)
	}
}
