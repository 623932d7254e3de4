package cel

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/schedkit/schedkit/resource"
)

// The parse errors of Kubernetes' resource.ParseQuantity, which the CEL
// quantity() function reports as they are.
var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
	// errQuantityRange is schedkit's own: Kubernetes accepts exponents up
	// to int64 and truncates them to int32, which no caller can mean.
	errQuantityRange = errors.New("quantity exponent out of range")
)

// maxQuantityExponent bounds the decimal exponent of a parsed quantity
// (see errQuantityRange); it matches the bound of resource.ParseQuantity.
const maxQuantityExponent = 10000

// kubeQuantity is a quantity in the two internal forms Kubernetes'
// resource.Quantity uses, because several CEL functions answer according
// to the form and not only to the value: a scaled int64 (value×10^scale),
// the fast form, or an arbitrary-precision decimal (unscaled×10^-dscale),
// which ParseQuantity falls back to for values with many digits, binary
// suffixes with a fraction, values finer than 1n and int64 overflows, and
// which arithmetic with such a value keeps. isInteger() and asInteger()
// accept only the int64 form with a scale of 0 or more, and
// asApproximateFloat() computes from the form.
type kubeQuantity struct {
	dec      bool
	value    int64 // int64 form
	scale    int32
	unscaled *big.Int // decimal form; never mutated once built
	dscale   int32
}

var (
	bigTen     = big.NewInt(10)
	bigMaxI64  = big.NewInt(math.MaxInt64)
	decSuffix  = map[string]int32{"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binSuffix  = map[string]int32{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	suffixRune = "eEinumkKMGTP"
)

func pow10Big(n int64) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(n), nil) }

