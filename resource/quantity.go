package resource

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Format is how a Quantity prints: DecimalSI ("500m", "4k"), BinarySI
// ("4Gi"), DecimalExponent ("4e3"). It matches Kubernetes resource.Format and
// uses the same string values.
type Format string

// The three formats a Quantity can print in. They match the Kubernetes
// constants of the same names.
const (
	// DecimalExponent prints the value with an "e" exponent that is a
	// multiple of 3, e.g. "12e6", "1e-3", or no exponent at all, e.g. "1500".
	DecimalExponent Format = "DecimalExponent"
	// BinarySI prints the value with a power-of-1024 suffix, e.g. "4Gi",
	// "1536Mi". Values in (-1024, 1024) and non-integers print as DecimalSI.
	BinarySI Format = "BinarySI"
	// DecimalSI prints the value with a power-of-1000 suffix, e.g. "500m",
	// "4k". Exponents beyond the suffixes ("n" to "E") print as "e<n>".
	DecimalSI Format = "DecimalSI"
)

// qMaxExponent is the largest decimal exponent (floor of log10 of the
// magnitude) of a decimal value ParseQuantity accepts: a DecimalSI or
// DecimalExponent value of 10^10001 or more in magnitude is rejected with
// reason "exponent out of range". Kubernetes accepts any exponent that fits
// an int64 and silently truncates it to int32; a value like "1e2000000000"
// is then representable, but adding anything to it needs billions of
// digits. The limit is on the value rather than on the written exponent so
// that the canonical form of every accepted value parses again ("1e10000"
// prints as "10e9999"; "100e9999" is 10^10001 and rejected). Tiny values need
// no limit: they are rounded up to 1n, as in Kubernetes. BinarySI values are
// capped at 2^63-1 instead.
const qMaxExponent = 10000

// qNanoExp is the finest decimal exponent ParseQuantity keeps (10^-9, "n").
const qNanoExp = -9

// Quantity is an exact decimal quantity with a preferred print format. It
// reproduces the semantics of Kubernetes
// k8s.io/apimachinery/pkg/api/resource.Quantity (parsing, canonical
// String form, rounding of Value/MilliValue, comparison and arithmetic), but
// it is an immutable value type: Add, Sub and Neg return a new Quantity
// instead of modifying the receiver.
//
// The zero value is 0 (with an empty Format, which prints like
// DecimalExponent, i.e. "0"). Quantities are safe to copy and to share
// between goroutines. Compare them with Cmp or Equal, not with ==: equal
// numbers may have different internal representations.
type Quantity struct {
	v   int64    // unscaled value when b == nil
	b   *big.Int // unscaled value when it does not fit an int64; never mutated
	exp int32    // the value is unscaled × 10^exp
	f   Format
}

// ParseError is the error ParseQuantity (and MustParse, UnmarshalJSON,
// UnmarshalText) reports for a malformed quantity string.
type ParseError struct {
	// Input is the string that failed to parse.
	Input string
	// Reason says why: "empty", "invalid number", `unknown suffix "Q"`, or
	// "exponent out of range".
	Reason string
}

// Error formats the error as `resource: quantity "<input>": <reason>`, e.g.
// `resource: quantity "12Q": unknown suffix "Q"`.
//
// An input longer than 64 bytes is quoted by its first 64 bytes and its
// length, so that an error about a huge value stays short; Input keeps it
// whole.
func (e *ParseError) Error() string {
	return "resource: quantity " + qQuote(e.Input) + ": " + e.Reason
}

// qMaxEcho bounds the bytes of an input value quoted in an error.
const qMaxEcho = 64

