package cel

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Version is a semantic version (semver 2.0.0) as Kubernetes' CEL semver
// library holds it: the three numbers, the pre-release identifiers and the
// build metadata. Build metadata takes no part in comparisons.
type Version struct {
	Major, Minor, Patch uint64
	Pre                 []PreRelease
	Build               []string
}

// PreRelease is one dot-separated pre-release identifier: numeric when it
// consists of digits only, alphanumeric otherwise.
type PreRelease struct {
	Str     string
	Num     uint64
	Numeric bool
}

const (
	semverDigits   = "0123456789"
	semverAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + semverDigits
)

// onlyFrom reports whether every rune of s is in set (true for "").
func onlyFrom(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
}

func leadingZero(s string) bool { return len(s) > 1 && s[0] == '0' }

// semverError is a version parse error. Its texts are those of the semver
// parser Kubernetes uses (github.com/blang/semver/v4), capitals included,
// because they reach users in selector runtime errors.
type semverError string

func (e semverError) Error() string { return string(e) }

func semverErrorf(format string, args ...any) error { return semverError(fmt.Sprintf(format, args...)) }

// parseSemverNumber parses the major, minor or patch number named what,
// with the checks and error texts of the semver parser Kubernetes uses
// (github.com/blang/semver/v4 Parse).
func parseSemverNumber(s, what, capital string) (uint64, error) {
	if !onlyFrom(s, semverDigits) {
		return 0, semverErrorf("Invalid character(s) found in %s number %q", what, s)
	}
	if leadingZero(s) {
		return 0, semverErrorf("%s number must not contain leading zeroes %q", capital, s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// ParseVersion parses a strict semantic version the way Kubernetes does
// for version attributes and for semver(): exactly three dot-separated
// numbers without leading zeroes, then an optional "-" pre-release and "+"
// build metadata. Its errors carry the texts Kubernetes reports (for
// example "No Major.Minor.Patch elements found").
func ParseVersion(s string) (Version, error) {
	if s == "" {
		return Version{}, semverError("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return Version{}, semverError("No Major.Minor.Patch elements found")
	}
	var v Version
	var err error
	if v.Major, err = parseSemverNumber(parts[0], "major", "Major"); err != nil {
		return Version{}, err
	}
	if v.Minor, err = parseSemverNumber(parts[1], "minor", "Minor"); err != nil {
		return Version{}, err
	}
	rest := parts[2]
	var build, pre []string
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		build = strings.Split(rest[i+1:], ".")
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		pre = strings.Split(rest[i+1:], ".")
		rest = rest[:i]
	}
	if v.Patch, err = parseSemverNumber(rest, "patch", "Patch"); err != nil {
		return Version{}, err
	}
	for _, p := range pre {
		id, err := parsePreRelease(p)
		if err != nil {
			return Version{}, err
		}
		v.Pre = append(v.Pre, id)
	}
	for _, b := range build {
		if b == "" {
			return Version{}, semverError("Build meta data is empty")
		}
		if !onlyFrom(b, semverAlphanum) {
			return Version{}, semverErrorf("Invalid character(s) found in build meta data %q", b)
		}
		v.Build = append(v.Build, b)
	}
	return v, nil
}

func parsePreRelease(s string) (PreRelease, error) {
	if s == "" {
		return PreRelease{}, semverError("Prerelease is empty")
	}
	if onlyFrom(s, semverDigits) {
		if leadingZero(s) {
			return PreRelease{}, semverErrorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return PreRelease{}, err
		}
		return PreRelease{Num: n, Numeric: true}, nil
	}
	if onlyFrom(s, semverAlphanum) {
		return PreRelease{Str: s}, nil
	}
	return PreRelease{}, semverErrorf("Invalid character(s) found in prerelease %q", s)
}

// normalizeVersion applies the relaxed form semver(s, true) accepts: a
// leading "v" is dropped, leading zeroes are removed from each of the first
// three dot-separated parts, and a missing minor or patch number becomes 0
// (a short version with "-" or "+" is an error).
func normalizeVersion(s string) (string, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		if len(p) <= 1 {
			continue
		}
		p = strings.TrimLeft(p, "0")
		if p == "" || !strings.ContainsAny(p[:1], semverDigits) {
			p = "0" + p
		}
		parts[i] = p
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return "", errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return strings.Join(parts, "."), nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

func (p PreRelease) compare(o PreRelease) int {
	switch {
	case p.Numeric && !o.Numeric:
		return -1
	case !p.Numeric && o.Numeric:
		return 1
	case p.Numeric:
		return cmpUint(p.Num, o.Num)
	}
	return strings.Compare(p.Str, o.Str)
}

// Compare orders versions by semver precedence: -1, 0 or 1. A version
// with pre-release identifiers precedes the same version without them.
func (v Version) Compare(o Version) int {
	if c := cmpUint(v.Major, o.Major); c != 0 {
		return c
	}
	if c := cmpUint(v.Minor, o.Minor); c != 0 {
		return c
	}
	if c := cmpUint(v.Patch, o.Patch); c != 0 {
		return c
	}
	switch {
	case len(v.Pre) == 0 && len(o.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(o.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(o.Pre); i++ {
		if c := v.Pre[i].compare(o.Pre[i]); c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(v.Pre)), uint64(len(o.Pre)))
}

// String formats the version in its canonical form.
func (v Version) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(v.Major, 10))
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(v.Minor, 10))
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(v.Patch, 10))
	for i, p := range v.Pre {
		if i == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte('.')
		}
		if p.Numeric {
			b.WriteString(strconv.FormatUint(p.Num, 10))
		} else {
			b.WriteString(p.Str)
		}
	}
	for i, s := range v.Build {
		if i == 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// SemverType is the CEL type of semantic versions, named as in Kubernetes.
var SemverType = celgo.ObjectType("kubernetes.Semver")

// Semver is the CEL value of a semantic version. Its Go type name is the
// one Kubernetes' value has (cel.Semver), which CEL prints in some runtime
// errors (for example "got 'cel.Semver', expected iterable type").
type Semver struct {
	Version
}

// ConvertToNative converts to Version or to the canonical string.
func (v Semver) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(v.Version).AssignableTo(typeDesc) {
		return v.Version, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return v.Version.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Semver' to '%v'", typeDesc)
}

// ConvertToType converts to its own type or to the type type.
func (v Semver) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case SemverType:
		return v
	case types.TypeType:
		return SemverType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", SemverType, typeVal)
}

// Equal compares by semver precedence (build metadata ignored).
func (v Semver) Equal(other ref.Val) ref.Val {
	o, ok := other.(Semver)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.Compare(o.Version) == 0)
}

// Type returns SemverType.
func (v Semver) Type() ref.Type { return SemverType }

// Value returns the Version.
func (v Semver) Value() any { return v.Version }

// semverLib is Kubernetes' "kubernetes.Semver" CEL library at version 1
// (with the normalizing semver(string, bool) and isSemver(string, bool)).
type semverLib struct{}

func (semverLib) LibraryName() string { return "kubernetes.Semver" }

func (semverLib) CompileOptions() []celgo.EnvOption {
	str, b := celgo.StringType, celgo.BoolType
	return []celgo.EnvOption{
		celgo.Function("semver",
			celgo.Overload("string_to_semver", []*celgo.Type{str}, SemverType, celgo.UnaryBinding(func(a ref.Val) ref.Val { return toSemver(a, types.False) })),
			celgo.Overload("string_bool_to_semver", []*celgo.Type{str, b}, SemverType, celgo.BinaryBinding(toSemver))),
		celgo.Function("isSemver",
			celgo.Overload("is_semver_string", []*celgo.Type{str}, b, celgo.UnaryBinding(func(a ref.Val) ref.Val { return isSemver(a, types.False) })),
			celgo.Overload("is_semver_string_bool", []*celgo.Type{str, b}, b, celgo.BinaryBinding(isSemver))),
		celgo.Function("isGreaterThan",
			celgo.MemberOverload("semver_is_greater_than", []*celgo.Type{SemverType, SemverType}, b, celgo.BinaryBinding(semverCmp(func(c int) ref.Val { return types.Bool(c == 1) })))),
		celgo.Function("isLessThan",
			celgo.MemberOverload("semver_is_less_than", []*celgo.Type{SemverType, SemverType}, b, celgo.BinaryBinding(semverCmp(func(c int) ref.Val { return types.Bool(c == -1) })))),
		celgo.Function("compareTo",
			celgo.MemberOverload("semver_compare_to", []*celgo.Type{SemverType, SemverType}, celgo.IntType, celgo.BinaryBinding(semverCmp(func(c int) ref.Val { return types.Int(c) })))),
		celgo.Function("major",
			celgo.MemberOverload("semver_major", []*celgo.Type{SemverType}, celgo.IntType, celgo.UnaryBinding(semverPart(func(v Version) uint64 { return v.Major })))),
		celgo.Function("minor",
			celgo.MemberOverload("semver_minor", []*celgo.Type{SemverType}, celgo.IntType, celgo.UnaryBinding(semverPart(func(v Version) uint64 { return v.Minor })))),
		celgo.Function("patch",
			celgo.MemberOverload("semver_patch", []*celgo.Type{SemverType}, celgo.IntType, celgo.UnaryBinding(semverPart(func(v Version) uint64 { return v.Patch })))),
	}
}

func (semverLib) ProgramOptions() []celgo.ProgramOption { return nil }

func parseSemverArg(arg, normalize ref.Val) (Version, ref.Val) {
	s, ok := arg.Value().(string)
	if !ok {
		return Version{}, types.MaybeNoSuchOverloadErr(arg)
	}
	n, ok := normalize.Value().(bool)
	if !ok {
		return Version{}, types.MaybeNoSuchOverloadErr(arg)
	}
	if n {
		var err error
		if s, err = normalizeVersion(s); err != nil {
			return Version{}, types.WrapErr(err)
		}
	}
	v, err := ParseVersion(s)
	if err != nil {
		return Version{}, types.WrapErr(err)
	}
	return v, nil
}

func toSemver(arg, normalize ref.Val) ref.Val {
	v, errVal := parseSemverArg(arg, normalize)
	if errVal != nil {
		return errVal
	}
	return Semver{v}
}

func isSemver(arg, normalize ref.Val) ref.Val {
	_, errVal := parseSemverArg(arg, normalize)
	if errVal != nil {
		if types.IsError(errVal) && !isNoSuchOverload(arg, normalize) {
			return types.False
		}
		return errVal
	}
	return types.True
}

// isNoSuchOverload reports whether the arguments are not a string and a
// bool, the only case where isSemver returns an error instead of false.
func isNoSuchOverload(arg, normalize ref.Val) bool {
	_, ok1 := arg.Value().(string)
	_, ok2 := normalize.Value().(bool)
	return !ok1 || !ok2
}

func semverCmp(f func(int) ref.Val) func(a, b ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		x, ok := a.(Semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		y, ok := b.(Semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return f(x.Compare(y.Version))
	}
}

func semverPart(f func(Version) uint64) func(a ref.Val) ref.Val {
	return func(a ref.Val) ref.Val {
		x, ok := a.(Semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return types.Int(f(x.Version))
	}
}
