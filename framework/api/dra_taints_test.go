package api_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
)

func strPtr(s string) *string { return &s }

// TestValidateDeviceTaintRule: a rule needs a name, a taint key and one of
// the three effects; a selector field that is set must not be empty.
func TestValidateDeviceTaintRule(t *testing.T) {
	rule := func(edit func(*api.DeviceTaintRule)) error {
		r := &api.DeviceTaintRule{ObjectMeta: api.ObjectMeta{Name: "r"}, Spec: api.DeviceTaintRuleSpec{
			DeviceSelector: &api.DeviceTaintSelector{Driver: strPtr("d")},
			Taint:          api.DeviceTaint{Key: "example.com/k", Effect: api.DeviceTaintEffectNoSchedule}}}
		edit(r)
		return api.ValidateDeviceTaintRule(r)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for valid
	}{
		{"valid", rule(func(*api.DeviceTaintRule) {}), ""},
		{"no selector", rule(func(r *api.DeviceTaintRule) { r.Spec.DeviceSelector = nil }), ""},
		{"effect None", rule(func(r *api.DeviceTaintRule) { r.Spec.Taint.Effect = api.DeviceTaintEffectNone }), ""},
		{"unnamed", rule(func(r *api.DeviceTaintRule) { r.Name = "" }), "metadata.name: empty"},
		{"empty driver", rule(func(r *api.DeviceTaintRule) { r.Spec.DeviceSelector.Driver = strPtr("") }), "spec.deviceSelector.driver: empty"},
		{"empty device", rule(func(r *api.DeviceTaintRule) { r.Spec.DeviceSelector.Device = strPtr("") }), "spec.deviceSelector.device: empty"},
		{"no key", rule(func(r *api.DeviceTaintRule) { r.Spec.Taint.Key = "" }), "spec.taint.key: empty"},
		{"no effect", rule(func(r *api.DeviceTaintRule) { r.Spec.Taint.Effect = "" }), "spec.taint.effect: empty"},
		{"unknown effect", rule(func(r *api.DeviceTaintRule) { r.Spec.Taint.Effect = "PreferNoSchedule" }), `spec.taint.effect "PreferNoSchedule"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" && tc.err != nil || tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", tc.err, tc.want)
			}
		})
	}
}

// TestDeviceTaintRuleSelects: each selector field set must equal the
// device's; no selector selects nothing, an empty one everything.
func TestDeviceTaintRuleSelects(t *testing.T) {
	for _, tc := range []struct {
		name string
		sel  *api.DeviceTaintSelector
		want bool
	}{
		{"no selector", nil, false},
		{"empty selector", &api.DeviceTaintSelector{}, true},
		{"driver, pool and device", &api.DeviceTaintSelector{Driver: strPtr("d"), Pool: strPtr("p"), Device: strPtr("g0")}, true},
		{"other driver", &api.DeviceTaintSelector{Driver: strPtr("x")}, false},
		{"other pool", &api.DeviceTaintSelector{Pool: strPtr("x")}, false},
		{"other device", &api.DeviceTaintSelector{Driver: strPtr("d"), Device: strPtr("g1")}, false},
	} {
		r := &api.DeviceTaintRule{Spec: api.DeviceTaintRuleSpec{DeviceSelector: tc.sel}}
		if got := r.Selects("d", "p", "g0"); got != tc.want {
			t.Errorf("%s: Selects = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTaintSlices: a rule's taint follows the device's own taints, in rule
// order; untouched slices are the same objects, and the input is not
// changed.
func TestTaintSlices(t *testing.T) {
	own := api.DeviceTaint{Key: "own", Effect: api.DeviceTaintEffectNoSchedule}
	a := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "a"}, Spec: api.ResourceSliceSpec{Driver: "d", Pool: api.ResourcePool{Name: "p"},
		Devices: []api.Device{{Name: "g0", Taints: []api.DeviceTaint{own}}, {Name: "g1"}}}}
	b := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "b"}, Spec: api.ResourceSliceSpec{Driver: "d", Pool: api.ResourcePool{Name: "q"},
		Devices: []api.Device{{Name: "g0"}}}}
	t1 := api.DeviceTaint{Key: "one", Effect: api.DeviceTaintEffectNoExecute}
	t2 := api.DeviceTaint{Key: "two", Effect: api.DeviceTaintEffectNone}
	rules := []*api.DeviceTaintRule{
		{Spec: api.DeviceTaintRuleSpec{DeviceSelector: &api.DeviceTaintSelector{Pool: strPtr("p"), Device: strPtr("g0")}, Taint: t1}},
		{Spec: api.DeviceTaintRuleSpec{DeviceSelector: &api.DeviceTaintSelector{Pool: strPtr("p")}, Taint: t2}},
		{Spec: api.DeviceTaintRuleSpec{Taint: t1}}, // no selector: no device
	}
	in := []*api.ResourceSlice{a, b}
	out := api.TaintSlices(in, rules)
	if out[1] != b || in[0] != a || len(a.Spec.Devices[0].Taints) != 1 || a.Spec.Devices[1].Taints != nil {
		t.Fatalf("input changed or untouched slice copied: in %v, out %v", in, out)
	}
	want := [][]api.DeviceTaint{{own, t1, t2}, {t2}}
	for i, d := range out[0].Spec.Devices {
		if !reflect.DeepEqual(d.Taints, want[i]) {
			t.Errorf("device %s taints %v, want %v", d.Name, d.Taints, want[i])
		}
	}
	if got := api.TaintSlices(in, nil); &got[0] != &in[0] {
		t.Errorf("no rules: a copy of the list")
	}
}

// TestPropTaintSlices: every device ends with its own taints followed by
// the taints of the rules selecting it, in rule order, whatever the rules.
func TestPropTaintSlices(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := []string{"a", "b"}
		field := func(label string) *string {
			if i := rapid.IntRange(-1, len(names)-1).Draw(t, label); i >= 0 {
				return &names[i]
			}
			return nil
		}
		var list []*api.ResourceSlice
		for i := range rapid.IntRange(0, 3).Draw(t, "slices") {
			s := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: fmt.Sprint(i)}, Spec: api.ResourceSliceSpec{
				Driver: rapid.SampledFrom(names).Draw(t, "driver"), Pool: api.ResourcePool{Name: rapid.SampledFrom(names).Draw(t, "pool")}}}
			for j := range rapid.IntRange(0, 3).Draw(t, "devices") {
				d := api.Device{Name: names[j%2]}
				if rapid.Bool().Draw(t, "own") {
					d.Taints = []api.DeviceTaint{{Key: "own"}}
				}
				s.Spec.Devices = append(s.Spec.Devices, d)
			}
			list = append(list, s)
		}
		var rules []*api.DeviceTaintRule
		for i := range rapid.IntRange(0, 3).Draw(t, "rules") {
			r := &api.DeviceTaintRule{Spec: api.DeviceTaintRuleSpec{Taint: api.DeviceTaint{Key: fmt.Sprint("rule", i)}}}
			if rapid.Bool().Draw(t, "selector") {
				r.Spec.DeviceSelector = &api.DeviceTaintSelector{Driver: field("selDriver"), Pool: field("selPool"), Device: field("selDevice")}
			}
			rules = append(rules, r)
		}
		out := api.TaintSlices(list, rules)
		for i, s := range out {
			for j, d := range s.Spec.Devices {
				want := append([]api.DeviceTaint(nil), list[i].Spec.Devices[j].Taints...)
				for _, r := range rules {
					if r.Selects(s.Spec.Driver, s.Spec.Pool.Name, d.Name) {
						want = append(want, r.Spec.Taint)
					}
				}
				if len(want) == 0 {
					want = nil
				}
				if !reflect.DeepEqual(d.Taints, want) {
					t.Fatalf("slice %s device %d taints %v, want %v", s.Name, j, d.Taints, want)
				}
			}
		}
	})
}

// TestBindingReady: a device with binding conditions needs its status with
// every condition True; a True failure condition is reported; devices
// without binding conditions are ready.
func TestBindingReady(t *testing.T) {
	result := api.DeviceRequestAllocationResult{Request: "r", Driver: "d", Pool: "p", Device: "g0",
		BindingConditions: []string{"attached"}, BindingFailureConditions: []string{"failed"}}
	claim := func(results []api.DeviceRequestAllocationResult, conds ...api.Condition) *api.ResourceClaim {
		c := &api.ResourceClaim{Status: api.ResourceClaimStatus{Allocation: &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: results}}}}
		if conds != nil {
			c.Status.Devices = []api.AllocatedDeviceStatus{{Driver: "d", Pool: "other", Device: "g0"}, {Driver: "d", Pool: "p", Device: "g0", Conditions: conds}}
		}
		return c
	}
	with := []api.DeviceRequestAllocationResult{result}
	plain := []api.DeviceRequestAllocationResult{{Request: "r", Driver: "d", Pool: "p", Device: "g0"}}
	for _, tc := range []struct {
		name       string
		c          *api.ResourceClaim
		ready      bool
		failedType string
	}{
		{"not allocated", &api.ResourceClaim{}, false, ""},
		{"no binding conditions", claim(plain), true, ""},
		{"no status", claim(with), false, ""},
		{"condition True", claim(with, api.Condition{Type: "attached", Status: api.ConditionTrue}), true, ""},
		{"condition False", claim(with, api.Condition{Type: "attached", Status: api.ConditionFalse}), false, ""},
		{"failure False", claim(with, api.Condition{Type: "attached", Status: api.ConditionTrue}, api.Condition{Type: "failed", Status: api.ConditionFalse}), true, ""},
		{"failure True", claim(with, api.Condition{Type: "attached", Status: api.ConditionTrue}, api.Condition{Type: "failed", Status: api.ConditionTrue}), false, "failed"},
	} {
		ready, failed := tc.c.BindingReady()
		got := ""
		if failed != nil {
			got = failed.Type
		}
		if ready != tc.ready || got != tc.failedType {
			t.Errorf("%s: BindingReady = %v, %q; want %v, %q", tc.name, ready, got, tc.ready, tc.failedType)
		}
	}
}

// TestBindingTimedOut: only a device with binding conditions times out,
// strictly after the timeout from the allocation's timestamp.
func TestBindingTimedOut(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	claim := func(conds []string, ts *time.Time) *api.ResourceClaim {
		return &api.ResourceClaim{Status: api.ResourceClaimStatus{Allocation: &api.AllocationResult{AllocationTimestamp: ts,
			Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{Device: "g0", BindingConditions: conds}}}}}}
	}
	cond := []string{"attached"}
	for _, tc := range []struct {
		name string
		c    *api.ResourceClaim
		now  time.Time
		want bool
	}{
		{"past the timeout", claim(cond, &at), at.Add(time.Minute + 1), true},
		{"at the timeout", claim(cond, &at), at.Add(time.Minute), false},
		{"no binding conditions", claim(nil, &at), at.Add(time.Hour), false},
		{"no timestamp", claim(cond, nil), at.Add(time.Hour), false},
		{"not allocated", &api.ResourceClaim{}, at.Add(time.Hour), false},
	} {
		if got := tc.c.BindingTimedOut(time.Minute, tc.now); got != tc.want {
			t.Errorf("%s: BindingTimedOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}
