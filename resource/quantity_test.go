package resource

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Most vectors below come from Kubernetes'
// k8s.io/apimachinery/pkg/api/resource/quantity_test.go (TestQuantityParse,
// TestQuantityString, TestQuantityParseEmit, TestMilliNewSet, TestNewSet,
// TestNewScaledSet, TestScaledValue, TestQuantityRoundUp,
// TestQuantityCmpInt64AndDec, TestNegAndSubAtMostNegative, TestAdd, TestSub,
// TestQuantityAsApproximateFloat64, TestJSONWhitespace); the others were
// derived by hand from the Kubernetes source (quantity.go, amount.go,
// math.go, scale_int.go, suffix.go).

// qTestRat returns the exact value of q, from its internal representation.
func qTestRat(q Quantity) *big.Rat {
	u := new(big.Int).Set(q.qUnscaled())
	if q.exp >= 0 {
		return new(big.Rat).SetInt(u.Mul(u, qPow10Big(int64(q.exp))))
	}
	return new(big.Rat).SetFrac(u, qPow10Big(-int64(q.exp)))
}

// qTestDec builds the exact value digits × 10^exp (digits may be signed).
func qTestDec(t *testing.T, digits string, exp int) *big.Rat {
	t.Helper()
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		t.Fatalf("bad digits %q", digits)
	}
	if exp >= 0 {
		return new(big.Rat).SetInt(u.Mul(u, qPow10Big(int64(exp))))
	}
	return new(big.Rat).SetFrac(u, qPow10Big(int64(-exp)))
}

func TestParseQuantityValueAndFormat(t *testing.T) {
	tests := []struct {
		in     string
		digits string // expected value is digits × 10^exp
		exp    int
		format Format
	}{
		{"0", "0", 0, DecimalSI},
		{"0n", "0", 0, DecimalSI},
		{"0u", "0", 0, DecimalSI},
		{"0m", "0", 0, DecimalSI},
		{"0Ki", "0", 0, BinarySI},
		{"0k", "0", 0, DecimalSI},
		{"0Mi", "0", 0, BinarySI},
		{"0M", "0", 0, DecimalSI},
		{"0Gi", "0", 0, BinarySI},
		{"0G", "0", 0, DecimalSI},
		{"0Ti", "0", 0, BinarySI},
		{"0T", "0", 0, DecimalSI},
		{"1", "1", 0, DecimalSI},
		{"1Ki", "1024", 0, BinarySI},
		{"8Ki", "8192", 0, BinarySI},
		{"7Mi", "7340032", 0, BinarySI},
		{"6Gi", "6442450944", 0, BinarySI},
		{"5Ti", "5497558138880", 0, BinarySI},
		{"4Pi", "4503599627370496", 0, BinarySI},
		{"3Ei", "3458764513820540928", 0, BinarySI},
		{"10Ti", "10995116277760", 0, BinarySI},
		{"100Ti", "109951162777600", 0, BinarySI},
		{"5n", "5", -9, DecimalSI},
		{"4u", "4", -6, DecimalSI},
		{"3m", "3", -3, DecimalSI},
		{"9", "9", 0, DecimalSI},
		{"8k", "8", 3, DecimalSI},
		{"50k", "5", 4, DecimalSI},
		{"7M", "7", 6, DecimalSI},
		{"6G", "6", 9, DecimalSI},
		{"5T", "5", 12, DecimalSI},
		{"40T", "4", 13, DecimalSI},
		{"300T", "3", 14, DecimalSI},
		{"2P", "2", 15, DecimalSI},
		{"1E", "1", 18, DecimalSI},
		{"1E-3", "1", -3, DecimalExponent},
		{"1e3", "1", 3, DecimalExponent},
		{"1E6", "1", 6, DecimalExponent},
		{"1e9", "1", 9, DecimalExponent},
		{"1E12", "1", 12, DecimalExponent},
		{"1e15", "1", 15, DecimalExponent},
		{"1E18", "1", 18, DecimalExponent},
		{"1e14", "1", 14, DecimalExponent},
		{"1e13", "1", 13, DecimalExponent},
		{"100.035k", "100035", 0, DecimalSI},
		{"0.001", "1", -3, DecimalSI},
		{"0.0005k", "5", -1, DecimalSI},
		{"0.005", "5", -3, DecimalSI},
		{"0.05", "5", -2, DecimalSI},
		{"0.5", "5", -1, DecimalSI},
		{"0.00050k", "5", -1, DecimalSI},
		{"0.00500", "5", -3, DecimalSI},
		{"0.05000", "5", -2, DecimalSI},
		{"0.50000", "5", -1, DecimalSI},
		{"0.5e0", "5", -1, DecimalExponent},
		{"0.5e-1", "5", -2, DecimalExponent},
		{"0.5e-2", "5", -3, DecimalExponent},
		{"10.035M", "10035", 3, DecimalSI},
		{"1.2e3", "12", 2, DecimalExponent},
		{"1.3E+6", "13", 5, DecimalExponent},
		{"1.40e9", "14", 8, DecimalExponent},
		{"1.53E12", "153", 10, DecimalExponent},
		{"1.6e15", "16", 14, DecimalExponent},
		{"1.7E18", "17", 17, DecimalExponent},
		{"9.01", "901", -2, DecimalSI},
		{"8.1k", "81", 2, DecimalSI},
		{"7.123456M", "7123456", 0, DecimalSI},
		{"6.987654321G", "6987654321", 0, DecimalSI},
		{"5.444T", "5444", 9, DecimalSI},
		{"40.1T", "401", 11, DecimalSI},
		{"300.2T", "3002", 11, DecimalSI},
		{"2.5P", "25", 14, DecimalSI},
		{"1.01E", "101", 16, DecimalSI},
		// Things that round up to whole nano units.
		{"3.001n", "4", -9, DecimalSI},
		{"1.1E-9", "2", -9, DecimalExponent},
		{"0.0000000001", "1", -9, DecimalSI},
		{"0.0000000005", "1", -9, DecimalSI},
		{"0.00000000050", "1", -9, DecimalSI},
		{"0.5e-9", "1", -9, DecimalExponent},
		{"0.9n", "1", -9, DecimalSI},
		{"0.1n", "1", -9, DecimalSI},
		{"0.00000012345", "124", -9, DecimalSI},
		{"0.00000012354", "124", -9, DecimalSI},
		{"1e-2147483648", "1", -9, DecimalExponent},
		// BinarySI is capped at 2^63-1.
		{"9Ei", "9223372036854775807", 0, BinarySI},
		{"8Ei", "9223372036854775807", 0, BinarySI},
		{"9223372036854775807Ki", "9223372036854775807", 0, BinarySI},
		{"7Ei", "8070450532247928832", 0, BinarySI},
		{"12E", "12", 18, DecimalSI},
		// Decimal values are not capped.
		{"9E", "9", 18, DecimalSI},
		{"100000000000000000000", "1", 20, DecimalSI},
		{"18446744073709551616", "18446744073709551616", 0, DecimalSI},
		{"1e10000", "1", 10000, DecimalExponent},
		{"9.99e10000", "999", 9998, DecimalExponent},
		{"0.01e10002", "1", 10000, DecimalExponent},
		{"1" + strings.Repeat("0", 9997) + "k", "1", 10000, DecimalSI},
		{"0e99999", "0", 0, DecimalExponent},
		{"1" + strings.Repeat("0", 10001) + "Ki", "9223372036854775807", 0, BinarySI},
		// Fractional binary values.
		{"100.035Ki", "10243584", -2, BinarySI},
		{"0.5Mi", "524288", 0, BinarySI},
		{"0.05Gi", "536870912", -1, BinarySI},
		{"0.025Ti", "274877906944", -1, BinarySI},
		{"1.5Gi", "1610612736", 0, BinarySI},
		// "Things written by trolls".
		{"0.000000000001Ki", "2", -9, DecimalSI}, // rounds up, changes format
		{"0.0001Ki", "1024", -4, DecimalSI},      // in (0,1): changes format
		{".001", "1", -3, DecimalSI},
		{".0001k", "100", -3, DecimalSI},
		{"1.", "1", 0, DecimalSI},
		{"1.G", "1", 9, DecimalSI},
		{"5.e3", "5", 3, DecimalExponent},
		{"007", "7", 0, DecimalSI},
		{"1e+3", "1", 3, DecimalExponent},
		{"1e03", "1", 3, DecimalExponent},
	}
	for _, tt := range tests {
		for _, sign := range []string{"", "+", "-"} {
			in := sign + tt.in
			got, err := ParseQuantity(in)
			if err != nil {
				t.Errorf("ParseQuantity(%q): %v", in, err)
				continue
			}
			want := qTestDec(t, tt.digits, tt.exp)
			if sign == "-" {
				want.Neg(want)
			}
			if r := qTestRat(got); r.Cmp(want) != 0 {
				t.Errorf("ParseQuantity(%q) = %s (%s), want %s", in, got, r.RatString(), want.RatString())
			}
			if got.Format() != tt.format {
				t.Errorf("ParseQuantity(%q).Format() = %q, want %q", in, got.Format(), tt.format)
			}
		}
	}
}