// scanQuantity splits s the way Kubernetes' parseQuantityString does:
// sign, integer digits (leading zeroes dropped; "0" when none), fraction
// digits, the textual value (sign through fraction) and the suffix.
func scanQuantity(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	if pos < end {
		switch str[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	for ; pos < end && str[pos] == '0'; pos++ {
	}
	if pos >= end {
		return positive, "0", "0", "", "", nil
	}
	start := pos
	for pos < end && str[pos] >= '0' && str[pos] <= '9' {
		pos++
	}
	if pos >= end {
		return positive, str, str[start:], "", "", nil
	}
	num = str[start:pos]
	if num == "" {
		num = "0"
	}
	if str[pos] == '.' {
		pos++
		dstart := pos
		for pos < end && str[pos] >= '0' && str[pos] <= '9' {
			pos++
		}
		if pos >= end {
			return positive, str, num, str[dstart:], "", nil
		}
		denom = str[dstart:pos]
	}
	value = str[:pos]
	sstart := pos
	for pos < end && strings.IndexByte(suffixRune, str[pos]) >= 0 {
		pos++
	}
	if pos >= end {
		return positive, value, num, denom, str[sstart:], nil
	}
	if str[pos] == '-' || str[pos] == '+' {
		pos++
	}
	for ; pos < end; pos++ {
		if str[pos] < '0' || str[pos] > '9' {
			return positive, value, num, denom, "", errQuantityFormat
		}
	}
	return positive, value, num, denom, str[sstart:], nil
}

// parseKubeQuantity parses s with the grammar, errors, rounding and choice
// of internal form of Kubernetes' resource.ParseQuantity.
func parseKubeQuantity(s string) (kubeQuantity, error) {
	if s == "" {
		return kubeQuantity{}, errQuantityFormat
	}
	if s == "0" {
		return kubeQuantity{}, nil
	}
	positive, value, num, denom, suf, err := scanQuantity(s)
	if err != nil {
		return kubeQuantity{}, err
	}
	var base, exponent int32
	binary := false
	if e, ok := decSuffix[suf]; ok {
		base, exponent = 10, e
	} else if e, ok := binSuffix[suf]; ok {
		base, exponent, binary = 2, e, true
	} else if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		p, perr := strconv.ParseInt(suf[1:], 10, 64)
		if perr != nil {
			return kubeQuantity{}, errQuantitySuffix
		}
		if p > maxQuantityExponent || p < -maxQuantityExponent {
			return kubeQuantity{}, errQuantityRange
		}
		base, exponent = 10, int32(p)
	} else {
		return kubeQuantity{}, errQuantitySuffix
	}

	// The int64 fast path.
	precision, scale := int32(0), int32(0)
	mantissa := int64(1)
	if binary {
		if exponent >= 0 && denom == "" {
			mantissa <<= uint(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	} else {
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= -9 {
			v, perr := strconv.ParseInt(num+denom, 10, 64)
			if perr != nil {
				return kubeQuantity{}, errQuantityNumeric
			}
			if r, ok := mulInt64(v, mantissa); ok {
				if !positive {
					r = -r
				}
				return kubeQuantity{value: r, scale: scale}, nil
			}
		}
	}

	// The decimal form: the textual value times the suffix, rounded away
	// from zero to whole nano units, binary values capped at 2^63-1.
	unscaled, dscale, ok := parseDecimalText(value)
	if !ok {
		return kubeQuantity{}, errQuantityNumeric
	}
	if base == 10 {
		dscale -= exponent
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	neg := unscaled.Sign() < 0
	unscaled.Abs(unscaled)
	if unscaled.Sign() != 0 {
		unscaled, dscale = roundUpToScale(unscaled, dscale, 9)
	}
	if binary && cmpDec(unscaled, dscale, bigMaxI64, 0) > 0 {
		unscaled, dscale = new(big.Int).Set(bigMaxI64), 0
	}
	if neg {
		unscaled.Neg(unscaled)
	}
	return kubeQuantity{dec: true, unscaled: unscaled, dscale: dscale}, nil
}

// parseDecimalText parses "[+-]digits[.digits]" (either part may be empty,
// not both) into unscaled×10^-scale.
func parseDecimalText(s string) (*big.Int, int32, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits := intPart + frac
	if digits == "" {
		return nil, 0, false
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, 0, false
	}
	if neg {
		u.Neg(u)
	}
	return u, int32(len(frac)), true
}

// roundUpToScale rescales a non-negative unscaled×10^-scale to the given
// scale, rounding away from zero when digits are dropped.
func roundUpToScale(u *big.Int, scale, to int32) (*big.Int, int32) {
	if scale <= to {
		return new(big.Int).Mul(u, pow10Big(int64(to-scale))), to
	}
	q, r := new(big.Int).QuoRem(u, pow10Big(int64(scale-to)), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q, to
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 || a == 1 || b == 1 {
		return a * b, true
	}
	if a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	c := a * b
	return c, c/b == a
}

func addInt64(a, b int64) (int64, bool) {
	c := a + b
	switch {
	case a > 0 && b > 0 && c < 0:
		return 0, false
	case a < 0 && b < 0 && (c > 0 || (a == math.MinInt64 && b == math.MinInt64)):
		return 0, false
	}
	return c, true
}

// scaleUpInt64 multiplies v by 10^n (n ≥ 0), reporting overflow.
func scaleUpInt64(v int64, n int32) (int64, bool) {
	for ; n > 0; n-- {
		var ok bool
		if v, ok = mulInt64(v, 10); !ok {
			return 0, false
		}
	}
	return v, true
}

// asDec returns the value as unscaled×10^-scale.
func (q kubeQuantity) asDec() (*big.Int, int32) {
	if q.dec {
		return q.unscaled, q.dscale
	}
	return big.NewInt(q.value), -q.scale
}

// cmpDec compares a×10^-as with b×10^-bs exactly.
func cmpDec(a *big.Int, as int32, b *big.Int, bs int32) int {
	switch {
	case as == bs:
		return a.Cmp(b)
	case as < bs:
		return new(big.Int).Mul(a, pow10Big(int64(bs-as))).Cmp(b)
	}
	return a.Cmp(new(big.Int).Mul(b, pow10Big(int64(as-bs))))
}

// Cmp compares the values exactly: -1, 0 or 1.
func (q kubeQuantity) Cmp(o kubeQuantity) int {
	if !q.dec && !o.dec && q.scale == o.scale {
		switch {
		case q.value < o.value:
			return -1
		case q.value > o.value:
			return 1
		}
		return 0
	}
	a, as := q.asDec()
	b, bs := o.asDec()
	return cmpDec(a, as, b, bs)
}

// Sign returns -1, 0 or 1.
func (q kubeQuantity) Sign() int {
	if q.dec {
		return q.unscaled.Sign()
	}
	switch {
	case q.value < 0:
		return -1
	case q.value > 0:
		return 1
	}
	return 0
}

// Add returns q+o in the form Kubernetes' Quantity.Add leaves: the int64
// form when both are int64 and the sum fits (at the smaller scale), the
// decimal form otherwise.
func (q kubeQuantity) Add(o kubeQuantity) kubeQuantity {
	if !q.dec && !o.dec {
		switch {
		case o.value == 0:
			return q
		case q.value == 0:
			return o
		case q.scale == o.scale:
			if c, ok := addInt64(q.value, o.value); ok {
				return kubeQuantity{value: c, scale: q.scale}
			}
		case q.scale > o.scale:
			if c, ok := scaleUpInt64(q.value, q.scale-o.scale); ok {
				if c, ok = addInt64(c, o.value); ok {
					return kubeQuantity{value: c, scale: o.scale}
				}
			}
		default:
			if c, ok := scaleUpInt64(o.value, o.scale-q.scale); ok {
				if c, ok = addInt64(q.value, c); ok {
					return kubeQuantity{value: c, scale: q.scale}
				}
			}
		}
	}
	a, as := q.asDec()
	b, bs := o.asDec()
	s := max(as, bs)
	a = new(big.Int).Mul(a, pow10Big(int64(s-as)))
	b = new(big.Int).Mul(b, pow10Big(int64(s-bs)))
	return kubeQuantity{dec: true, unscaled: a.Add(a, b), dscale: s}
}

// Neg returns -q (Kubernetes subtracts by adding the negated int64 value).
func (q kubeQuantity) Neg() kubeQuantity {
	if q.dec {
		return kubeQuantity{dec: true, unscaled: new(big.Int).Neg(q.unscaled), dscale: q.dscale}
	}
	return kubeQuantity{value: -q.value, scale: q.scale}
}

// Sub returns q-o as Kubernetes' Quantity.Sub does.
func (q kubeQuantity) Sub(o kubeQuantity) kubeQuantity {
	if !q.dec && !o.dec {
		r := q.Add(o.Neg())
		if !r.dec {
			return r
		}
	}
	a, as := q.asDec()
	b, bs := o.asDec()
	s := max(as, bs)
	a = new(big.Int).Mul(a, pow10Big(int64(s-as)))
	b = new(big.Int).Mul(b, pow10Big(int64(s-bs)))
	return kubeQuantity{dec: true, unscaled: a.Sub(a, b), dscale: s}
}

// AsInt64 reproduces Kubernetes' Quantity.AsInt64: only the int64 form
// with a non-negative scale that does not overflow converts.
func (q kubeQuantity) AsInt64() (int64, bool) {
	if q.dec || q.scale < 0 {
		return 0, false
	}
	return scaleUpInt64(q.value, q.scale)
}

// AsApproximateFloat64 reproduces Kubernetes' computation from the form.
func (q kubeQuantity) AsApproximateFloat64() float64 {
	var base float64
	var exp int
	if q.dec {
		base, _ = new(big.Float).SetInt(q.unscaled).Float64()
		exp = int(-q.dscale)
	} else {
		base = float64(q.value)
		exp = int(q.scale)
	}
	if exp == 0 {
		return base
	}
	return base * math.Pow10(exp)
}

// String formats the exact value as a plain decimal (for conversions).
func (q kubeQuantity) String() string {
	u, s := q.asDec()
	r := new(big.Rat).SetFrac(u, big.NewInt(1))
	if s > 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10Big(int64(s))))
	} else if s < 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10Big(int64(-s))))
	}
	return r.FloatString(int(max(s, 0)))
}

