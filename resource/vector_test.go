package resource_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/resource"
)

// vecList parses a name → quantity map for tests.
func vecList(m map[string]string) resource.List { return resource.MustParseList(m) }

// VectorFrom follows kube-scheduler's framework.Resource.Add
// (pkg/scheduler/framework/types.go): cpu by MilliValue, memory, ephemeral
// storage and pods by Value, scalar resources (IsScalarResourceName) by
// Value, everything else dropped. Value and MilliValue round up.
func TestVectorFrom(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		want resource.Vector
	}{
		{name: "empty", in: nil, want: resource.Vector{}},
		{
			name: "well-known slots",
			in:   map[string]string{"cpu": "1.5", "memory": "1Gi", "ephemeral-storage": "1k", "pods": "110"},
			want: resource.Vector{MilliCPU: 1500, Memory: 1 << 30, EphemeralStorage: 1000, Pods: 110},
		},
		{
			// 0.1m cpu is 0.0001 cores: MilliValue rounds up to 1.
			// 500m bytes of memory: Value rounds up to 1; 1.5 → 2.
			name: "rounding up",
			in:   map[string]string{"cpu": "100u", "memory": "500m", "ephemeral-storage": "1.5"},
			want: resource.Vector{MilliCPU: 1, Memory: 1, EphemeralStorage: 2},
		},
		{
			name: "scalars sorted by name",
			in: map[string]string{
				"nvidia.com/gpu":             "2",
				"kubernetes.io/batch-cpu":    "1500",
				"hugepages-2Mi":              "4Mi",
				"attachable-volumes-aws-ebs": "39",
			},
			want: resource.Vector{Scalars: []resource.Scalar{
				{Name: "attachable-volumes-aws-ebs", Value: 39},
				{Name: "hugepages-2Mi", Value: 4 << 20},
				{Name: "kubernetes.io/batch-cpu", Value: 1500},
				{Name: "nvidia.com/gpu", Value: 2},
			}},
		},
		{
			// "storage" and "foo" are native but not scalar; "c/d/" and
			// "requests.nvidia.com/gpu" fail IsExtendedResourceName.
			name: "non-scalar unknown names ignored",
			in: map[string]string{
				"cpu": "1", "storage": "10Gi", "foo": "3", "c/d/": "1", "requests.nvidia.com/gpu": "1",
			},
			want: resource.Vector{MilliCPU: 1000},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := resource.VectorFrom(vecList(tc.in))
			// Compare structurally too: Equal treats a zero scalar as
			// absent, which must not hide an extra entry here.
			if diff := cmp.Diff(tc.want.Scalars, got.Scalars); diff != "" {
				t.Errorf("Scalars (-want +got):\n%s", diff)
			}
			if !got.Equal(tc.want) {
				t.Errorf("VectorFrom = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestVectorGetSetAddTo(t *testing.T) {
	var v resource.Vector
	v.Set(resource.CPU, 250)
	v.Set(resource.Memory, 1024)
	v.Set(resource.EphemeralStorage, 7)
	v.Set(resource.Pods, 3)
	v.Set("nvidia.com/gpu", 2)
	v.Set("example.com/a", 5)
	v.AddTo("nvidia.com/gpu", 3)
	v.AddTo(resource.CPU, -50)
	want := map[resource.Name]int64{
		resource.CPU: 200, resource.Memory: 1024, resource.EphemeralStorage: 7, resource.Pods: 3,
		"nvidia.com/gpu": 5, "example.com/a": 5, "absent.com/x": 0,
	}
	for n, w := range want {
		if got := v.Get(n); got != w {
			t.Errorf("Get(%q) = %d, want %d", n, got, w)
		}
	}
	// Scalar looks among the scalar resources only.
	for n, w := range map[resource.Name]int64{"nvidia.com/gpu": 5, "example.com/a": 5, "absent.com/x": 0, resource.CPU: 0, resource.Pods: 0} {
		if got := v.Scalar(n); got != w {
			t.Errorf("Scalar(%q) = %d, want %d", n, got, w)
		}
	}
	wantScalars := []resource.Scalar{{Name: "example.com/a", Value: 5}, {Name: "nvidia.com/gpu", Value: 5}}
	if diff := cmp.Diff(wantScalars, v.Scalars); diff != "" {
		t.Errorf("Scalars not sorted/merged (-want +got):\n%s", diff)
	}
}

func TestVectorArithmetic(t *testing.T) {
	a := resource.Vector{MilliCPU: 1000, Memory: 100, EphemeralStorage: 10, Pods: 1,
		Scalars: []resource.Scalar{{Name: "b.com/x", Value: 4}, {Name: "d.com/y", Value: 1}}}
	b := resource.Vector{MilliCPU: 300, Memory: 500, Pods: 2,
		Scalars: []resource.Scalar{{Name: "a.com/z", Value: 7}, {Name: "b.com/x", Value: 6}}}

	sum := a.Clone()
	sum.Add(b)
	wantSum := resource.Vector{MilliCPU: 1300, Memory: 600, EphemeralStorage: 10, Pods: 3,
		Scalars: []resource.Scalar{{Name: "a.com/z", Value: 7}, {Name: "b.com/x", Value: 10}, {Name: "d.com/y", Value: 1}}}
	if diff := cmp.Diff(wantSum.Scalars, sum.Scalars); diff != "" || !sum.Equal(wantSum) {
		t.Errorf("Add = %+v, want %+v", sum, wantSum)
	}

	// Sub back: a.com/z stays as a zero entry (kube keeps zeroed scalars),
	// and Equal treats it as absent.
	back := sum.Clone()
	back.Sub(b)
	if !back.Equal(a) {
		t.Errorf("Add then Sub = %+v, want %+v", back, a)
	}
	if got := back.Get("a.com/z"); got != 0 || len(back.Scalars) != 3 {
		t.Errorf("Sub left a.com/z=%d with %d scalars, want a kept zero entry among 3", got, len(back.Scalars))
	}

	// SetMax per resource: cpu 1000 vs 300 → 1000; memory 100 vs 500 → 500;
	// ephemeral 10 vs 0 → 10; pods 1 vs 2 → 2; b.com/x 4 vs 6 → 6; a.com/z
	// absent vs 7 → 7; d.com/y 1 vs absent → 1.
	m := a.Clone()
	m.SetMax(b)
	wantMax := resource.Vector{MilliCPU: 1000, Memory: 500, EphemeralStorage: 10, Pods: 2,
		Scalars: []resource.Scalar{{Name: "a.com/z", Value: 7}, {Name: "b.com/x", Value: 6}, {Name: "d.com/y", Value: 1}}}
	if diff := cmp.Diff(wantMax.Scalars, m.Scalars); diff != "" || !m.Equal(wantMax) {
		t.Errorf("SetMax = %+v, want %+v", m, wantMax)
	}
	// SetMax with a smaller negative value leaves a scalar alone.
	m.SetMax(resource.Vector{Scalars: []resource.Scalar{{Name: "e.com/w", Value: -3}}})
	if len(m.Scalars) != 3 {
		t.Errorf("SetMax with -3 added an entry: %+v", m.Scalars)
	}

	// The inputs were not modified.
	if a.MilliCPU != 1000 || a.Scalars[0].Value != 4 || b.Scalars[1].Value != 6 {
		t.Errorf("inputs modified: a=%+v b=%+v", a, b)
	}
}

func TestVectorEqualAndIsZero(t *testing.T) {
	tests := []struct {
		name  string
		a, b  resource.Vector
		equal bool
	}{
		{"both empty", resource.Vector{}, resource.Vector{}, true},
		{"zero scalar equals absent", resource.Vector{Scalars: []resource.Scalar{{Name: "x.com/a", Value: 0}}}, resource.Vector{}, true},
		{"absent equals zero scalar", resource.Vector{}, resource.Vector{Scalars: []resource.Scalar{{Name: "x.com/a", Value: 0}}}, true},
		{"scalar differs", resource.Vector{Scalars: []resource.Scalar{{Name: "x.com/a", Value: 1}}}, resource.Vector{}, false},
		{"scalar only on right", resource.Vector{}, resource.Vector{Scalars: []resource.Scalar{{Name: "x.com/a", Value: 2}}}, false},
		{"cpu differs", resource.Vector{MilliCPU: 1}, resource.Vector{}, false},
		{"memory differs", resource.Vector{Memory: 1}, resource.Vector{}, false},
		{"ephemeral differs", resource.Vector{EphemeralStorage: 1}, resource.Vector{}, false},
		{"pods differs", resource.Vector{Pods: 1}, resource.Vector{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(tc.b); got != tc.equal {
				t.Errorf("Equal = %v, want %v", got, tc.equal)
			}
			// cmp uses the Equal method.
			if got := cmp.Equal(tc.a, tc.b); got != tc.equal {
				t.Errorf("cmp.Equal = %v, want %v", got, tc.equal)
			}
			if got := tc.a.IsZero(); got != tc.a.Equal(resource.Vector{}) {
				t.Errorf("IsZero = %v, disagrees with Equal(zero)", got)
			}
		})
	}
}

func TestVectorCloneIndependent(t *testing.T) {
	v := resource.Vector{MilliCPU: 1, Scalars: []resource.Scalar{{Name: "x.com/a", Value: 1}}}
	c := v.Clone()
	c.Set("x.com/a", 9)
	c.Set("y.com/b", 2)
	c.MilliCPU = 5
	if v.Get("x.com/a") != 1 || v.MilliCPU != 1 || len(v.Scalars) != 1 {
		t.Errorf("mutating the clone changed the original: %+v", v)
	}
	var empty resource.Vector
	if ec := empty.Clone(); ec.Scalars != nil {
		t.Errorf("Clone of empty vector allocated scalars: %+v", ec)
	}
}

func TestVectorList(t *testing.T) {
	v := resource.Vector{MilliCPU: 1500, Memory: 1 << 30, EphemeralStorage: 0, Pods: 110,
		Scalars: []resource.Scalar{{Name: "nvidia.com/gpu", Value: 2}, {Name: "zero.com/z", Value: 0}}}
	l := v.List()
	want := vecList(map[string]string{"cpu": "1500m", "memory": "1Gi", "pods": "110", "nvidia.com/gpu": "2"})
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	// Zero amounts are omitted, not present as zero.
	for _, n := range []resource.Name{resource.EphemeralStorage, "zero.com/z"} {
		if _, ok := l[n]; ok {
			t.Errorf("List kept zero entry %q", n)
		}
	}
	if got := l.String(); got != "cpu=1500m,memory=1Gi,nvidia.com/gpu=2,pods=110" {
		t.Errorf("List().String() = %q", got)
	}
	// Round trip.
	if back := resource.VectorFrom(l); !back.Equal(v) {
		t.Errorf("VectorFrom(List) = %+v, want %+v", back, v)
	}
}