func TestQuantityString(t *testing.T) {
	tests := []struct{ in, want string }{
		// Canonical forms, as the Kubernetes algorithm prints them.
		{"1.5", "1500m"},
		{"0.5", "500m"},
		{"1024Mi", "1Gi"},
		{"1536Mi", "1536Mi"},
		{"1.5Gi", "1536Mi"},
		{"2000", "2k"},
		{"1e3", "1e3"},
		{"100m", "100m"},
		{"0", "0"},
		{"12e6", "12e6"},
		{"-0.5", "-500m"},
		{"1000m", "1"},
		// TestQuantityString alternates and TestQuantityParseEmit.
		{"1Ki", "1Ki"},
		{"1Mi", "1Mi"},
		{"1Gi", "1Gi"},
		{"1000M", "1G"},
		{".001Ki", "1024m"},
		{".000001Ki", "1024u"},
		{".000000001Ki", "1024n"},
		{".000000000001Ki", "2n"},
		{"307200Ki", "300Mi"},
		{"1025024Mi", "1001Gi"},
		{"1024Gi", "1Ti"},
		{"6Ki", "6Ki"},
		{"5000m", "5"},
		{"0.001T", "1G"},
		{"1000u", "1m"},
		{"1.08", "1080m"},
		{"1080000000n", "1080m"},
		{"1000E", "1e21"},
		{"5000E", "5e21"},
		{"1000000E", "1e24"},
		{".001e12", "1e9"},
		{"0.001e0", "1e-3"},
		{"1000e-12", "1e-9"},
		{"00", "0"},
		{"1234567M", "1234567M"},
		{"1025", "1025"},
		{"80e-3", "80e-3"},
		{"300e6", "300e6"},
		{"3e3", "3e3"},
		{"1080n", "1080n"},
		{"1080u", "1080u"},
		// Kubernetes keeps these inputs verbatim (its String returns the
		// parsed text when it looks canonical); we print the canonical form.
		{"+1", "1"},
		{"1.500k", "1500"},
		{"1E3", "1e3"},
		{"0100", "100"},
		// BinarySI corner cases.
		{"0.5Ki", "512"},            // |v| < 1024 prints as DecimalSI
		{"1023Ki", "1023Ki"},        // whole multiple of 1024
		{"100.035Ki", "102435840m"}, // fraction prints as DecimalSI
		{"0.05Gi", "53687091200m"},
		{"8Ei", "9223372036854775807"}, // capped, odd
		{"-8Ei", "-9223372036854775807"},
		{"7Ei", "7Ei"},
		{"0Ki", "0"},
		{"-0", "0"},
		// Huge and tiny values.
		{"9E", "9E"},
		{"100000000000000000000", "100E"},
		{"18446744073709551616", "18446744073709551616"},
		{"1e10000", "10e9999"},
		{"12345678901234567890123", "12345678901234567890123"},
		{"1.23456789012345678901e30", "1234567890123456789010e9"},
		{"1234567890123456789000000k", "1234567890123456789G"},
		{"1e-2147483648", "1e-9"},
		{"0.1n", "1n"},
		{"-0.1n", "-1n"},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err != nil {
			t.Errorf("ParseQuantity(%q): %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("ParseQuantity(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		if got := fmt.Sprint(q); got != tt.want {
			t.Errorf("fmt.Sprint(ParseQuantity(%q)) = %q, want %q", tt.in, got, tt.want)
		}
		// Negative versions print with a leading "-".
		if q.IsZero() || strings.HasPrefix(tt.in, "-") {
			continue
		}
		nq, err := ParseQuantity("-" + strings.TrimPrefix(tt.in, "+"))
		if err != nil {
			t.Errorf("ParseQuantity(-%q): %v", tt.in, err)
			continue
		}
		if got := nq.String(); got != "-"+tt.want {
			t.Errorf("ParseQuantity(-%q).String() = %q, want %q", tt.in, got, "-"+tt.want)
		}
	}
}

func TestConstructorsString(t *testing.T) {
	tests := []struct {
		name string
		q    Quantity
		want string
	}{
		{"Milli 1", NewMilliQuantity(1, DecimalSI), "1m"},
		{"Milli 1000", NewMilliQuantity(1000, DecimalSI), "1"},
		{"Milli 1234000", NewMilliQuantity(1234000, DecimalSI), "1234"},
		{"Milli 1024 bin", NewMilliQuantity(1024, BinarySI), "1024m"},
		{"Milli 1e6 invalid", NewMilliQuantity(1000000, "invalidFormatDefaultsToExponent"), "1e3"},
		{"Milli 1Mi bin", NewMilliQuantity(1024*1024, BinarySI), "1048576m"},
		{"New 1", NewQuantity(1, DecimalSI), "1"},
		{"New 1000", NewQuantity(1000, DecimalSI), "1k"},
		{"New 1234000", NewQuantity(1234000, DecimalSI), "1234k"},
		{"New 1024 bin", NewQuantity(1024, BinarySI), "1Ki"},
		{"New 1e6 invalid", NewQuantity(1000000, "invalidFormatDefaultsToExponent"), "1e6"},
		{"New 1Mi bin", NewQuantity(1024*1024, BinarySI), "1Mi"},
		{"New 5 empty format", NewQuantity(5000, ""), "5e3"},
		{"New 5 bin", NewQuantity(5, BinarySI), "5"},
		{"New min bin", NewQuantity(math.MinInt64, BinarySI), "-8Ei"},
		{"New max bin", NewQuantity(math.MaxInt64, BinarySI), "9223372036854775807"},
		{"New max dec", NewQuantity(math.MaxInt64, DecimalSI), "9223372036854775807"},
		{"New min dec", NewQuantity(math.MinInt64, DecimalSI), "-9223372036854775808"},
		{"Scaled 1n", NewScaledQuantity(1, -9), "1n"},
		{"Scaled 1000n", NewScaledQuantity(1000, -9), "1u"},
		{"Scaled 1u", NewScaledQuantity(1, -6), "1u"},
		{"Scaled 1000u", NewScaledQuantity(1000, -6), "1m"},
		{"Scaled 1m", NewScaledQuantity(1, -3), "1m"},
		{"Scaled 1000m", NewScaledQuantity(1000, -3), "1"},
		{"Scaled 1", NewScaledQuantity(1, 0), "1"},
		{"Scaled 0n", NewScaledQuantity(0, -9), "0"},
		{"Scaled 0", NewScaledQuantity(0, 0), "0"},
		{"Scaled 1e21", NewScaledQuantity(1, 21), "1e21"},
		{"Scaled 1e-12", NewScaledQuantity(1, -12), "1e-12"},
		{"Scaled 2e-10", NewScaledQuantity(2, -10), "200e-12"},
		{"Scaled big", NewScaledQuantity(math.MaxInt64, 2), "922337203685477580700"},
		{"Zero value", Quantity{}, "0"},
	}
	for _, tt := range tests {
		if got := tt.q.String(); got != tt.want {
			t.Errorf("%s: String() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseQuantityErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `resource: quantity "": empty`},
		{"1.2.3", `resource: quantity "1.2.3": invalid number`},
		{"12Q", `resource: quantity "12Q": unknown suffix "Q"`},
		{"1e99999", `resource: quantity "1e99999": exponent out of range`},
		{"1e10001", `resource: quantity "1e10001": exponent out of range`},
		{"1e-2147483649", `resource: quantity "1e-2147483649": exponent out of range`},
		{"1e2147483648", `resource: quantity "1e2147483648": exponent out of range`},
		{"100e9999", `resource: quantity "100e9999": exponent out of range`},
		{"10e10000", `resource: quantity "10e10000": exponent out of range`},
		// Input past 64 bytes is quoted by its first 64 bytes and its length.
		{"1" + strings.Repeat("0", 10001), `resource: quantity "1` + strings.Repeat("0", 63) + `"… (10002 bytes): exponent out of range`},
		{"-1" + strings.Repeat("0", 9998) + "k", `resource: quantity "-1` + strings.Repeat("0", 62) + `"… (10001 bytes): exponent out of range`},
		{"1" + strings.Repeat("x", 70), `resource: quantity "1` + strings.Repeat("x", 63) + `"… (71 bytes): unknown suffix "` + strings.Repeat("x", 64) + `"… (70 bytes)`},
		{"1E99999999999999999999999", `resource: quantity "1E99999999999999999999999": exponent out of range`},
		// Kubernetes' invalid inputs.
		{"1.1.M", `resource: quantity "1.1.M": invalid number`},
		{"1+1.0M", `resource: quantity "1+1.0M": unknown suffix "+1.0M"`},
		{"0.1mi", `resource: quantity "0.1mi": unknown suffix "mi"`},
		{"0.1am", `resource: quantity "0.1am": unknown suffix "am"`},
		{"aoeu", `resource: quantity "aoeu": invalid number`},
		{".5i", `resource: quantity ".5i": unknown suffix "i"`},
		{"1i", `resource: quantity "1i": unknown suffix "i"`},
		{"-3.01i", `resource: quantity "-3.01i": unknown suffix "i"`},
		{"-3.01e-", `resource: quantity "-3.01e-": unknown suffix "e-"`},
		{" 1", `resource: quantity " 1": invalid number`},
		{"1 ", `resource: quantity "1 ": unknown suffix " "`},
		{"Non-Numeric", `resource: quantity "Non-Numeric": invalid number`},
		// Bare suffixes and signs: Kubernetes' scanner accepts these as 0,
		// its grammar (and ours) does not.
		{".", `resource: quantity ".": invalid number`},
		{"-", `resource: quantity "-": invalid number`},
		{"+", `resource: quantity "+": invalid number`},
		{"-.", `resource: quantity "-.": invalid number`},
		{"k", `resource: quantity "k": invalid number`},
		{"Ki", `resource: quantity "Ki": invalid number`},
		{"e3", `resource: quantity "e3": invalid number`},
		{"--1", `resource: quantity "--1": invalid number`},
		// Other malformed suffixes.
		{"1e", `resource: quantity "1e": unknown suffix "e"`},
		{"1E+", `resource: quantity "1E+": unknown suffix "E+"`},
		{"1e3.5", `resource: quantity "1e3.5": unknown suffix "e3.5"`},
		{"1ee3", `resource: quantity "1ee3": unknown suffix "ee3"`},
		{"1K", `resource: quantity "1K": unknown suffix "K"`},
		{"1KI", `resource: quantity "1KI": unknown suffix "KI"`},
		{"1ki", `resource: quantity "1ki": unknown suffix "ki"`},
		{"1Mib", `resource: quantity "1Mib": unknown suffix "Mib"`},
		{"1e1_0", `resource: quantity "1e1_0": unknown suffix "e1_0"`},
		{"0x10", `resource: quantity "0x10": unknown suffix "x10"`},
		{"1\x00", `resource: quantity "1\x00": unknown suffix "\x00"`},
		{"١", `resource: quantity "١": invalid number`},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err == nil {
			t.Errorf("ParseQuantity(%q) = %s, want error %s", tt.in, q, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("ParseQuantity(%q) error = %s, want %s", tt.in, err, tt.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("ParseQuantity(%q) error %T is not a *ParseError", tt.in, err)
			continue
		}
		if pe.Input != tt.in {
			t.Errorf("ParseQuantity(%q): Input = %q", tt.in, pe.Input)
		}
		if !q.IsZero() {
			t.Errorf("ParseQuantity(%q) returned non-zero %s with an error", tt.in, q)
		}
	}
}

func TestParseErrorFields(t *testing.T) {
	_, err := ParseQuantity("12Q")
	want := &ParseError{Input: "12Q", Reason: `unknown suffix "Q"`}
	var got *ParseError
	if !errors.As(err, &got) {
		t.Fatalf("error %T is not a *ParseError", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseError mismatch (-want +got):\n%s", diff)
	}
	for in, reason := range map[string]string{
		"":        "empty",
		"1.2.3":   "invalid number",
		"1e20000": "exponent out of range",
	} {
		_, err := ParseQuantity(in)
		if !errors.As(err, &got) || got.Reason != reason {
			t.Errorf("ParseQuantity(%q) = %v, want Reason %q", in, err, reason)
		}
	}
}

func TestMustParse(t *testing.T) {
	if got := MustParse("1Gi").Value(); got != 1<<30 {
		t.Errorf("MustParse(1Gi).Value() = %d", got)
	}
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok {
			t.Fatalf("MustParse did not panic with an error: %v", r)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Input != "Non-Numeric" {
			t.Errorf("MustParse panic = %v", err)
		}
	}()
	MustParse("Non-Numeric")
}

func TestValueRounding(t *testing.T) {
	tests := []struct {
		in           string
		value, milli int64
	}{
		{"0", 0, 0},
		{"1", 1, 1000},
		{"1.5", 2, 1500},
		{"-1.5", -2, -1500},
		{"0.5", 1, 500},
		{"-0.5", -1, -500},
		{"1.1", 2, 1100},
		{"100m", 1, 100},
		{"-100m", -1, -100},
		{"0.1m", 1, 1},
		{"-0.1m", -1, -1},
		{"1n", 1, 1},
		{"-1n", -1, -1},
		{"0.1n", 1, 1},
		{"-0.1n", -1, -1},
		{"1001u", 1, 2},
		{"-1001u", -1, -2},
		{"9.01", 10, 9010},
		{"-9.01", -10, -9010},
		{"1Ki", 1024, 1024000},
		{"1.5Ki", 1536, 1536000},
		{"100.035Ki", 102436, 102435840},
		{"-100.035Ki", -102436, -102435840},
		{"1e3", 1000, 1000000},
		{"1.1E-9", 1, 1},
		// Beyond int64: saturate.
		{"9E", 9000000000000000000, math.MaxInt64},
		{"-9E", -9000000000000000000, math.MinInt64},
		{"9223372036854775807", math.MaxInt64, math.MaxInt64},
		{"9223372036854775808", math.MaxInt64, math.MaxInt64},
		{"-9223372036854775808", math.MinInt64, math.MinInt64},
		{"-9223372036854775809", math.MinInt64, math.MinInt64},
		{"10E", math.MaxInt64, math.MaxInt64},
		{"100000000000000000000", math.MaxInt64, math.MaxInt64},
		{"-100000000000000000000", math.MinInt64, math.MinInt64},
		{"8Ei", math.MaxInt64, math.MaxInt64},
		{"-8Ei", -math.MaxInt64, math.MinInt64},
		{"9223372036854775.807", 9223372036854776, math.MaxInt64},
		{"9223372036854775.807123", 9223372036854776, math.MaxInt64},
		{"9223372036854775.806", 9223372036854776, 9223372036854775806},
		{"1e10000", math.MaxInt64, math.MaxInt64},
		{"-1e10000", math.MinInt64, math.MinInt64},
		{"123456789012345678901234.1n", 123456789012346, 123456789012345679},
		{"-123456789012345678901234.1n", -123456789012346, -123456789012345679},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err != nil {
			t.Errorf("ParseQuantity(%q): %v", tt.in, err)
			continue
		}
		if got := q.Value(); got != tt.value {
			t.Errorf("%q.Value() = %d, want %d", tt.in, got, tt.value)
		}
		if got := q.MilliValue(); got != tt.milli {
			t.Errorf("%q.MilliValue() = %d, want %d", tt.in, got, tt.milli)
		}
	}
}

func TestScaledValue(t *testing.T) {
	// Kubernetes TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to).
	tests := []struct {
		from, to int32
		want     int64
	}{
		{-9, -9, 1},
		{-9, -6, 1},
		{-9, -3, 1},
		{-9, 0, 1},
		{-6, -9, 1000},
		{-6, -6, 1},
		{-6, -3, 1},
		{-6, 0, 1},
		{-3, -9, 1000 * 1000},
		{-3, -6, 1000},
		{-3, -3, 1},
		{-3, 0, 1},
		{0, -9, 1000 * 1000 * 1000},
		{0, -6, 1000 * 1000},
		{0, -3, 1000},
		{0, 0, 1},
		{2, -2, 100 * 100},
		{0, 40, 1},
		{0, math.MaxInt32, 1},
		{0, math.MinInt32, math.MaxInt64},
		{math.MaxInt32, math.MinInt32, math.MaxInt64},
		{math.MinInt32, math.MaxInt32, 1},
		{18, 0, 1000000000000000000},
		{19, 0, math.MaxInt64},
	}
	for _, tt := range tests {
		q := NewScaledQuantity(1, tt.from)
		if got := q.ScaledValue(tt.to); got != tt.want {
			t.Errorf("NewScaledQuantity(1, %d).ScaledValue(%d) = %d, want %d", tt.from, tt.to, got, tt.want)
		}
		if got := q.Neg().ScaledValue(tt.to); got != -tt.want && !(tt.want == math.MaxInt64 && got == math.MinInt64) {
			t.Errorf("NewScaledQuantity(-1, %d).ScaledValue(%d) = %d, want %d", tt.from, tt.to, got, -tt.want)
		}
	}
	// Kubernetes TestQuantityRoundUp: "9.01" rounded up at scale s.
	round := []struct {
		in    string
		scale int32
		want  int64
	}{
		{"9.01", -3, 9010},
		{"9.01", -2, 901},
		{"9.01", -1, 91},
		{"9.01", 0, 10},
		{"9.01", 1, 1},
		{"9.01", 2, 1},
		{"-9.01", -3, -9010},
		{"-9.01", -2, -901},
		{"-9.01", -1, -91},
		{"-9.01", 0, -10},
		{"-9.01", 1, -1},
		{"-9.01", 2, -1},
	}
	for _, tt := range round {
		if got := MustParse(tt.in).ScaledValue(tt.scale); got != tt.want {
			t.Errorf("%q.ScaledValue(%d) = %d, want %d", tt.in, tt.scale, got, tt.want)
		}
	}
}

func TestCmp(t *testing.T) {
	tests := []struct {
		x, y string
		want int
	}{
		{"0", "0", 0},
		{"100m", "50m", 1},
		{"50m", "100m", -1},
		{"10000T", "100Gi", 1},
		{"1", "1000m", 0},
		{"1Ki", "1024", 0},
		{"1k", "1Ki", -1},
		{"1e3", "1k", 0},
		{"-1", "1", -1},
		{"0", "-0", 0},
		{"0Ki", "0", 0},
		{"1n", "0.1n", 0},
		{"8Ei", "9223372036854775807", 0},
		{"8Ei", "9223372036854775808", -1},
		{"9E", "8Ei", -1},
		{"100000000000000000000", "99999999999999999999", 1},
		{"100000000000000000000", "100E", 0},
		{"-100000000000000000000", "-99999999999999999999", -1},
		{"1e10000", "1e9999", 1},
		{"1e10000", "-1e10000", 1},
		{"1e-2147483648", "1n", 0},
		{"123456789012345678901234567890", "123456789012345678901234567891", -1},
		{"123456789012345678901234567890", "123456789012345678901234567.89k", 0},
	}
	for _, tt := range tests {
		x, y := MustParse(tt.x), MustParse(tt.y)
		if got := x.Cmp(y); got != tt.want {
			t.Errorf("%q.Cmp(%q) = %d, want %d", tt.x, tt.y, got, tt.want)
		}
		if got := y.Cmp(x); got != -tt.want {
			t.Errorf("%q.Cmp(%q) = %d, want %d", tt.y, tt.x, got, -tt.want)
		}
		if got := x.Equal(y); got != (tt.want == 0) {
			t.Errorf("%q.Equal(%q) = %t", tt.x, tt.y, got)
		}
	}

	// Kubernetes TestQuantityCmpInt64AndDec (intQuantity(v, scale)).
	const e18 = 1000000 * 1000000 * 1000000
	scaled := []struct {
		a, b Quantity
		want int
	}{
		{NewScaledQuantity(901, -2), NewScaledQuantity(901, -2), 0},
		{NewScaledQuantity(90, -1), NewScaledQuantity(901, -2), -1},
		{NewScaledQuantity(901, -2), NewScaledQuantity(900, -2), 1},
		{NewScaledQuantity(0, 0), NewScaledQuantity(0, 0), 0},
		{NewScaledQuantity(0, 1), NewScaledQuantity(0, -1), 0},
		{NewScaledQuantity(0, -1), NewScaledQuantity(0, 1), 0},
		{NewScaledQuantity(800, -3), NewScaledQuantity(1, 0), -1},
		{NewScaledQuantity(800, -3), NewScaledQuantity(79, -2), 1},
		{NewScaledQuantity(math.MaxInt64, 0), NewScaledQuantity(1, -1), 1},
		{NewScaledQuantity(math.MaxInt64, 1), NewScaledQuantity(1, 0), 1},
		{NewScaledQuantity(math.MaxInt64, 1), NewScaledQuantity(1, 1), 1},
		{NewScaledQuantity(math.MaxInt64, 1), NewScaledQuantity(0, 1), 1},
		{NewScaledQuantity(math.MaxInt64, -16), NewScaledQuantity(1, 3), -1},
		{NewScaledQuantity(math.MinInt64, 0), NewScaledQuantity(0, 0), -1},
		{NewScaledQuantity(math.MinInt64, -18), NewScaledQuantity(-1, 0), -1},
		{NewScaledQuantity(math.MinInt64, -19), NewScaledQuantity(-1, 0), 1},
		{NewScaledQuantity(e18, -17), NewScaledQuantity(1, 1), 0},
		{NewScaledQuantity(e18, -17), NewScaledQuantity(-10, 0), 1},
		{NewScaledQuantity(-e18, -17), NewScaledQuantity(-10, 0), 0},
		{NewScaledQuantity(e18, -17), NewScaledQuantity(1, 0), 1},
		{NewScaledQuantity(e18+1, -17), NewScaledQuantity(1, 1), 1},
		{NewScaledQuantity(e18-1, -17), NewScaledQuantity(1, 1), -1},
		// Scales far apart are decided without aligning.
		{NewScaledQuantity(1, math.MaxInt32), NewScaledQuantity(math.MaxInt64, math.MinInt32), 1},
		{NewScaledQuantity(-1, math.MaxInt32), NewScaledQuantity(-1, math.MinInt32), -1},
	}
	for i, tt := range scaled {
		if got := tt.a.Cmp(tt.b); got != tt.want {
			t.Errorf("[%d] %s.Cmp(%s) = %d, want %d", i, tt.a, tt.b, got, tt.want)
		}
		if got := tt.b.Cmp(tt.a); got != -tt.want {
			t.Errorf("[%d] %s.Cmp(%s) = %d, want %d", i, tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestAddSubNeg(t *testing.T) {
	tests := []struct {
		a, b      Quantity
		sum, diff string
		sumFormat Format
	}{
		// Kubernetes TestAdd / TestSub.
		{NewQuantity(10, DecimalSI), NewScaledQuantity(1, 1), "20", "0", DecimalSI},
		{NewQuantity(10, DecimalSI), NewQuantity(1, BinarySI), "11", "9", DecimalSI},
		{NewQuantity(10, BinarySI), NewQuantity(1, DecimalSI), "11", "9", BinarySI},
		{Quantity{}, NewQuantity(50, DecimalSI), "50", "-50", DecimalSI},
		{NewQuantity(50, DecimalSI), Quantity{}, "50", "50", DecimalSI},
		{Quantity{}, Quantity{}, "0", "0", ""},
		// A zero receiver takes the other operand's format.
		{MustParse("0"), MustParse("100m"), "100m", "-100m", DecimalSI},
		{MustParse("0"), MustParse("1Gi"), "1Gi", "-1Gi", BinarySI},
		{MustParse("100m"), MustParse("0"), "100m", "100m", DecimalSI},
		{MustParse("1Gi"), MustParse("0"), "1Gi", "1Gi", BinarySI},
		{MustParse("0Ki"), MustParse("1k"), "1k", "-1k", DecimalSI},
		// Mixed scales and formats.
		{MustParse("1Gi"), MustParse("512Mi"), "1536Mi", "512Mi", BinarySI},
		{MustParse("1Gi"), MustParse("1"), "1073741825", "1073741823", BinarySI},
		{MustParse("1Gi"), MustParse("0.5"), "1073741824500m", "1073741823500m", BinarySI},
		{MustParse("1.5"), MustParse("1n"), "1500000001n", "1499999999n", DecimalSI},
		{MustParse("1e3"), MustParse("1"), "1001", "999", DecimalExponent},
		// Beyond int64.
		{MustParse("9E"), MustParse("9E"), "18E", "0", DecimalSI},
		{MustParse("4Ei"), MustParse("4Ei"), "8Ei", "0", BinarySI},
		{NewQuantity(math.MaxInt64, DecimalSI), NewQuantity(1, DecimalSI), "9223372036854775808", "9223372036854775806", DecimalSI},
		{NewQuantity(math.MinInt64, DecimalSI), NewQuantity(1, DecimalSI), "-9223372036854775807", "-9223372036854775809", DecimalSI},
		{NewQuantity(1, DecimalSI), NewQuantity(math.MinInt64, DecimalSI), "-9223372036854775807", "9223372036854775809", DecimalSI},
		{NewScaledQuantity(1, 1), NewQuantity(math.MinInt64, DecimalSI), "-9223372036854775798", "9223372036854775818", DecimalSI},
		{NewScaledQuantity(1, -3), NewScaledQuantity(math.MinInt64, -3), "-9223372036854775807m", "9223372036854775809m", DecimalSI},
		{MustParse("100000000000000000000"), MustParse("-100000000000000000000"), "0", "200E", DecimalSI},
		// 2^70 has no binary suffix of its own: Kubernetes would print "1";
		// we print "1024Ei". 1024 - (2^70 - 1024) = -(2^60 - 2) Ki.
		{NewQuantity(1024, BinarySI), MustParse("1180591620717411302400"), "1024Ei", "-1152921504606846974Ki", BinarySI},
		{NewQuantity(1<<60, BinarySI), MustParse("1208924666693124567859200"), "1048576Ei", "-1048574Ei", BinarySI},
		// 1e20 ± 1n is 1e29 ± 1 nano units; 1e-30 rounds up to 1n.
		{MustParse("100000000000000000000"), MustParse("1n"), "1" + strings.Repeat("0", 28) + "1n", strings.Repeat("9", 29) + "n", DecimalSI},
		{MustParse("1e30"), MustParse("1e-30"), "1" + strings.Repeat("0", 38) + "1e-9", strings.Repeat("9", 39) + "e-9", DecimalExponent},
	}
	for i, tt := range tests {
		aBefore, bBefore := tt.a.String(), tt.b.String()
		sum := tt.a.Add(tt.b)
		if got := sum.String(); got != tt.sum {
			t.Errorf("[%d] %s + %s = %s, want %s", i, tt.a, tt.b, got, tt.sum)
		}
		if sum.Format() != tt.sumFormat {
			t.Errorf("[%d] (%s + %s).Format() = %q, want %q", i, tt.a, tt.b, sum.Format(), tt.sumFormat)
		}
		diff := tt.a.Sub(tt.b)
		if got := diff.String(); got != tt.diff {
			t.Errorf("[%d] %s - %s = %s, want %s", i, tt.a, tt.b, got, tt.diff)
		}
		if diff.Format() != tt.sumFormat {
			t.Errorf("[%d] (%s - %s).Format() = %q, want %q", i, tt.a, tt.b, diff.Format(), tt.sumFormat)
		}
		// Value semantics: the operands are unchanged.
		if tt.a.String() != aBefore || tt.b.String() != bBefore {
			t.Errorf("[%d] Add/Sub modified an operand: %s, %s", i, tt.a, tt.b)
		}
		// Round trips.
		if got := sum.Sub(tt.b); !got.Equal(tt.a) {
			t.Errorf("[%d] (%s + %s) - %s = %s", i, tt.a, tt.b, tt.b, got)
		}
		if got := diff.Add(tt.b); !got.Equal(tt.a) {
			t.Errorf("[%d] (%s - %s) + %s = %s", i, tt.a, tt.b, tt.b, got)
		}
	}

	negs := []struct {
		q    Quantity
		want string
	}{
		{MustParse("9.01"), "-9010m"},
		{Quantity{}, "0"},
		{NewQuantity(10, BinarySI), "-10"},
		{NewQuantity(-1024, BinarySI), "1Ki"},
		{NewQuantity(math.MinInt64, DecimalSI), "9223372036854775808"},
		{NewScaledQuantity(math.MinInt64, -3), "9223372036854775808m"},
		{NewQuantity(math.MinInt64, BinarySI), "8Ei"},
		{MustParse("-9223372036854775808").Neg().Neg(), "9223372036854775808"},
	}
	for _, tt := range negs {
		n := tt.q.Neg()
		if got := n.String(); got != tt.want {
			t.Errorf("-(%s) = %s, want %s", tt.q, got, tt.want)
		}
		if n.Format() != tt.q.Format() {
			t.Errorf("-(%s) changed format to %q", tt.q, n.Format())
		}
		if !n.Neg().Equal(tt.q) {
			t.Errorf("-(-(%s)) = %s", tt.q, n.Neg())
		}
	}

	// Kubernetes TestZeroSubMostNegativeInheritsFormat.
	z := Quantity{f: DecimalSI}.Sub(NewQuantity(math.MinInt64, BinarySI))
	if z.Format() != BinarySI || z.String() != "8Ei" || !z.Equal(MustParse("9223372036854775808")) {
		t.Errorf("0 - MinInt64 (BinarySI) = %s (%s)", z, z.Format())
	}
}

func TestSignIsZero(t *testing.T) {
	tests := []struct {
		in   string
		sign int
	}{
		{"0", 0}, {"-0", 0}, {"0Ki", 0}, {"0.000e5", 0},
		{"1n", 1}, {"-1n", -1}, {"0.1n", 1}, {"-0.1n", -1},
		{"100000000000000000000", 1}, {"-100000000000000000000", -1},
	}
	for _, tt := range tests {
		q := MustParse(tt.in)
		if q.Sign() != tt.sign || q.IsZero() != (tt.sign == 0) {
			t.Errorf("%q: Sign() = %d, IsZero() = %t", tt.in, q.Sign(), q.IsZero())
		}
	}
	var zero Quantity
	if !zero.IsZero() || zero.Sign() != 0 || zero.Value() != 0 || zero.MilliValue() != 0 ||
		zero.String() != "0" || zero.Format() != "" || zero.AsApproximateFloat64() != 0 {
		t.Errorf("zero value misbehaves: %#v", zero)
	}
}

func TestAsApproximateFloat64(t *testing.T) {
	tests := []struct {
		q    Quantity
		want float64
	}{
		{MustParse("0"), 0},
		{MustParse("1"), 1},
		{MustParse("2Ki"), 2048},
		{MustParse("1.1Ki"), 1126.4},
		{MustParse("1Mi"), 1.048576e+06},
		{MustParse("2Gi"), 2.147483648e+09},
		{NewScaledQuantity(7*1024*1024, 1), 7 * 1024 * 1024 * 10},
		{NewScaledQuantity(7*1024*1024, 8), 7 * 1024 * 1024 * 100000000},
		{NewScaledQuantity(7*1024*1024, -8), 7 * 1024 * 1024 / float64(100000000)},
		// Kubernetes returns 7340032*math.Pow10(-1) = 734003.2000000001 here;
		// we return the correctly rounded value.
		{NewScaledQuantity(7*1024*1024, -1), 734003.2},
		{NewQuantity(math.MaxInt64, DecimalSI), math.MaxInt64},
		{MustParse("8Ei"), math.MaxInt64},
		{NewScaledQuantity(12, 18), 1.2e19},
		{NewScaledQuantity(12, 500), math.Inf(1)},
		{NewScaledQuantity(-12, 500), math.Inf(-1)},
		{MustParse("1e10000"), math.Inf(1)},
		{MustParse("-100m"), -0.1},
		{MustParse("1n"), 1e-9},
		{MustParse("123456789012345678901234567890"), 1.2345678901234568e29},
		{NewScaledQuantity(1, -400), 0},
	}
	for _, tt := range tests {
		if got := tt.q.AsApproximateFloat64(); got != tt.want {
			t.Errorf("%s.AsApproximateFloat64() = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	type doc struct {
		Q   Quantity  `json:"q"`
		P   *Quantity `json:"p,omitempty"`
		Arr []Quantity
	}
	in := doc{Q: MustParse("1.5Gi"), P: ptrTo(MustParse("-0.5")), Arr: []Quantity{MustParse("2000"), {}, MustParse("100000000000000000000")}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"q":"1536Mi","p":"-500m","Arr":["2k","0","100E"]}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
	}
	if out.Q.Format() != BinarySI {
		t.Errorf("format lost in round trip: %q", out.Q.Format())
	}
	// go-cmp uses Equal, so numerically equal quantities are equal.
	if !cmp.Equal(MustParse("1"), MustParse("1000m")) || cmp.Equal(MustParse("1"), MustParse("1001m")) {
		t.Error("cmp.Equal does not use Quantity.Equal")
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestUnmarshalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		// Kubernetes TestJSONWhitespace.
		{`" 1"`, "1"},
		{`"1 "`, "1"},
		{`1`, "1"},
		{` 1`, "1"},
		{`1 `, "1"},
		{`10`, "10"},
		{`-1`, "-1"},
		{` -1`, "-1"},
		// Numbers and strings.
		{`1.5`, "1500m"},
		{`1e3`, "1e3"},
		{`1E-3`, "1e-3"},
		{`"1Gi"`, "1Gi"},
		{`"0"`, "0"},
		{`0`, "0"},
		{`100000000000000000000`, "100E"},
	}
	for _, tt := range tests {
		var q Quantity
		if err := json.Unmarshal([]byte(tt.in), &q); err != nil {
			t.Errorf("json.Unmarshal(%s): %v", tt.in, err)
			continue
		}
		if q.String() != tt.want {
			t.Errorf("json.Unmarshal(%s) = %s, want %s", tt.in, q, tt.want)
		}
	}

	// null sets the value to 0 and keeps the format, like Kubernetes.
	q := MustParse("1Gi")
	if err := json.Unmarshal([]byte(`null`), &q); err != nil || !q.IsZero() || q.Format() != BinarySI {
		t.Errorf("json.Unmarshal(null) = %s (%q), %v", q, q.Format(), err)
	}

	bad := []struct{ in, want string }{
		{`"12Q"`, `resource: quantity "12Q": unknown suffix "Q"`},
		{`""`, `resource: quantity "": empty`},
		{`true`, `resource: quantity "true": invalid number`},
		{`"\u0031"`, `resource: quantity "\\u0031": invalid number`}, // not unescaped, like Kubernetes
		{`{}`, `resource: quantity "{}": invalid number`},
	}
	for _, tt := range bad {
		var q Quantity
		err := q.UnmarshalJSON([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("UnmarshalJSON(%s) = %v, want %s", tt.in, err, tt.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("UnmarshalJSON(%s) error %T is not a *ParseError", tt.in, err)
		}
	}
	// Through encoding/json the error is passed on.
	var d struct{ Q Quantity }
	if err := json.Unmarshal([]byte(`{"Q":"1.2.3"}`), &d); err == nil || !strings.Contains(err.Error(), "invalid number") {
		t.Errorf("json.Unmarshal of a bad quantity: %v", err)
	}
}

func TestText(t *testing.T) {
	m := map[Quantity]int{MustParse("1Gi"): 1}
	b, err := json.Marshal(m)
	if err != nil || string(b) != `{"1Gi":1}` {
		t.Errorf("json.Marshal(map) = %s, %v", b, err)
	}
	for _, in := range []string{"1536Mi", "-500m", "0", "12e6", "100E", "1e21"} {
		q := MustParse(in)
		text, err := q.MarshalText()
		if err != nil || string(text) != in {
			t.Errorf("%s.MarshalText() = %q, %v", in, text, err)
		}
		var back Quantity
		if err := back.UnmarshalText(text); err != nil || !back.Equal(q) || back.String() != in {
			t.Errorf("UnmarshalText(%q) = %s, %v", text, back, err)
		}
	}
	var q Quantity
	if err := q.UnmarshalText([]byte(" 1")); err == nil {
		t.Error(`UnmarshalText(" 1") succeeded, want an error`)
	}
	if err := q.UnmarshalText(nil); err == nil || err.Error() != `resource: quantity "": empty` {
		t.Errorf("UnmarshalText(nil) = %v", err)
	}
}

func TestImmutableAndConcurrent(t *testing.T) {
	big1 := MustParse("123456789012345678901234567890")
	want := big1.String()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				s := big1.Add(big1).Sub(big1.Neg()).Add(MustParse("1n"))
				_ = s.String()
				_ = big1.Cmp(s)
				_ = big1.Value()
				_, _ = big1.MarshalJSON()
			}
		}()
	}
	wg.Wait()
	if big1.String() != want {
		t.Errorf("shared quantity changed: %s", big1)
	}
}

// qRatAwayFromZero returns r rounded to an integer away from zero.
func qRatAwayFromZero(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	return q
}

func qSaturate(i *big.Int) int64 {
	switch {
	case i.IsInt64():
		return i.Int64()
	case i.Sign() > 0:
		return math.MaxInt64
	}
	return math.MinInt64
}

var qTestFormats = []Format{DecimalSI, BinarySI, DecimalExponent}

// TestRapidMilliRoundTrip: for any milli value and format, the printed form
// parses back to an equal quantity with the same MilliValue.
func TestRapidMilliRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.Int64().Draw(t, "milli")
		f := rapid.SampledFrom(qTestFormats).Draw(t, "format")
		q := NewMilliQuantity(m, f)
		s := q.String()
		back, err := ParseQuantity(s)
		if err != nil {
			t.Fatalf("ParseQuantity(%q): %v", s, err)
		}
		if back.Cmp(q) != 0 {
			t.Fatalf("ParseQuantity(%q) = %s, want %d milli", s, back, m)
		}
		if got := back.MilliValue(); got != m {
			t.Fatalf("ParseQuantity(%q).MilliValue() = %d, want %d", s, got, m)
		}
		if back.String() != s {
			t.Fatalf("String not idempotent: %q -> %q", s, back.String())
		}
	})
}

// TestRapidArithmetic checks Cmp, Add, Sub, Neg, ScaledValue and String
// against exact big.Rat arithmetic.
func TestRapidArithmetic(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) Quantity {
		v := rapid.OneOf(rapid.Int64(), rapid.Int64Range(-5000, 5000)).Draw(t, "v")
		scale := rapid.Int32Range(-12, 25).Draw(t, "scale")
		f := rapid.SampledFrom(qTestFormats).Draw(t, "format")
		q := NewScaledQuantity(v, scale)
		q.f = f
		if rapid.Bool().Draw(t, "big") {
			q = q.Add(NewScaledQuantity(math.MaxInt64, scale)) // beyond int64
		}
		return q
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := gen.Draw(t, "a"), gen.Draw(t, "b")
		ra, rb := qTestRat(a), qTestRat(b)
		if got, want := a.Cmp(b), ra.Cmp(rb); got != want {
			t.Fatalf("%s.Cmp(%s) = %d, want %d", a, b, got, want)
		}
		if got, want := qTestRat(a.Add(b)), new(big.Rat).Add(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%s + %s = %s, want %s", a, b, a.Add(b), want.RatString())
		}
		if got, want := qTestRat(a.Sub(b)), new(big.Rat).Sub(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%s - %s = %s, want %s", a, b, a.Sub(b), want.RatString())
		}
		if got, want := qTestRat(a.Neg()), new(big.Rat).Neg(ra); got.Cmp(want) != 0 {
			t.Fatalf("-%s = %s", a, a.Neg())
		}
		scale := rapid.Int32Range(-30, 30).Draw(t, "to")
		want := qSaturate(qRatAwayFromZero(new(big.Rat).Quo(ra, qTestRat(NewScaledQuantity(1, scale)))))
		if got := a.ScaledValue(scale); got != want {
			t.Fatalf("%s.ScaledValue(%d) = %d, want %d", a, scale, got, want)
		}
		// String parses back to the same value unless it is finer than
		// nano (only NewScaledQuantity makes such values) or a BinarySI
		// value beyond 2^63-1 (ParseQuantity caps those, as Kubernetes).
		huge := ra.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0 || ra.Cmp(new(big.Rat).SetInt64(-math.MaxInt64)) < 0
		if a.exp >= qNanoExp && !(a.Format() == BinarySI && huge) {
			back, err := ParseQuantity(a.String())
			if err != nil || back.Cmp(a) != 0 {
				t.Fatalf("ParseQuantity(%q) = %s, %v", a.String(), back, err)
			}
		}
		fa, _ := ra.Float64()
		if got := a.AsApproximateFloat64(); got != fa {
			t.Fatalf("%s.AsApproximateFloat64() = %v, want %v", a, got, fa)
		}
	})
}

// TestRapidParse parses strings generated from the grammar and checks the
// value and format against a big.Rat model of the Kubernetes rules.
func TestRapidParse(t *testing.T) {
	decSuffixes := map[string]int{"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binSuffixes := map[string]uint{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	var suffixes []string
	for s := range decSuffixes {
		suffixes = append(suffixes, s)
	}
	for s := range binSuffixes {
		suffixes = append(suffixes, s)
	}
	suffixes = append(suffixes, "e#", "E#") // # stands for an exponent
	digitStr := rapid.StringMatching(`[0-9]{0,25}`)
	rapid.Check(t, func(t *rapid.T) {
		sign := rapid.SampledFrom([]string{"", "+", "-"}).Draw(t, "sign")
		intPart := digitStr.Draw(t, "int")
		dot := rapid.Bool().Draw(t, "dot")
		frac := ""
		if dot {
			frac = digitStr.Draw(t, "frac")
		}
		if intPart == "" && frac == "" {
			intPart = "0"
		}
		suffix := rapid.SampledFrom(suffixes).Draw(t, "suffix")
		exp := 0
		if strings.HasSuffix(suffix, "#") {
			exp = rapid.IntRange(-40, 40).Draw(t, "exp")
			suffix = suffix[:1] + fmt.Sprint(exp)
		}
		in := sign + intPart
		if dot {
			in += "." + frac
		}
		in += suffix

		// Model.
		u, _ := new(big.Int).SetString("0"+intPart+frac, 10)
		val := new(big.Rat).SetFrac(u, qPow10Big(int64(len(frac))))
		format := DecimalSI
		if e, ok := decSuffixes[suffix]; ok {
			exp = e
		} else if sh, ok := binSuffixes[suffix]; ok {
			format = BinarySI
			val.Mul(val, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), sh)))
			exp = 0
		} else {
			format = DecimalExponent
		}
		if exp >= 0 {
			val.Mul(val, new(big.Rat).SetInt(qPow10Big(int64(exp))))
		} else {
			val.Quo(val, new(big.Rat).SetInt(qPow10Big(int64(-exp))))
		}
		nano := new(big.Rat).Mul(val, new(big.Rat).SetInt(qPow10Big(9)))
		val.SetFrac(qRatAwayFromZero(nano), qPow10Big(9))
		if format == BinarySI {
			maxI := new(big.Rat).SetInt64(math.MaxInt64)
			if val.Cmp(maxI) > 0 {
				val = maxI
			}
			if val.Sign() > 0 && val.Cmp(big.NewRat(1, 1)) < 0 {
				format = DecimalSI
			}
		}
		if sign == "-" {
			val.Neg(val)
		}

		q, err := ParseQuantity(in)
		if err != nil {
			t.Fatalf("ParseQuantity(%q): %v", in, err)
		}
		if got := qTestRat(q); got.Cmp(val) != 0 {
			t.Fatalf("ParseQuantity(%q) = %s (%s), want %s", in, q, got.RatString(), val.RatString())
		}
		if q.Format() != format {
			t.Fatalf("ParseQuantity(%q).Format() = %q, want %q", in, q.Format(), format)
		}
		back, err := ParseQuantity(q.String())
		if err != nil || back.Cmp(q) != 0 {
			t.Fatalf("ParseQuantity(%q) = %s, %v; want %s", q.String(), back, err, q)
		}
	})
}

func BenchmarkParseQuantity(b *testing.B) {
	inputs := []string{"100m", "1Gi", "2", "1.5", "500Mi", "12e6", "0.000000001", "100000000000000000000"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseQuantity(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQuantityString(b *testing.B) {
	qs := []Quantity{MustParse("100m"), MustParse("1Gi"), MustParse("1536Mi"), MustParse("12e6"), MustParse("100000000000000000000")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = qs[i%len(qs)].String()
	}
}

func BenchmarkQuantityAddCmp(b *testing.B) {
	x, y := MustParse("1.5"), MustParse("250m")
	b.ReportAllocs()
	for b.Loop() {
		if x.Add(y).Cmp(x) <= 0 {
			b.Fatal("bad sum")
		}
	}
}
