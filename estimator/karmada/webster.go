package karmada

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
)

// WebsterParty is one party of a Webster (Sainte-Laguë) apportionment: a
// cluster with its weight (votes) and its seats (replicas).
type WebsterParty struct {
	Name  string
	Votes int64
	Seats int32
}

// NameOrder orders names when Webster priorities and seat counts tie.
type NameOrder int

const (
	// NamesAscending gives a tied seat to the smaller name first.
	NamesAscending NameOrder = iota
	// NamesDescending gives a tied seat to the larger name first.
	NamesDescending
)

// String returns "ascending" or "descending".
func (o NameOrder) String() string {
	switch o {
	case NamesAscending:
		return "ascending"
	case NamesDescending:
		return "descending"
	}
	return fmt.Sprintf("NameOrder(%d)", int(o))
}

// TieBreakOrder is the name order Karmada v1.16+ uses to break Webster ties
// for one binding, chosen by the parity of the FNV-32a hash of the binding's
// UID so that different workloads do not all favour the same clusters: an
// even hash (or an empty UID) is NamesAscending, an odd one
// NamesDescending. (Which parity maps to which order is our reading; the
// reference does not say.)
func TieBreakOrder(bindingUID string) NameOrder {
	if bindingUID == "" {
		return NamesAscending
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(bindingUID))
	if h.Sum32()%2 == 0 {
		return NamesAscending
	}
	return NamesDescending
}

// websterSequentialMax is the number of seats up to which
// AllocateWebsterSeats runs Karmada's seat-by-seat algorithm; above it the
// equivalent threshold computation is used.
const websterSequentialMax = 4096

// AllocateWebsterSeats hands out seats more seats among parties with the
// Webster (Sainte-Laguë) method, as Karmada v1.16+
// (helper.AllocateWebsterSeats): one seat at a time to the party with the
// largest priority votes / (2·seats + 1), computed in float64 as Karmada
// does; on equal priorities the party with fewer seats first, then by name
// in order. Each party starts from its Seats. The result is sorted by name
// ascending. The method is house-monotone: one more seat never takes a seat
// from any party.
//
// Up to websterSequentialMax seats are handed out one by one; beyond, the
// seat counts are found directly from the priority threshold of the last
// seat, with the same result. No parties (with seats > 0), a negative seat
// count, duplicate or empty names, negative votes or seats are errors.
func AllocateWebsterSeats(seats int32, parties []WebsterParty, order NameOrder) ([]WebsterParty, error) {
	if err := checkParties(seats, parties, order); err != nil {
		return nil, err
	}
	if seats <= websterSequentialMax {
		return websterSequential(seats, parties, order), nil
	}
	return websterThreshold(seats, parties, order), nil
}

