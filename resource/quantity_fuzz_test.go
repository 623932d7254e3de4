package resource

import (
	"encoding/json"
	"testing"
)

// FuzzParseQuantity checks that ParseQuantity never panics and that whatever
// it accepts prints in a canonical form that parses back to an equal
// quantity and prints identically.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{
		"", "0", "-0", "+0", "1", "-1", "1.5", "-1.5", ".5", "5.", ".", "-", "+",
		"100m", "0.1m", "1n", "0.1n", "3.001n", "0.000000000001Ki",
		"1Ki", "1.5Gi", "1024Mi", "1536Mi", "8Ei", "9Ei", "-8Ei", "0.0001Ki",
		"2000", "1e3", "1E3", "12e6", "1.5E-3", "1e-2147483648", "1e10000",
		"1e10001", "1e", "1e+", "1e-", "9E", "1000E", "12Q", "1.2.3", "k", "Ki",
		" 1", "1 ", "100000000000000000000", "9223372036854775807",
		"9223372036854775808", "-9223372036854775809", "9223372036854775807Ki",
		"123456789012345678901234567890.123456789012345678901234567890n",
		"0.00000012345", "1.G", "1.", "1+1.0M", "0x10", "١",
		"100e10000", // 10^10002: its canonical form "1e10002" would not parse
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("ParseQuantity(%q) error %T is not a *ParseError", s, err)
			}
			if !q.IsZero() {
				t.Fatalf("ParseQuantity(%q) returned %s with an error", s, q)
			}
			return
		}
		str := q.String()
		back, err := ParseQuantity(str)
		if err != nil {
			t.Fatalf("ParseQuantity(%q).String() = %q does not parse: %v", s, str, err)
		}
		if back.Cmp(q) != 0 || q.Cmp(back) != 0 || !back.Equal(q) {
			t.Fatalf("ParseQuantity(%q) = %s, but ParseQuantity(%q) = %s", s, q, str, back)
		}
		if back.String() != str {
			t.Fatalf("String not canonical: %q -> %q -> %q", s, str, back.String())
		}
		if q.Sign() != back.Sign() || q.Value() != back.Value() || q.MilliValue() != back.MilliValue() {
			t.Fatalf("%q and %q differ in Sign/Value/MilliValue", s, str)
		}
		// The other accessors must not panic either.
		_ = q.AsApproximateFloat64()
		_ = q.Neg().Add(q)
		if !q.Sub(q).IsZero() {
			t.Fatalf("%q: q - q = %s", s, q.Sub(q))
		}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatalf("json.Marshal(%s): %v", q, err)
		}
		var j Quantity
		if err := json.Unmarshal(b, &j); err != nil || j.Cmp(q) != 0 {
			t.Fatalf("JSON round trip of %q via %s = %s, %v", s, b, j, err)
		}
	})
}
