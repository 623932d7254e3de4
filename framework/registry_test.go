package framework

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type testArgs struct{ N int }

func TestTypedFactory(t *testing.T) {
	var got testArgs
	fac := TypedFactory(func(a testArgs, _ Handle) (Plugin, error) { got = a; return typedPlugin{}, nil })
	for _, in := range []any{testArgs{N: 3}, &testArgs{N: 3}} {
		got = testArgs{}
		if _, err := fac(in, nil); err != nil || got.N != 3 {
			t.Fatalf("%T: %v %v", in, got, err)
		}
	}
	if _, err := fac(nil, nil); err != nil || got.N != 0 {
		t.Fatalf("nil args: %v %v", got, err)
	}
	if _, err := fac("oops", nil); err == nil || !strings.Contains(err.Error(), "args of type string, want framework.testArgs") {
		t.Fatalf("wrong type: %v", err)
	}
}

// typedPlugin is the plugin TestTypedFactory's constructor returns.
type typedPlugin struct{}

func (typedPlugin) Name() string { return "t" }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	fac := func(any, Handle) (Plugin, error) { return typedPlugin{}, nil }
	if err := r.Register("x", fac); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("x", fac); err == nil || err.Error() != `framework: registry: plugin "x" registered twice` {
		t.Fatalf("duplicate: %v", err)
	}
	if err := r.Register("", fac); err == nil {
		t.Fatal("empty name accepted")
	}
	if err := r.Register("y", nil); err == nil {
		t.Fatal("nil factory accepted")
	}
	o := NewRegistry()
	_ = o.Register("x", fac)
	if err := r.Merge(o); err == nil {
		t.Fatal("merge with a clash accepted")
	}
	if d := cmp.Diff([]string{"x"}, r.Names()); d != "" {
		t.Fatal(d)
	}
}
