package framework

import (
	"errors"
	"strings"
)

// Code is the outcome a plugin reports, with kube-scheduler's meanings.
type Code int

// Status codes. The numeric values follow kube-scheduler's order.
const (
	// Success: the plugin ran and passed.
	Success Code = iota
	// Error: an unexpected failure; it aborts the cycle.
	Error
	// Unschedulable: the node does not fit now; preemption may help.
	Unschedulable
	// UnschedulableAndUnresolvable: the node does not fit and preemption
	// cannot change that.
	UnschedulableAndUnresolvable
	// Wait: only from Permit; the pod waits for approval.
	Wait
	// Skip: from PreFilter or PreScore it disables the coupled Filter or
	// Score for this cycle; from Bind it means "not mine".
	Skip
	// Pending: the pod waits for something outside scheduling; it is retried
	// without a backoff penalty.
	Pending
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Code(" + itoa(int64(c)) + ")"
}

// Status is a plugin's result: a code, human-readable reasons, an optional
// error and the name of the plugin that produced it. A nil *Status means
// Success. The runner never mutates a Status a plugin returns, so plugins
// may return shared, pre-built statuses; WithPlugin returns a copy.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a status with code and reasons.
// A status without reasons is a shared one (statuses are never mutated),
// so a plugin returning NewStatus(Skip) every cycle does not allocate.
func NewStatus(code Code, reasons ...string) *Status {
	if len(reasons) == 0 && code >= 0 && int(code) < len(plainStatuses) {
		return &plainStatuses[code]
	}
	return &Status{code: code, reasons: reasons}
}

// plainStatuses are the statuses without reasons NewStatus returns, one
// per code (read-only).
var plainStatuses = [...]Status{{code: Success}, {code: Error}, {code: Unschedulable}, {code: UnschedulableAndUnresolvable}, {code: Wait}, {code: Skip}, {code: Pending}}

// AsStatus wraps err as an Error status (nil for a nil error).
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the status code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Reasons returns the reasons (or the error text for an Error status).
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// Plugin returns the name of the plugin that produced the status.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin returns a copy of s that names plugin.
func (s *Status) WithPlugin(plugin string) *Status {
	if s == nil {
		return nil
	}
	c := *s
	c.plugin = plugin
	return &c
}

// Err returns the wrapped error, if any.
func (s *Status) Err() error {
	if s == nil {
		return nil
	}
	return s.err
}

// IsSuccess reports whether the code is Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsWait reports whether the code is Wait.
func (s *Status) IsWait() bool { return s.Code() == Wait }

// IsSkip reports whether the code is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the code is Unschedulable,
// UnschedulableAndUnresolvable or Pending, as kube-scheduler's IsRejected.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable || c == Pending
}

// AsError returns nil for Success, Wait and Skip, and otherwise the wrapped
// error or an error carrying the message.
func (s *Status) AsError() error {
	if s.IsSuccess() || s.IsWait() || s.IsSkip() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// ErrOrCode is AsError for any non-Success code: Wait and Skip, which AsError
// maps to nil, become errors carrying their message (kube-scheduler would
// format them as "%!w(<nil>)").
func (s *Status) ErrOrCode() error {
	if err := s.AsError(); err != nil {
		return err
	}
	msg := s.Message()
	if msg == "" {
		msg = "unexpected status " + s.Code().String()
	}
	return errors.New(msg)
}

// Equal reports whether two statuses have the same code, reasons and
// plugin (errors compare by message).
func (s *Status) Equal(o *Status) bool {
	if s == nil || o == nil {
		return s.IsSuccess() && o.IsSuccess()
	}
	if s.code != o.code || s.plugin != o.plugin || len(s.reasons) != len(o.reasons) {
		return false
	}
	for i := range s.reasons {
		if s.reasons[i] != o.reasons[i] {
			return false
		}
	}
	return true
}

func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	var b strings.Builder
	b.WriteString(s.code.String())
	if s.plugin != "" {
		b.WriteString(" [")
		b.WriteString(s.plugin)
		b.WriteString("]")
	}
	if len(s.reasons) > 0 {
		b.WriteString(": ")
		b.WriteString(s.Message())
	}
	return b.String()
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var buf [20]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