// qQuote quotes s for an error, cut to qMaxEcho bytes with its length said
// when longer.
func qQuote(s string) string {
	if len(s) <= qMaxEcho {
		return strconv.Quote(s)
	}
	return strconv.Quote(strings.ToValidUTF8(s[:qMaxEcho], "")) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// The ParseError reasons that are not parameterised.
const (
	qReasonEmpty       = "empty"
	qReasonNumber      = "invalid number"
	qReasonExpOutRange = "exponent out of range"
)

// qPow10 holds 10^0 … 10^18, the powers of ten that fit an int64.
var qPow10 = [19]int64{
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
	100000000000000, 1000000000000000, 10000000000000000,
	100000000000000000, 1000000000000000000,
}

var (
	qBigTen    = big.NewInt(10)
	qBigMaxI64 = big.NewInt(math.MaxInt64)
)

// ParseQuantity parses s the way Kubernetes resource.ParseQuantity does:
//
//	<quantity> ::= <sign>? <number> <suffix>
//	<number>   ::= <digits> | <digits> "." <digits>? | "." <digits>
//	<suffix>   ::= "" | n | u | m | k | M | G | T | P | E        (DecimalSI)
//	             | Ki | Mi | Gi | Ti | Pi | Ei                    (BinarySI)
//	             | ( "e" | "E" ) <sign>? <digits>                 (DecimalExponent)
//
// No whitespace is allowed. The value is kept exactly, except that a non-zero
// value finer than 1n is rounded away from zero to a whole number of nano
// units ("0.1n" is 1n), and that a BinarySI value is capped in magnitude at
// 2^63-1 ("8Ei" is 9223372036854775807). A BinarySI value strictly between -1
// and 1 (other than 0) switches to DecimalSI. The format of the result is the
// one of the suffix.
//
// Errors are *ParseError, with reason "empty", "invalid number", "unknown
// suffix", or "exponent out of range".
//
// Deliberate differences from Kubernetes: a number must have at least one
// digit, as Kubernetes' documented grammar says (its scanner parses ".",
// "+", "-", and a bare suffix such as "k" or "Ki" as 0); an exponent written
// after "e" must fit an int32 (Kubernetes silently truncates it to int32);
// and a DecimalSI or DecimalExponent value must be below 10^10001 in
// magnitude ("1e10000" parses, "1e10001" and "100e9999" do not), so that
// arithmetic on parsed values stays cheap.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, &ParseError{Input: s, Reason: qReasonEmpty}
	}
	i := 0
	neg := false
	switch s[0] {
	case '-':
		neg = true
		i++
	case '+':
		i++
	}
	// The number: the longest run of digits and dots.
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := s[intStart:i]
	var fracDigits string
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracDigits = s[fracStart:i]
	}
	if (intDigits == "" && fracDigits == "") || (i < len(s) && s[i] == '.') {
		return Quantity{}, &ParseError{Input: s, Reason: qReasonNumber}
	}
	suffix := s[i:]

	// The suffix.
	format := DecimalSI
	exp10 := int64(0) // decimal exponent from the suffix
	shift2 := uint(0) // binary exponent from the suffix
	switch suffix {
	case "":
	case "n":
		exp10 = -9
	case "u":
		exp10 = -6
	case "m":
		exp10 = -3
	case "k":
		exp10 = 3
	case "M":
		exp10 = 6
	case "G":
		exp10 = 9
	case "T":
		exp10 = 12
	case "P":
		exp10 = 15
	case "E":
		exp10 = 18
	case "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		format = BinarySI
		shift2 = 10 * uint(strings.IndexByte("KMGTPE", suffix[0])+1)
	default:
		e, reason := qParseExponent(suffix)
		if reason != "" {
			return Quantity{}, &ParseError{Input: s, Reason: reason}
		}
		format = DecimalExponent
		exp10 = e
	}

	// The significant digits are intDigits+fracDigits without leading
	// zeros (not concatenated unless needed); all zeros is 0 in the
	// suffix's format.
	exp := exp10 - int64(len(fracDigits))
	lead := 0
	for lead < len(intDigits) && intDigits[lead] == '0' {
		lead++
	}
	if lead == len(intDigits) {
		for lead-len(intDigits) < len(fracDigits) && fracDigits[lead-len(intDigits)] == '0' {
			lead++
		}
	}
	nsig := len(intDigits) + len(fracDigits) - lead
	if nsig == 0 {
		return Quantity{f: format}, nil
	}
	if format != BinarySI && int64(nsig)-1+exp > qMaxExponent {
		return Quantity{}, &ParseError{Input: s, Reason: qReasonExpOutRange}
	}

	// Fast path: the digits fit an int64 and no rounding or capping is needed.
	if nsig <= 18 {
		var d int64
		for k := lead; k < len(intDigits); k++ {
			d = d*10 + int64(intDigits[k]-'0')
		}
		for k := max(lead-len(intDigits), 0); k < len(fracDigits); k++ {
			d = d*10 + int64(fracDigits[k]-'0')
		}
		if neg {
			d = -d
		}
		if format != BinarySI {
			if exp >= qNanoExp {
				return Quantity{v: d, exp: int32(exp), f: format}, nil
			}
		} else if exp == 0 && d >= -(math.MaxInt64>>shift2) && d <= math.MaxInt64>>shift2 {
			return Quantity{v: d << shift2, f: format}, nil
		}
	}

	// General path, on the magnitude.
	u, ok := new(big.Int).SetString((intDigits + fracDigits)[lead:], 10)
	if !ok { // cannot happen: the digits are validated
		return Quantity{}, &ParseError{Input: s, Reason: qReasonNumber}
	}
	if shift2 > 0 {
		u.Lsh(u, shift2)
	}
	// Round a value finer than 1n away from zero to whole nano units.
	if exp < qNanoExp {
		down := qNanoExp - exp
		if down > int64(qDigitsUpper(u)) {
			u.SetInt64(1)
		} else {
			var r big.Int
			u.QuoRem(u, qPow10Big(down), &r)
			if r.Sign() != 0 {
				u.Add(u, big.NewInt(1))
			}
		}
		exp = qNanoExp
	}
	if format == BinarySI {
		// Here exp is in [-9, 0]. Cap the magnitude at 2^63-1.
		scaleUp := qPow10Big(-exp)
		limit := new(big.Int).Mul(qBigMaxI64, scaleUp)
		if u.Cmp(limit) > 0 {
			u.Set(qBigMaxI64)
			exp = 0
		} else if u.Cmp(scaleUp) < 0 {
			// A non-zero magnitude below 1 would lose everything if
			// printed in BinarySI.
			format = DecimalSI
		}
	}
	if neg {
		u.Neg(u)
	}
	return qFromBig(u, int32(exp), format), nil
}

