package resource_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/resource"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]string
		want    resource.List
		wantErr string
		input   string // ParseError.Input expected in the chain
	}{
		{name: "nil", in: nil, want: nil},
		{name: "empty", in: map[string]string{}, want: nil},
		{
			name: "valid",
			in:   map[string]string{"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "2"},
			want: resource.List{
				resource.CPU:     resource.NewMilliQuantity(500, resource.DecimalSI),
				resource.Memory:  resource.NewQuantity(1<<30, resource.BinarySI),
				"nvidia.com/gpu": resource.NewQuantity(2, resource.DecimalSI),
			},
		},
		{
			name:    "invalid names the resource and value",
			in:      map[string]string{"cpu": "1", "memory": "12Q"},
			wantErr: `resource "memory": resource: quantity "12Q"`,
			input:   "12Q",
		},
		{
			// Several bad entries: the first in name order is reported,
			// so the message is deterministic.
			name:    "first bad name in order",
			in:      map[string]string{"memory": "x", "cpu": "", "pods": "1"},
			wantErr: `resource "cpu": resource: quantity ""`,
			input:   "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resource.ParseList(tc.in)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseList(%v) = %v, want error %q", tc.in, got, tc.wantErr)
				}
				if !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Errorf("error %q does not start with %q", err, tc.wantErr)
				}
				var pe *resource.ParseError
				if !errors.As(err, &pe) || pe.Input != tc.input {
					t.Errorf("error %v does not wrap a ParseError for %q", err, tc.input)
				}
				if got != nil {
					t.Errorf("ParseList returned %v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseList: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseList (-want +got):\n%s", diff)
			}
			if (tc.want == nil) != (got == nil) {
				t.Errorf("ParseList nil-ness = %v, want %v", got == nil, tc.want == nil)
			}
		})
	}
}

func TestMustParseListPanics(t *testing.T) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !strings.Contains(err.Error(), `resource "cpu"`) {
			t.Errorf("MustParseList panic = %v, want an error naming cpu", r)
		}
	}()
	resource.MustParseList(map[string]string{"cpu": "one"})
}

func TestListHelpers(t *testing.T) {
	l := resource.MustParseList(map[string]string{"memory": "1Gi", "cpu": "500m", "a.com/x": "3"})

	if diff := cmp.Diff([]resource.Name{"a.com/x", "cpu", "memory"}, l.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if q := l.Get("nope"); !q.IsZero() {
		t.Errorf("Get(missing) = %v, want 0", q)
	}
	if q := l.Get(resource.CPU); q.MilliValue() != 500 {
		t.Errorf("Get(cpu) = %v, want 500m", q)
	}
	if got := l.String(); got != "a.com/x=3,cpu=500m,memory=1Gi" {
		t.Errorf("String = %q", got)
	}
	if got := (resource.List{}).String(); got != "" {
		t.Errorf("empty String = %q", got)
	}

	// Clone: nil stays nil; a copy is independent.
	if resource.List(nil).Clone() != nil {
		t.Error("Clone(nil) != nil")
	}
	c := l.Clone()
	c[resource.CPU] = resource.MustParse("2")
	delete(c, "a.com/x")
	if l.Get(resource.CPU).MilliValue() != 500 || len(l) != 3 {
		t.Errorf("mutating a clone changed the original: %v", l)
	}

	// Add: 500m + 1.5 = 2000m; 1Gi + 0 = 1Gi; new key b.com/y = 1; the
	// receiver is untouched.
	sum := l.Add(resource.MustParseList(map[string]string{"cpu": "1.5", "b.com/y": "1"}))
	want := resource.MustParseList(map[string]string{"cpu": "2", "memory": "1Gi", "a.com/x": "3", "b.com/y": "1"})
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	if l.Get(resource.CPU).MilliValue() != 500 || len(l) != 3 {
		t.Errorf("Add modified its receiver: %v", l)
	}
	if got := resource.List(nil).Add(nil); got != nil {
		t.Errorf("nil.Add(nil) = %v, want nil", got)
	}
	if got := resource.List(nil).Add(l); !got.Equal(l) || len(got) != 3 {
		t.Errorf("nil.Add(l) = %v, want %v", got, l)
	}
}

func TestListEqual(t *testing.T) {
	p := resource.MustParseList
	tests := []struct {
		name string
		a, b resource.List
		want bool
	}{
		{"nil and empty", nil, resource.List{}, true},
		{"same value, different units", p(map[string]string{"cpu": "1"}), p(map[string]string{"cpu": "1000m"}), true},
		{"binary vs decimal bytes", p(map[string]string{"memory": "1Ki"}), p(map[string]string{"memory": "1024"}), true},
		{"explicit zero equals missing", p(map[string]string{"cpu": "0"}), nil, true},
		{"missing equals explicit zero", nil, p(map[string]string{"cpu": "0"}), true},
		{"different value", p(map[string]string{"cpu": "1"}), p(map[string]string{"cpu": "2"}), false},
		{"extra non-zero on left", p(map[string]string{"cpu": "1", "memory": "1"}), p(map[string]string{"cpu": "1"}), false},
		{"extra non-zero on right", p(map[string]string{"cpu": "1"}), p(map[string]string{"cpu": "1", "memory": "1"}), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(tc.b); got != tc.want {
				t.Errorf("%v.Equal(%v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
