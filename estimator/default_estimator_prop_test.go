package estimator

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// podCPU builds a single-container pod requesting reqMilli cpu with limit
// limMilli (0: no limit) and a memory request.
func podCPU(reqMilli, limMilli int64, memMi int64) *api.Pod {
	req := map[string]string{"cpu": fmt.Sprintf("%dm", reqMilli), "memory": fmt.Sprintf("%dMi", memMi)}
	if limMilli == 0 {
		return st.MakePod().Name("p").Req(req).Obj()
	}
	return st.MakePod().Name("p").Lim(req, map[string]string{"cpu": fmt.Sprintf("%dm", limMilli)}).Obj()
}

// TestPropDefaultEstimatorMonotone: for valid pods (a limit, when set, is at
// least the request; requests non-zero — a zero request switches to the
// 250m default) and factors in the args' range, the estimate never decreases
// when the limit or the scaling factor grows (both modes), or when the
// request grows (current mode only), and never exceeds a positive limit.
//
// The ≤ v1.5 estimator is not monotone in the request: a Burstable pod is
// estimated at its full limit, and raising its request to the limit makes
// it Guaranteed-like and estimated at factor × limit — the inconsistency
// koordinator-sh/koordinator#2232 reported and
// koordinator-sh/koordinator#2242 fixed (see
// TestDefaultEstimatorV15RequestInversion).
func TestPropDefaultEstimatorMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limitAtFull := rapid.Bool().Draw(t, "limitAtFull")
		f := rapid.Int64Range(1, 100).Draw(t, "factor")
		df := rapid.Int64Range(0, 50).Draw(t, "dfactor")
		r := rapid.Int64Range(1, 64000).Draw(t, "req")
		dr := rapid.Int64Range(0, 64000).Draw(t, "dreq")
		hasLimit := rapid.Bool().Draw(t, "hasLimit")
		var l, dl int64
		if hasLimit {
			l = r + dr + rapid.Int64Range(0, 64000).Draw(t, "lextra")
			dl = rapid.Int64Range(0, 64000).Draw(t, "dlim")
		}
		est := func(factor, req, lim int64) int64 {
			e, err := NewDefaultEstimator(Options{ScalingFactors: map[resource.Name]int64{resource.CPU: factor}, LimitAtFull: limitAtFull})
			if err != nil {
				t.Fatal(err)
			}
			m, _ := e.EstimatePod(podCPU(req, lim, 64))
			if lim > 0 && m[resource.CPU] > lim {
				t.Fatalf("estimate %d above limit %d", m[resource.CPU], lim)
			}
			return m[resource.CPU]
		}
		base := est(f, r, l)
		if got := est(f, r+dr, l); got < base && !limitAtFull {
			t.Fatalf("request %d→%d: estimate %d→%d", r, r+dr, base, got)
		}
		if hasLimit {
			if got := est(f, r, l+dl); got < base {
				t.Fatalf("limit %d→%d: estimate %d→%d", l, l+dl, base, got)
			}
		} else if got := est(f, r, r+dl); got < base {
			t.Fatalf("adding limit %d ≥ request %d: estimate %d→%d", r+dl, r, base, got)
		}
		if got := est(f+df, r, l); got < base {
			t.Fatalf("factor %d→%d: estimate %d→%d", f, f+df, base, got)
		}
	})
}

// Koordinator ≤ v1.5 (koordinator-sh/koordinator#2232): request 1 / limit 2
// is estimated at the full limit, request 2 / limit 2 at factor × limit.
func TestDefaultEstimatorV15RequestInversion(t *testing.T) {
	e := mustDefault(t, Options{LimitAtFull: true, ScalingFactors: map[resource.Name]int64{resource.CPU: 50}})
	burstable, _ := e.EstimatePod(podCPU(1000, 2000, 64))
	guaranteed, _ := e.EstimatePod(podCPU(2000, 2000, 64))
	if burstable[resource.CPU] != 2000 || guaranteed[resource.CPU] != 1000 {
		t.Errorf("≤ v1.5 estimates: burstable %d (want 2000), guaranteed %d (want 1000)", burstable[resource.CPU], guaranteed[resource.CPU])
	}
	cur := mustDefault(t, Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 50}})
	burstable, _ = cur.EstimatePod(podCPU(1000, 2000, 64))
	if burstable[resource.CPU] != 1000 {
		t.Errorf("current estimate of burstable = %d, want 1000", burstable[resource.CPU])
	}
}