// QuantityType is the CEL type of quantities, named as in Kubernetes.
var QuantityType = celgo.ObjectType("kubernetes.Quantity")

// Quantity is the CEL value of a Kubernetes quantity. Its Go type name is
// the one Kubernetes' value has (cel.Quantity), which CEL prints in some
// runtime errors.
type Quantity struct {
	q kubeQuantity
}

// QuantityOf returns the CEL value of q as the scheduler sees a quantity
// read from the API server: parsed from its canonical string.
func QuantityOf(q resource.Quantity) (Quantity, error) {
	k, err := parseKubeQuantity(q.String())
	if err != nil {
		return Quantity{}, fmt.Errorf("quantity %s: %w", q.String(), err)
	}
	return Quantity{k}, nil
}

// ParseQuantity returns the CEL value quantity(s) yields, with Kubernetes'
// parse errors.
func ParseQuantity(s string) (Quantity, error) {
	k, err := parseKubeQuantity(s)
	if err != nil {
		return Quantity{}, err
	}
	return Quantity{k}, nil
}

// ConvertToNative converts to a string holding the exact value.
func (d Quantity) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return d.q.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", typeDesc)
}

// ConvertToType converts to its own type or to the type type.
func (d Quantity) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case QuantityType:
		return d
	case types.TypeType:
		return QuantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", QuantityType, typeVal)
}