// qParseExponent interprets a suffix that is not one of the SI suffixes: it
// must be "e" or "E" followed by an optionally signed decimal integer.
func qParseExponent(suffix string) (int64, string) {
	unknown := "unknown suffix " + qQuote(suffix)
	if len(suffix) < 2 || (suffix[0] != 'e' && suffix[0] != 'E') {
		return 0, unknown
	}
	t := suffix[1:]
	neg := false
	switch t[0] {
	case '-':
		neg = true
		t = t[1:]
	case '+':
		t = t[1:]
	}
	if t == "" {
		return 0, unknown
	}
	var e int64
	for k := 0; k < len(t); k++ {
		c := t[k]
		if c < '0' || c > '9' {
			return 0, unknown
		}
		if e <= math.MaxInt32+1 {
			e = e*10 + int64(c-'0')
		}
	}
	if neg {
		e = -e
	}
	if e > math.MaxInt32 || e < math.MinInt32 {
		return 0, qReasonExpOutRange
	}
	return e, ""
}

// MustParse is ParseQuantity for values known to be valid, such as constants
// in tests and examples: it panics with the *ParseError if s does not parse.
// Do not use it on input from users or the network.
func MustParse(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

// NewQuantity returns value in format f, like Kubernetes NewQuantity.
func NewQuantity(value int64, f Format) Quantity {
	return Quantity{v: value, f: f}
}

// NewMilliQuantity returns milli/1000 in format f, like Kubernetes
// NewMilliQuantity. BinarySI prints such a value as DecimalSI unless it is a
// whole number of at least 1024 in magnitude.
func NewMilliQuantity(milli int64, f Format) Quantity {
	return Quantity{v: milli, exp: -3, f: f}
}

// NewScaledQuantity returns value × 10^scale in DecimalSI format, like
// Kubernetes NewScaledQuantity. The value is kept exactly, even for a scale
// below -9 (which ParseQuantity would round to nano units). Adding or
// subtracting quantities whose scales differ by millions needs that many
// digits, so keep scales reasonable.
func NewScaledQuantity(value int64, scale int32) Quantity {
	return Quantity{v: value, exp: scale, f: DecimalSI}
}

// qFromBig returns u × 10^exp, using the int64 representation when u fits.
// u must not be modified afterwards.
func qFromBig(u *big.Int, exp int32, f Format) Quantity {
	if u.IsInt64() {
		return Quantity{v: u.Int64(), exp: exp, f: f}
	}
	return Quantity{b: u, exp: exp, f: f}
}

// qUnscaled returns the unscaled value; the result must not be modified.
func (q Quantity) qUnscaled() *big.Int {
	if q.b != nil {
		return q.b
	}
	return big.NewInt(q.v)
}

// qPow10Big returns 10^n for n >= 0.
func qPow10Big(n int64) *big.Int {
	if n < int64(len(qPow10)) {
		return big.NewInt(qPow10[n])
	}
	return new(big.Int).Exp(qBigTen, big.NewInt(n), nil)
}

// qDigitsUpper returns an upper bound on the number of decimal digits of u.
func qDigitsUpper(u *big.Int) int {
	return u.BitLen()*31/100 + 1
}

// qMagnitude returns lo, hi with 10^lo <= |q| < 10^hi for a non-zero q.
func (q Quantity) qMagnitude() (lo, hi int64) {
	var n int
	if q.b != nil {
		n = q.b.BitLen()
	} else {
		m := uint64(q.v)
		if q.v < 0 {
			m = -m
		}
		n = bits.Len64(m)
	}
	// 2^(n-1) <= |u| < 2^n and 0.30 < log10(2) < 0.31.
	return int64(n-1)*3/10 + int64(q.exp), int64(n)*31/100 + 1 + int64(q.exp)
}

// qMulPow10 returns v × 10^d, or false if that overflows an int64.
func qMulPow10(v int64, d int64) (int64, bool) {
	if v == 0 {
		return 0, true
	}
	if d < 0 || d >= int64(len(qPow10)) {
		return 0, false
	}
	p := qPow10[d]
	if v > math.MaxInt64/p || v < math.MinInt64/p {
		return 0, false
	}
	return v * p, true
}

// qAlign returns the unscaled values of q and o at their common (smaller)
// exponent, and that exponent. The results must not be modified.
func qAlign(q, o Quantity) (a, b *big.Int, exp int32) {
	a, b = q.qUnscaled(), o.qUnscaled()
	switch {
	case q.exp > o.exp:
		a = new(big.Int).Mul(a, qPow10Big(int64(q.exp)-int64(o.exp)))
		return a, b, o.exp
	case q.exp < o.exp:
		b = new(big.Int).Mul(b, qPow10Big(int64(o.exp)-int64(q.exp)))
	}
	return a, b, q.exp
}

// Value returns q rounded to an integer away from zero, like Kubernetes
// Value: "1.5" gives 2, "1n" gives 1, "-1.5" gives -2. A value outside the
// int64 range saturates to math.MaxInt64 or math.MinInt64, where
// Kubernetes (apimachinery v0.36) returns 0 ("1e20") or a wrapped value
// (a 20-digit number); readers of user input refuse such amounts
// (CheckAmount).
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue returns q × 1000 rounded to an integer away from zero, like
// Kubernetes MilliValue: "0.1m" gives 1, "-0.1m" gives -1. It saturates like
// Value.
func (q Quantity) MilliValue() int64 { return q.ScaledValue(-3) }

// ScaledValue returns q / 10^scale rounded to an integer away from zero, like
// Kubernetes ScaledValue: NewQuantity(1, DecimalSI).ScaledValue(-3) is 1000
// and MustParse("1n").ScaledValue(0) is 1. A result outside the int64 range
// saturates to math.MaxInt64 or math.MinInt64.
//
// Kubernetes rounds away from zero for quantities it holds as int64 (all the
// common ones) but, for a negative quantity it holds as an arbitrary
// precision decimal, it rounds toward +Inf (or worse); this implementation
// always rounds away from zero.
func (q Quantity) ScaledValue(scale int32) int64 {
	if v, ok := q.AsScaledInt64(scale); ok {
		return v
	}
	if q.Sign() < 0 {
		return math.MinInt64
	}
	return math.MaxInt64
}

// AsScaledInt64 returns q / 10^scale rounded to an integer away from zero,
// as ScaledValue does, and whether it fits an int64 (false where
// ScaledValue saturates).
func (q Quantity) AsScaledInt64(scale int32) (int64, bool) {
	sign := q.Sign()
	if sign == 0 {
		return 0, true
	}
	d := int64(q.exp) - int64(scale)
	if d >= 0 {
		if q.b != nil {
			return 0, false
		}
		return qMulPow10(q.v, d)
	}
	down := -d
	if q.b == nil {
		if down >= int64(len(qPow10)) {
			return int64(sign), true
		}
		p := qPow10[down]
		r := q.v / p
		if q.v%p != 0 {
			r += int64(sign) // |r| < 10^18, cannot overflow
		}
		return r, true
	}
	if down > int64(qDigitsUpper(q.b)) {
		return int64(sign), true
	}
	var quo, rem big.Int
	quo.QuoRem(q.b, qPow10Big(down), &rem)
	if rem.Sign() != 0 {
		quo.Add(&quo, big.NewInt(int64(sign)))
	}
	if quo.IsInt64() {
		return quo.Int64(), true
	}
	return 0, false
}

// Format returns the format q prints in. It is the format of the suffix q was
// parsed from, the format given to a constructor, or, for the result of Add
// or Sub, the receiver's format (the other operand's if the receiver was 0).
// The zero Quantity{} has the empty format "", as in Kubernetes.
func (q Quantity) Format() Format { return q.f }

// Cmp returns -1, 0 or 1 as q is numerically less than, equal to or greater
// than o, like Kubernetes Cmp. Formats are ignored.
func (q Quantity) Cmp(o Quantity) int {
	qs, os := q.Sign(), o.Sign()
	switch {
	case qs < os:
		return -1
	case qs > os:
		return 1
	case qs == 0:
		return 0
	}
	if q.b == nil && o.b == nil {
		x, y := q.v, o.v
		ok := true
		if q.exp > o.exp {
			x, ok = qMulPow10(x, int64(q.exp)-int64(o.exp))
		} else if q.exp < o.exp {
			y, ok = qMulPow10(y, int64(o.exp)-int64(q.exp))
		}
		if ok {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	// Settle what the magnitudes decide before aligning, which could need
	// as many digits as the exponents differ by.
	qlo, qhi := q.qMagnitude()
	olo, ohi := o.qMagnitude()
	if qlo >= ohi {
		return qs
	}
	if qhi <= olo {
		return -qs
	}
	a, b, _ := qAlign(q, o)
	return a.Cmp(b)
}

// Equal reports whether q and o are numerically equal (Cmp returns 0),
// ignoring their formats, like Kubernetes Equal. It lets
// github.com/google/go-cmp compare quantities.
func (q Quantity) Equal(o Quantity) bool { return q.Cmp(o) == 0 }

// IsZero reports whether q is 0, like Kubernetes IsZero.
func (q Quantity) IsZero() bool { return q.b == nil && q.v == 0 }

// Sign returns -1, 0 or 1 as q is negative, zero or positive, like
// Kubernetes Sign.
func (q Quantity) Sign() int {
	switch {
	case q.b != nil:
		return q.b.Sign()
	case q.v > 0:
		return 1
	case q.v < 0:
		return -1
	}
	return 0
}

// Add returns q + o, computed exactly. Unlike Kubernetes' Add, which modifies
// its receiver, it returns the sum. As in Kubernetes, the result has q's
// format, or o's format if q is 0, and values beyond int64 are kept exactly
// (no BinarySI cap applies). Adding values whose exponents differ by n needs
// about n digits.
func (q Quantity) Add(o Quantity) Quantity {
	f := q.f
	if q.IsZero() {
		f = o.f
		o.f = f
		return o
	}
	if o.IsZero() {
		return q
	}
	if q.b == nil && o.b == nil {
		x, y := q.v, o.v
		exp := q.exp
		ok := true
		if q.exp > o.exp {
			x, ok = qMulPow10(x, int64(q.exp)-int64(o.exp))
			exp = o.exp
		} else if q.exp < o.exp {
			y, ok = qMulPow10(y, int64(o.exp)-int64(q.exp))
		}
		if ok {
			s := x + y
			overflow := (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0)
			if !overflow {
				return Quantity{v: s, exp: exp, f: f}
			}
		}
	}
	a, b, exp := qAlign(q, o)
	return qFromBig(new(big.Int).Add(a, b), exp, f)
}

// Sub returns q - o, computed exactly. Unlike Kubernetes' Sub, which modifies
// its receiver, it returns the difference. The result has q's format, or o's
// format if q is 0, as in Kubernetes.
func (q Quantity) Sub(o Quantity) Quantity {
	return q.Add(o.Neg())
}

// Neg returns -q in q's format, like Kubernetes Neg (which modifies its
// receiver). Negating the most negative int64 is exact.
func (q Quantity) Neg() Quantity {
	switch {
	case q.b != nil:
		return qFromBig(new(big.Int).Neg(q.b), q.exp, q.f)
	case q.v == math.MinInt64:
		return Quantity{b: new(big.Int).Neg(big.NewInt(q.v)), exp: q.exp, f: q.f}
	}
	q.v = -q.v
	return q
}

// qPow10Float holds the powers of ten that are exact float64s.
var qPow10Float = [23]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// AsApproximateFloat64 returns the float64 nearest to q, or ±Inf if q is
// beyond the float64 range, like Kubernetes AsApproximateFloat64. (Kubernetes
// computes mantissa × 10^exponent in floating point and can be one unit in
// the last place off; this result is correctly rounded.)
func (q Quantity) AsApproximateFloat64() float64 {
	if q.b == nil {
		if q.v == 0 {
			return 0
		}
		if q.v >= -1<<53 && q.v <= 1<<53 {
			switch {
			case q.exp >= 0 && q.exp < int32(len(qPow10Float)):
				return float64(q.v) * qPow10Float[q.exp]
			case q.exp < 0 && -q.exp < int32(len(qPow10Float)):
				return float64(q.v) / qPow10Float[-q.exp]
			}
		}
	}
	s := q.qUnscaled().String() + "e" + strconv.FormatInt(int64(q.exp), 10)
	f, _ := strconv.ParseFloat(s, 64) // ±Inf on overflow, 0 on underflow
	return f
}

// String returns q in canonical form, the one Kubernetes CanonicalizeBytes
// produces:
//
//   - 0 is "0";
//   - DecimalSI: the largest power-of-1000 suffix that leaves a whole number,
//     e.g. "1.5" is "1500m", "2000" is "2k", "1000m" is "1"; values whose
//     exponent is beyond "E" (or below "n") use "e<n>", e.g. "1e21";
//   - DecimalExponent: the largest multiple-of-3 exponent that leaves a whole
//     number, e.g. "1e3", "12e6", "1500";
//   - BinarySI: the largest power-of-1024 suffix that leaves a whole number,
//     e.g. "1Gi", "1536Mi"; a value in (-1024, 1024) or with a fraction
//     prints as DecimalSI, e.g. "512", "1024m";
//   - any other format (including the zero value's "") prints as
//     DecimalExponent.
//
// ParseQuantity(q.String()) always succeeds and, for a parsed q, is equal to
// q. Kubernetes' String returns the parsed input itself when it looks
// canonical, so it prints "+1" for "+1" and "1.500k" for "1.500k"; this
// implementation always prints the canonical form ("1", "1500"). Kubernetes
// drops the suffix of a BinarySI value of 1024^7 or more ("1024Ei" would
// print as "1"); this implementation prints "1024Ei".
func (q Quantity) String() string {
	if q.IsZero() {
		return "0"
	}
	var buf [32]byte
	return string(q.qAppend(buf[:0]))
}

// qAppend appends q's canonical form (q non-zero) to out.
func (q Quantity) qAppend(out []byte) []byte {
	format := q.f
	switch format {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		if out, ok := q.qAppendBinary(out); ok {
			return out
		}
		format = DecimalSI
	default:
		format = DecimalExponent
	}

	// Decimal: remove factors of ten, then make the exponent a multiple of 3.
	if q.b == nil {
		m, e := q.v, int64(q.exp)
		for m%10 == 0 {
			m /= 10
			e++
		}
		r := ((e % 3) + 3) % 3
		if mm, ok := qMulPow10(m, r); ok {
			out = strconv.AppendInt(out, mm, 10)
			return qAppendDecSuffix(out, e-r, format)
		}
	}
	s := q.qUnscaled().String()
	e := int64(q.exp)
	t := len(s)
	for s[t-1] == '0' {
		t--
	}
	e += int64(len(s) - t)
	r := ((e % 3) + 3) % 3
	out = append(out, s[:t]...)
	out = append(out, "00"[:r]...)
	return qAppendDecSuffix(out, e-r, format)
}

// qAppendDecSuffix appends the suffix for the decimal exponent exp (a
// multiple of 3) in format DecimalSI or DecimalExponent.
func qAppendDecSuffix(out []byte, exp int64, format Format) []byte {
	if format == DecimalSI {
		switch exp {
		case -9:
			return append(out, 'n')
		case -6:
			return append(out, 'u')
		case -3:
			return append(out, 'm')
		case 0:
			return out
		case 3:
			return append(out, 'k')
		case 6:
			return append(out, 'M')
		case 9:
			return append(out, 'G')
		case 12:
			return append(out, 'T')
		case 15:
			return append(out, 'P')
		case 18:
			return append(out, 'E')
		}
		// No suffix this large or small: fall back to an exponent, as
		// Kubernetes does.
	}
	if exp == 0 {
		return out
	}
	out = append(out, 'e')
	return strconv.AppendInt(out, exp, 10)
}

// qAppendBinary appends q in BinarySI form, or reports false if q must print
// as DecimalSI instead (|q| < 1024, or q is not a whole number).
func (q Quantity) qAppendBinary(out []byte) ([]byte, bool) {
	if q.b == nil && q.exp <= 0 {
		n := q.v
		if q.exp < 0 {
			if -q.exp >= int32(len(qPow10)) {
				return out, false // |v| < 10^19 cannot be a multiple
			}
			p := qPow10[-q.exp]
			if n%p != 0 {
				return out, false
			}
			n /= p
		}
		m := uint64(n)
		if n < 0 {
			m = -m
		}
		if m < 1024 {
			return out, false
		}
		k := bits.TrailingZeros64(m) / 10
		if k > 6 {
			k = 6
		}
		m >>= 10 * uint(k)
		if n < 0 {
			out = append(out, '-')
		}
		out = strconv.AppendUint(out, m, 10)
		return append(out, qBinSuffix(k)...), true
	}
	// General case.
	n := new(big.Int).Set(q.qUnscaled())
	if q.exp > 0 {
		n.Mul(n, qPow10Big(int64(q.exp)))
	} else if q.exp < 0 {
		down := -int64(q.exp)
		if down > int64(qDigitsUpper(n)) {
			return out, false
		}
		var rem big.Int
		n.QuoRem(n, qPow10Big(down), &rem)
		if rem.Sign() != 0 {
			return out, false
		}
	}
	if n.CmpAbs(big.NewInt(1024)) < 0 {
		return out, false
	}
	neg := n.Sign() < 0
	n.Abs(n)
	k := int(n.TrailingZeroBits() / 10)
	if k > 6 {
		k = 6
	}
	n.Rsh(n, 10*uint(k))
	if neg {
		out = append(out, '-')
	}
	out = n.Append(out, 10)
	return append(out, qBinSuffix(k)...), true
}

// qBinSuffix returns the suffix for 1024^k, 0 <= k <= 6.
func qBinSuffix(k int) string {
	return [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}[k]
}

// MarshalJSON encodes q as a JSON string holding q.String(), like
// Kubernetes.
func (q Quantity) MarshalJSON() ([]byte, error) {
	if q.IsZero() {
		return []byte(`"0"`), nil
	}
	out := make([]byte, 1, 24)
	out[0] = '"'
	out = q.qAppend(out)
	return append(out, '"'), nil
}

// UnmarshalJSON decodes a JSON string ("1Gi") or a JSON number (1.5) with
// ParseQuantity, like Kubernetes: the surrounding quotes are removed without
// unescaping, leading and trailing white space is ignored, and null sets q to
// 0 (keeping q's format). Errors are *ParseError.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*q = Quantity{f: q.f}
		return nil
	}
	if l := len(data); l >= 2 && data[0] == '"' && data[l-1] == '"' {
		data = data[1 : l-1]
	}
	parsed, err := ParseQuantity(strings.TrimSpace(string(data)))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// MarshalText encodes q as q.String(). (Kubernetes' Quantity has no text
// marshaling; this makes Quantity usable as a map key and in text formats.)
func (q Quantity) MarshalText() ([]byte, error) {
	if q.IsZero() {
		return []byte("0"), nil
	}
	return q.qAppend(make([]byte, 0, 24)), nil
}

// UnmarshalText parses text with ParseQuantity (no white space allowed).
// Errors are *ParseError.
func (q *Quantity) UnmarshalText(text []byte) error {
	parsed, err := ParseQuantity(string(text))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}
