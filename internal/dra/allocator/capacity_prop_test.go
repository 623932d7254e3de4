package allocator

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// TestPropFitsCapacityOrder: fitsCapacity, which goes through a device's
// capacities in the map's order, gives the answer and the error of
// fitsCapacityInOrder, which goes through them by name, on capacities
// with and without request policies (defaults, valid values, ranges with
// positive steps, zero and negative amounts, fractions), requests naming some of
// them or others, and amounts allocated and being allocated.
func TestPropFitsCapacityOrder(t *testing.T) {
	amounts := []string{"-1", "0", "500m", "1", "2", "3", "4", "8", "1Gi"}
	quantity := func(t *rapid.T, label string) resource.Quantity {
		return resource.MustParse(rapid.SampledFrom(amounts).Draw(t, label))
	}
	maybe := func(t *rapid.T, label string) *resource.Quantity {
		if !rapid.Bool().Draw(t, label+"?") {
			return nil
		}
		q := quantity(t, label)
		return &q
	}
	names := []api.QualifiedName{"a", "b", "c", "d"}
	rapid.Check(t, func(t *rapid.T) {
		devCap := map[api.QualifiedName]api.DeviceCapacity{}
		for _, n := range names {
			if !rapid.Bool().Draw(t, "has "+string(n)) {
				continue
			}
			c := api.DeviceCapacity{Value: quantity(t, "value")}
			switch rapid.IntRange(0, 3).Draw(t, "policy") {
			case 1:
				c.RequestPolicy = &api.CapacityRequestPolicy{Default: maybe(t, "default")}
			case 2:
				c.RequestPolicy = &api.CapacityRequestPolicy{Default: maybe(t, "default"), ValidValues: []resource.Quantity{quantity(t, "v1"), quantity(t, "v2")}}
			case 3:
				// A step is positive, as validation requires.
				var step *resource.Quantity
				if rapid.Bool().Draw(t, "step?") {
					q := resource.MustParse(rapid.SampledFrom([]string{"500m", "1", "2", "3"}).Draw(t, "step"))
					step = &q
				}
				c.RequestPolicy = &api.CapacityRequestPolicy{Default: maybe(t, "default"), ValidRange: &api.CapacityRequestPolicyRange{
					Min: maybe(t, "min"), Max: maybe(t, "max"), Step: step}}
			}
			devCap[n] = c
		}
		var req *api.CapacityRequirements
		if rapid.Bool().Draw(t, "request") {
			req = &api.CapacityRequirements{Requests: map[api.QualifiedName]resource.Quantity{}}
			for _, n := range names {
				if rapid.Bool().Draw(t, "asks "+string(n)) {
					req.Requests[n] = quantity(t, "asked")
				}
			}
		}
		amountsOf := func(label string) capacities {
			if !rapid.Bool().Draw(t, label) {
				return nil
			}
			out := capacities{}
			for _, n := range names {
				if rapid.Bool().Draw(t, label+" "+string(n)) {
					out[n] = quantity(t, label+" amount")
				}
			}
			return out
		}
		allocated, allocating := amountsOf("allocated"), amountsOf("allocating")
		fractional, v136 := rapid.Bool().Draw(t, "fractional"), rapid.Bool().Draw(t, "v136")
		got, gotErr := fitsCapacity(allocated, req, devCap, allocating, fractional, v136)
		want, wantErr := fitsCapacityInOrder(allocated, req, devCap, allocating, fractional, v136)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("fitsCapacity = %v, %v; in name order %v, %v", got, gotErr, want, wantErr)
		}
	})
}