// Equal compares the values exactly.
func (d Quantity) Equal(other ref.Val) ref.Val {
	o, ok := other.(Quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(d.q.Cmp(o.q) == 0)
}

// Type returns QuantityType.
func (d Quantity) Type() ref.Type { return QuantityType }

// Value returns the exact value as a decimal string.
func (d Quantity) Value() any { return d.q.String() }

// quantityLib is Kubernetes' "kubernetes.quantity" CEL library.
type quantityLib struct{}

func (quantityLib) LibraryName() string { return "kubernetes.quantity" }

func (quantityLib) CompileOptions() []celgo.EnvOption {
	Q, str, b, i := QuantityType, celgo.StringType, celgo.BoolType, celgo.IntType
	cmp := func(f func(int) ref.Val) func(a, b ref.Val) ref.Val {
		return func(a, b ref.Val) ref.Val {
			x, ok := a.(Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			y, ok := b.(Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(x.q.Cmp(y.q))
		}
	}
	unary := func(f func(kubeQuantity) ref.Val) func(a ref.Val) ref.Val {
		return func(a ref.Val) ref.Val {
			x, ok := a.(Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(x.q)
		}
	}
	arith := func(op func(x, y kubeQuantity) kubeQuantity, intArg bool) func(a, b ref.Val) ref.Val {
		return func(a, b ref.Val) ref.Val {
			x, ok := a.(Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			var y kubeQuantity
			if intArg {
				n, ok := b.Value().(int64)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a)
				}
				y = kubeQuantity{value: n}
			} else {
				o, ok := b.(Quantity)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a)
				}
				y = o.q
			}
			return Quantity{op(x.q, y)}
		}
	}
	add := func(x, y kubeQuantity) kubeQuantity { return x.Add(y) }
	sub := func(x, y kubeQuantity) kubeQuantity { return x.Sub(y) }
	return []celgo.EnvOption{
		celgo.Function("quantity",
			celgo.Overload("string_to_quantity", []*celgo.Type{str}, Q, celgo.UnaryBinding(func(a ref.Val) ref.Val {
				s, ok := a.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a)
				}
				q, err := ParseQuantity(s)
				if err != nil {
					return types.WrapErr(err)
				}
				return q
			}))),
		celgo.Function("isQuantity",
			celgo.Overload("is_quantity_string", []*celgo.Type{str}, b, celgo.UnaryBinding(func(a ref.Val) ref.Val {
				s, ok := a.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a)
				}
				_, err := parseKubeQuantity(s)
				return types.Bool(err == nil)
			}))),
		celgo.Function("sign",
			celgo.Overload("quantity_sign", []*celgo.Type{Q}, i, celgo.UnaryBinding(unary(func(q kubeQuantity) ref.Val { return types.Int(q.Sign()) })))),
		celgo.Function("isGreaterThan",
			celgo.MemberOverload("quantity_is_greater_than", []*celgo.Type{Q, Q}, b, celgo.BinaryBinding(cmp(func(c int) ref.Val { return types.Bool(c == 1) })))),
		celgo.Function("isLessThan",
			celgo.MemberOverload("quantity_is_less_than", []*celgo.Type{Q, Q}, b, celgo.BinaryBinding(cmp(func(c int) ref.Val { return types.Bool(c == -1) })))),
		celgo.Function("compareTo",
			celgo.MemberOverload("quantity_compare_to", []*celgo.Type{Q, Q}, i, celgo.BinaryBinding(cmp(func(c int) ref.Val { return types.Int(c) })))),
		celgo.Function("asApproximateFloat",
			celgo.MemberOverload("quantity_get_float", []*celgo.Type{Q}, celgo.DoubleType, celgo.UnaryBinding(unary(func(q kubeQuantity) ref.Val {
				return types.Double(q.AsApproximateFloat64())
			})))),
		celgo.Function("asInteger",
			celgo.MemberOverload("quantity_get_int", []*celgo.Type{Q}, i, celgo.UnaryBinding(unary(func(q kubeQuantity) ref.Val {
				v, ok := q.AsInt64()
				if !ok {
					return types.WrapErr(errors.New("cannot convert value to integer"))
				}
				return types.Int(v)
			})))),
		celgo.Function("isInteger",
			celgo.MemberOverload("quantity_is_integer", []*celgo.Type{Q}, b, celgo.UnaryBinding(unary(func(q kubeQuantity) ref.Val {
				_, ok := q.AsInt64()
				return types.Bool(ok)
			})))),
		celgo.Function("add",
			celgo.MemberOverload("quantity_add", []*celgo.Type{Q, Q}, Q, celgo.BinaryBinding(arith(add, false))),
			celgo.MemberOverload("quantity_add_int", []*celgo.Type{Q, i}, Q, celgo.BinaryBinding(arith(add, true)))),
		celgo.Function("sub",
			celgo.MemberOverload("quantity_sub", []*celgo.Type{Q, Q}, Q, celgo.BinaryBinding(arith(sub, false))),
			celgo.MemberOverload("quantity_sub_int", []*celgo.Type{Q, i}, Q, celgo.BinaryBinding(arith(sub, true)))),
	}
}

func (quantityLib) ProgramOptions() []celgo.ProgramOption { return nil }
