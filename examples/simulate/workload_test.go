package main

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/replay"
)

// builderWorkload is builtinWorkload written plainly: every pod built on
// its own by the builder, from the same random draws.
func builderWorkload(n int, rng *rand.Rand) []replay.PodArrival {
	shapes := []struct {
		name, cpu, mem string
		weight         int
		batch          bool
	}{
		{"web", "250m", "512Mi", 40, false},
		{"api", "500m", "1Gi", 25, false},
		{"batch", "1", "2Gi", 15, true},
		{"cache", "500m", "4Gi", 12, false},
		{"ml", "2", "8Gi", 8, false},
	}
	var out []replay.PodArrival
	for i := range n {
		pick := rng.IntN(100)
		s := shapes[0]
		for _, c := range shapes {
			if pick < c.weight {
				s = c
				break
			}
			pick -= c.weight
		}
		prio := int32(0)
		if rng.IntN(10) == 0 {
			prio = 1000
		}
		pod := builder.MakePod().Name(fmt.Sprintf("%s-%05d", s.name, i)).Label("app", s.name).Priority(prio).
			Req(map[string]string{"cpu": s.cpu, "memory": s.mem}).Obj()
		var dur time.Duration
		if s.batch {
			dur = time.Duration(30+rng.IntN(61)) * time.Second
		}
		at := time.Duration(0)
		if n > 1 {
			at = 100 * time.Second * time.Duration(i) / time.Duration(n)
		}
		out = append(out, replay.PodArrival{At: at, Duration: dur, Pod: pod})
	}
	return out
}

// TestBuiltinWorkloadEqualsBuilt: the built-in workload's pods, which share
// their specs per shape, equal pods built one by one, arrival for arrival,
// so sharing changes no decision.
func TestBuiltinWorkloadEqualsBuilt(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3000} {
		for seed := range uint64(3) {
			var w replay.Workload
			builtinWorkload(n, rand.New(rand.NewPCG(seed, 0x5eed)), &w, nil)
			want := builderWorkload(n, rand.New(rand.NewPCG(seed, 0x5eed)))
			if len(w.Arrivals) != len(want) {
				t.Fatalf("n=%d seed=%d: %d arrivals, want %d", n, seed, len(w.Arrivals), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(w.Arrivals[i], want[i]) {
					t.Fatalf("n=%d seed=%d: arrival %d = %+v (pod %+v), want %+v (pod %+v)", n, seed, i, w.Arrivals[i], *w.Arrivals[i].Pod, want[i], *want[i].Pod)
				}
			}
		}
	}
}
