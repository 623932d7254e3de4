package cel

import (
	"fmt"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listsLib is Kubernetes' "kubernetes.lists" CEL library: isSorted, sum,
// min, max, indexOf and lastIndexOf on lists, and from version 1 the
// includes function (also declared on its own by the DRA environment).
type listsLib struct {
	version uint32
}

func (listsLib) LibraryName() string { return "kubernetes.lists" }

type namedType struct {
	name string
	t    *celgo.Type
}

var (
	summable = []namedType{
		{"int", celgo.IntType}, {"uint", celgo.UintType}, {"double", celgo.DoubleType}, {"duration", celgo.DurationType},
	}
	summableZero = map[string]ref.Val{
		"int": types.Int(0), "uint": types.Uint(0), "double": types.Double(0), "duration": types.Duration{},
	}
	comparable = []namedType{
		{"int", celgo.IntType}, {"uint", celgo.UintType}, {"double", celgo.DoubleType}, {"bool", celgo.BoolType},
		{"duration", celgo.DurationType}, {"timestamp", celgo.TimestampType}, {"string", celgo.StringType}, {"bytes", celgo.BytesType},
	}
	paramA = celgo.TypeParamType("A")
)

// includesOverload is the includes function of the lists library version 1
// and of the DRA environment (one overload, declared identically by both).
func includesOverload() celgo.EnvOption {
	return celgo.Function("includes",
		celgo.MemberOverload("list_includes_dyn_dyn", []*celgo.Type{celgo.DynType, celgo.DynType}, celgo.BoolType,
			celgo.BinaryBinding(listIncludes)))
}

func (l listsLib) CompileOptions() []celgo.EnvOption {
	var isSorted, sum, maxO, minO []celgo.FunctionOpt
	for _, c := range comparable {
		lt := celgo.ListType(c.t)
		isSorted = append(isSorted, celgo.MemberOverload(fmt.Sprintf("list_%s_is_sorted_bool", c.name), []*celgo.Type{lt}, celgo.BoolType, celgo.UnaryBinding(listIsSorted)))
		maxO = append(maxO, celgo.MemberOverload(fmt.Sprintf("list_%s_max_%s", c.name, c.name), []*celgo.Type{lt}, c.t, celgo.UnaryBinding(listExtreme("max", types.IntNegOne))))
		minO = append(minO, celgo.MemberOverload(fmt.Sprintf("list_%s_min_%s", c.name, c.name), []*celgo.Type{lt}, c.t, celgo.UnaryBinding(listExtreme("min", types.IntOne))))
	}
	for _, s := range summable {
		zero := summableZero[s.name]
		sum = append(sum, celgo.MemberOverload(fmt.Sprintf("list_%s_sum_%s", s.name, s.name), []*celgo.Type{celgo.ListType(s.t)}, s.t, celgo.UnaryBinding(listSum(zero))))
	}
	opts := []celgo.EnvOption{
		celgo.Function("isSorted", isSorted...),
		celgo.Function("sum", sum...),
		celgo.Function("max", maxO...),
		celgo.Function("min", minO...),
		celgo.Function("indexOf", celgo.MemberOverload("list_a_index_of_int", []*celgo.Type{celgo.ListType(paramA), paramA}, celgo.IntType, celgo.BinaryBinding(listIndexOf(false)))),
		celgo.Function("lastIndexOf", celgo.MemberOverload("list_a_last_index_of_int", []*celgo.Type{celgo.ListType(paramA), paramA}, celgo.IntType, celgo.BinaryBinding(listIndexOf(true)))),
	}
	if l.version >= 1 {
		opts = append(opts, includesOverload())
	}
	return opts
}

func (listsLib) ProgramOptions() []celgo.ProgramOption { return nil }

func listIsSorted(val ref.Val) ref.Val {
	it, ok := val.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(val)
	}
	var prev traits.Comparer
	for i := it.Iterator(); i.HasNext() == types.True; {
		next := i.Next()
		c, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil && prev.Compare(next) == types.IntOne {
			return types.False
		}
		prev = c
	}
	return types.True
}

func listSum(zero ref.Val) func(ref.Val) ref.Val {
	return func(val ref.Val) ref.Val {
		acc, ok := zero.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(zero)
		}
		it, ok := val.(traits.Iterable)
		if !ok {
			return types.MaybeNoSuchOverloadErr(val)
		}
		for i := it.Iterator(); i.HasNext() == types.True; {
			next := i.Next()
			if _, ok := next.(traits.Adder); !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			s := acc.Add(next)
			a, ok := s.(traits.Adder)
			if !ok {
				return types.MaybeNoSuchOverloadErr(s)
			}
			acc = a
		}
		return acc.(ref.Val)
	}
}

// listExtreme returns min (prefer = 1: replace when the current result
// compares greater) or max (prefer = -1).
func listExtreme(name string, prefer ref.Val) func(ref.Val) ref.Val {
	return func(val ref.Val) ref.Val {
		it, ok := val.(traits.Iterable)
		if !ok {
			return types.MaybeNoSuchOverloadErr(val)
		}
		var result traits.Comparer
		for i := it.Iterator(); i.HasNext() == types.True; {
			next := i.Next()
			c, ok := next.(traits.Comparer)
			if !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			if result == nil || result.Compare(next) == prefer {
				result = c
			}
		}
		if result == nil {
			return types.NewErr("%s called on empty list", name)
		}
		return result.(ref.Val)
	}
}

func listIndexOf(last bool) func(list, item ref.Val) ref.Val {
	return func(list, item ref.Val) ref.Val {
		l, ok := list.(traits.Lister)
		if !ok {
			return types.MaybeNoSuchOverloadErr(list)
		}
		n := l.Size().(types.Int)
		if last {
			for i := n - 1; i >= 0; i-- {
				if l.Get(i).Equal(item) == types.True {
					return i
				}
			}
			return types.Int(-1)
		}
		for i := types.Int(0); i < n; i++ {
			if l.Get(i).Equal(item) == types.True {
				return i
			}
		}
		return types.Int(-1)
	}
}

// listIncludes reports whether a list target holds an element equal to
// arg, or whether a scalar target equals arg.
func listIncludes(target, arg ref.Val) ref.Val {
	if l, ok := target.(traits.Lister); ok {
		for it := l.Iterator(); it.HasNext() == types.True; {
			if it.Next().Equal(arg) == types.True {
				return types.True
			}
		}
		return types.False
	}
	if target.Equal(arg) == types.True {
		return types.True
	}
	return types.False
}
