package runtime

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestLadder(t *testing.T) {
	for _, tc := range []struct {
		most int
		want []int
	}{
		{2, []int{1, 2}},
		{3, []int{1, 2, 3}},
		{9, []int{1, 2, 3, 5, 9}},
		{16, []int{1, 2, 4, 8, 16}},
		{200, []int{1, 4, 7, 13, 25, 50, 100, 200}},
	} {
		var got []int
		for l := 0; l <= top(tc.most); l++ {
			got = append(got, ladder(l, tc.most))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ladder of %d = %v, want %v", tc.most, got, tc.want)
		}
	}
}

// govCycles drives g through cycles whose ns per node at width w is
// cost(i, w) times a noise factor drawn from r (pods ±40 % apart in cost,
// and one cycle in a hundred caught by a pause 20 times as long), and
// returns the width of every cycle.
func govCycles(g *widthGovernor, most, cycles int, r *rand.Rand, cost func(i, w int) float64) []int {
	return govCyclesApart(g, most, cycles, r, 0.4, cost)
}

// govCyclesApart is govCycles with pods ±apart in cost.
func govCyclesApart(g *widthGovernor, most, cycles int, r *rand.Rand, apart float64, cost func(i, w int) float64) []int {
	widths := make([]int, cycles)
	for i := range cycles {
		w, l := g.choose(most)
		widths[i] = w
		noise := 1 - apart + 2*apart*r.Float64()
		if r.IntN(100) == 0 {
			noise *= 20
		}
		const nodes = 5000
		g.note(most, l, w, time.Duration(cost(i, w)*noise*nodes), nodes)
	}
	return widths
}

// shareAt returns the share of widths equal to w.
func shareAt(widths []int, w int) float64 {
	n := 0
	for _, x := range widths {
		if x == w {
			n++
		}
	}
	return float64(n) / float64(len(widths))
}

// TestWidthGovernorFindsCheapestWidth: over noisy cycles the governor
// settles on the width whose cycles cost least, and runs nearly every
// cycle there.
func TestWidthGovernorFindsCheapestWidth(t *testing.T) {
	for _, tc := range []struct {
		name string
		most int
		cost map[int]float64 // ns per node by width
		want int
	}{
		{"sharing pays", 2, map[int]float64{1: 16, 2: 11}, 2},
		{"sharing costs", 2, map[int]float64{1: 16, 2: 19}, 1},
		{"four of sixteen", 16, map[int]float64{1: 16, 2: 10, 4: 6, 8: 8, 16: 11}, 4},
		{"one of nine", 9, map[int]float64{1: 10, 2: 13, 3: 14, 5: 15, 9: 18}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g widthGovernor
			r := rand.New(rand.NewPCG(1, 2))
			widths := govCycles(&g, tc.most, 200_000, r, func(_, w int) float64 { return tc.cost[w] })
			if share := shareAt(widths[150_000:], tc.want); share < 0.97 {
				t.Errorf("last 50,000 cycles: %.3f at width %d, want at least 0.97", share, tc.want)
			}
		})
	}
}

// TestWidthGovernorLeavesAClearlyDearerWidthSoon: when sharing makes
// every cycle twice as long (cheap cycles, as scheduler_perf's
// SchedulingBasic over every node on two vCPUs far apart), the governor
// leaves the shared width within the first few hundred cycles of a
// stream, and runs most of a stream of 1,000 pods on one worker; when
// it makes them a sixth longer (the same case with the vCPUs near), it
// leaves as soon for pods alike, as scheduler_perf's are (±10 % here);
// when sharing pays, nearly every cycle of such a stream is shared,
// the pods alike or not.
func TestWidthGovernorLeavesAClearlyDearerWidthSoon(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cost    map[int]float64
		apart   float64
		want    int
		atLeast float64
	}{
		{"sharing doubles the cycle", map[int]float64{1: 13, 2: 29}, 0.4, 1, 0.6},
		{"sharing adds a sixth to the cycle, pods alike", map[int]float64{1: 16.6, 2: 19.6}, 0.1, 1, 0.6},
		{"sharing pays", map[int]float64{1: 16, 2: 11}, 0.4, 2, 0.9},
		{"sharing pays a little, pods alike", map[int]float64{1: 16, 2: 14.5}, 0.1, 2, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := 500
			if tc.want == 2 {
				from = 0
			}
			for seed := range uint64(20) {
				var g widthGovernor
				r := rand.New(rand.NewPCG(seed, 7))
				widths := govCyclesApart(&g, 2, 1000, r, tc.apart, func(_, w int) float64 { return tc.cost[w] })
				if share := shareAt(widths[from:], tc.want); share < tc.atLeast {
					t.Errorf("seed %d: %.2f of cycles %d–999 at width %d, want at least %.2f", seed, share, from, tc.want, tc.atLeast)
				}
			}
		})
	}
}