func checkParties(seats int32, parties []WebsterParty, order NameOrder) error {
	if seats < 0 {
		return fmt.Errorf("estimator: webster: seats=%d: must not be negative", seats)
	}
	if order != NamesAscending && order != NamesDescending {
		return fmt.Errorf("estimator: webster: order=%d: unknown name order", int(order))
	}
	if len(parties) == 0 && seats > 0 {
		return fmt.Errorf("estimator: webster: %d seats for no parties", seats)
	}
	seen := make(map[string]bool, len(parties))
	for i, p := range parties {
		if p.Name == "" {
			return fmt.Errorf("estimator: webster: parties[%d]: empty name", i)
		}
		if seen[p.Name] {
			return fmt.Errorf("estimator: webster: party %q listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Votes < 0 {
			return fmt.Errorf("estimator: webster: party %q votes=%d: must not be negative", p.Name, p.Votes)
		}
		if p.Seats < 0 {
			return fmt.Errorf("estimator: webster: party %q seats=%d: must not be negative", p.Name, p.Seats)
		}
	}
	return nil
}

// websterPriority is Karmada's Webster priority votes / (2·seats + 1) in
// float64. (Karmada computes 2·seats+1 in int32, which overflows beyond
// 2^30 seats; we do not.)
func websterPriority(votes int64, seats int64) float64 {
	return float64(votes) / float64(2*seats+1)
}

// takesSeatBefore reports whether party (aName, aSeats, aPrio) takes the next seat
// before party b: higher priority, then fewer seats, then name order.
func takesSeatBefore(aPrio float64, aSeats int64, aName string, bPrio float64, bSeats int64, bName string, order NameOrder) bool {
	if aPrio != bPrio {
		return aPrio > bPrio
	}
	if aSeats != bSeats {
		return aSeats < bSeats
	}
	if order == NamesDescending {
		return aName > bName
	}
	return aName < bName
}

type websterHeap struct {
	p     []WebsterParty
	order NameOrder
}

func (h *websterHeap) Len() int { return len(h.p) }
func (h *websterHeap) Less(i, j int) bool {
	a, b := &h.p[i], &h.p[j]
	return takesSeatBefore(websterPriority(a.Votes, int64(a.Seats)), int64(a.Seats), a.Name, websterPriority(b.Votes, int64(b.Seats)), int64(b.Seats), b.Name, h.order)
}
func (h *websterHeap) Swap(i, j int) { h.p[i], h.p[j] = h.p[j], h.p[i] }
func (h *websterHeap) Push(x any)    { h.p = append(h.p, x.(WebsterParty)) }
func (h *websterHeap) Pop() any {
	n := len(h.p) - 1
	x := h.p[n]
	h.p = h.p[:n]
	return x
}

// websterSequential is Karmada's algorithm: a priority queue, one seat at
// a time.
func websterSequential(seats int32, parties []WebsterParty, order NameOrder) []WebsterParty {
	h := &websterHeap{p: append([]WebsterParty(nil), parties...), order: order}
	heap.Init(h)
	for ; seats > 0; seats-- {
		h.p[0].Seats++
		heap.Fix(h, 0)
	}
	out := h.p
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// websterThreshold computes the same apportionment without handing seats
// out one by one. Party i's k-th seat (k ≥ its initial seats) has priority
// p(i,k) = votes_i/(2k+1), non-increasing in k, and the sequential method
// gives the seats in the order (priority desc, k asc, name): the result is
// the h best such items. So find t*, the largest priority with at least h
// items ≥ t*; every item above t* is taken and the remaining seats go to
// the items equal to t* in (k, name) order.
func websterThreshold(seats int32, parties []WebsterParty, order NameOrder) []WebsterParty {
	h := int64(seats)
	out := append([]WebsterParty(nil), parties...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	var maxPrio float64
	for _, p := range out {
		if p.Votes > 0 {
			maxPrio = max(maxPrio, websterPriority(p.Votes, int64(p.Seats)))
		}
	}
	if maxPrio == 0 {
		websterLevel(h, out, order)
		return out
	}
	// count(t): items with priority ≥ t, each party capped at h+1.
	countAt := func(t float64, i int) int64 {
		p := &out[i]
		if p.Votes == 0 {
			return 0
		}
		s0 := int64(p.Seats)
		lo, hi := s0, s0+h+1 // find the first k in [s0, s0+h+1] with p(k) < t
		for lo < hi {
			mid := lo + (hi-lo)/2
			if websterPriority(p.Votes, mid) >= t {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo - s0
	}
	total := func(t float64) int64 {
		var n int64
		for i := range out {
			n += countAt(t, i)
		}
		return n
	}
	// Largest positive t with total(t) ≥ h, searched over float64 bit
	// patterns (ordered like the values for positive floats).
	lo, hi := uint64(1), math.Float64bits(maxPrio)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if total(math.Float64frombits(mid)) >= h {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	tStar := math.Float64frombits(lo)
	above := math.Float64frombits(lo + 1)
	type item struct {
		party int
		k     int64
	}
	base := make([]int64, len(out))
	tied := make([]int64, len(out))
	var given int64
	for i := range out {
		base[i] = countAt(above, i)
		tied[i] = countAt(tStar, i) - base[i]
		given += base[i]
	}
	rest := h - given
	var ties []item
	for i := range out {
		// At most rest tied items of one party can be taken, in k order.
		for j := int64(0); j < min(tied[i], rest); j++ {
			ties = append(ties, item{i, int64(out[i].Seats) + base[i] + j})
		}
	}
	sort.Slice(ties, func(a, b int) bool {
		x, y := ties[a], ties[b]
		if x.k != y.k {
			return x.k < y.k
		}
		if order == NamesDescending {
			return out[x.party].Name > out[y.party].Name
		}
		return out[x.party].Name < out[y.party].Name
	})
	for _, it := range ties[:min(int64(len(ties)), rest)] {
		base[it.party]++
	}
	for i := range out {
		out[i].Seats += int32(base[i])
	}
	return out
}

// websterLevel hands out h seats when every priority is 0 (no votes): the
// party with fewest seats first, then by name, i.e. water-filling.
func websterLevel(h int64, out []WebsterParty, order NameOrder) {
	need := func(level int64) int64 {
		var n int64
		for _, p := range out {
			n += max(level-int64(p.Seats), 0)
		}
		return n
	}
	lo, hi := int64(0), int64(math.MaxInt32)+h
	for lo < hi { // largest level with need(level) ≤ h
		mid := lo + (hi-lo+1)/2
		if need(mid) <= h {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	rest := h - need(lo)
	idx := make([]int, 0, len(out))
	for i := range out {
		if int64(out[i].Seats) <= lo {
			idx = append(idx, i)
		}
		out[i].Seats = int32(max(int64(out[i].Seats), lo))
	}
	sort.Slice(idx, func(a, b int) bool {
		if order == NamesDescending {
			return out[idx[a]].Name > out[idx[b]].Name
		}
		return out[idx[a]].Name < out[idx[b]].Name
	})
	for _, i := range idx {
		if rest == 0 {
			break
		}
		out[i].Seats++
		rest--
	}
}
