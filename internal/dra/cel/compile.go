package cel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	celgo "github.com/google/cel-go/cel"
)

// ErrorType classifies a compile error the way Kubernetes does.
type ErrorType string

const (
	// ErrorInvalid is an expression the user must fix: a syntax or type
	// error, or a result that is neither bool nor of the unknown type.
	ErrorInvalid ErrorType = "Invalid"
	// ErrorInternal is a failure to build the program (for example an
	// invalid regular expression literal given to find()) or to estimate
	// its cost.
	ErrorInternal ErrorType = "Internal"
)

// CompileError is a selector that does not compile. Error returns Detail,
// which carries Kubernetes' text (for example "compilation failed: ERROR:
// <input>:1:1: ...").
type CompileError struct {
	Type   ErrorType
	Detail string
}

func (e *CompileError) Error() string { return e.Detail }

// Compiler compiles device selectors in Kubernetes' two DRA environments.
// It holds no state beyond the immutable environments and is safe for
// concurrent use; build one and share it (building takes milliseconds).
type Compiler struct {
	envs [2]*environment
}

// NewCompiler builds the Stored and New environments.
func NewCompiler() (*Compiler, error) {
	c := &Compiler{}
	for _, k := range []EnvKind{Stored, New} {
		e, err := newEnvironment(k)
		if err != nil {
			return nil, fmt.Errorf("dra cel: %s environment: %w", k, err)
		}
		c.envs[k] = e
	}
	return c, nil
}

// NewInput prepares a device for evaluation by programs of this compiler.
func (c *Compiler) NewInput(d Device) *Input {
	return newInput(c.envs[Stored], d)
}

// Program is a compiled selector. It is immutable and safe for concurrent
// use.
type Program struct {
	expression string
	kind       EnvKind
	prog       celgo.Program
	// MaxCost is the worst-case cost estimate, or math.MaxUint64 when it
	// was not estimated.
	MaxCost uint64
}

// Expression returns the source of the program.
func (p *Program) Expression() string { return p.expression }

// Compile compiles expression in the environment of the given kind. With
// estimate, it also computes the worst-case cost estimate (the scheduler
// does not; the API server does, and rejects a new selector whose estimate
// exceeds MaxCost, see CheckCost). The result must be bool, or of the
// environment's attribute type (an attribute used as a boolean).
func (c *Compiler) Compile(expression string, kind EnvKind, estimate bool) (*Program, error) {
	e := c.envs[kind]
	ast, iss := e.env.Compile(expression)
	if iss != nil {
		return nil, &CompileError{Type: ErrorInvalid, Detail: "compilation failed: " + iss.String()}
	}
	out := ast.OutputType()
	if !out.IsExactType(celgo.BoolType) && !out.IsExactType(e.attributeType) {
		return nil, &CompileError{Type: ErrorInvalid, Detail: fmt.Sprintf("must evaluate to %v or the unknown type, not %v", celgo.BoolType.String(), out.String())}
	}
	prog, err := e.env.Program(ast, celgo.CostLimit(MaxCost), celgo.InterruptCheckFrequency(interruptCheckFrequency))
	if err != nil {
		return nil, &CompileError{Type: ErrorInternal, Detail: "program instantiation failed: " + err.Error()}
	}
	p := &Program{expression: expression, kind: kind, prog: prog, MaxCost: math.MaxUint64}
	if estimate {
		est, err := e.env.EstimateCost(ast, &kubeCost{sizes: e.sizes})
		if err != nil {
			return nil, &CompileError{Type: ErrorInternal, Detail: "cost estimation failed: " + err.Error()}
		}
		p.MaxCost = est.Max
	}
	return p, nil
}

// ErrTooComplex is the API server's refusal of a selector whose worst-case
// cost estimate exceeds MaxCost ("too complex, exceeds cost limit").
var ErrTooComplex = errors.New("too complex, exceeds cost limit")

// CheckCost returns ErrTooComplex when the program's estimate exceeds
// MaxCost. The program must have been compiled with estimate.
func (p *Program) CheckCost() error {
	if p.MaxCost > MaxCost {
		return ErrTooComplex
	}
	return nil
}

var boolType = reflect.TypeOf(true)

// Match evaluates the selector on a device. cost is the runtime cost of
// the evaluation. The error is CEL's, as Kubernetes returns it from
// DeviceMatches (for example "no such key: model", or "operation
// cancelled: actual cost limit exceeded"); EnhanceRuntimeError adds the
// hint the allocator adds. A cancelled ctx stops the evaluation with an
// error that wraps ctx's cause.
func (p *Program) Match(ctx context.Context, in *Input) (match bool, cost uint64, err error) {
	if in.err != nil {
		return false, 0, in.err
	}
	val, details, err := p.prog.ContextEval(ctx, in.activation)
	if details != nil && details.ActualCost() != nil {
		cost = *details.ActualCost()
	}
	if err != nil {
		if strings.Contains(err.Error(), "operation interrupted") && ctx.Err() != nil {
			return false, cost, fmt.Errorf("%w: %w", err, context.Cause(ctx))
		}
		return false, cost, err
	}
	native, err := val.ConvertToNative(boolType)
	if err != nil {
		return false, cost, fmt.Errorf("CEL result of type %s could not be converted to bool: %w", val.Type().TypeName(), err)
	}
	b, ok := native.(bool)
	if !ok {
		return false, cost, fmt.Errorf("CEL native result value should have been a bool, got instead: %T", native)
	}
	return b, cost, nil
}

// hintedError is a runtime error with the hint EnhanceRuntimeError adds.
type hintedError struct{ error }

func (e *hintedError) Unwrap() error { return e.error }

// EnhanceRuntimeError adds, to an error about a missing map key, the hint
// Kubernetes' allocator gives ("... consider using CEL optional chaining
// ..."); other errors are returned unchanged.
func EnhanceRuntimeError(err error) error {
	if err == nil {
		return nil
	}
	var h *hintedError
	if errors.As(err, &h) {
		return err
	}
	if strings.Contains(err.Error(), "no such key:") {
		return &hintedError{fmt.Errorf("%w. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields", err)}
	}
	return err
}
