package cel

import (
	"regexp"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// regexLib is Kubernetes' "kubernetes.regex" CEL library: find and findAll
// (RE2 syntax), with a pattern given as a literal compiled once when the
// program is built.
type regexLib struct{}

func (regexLib) LibraryName() string { return "kubernetes.regex" }

func (regexLib) CompileOptions() []celgo.EnvOption {
	str := celgo.StringType
	return []celgo.EnvOption{
		celgo.Function("find",
			celgo.MemberOverload("string_find_string", []*celgo.Type{str, str}, str, celgo.BinaryBinding(regexFind))),
		celgo.Function("findAll",
			celgo.MemberOverload("string_find_all_string", []*celgo.Type{str, str}, celgo.ListType(str),
				celgo.BinaryBinding(func(s, re ref.Val) ref.Val { return regexFindAll(s, re, types.Int(-1)) })),
			celgo.MemberOverload("string_find_all_string_int", []*celgo.Type{str, str, celgo.IntType}, celgo.ListType(str),
				celgo.FunctionBinding(regexFindAll))),
	}
}

func (regexLib) ProgramOptions() []celgo.ProgramOption {
	return []celgo.ProgramOption{celgo.OptimizeRegex(
		&interpreter.RegexOptimization{Function: "find", RegexIndex: 1, Factory: compiledRegexCall(false)},
		&interpreter.RegexOptimization{Function: "findAll", RegexIndex: 1, Factory: compiledRegexCall(true)},
	)}
}

func regexFind(s, re ref.Val) ref.Val {
	str, ok := s.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	pat, ok := re.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(pat)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return types.String(r.FindString(str))
}

func regexFindAll(args ...ref.Val) ref.Val {
	if len(args) < 2 || len(args) > 3 {
		return types.NoSuchOverloadErr()
	}
	str, ok := args[0].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	pat, ok := args[1].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[1])
	}
	n := int64(-1)
	if len(args) == 3 {
		if n, ok = args[2].Value().(int64); !ok {
			return types.MaybeNoSuchOverloadErr(args[2])
		}
	}
	r, err := regexp.Compile(pat)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return types.NewStringList(types.DefaultTypeAdapter, r.FindAllString(str, int(n)))
}

// compiledRegexCall replaces a find or findAll call whose pattern is a
// literal by one that uses the pattern compiled once; an invalid literal
// fails the program's construction.
func compiledRegexCall(all bool) func(interpreter.InterpretableCall, string) (interpreter.InterpretableCall, error) {
	return func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		r, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			if all {
				if len(args) < 2 || len(args) > 3 {
					return types.NoSuchOverloadErr()
				}
			} else if len(args) != 2 {
				return types.NoSuchOverloadErr()
			}
			str, ok := args[0].Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[0])
			}
			if !all {
				return types.String(r.FindString(str))
			}
			n := int64(-1)
			if len(args) == 3 {
				if n, ok = args[2].Value().(int64); !ok {
					return types.MaybeNoSuchOverloadErr(args[2])
				}
			}
			return types.NewStringList(types.DefaultTypeAdapter, r.FindAllString(str, int(n)))
		}), nil
	}
}