// TestWidthGovernorKeepsAPayingWidthOverUnlikePods: when sharing
// shortens the cycles of a stream of unlike pods by a quarter (as the
// varied stream's: here a third of the pods cost three times the
// others, ±20 %), the governor does not leave the shared width in a
// stream's first thousands of cycles, where a few trials' mean may by
// chance find one worker cheaper.
func TestWidthGovernorKeepsAPayingWidthOverUnlikePods(t *testing.T) {
	for seed := range uint64(100) {
		var g widthGovernor
		r := rand.New(rand.NewPCG(seed, 9))
		atTwo := 0
		const cycles = 3000
		for range cycles {
			w, l := g.choose(2)
			if w == 2 {
				atTwo++
			}
			pod := 1.0
			if r.IntN(3) == 0 {
				pod = 3
			}
			noise := pod * (0.8 + 0.4*r.Float64())
			if r.IntN(100) == 0 {
				noise *= 20
			}
			g.note(2, l, w, time.Duration(map[int]float64{1: 16, 2: 12}[w]*noise*5000), 5000)
		}
		if share := float64(atTwo) / cycles; share < 0.95 {
			t.Errorf("seed %d: %.3f of %d cycles at width 2, want at least 0.95", seed, share, cycles)
		}
	}
}

// TestWidthGovernorSeldomMovesBetweenEqualWidths: noise alone (pods
// unlike in cost, pauses) moves the current width at most once in 10,000
// cycles when two widths cost the same (about once in 40,000 here).
func TestWidthGovernorSeldomMovesBetweenEqualWidths(t *testing.T) {
	var g widthGovernor
	r := rand.New(rand.NewPCG(3, 4))
	moves, level := 0, -1
	for range 200_000 {
		w, l := g.choose(2)
		noise := 0.6 + 0.8*r.Float64()
		if r.IntN(100) == 0 {
			noise *= 20
		}
		g.note(2, l, w, time.Duration(10*noise*5000), 5000)
		if g.level != level {
			if level >= 0 {
				moves++
			}
			level = g.level
		}
	}
	if moves > 20 {
		t.Errorf("%d moves of the current width in 200,000 cycles between two widths of equal cost, want at most 20", moves)
	}
}

// TestWidthGovernorFollowsTheMachine: when the machine changes (sharing
// stops paying, then pays again) the governor follows, each way within
// half a phase of 100,000 cycles.
func TestWidthGovernorFollowsTheMachine(t *testing.T) {
	var g widthGovernor
	r := rand.New(rand.NewPCG(5, 6))
	const phase = 100_000
	widths := govCycles(&g, 2, 4*phase, r, func(i, w int) float64 {
		if (i/phase)%2 == 1 && w == 2 {
			return 20 // sharing costs
		}
		return map[int]float64{1: 16, 2: 11}[w]
	})
	for p := range 4 {
		want := 2
		if p%2 == 1 {
			want = 1
		}
		if share := shareAt(widths[p*phase+phase/2:(p+1)*phase], want); share < 0.95 {
			t.Errorf("phase %d: %.3f of its last half's cycles at width %d, want at least 0.95", p, share, want)
		}
	}
}

// TestPropWidthGovernorStaysOnTheLadder: whatever the costs noted, the
// governor chooses a width of its ladder and a level that names it.
func TestPropWidthGovernorStaysOnTheLadder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var g widthGovernor
		most := rapid.IntRange(2, 64).Draw(t, "most")
		for range rapid.IntRange(1, 3000).Draw(t, "cycles") {
			w, l := g.choose(most)
			if l < 0 || l > top(most) || w != ladder(l, most) || w < 1 || w > most {
				t.Fatalf("choose(%d) = width %d, level %d: not on the ladder", most, w, l)
			}
			ran := w
			if rapid.IntRange(0, 20).Draw(t, "busy") == 0 {
				ran = 1 // the pool held by another cycle
			}
			d := time.Duration(rapid.Int64Range(0, 1e7).Draw(t, "d"))
			g.note(most, l, ran, d, rapid.IntRange(0, 10000).Draw(t, "n"))
		}
	})
}
