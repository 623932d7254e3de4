package zerocheck

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// good is a type whose zero value answers every method clearly.
type good struct{ ready bool }

func (g *good) Name(string) (string, error) {
	if !g.ready {
		return "", errors.New("good: zero good: build it with NewGood")
	}
	return "x", nil
}

func (g *good) Items() []int { return nil }

// bad is a type whose zero value panics in one method and answers
// another without an error.
type bad struct{ m map[string]int }

func (b *bad) Set(k string) { b.m[k] = 1 }

func (b *bad) Len() int { return 1 }

func stringArg(t reflect.Type) (reflect.Value, bool) {
	if t == reflect.TypeFor[string]() {
		return reflect.ValueOf("k"), true
	}
	return reflect.Value{}, false
}

func TestMethodsAcceptsClearZeroValues(t *testing.T) {
	Methods(t, func() any { return &good{} }, stringArg)
}

// TestMethodsReportsPanicsAndAnswers runs the check on bad in a child
// test process, which must fail naming the panic and the non-zero answer.
func TestMethodsReportsPanicsAndAnswers(t *testing.T) {
	if os.Getenv("ZEROCHECK_CHILD") == "1" {
		Methods(t, func() any { return &bad{} }, stringArg)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMethodsReportsPanicsAndAnswers$")
	cmd.Env = append(os.Environ(), "ZEROCHECK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the check passed on a zero value that panics:\n%s", out)
	}
	for _, want := range []string{"panicked on the zero value", "result 0 on the zero value is 1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
