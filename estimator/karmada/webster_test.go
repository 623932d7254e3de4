package karmada

import (
	"fmt"
	"strings"
	"testing"
)

func seatsByName(ps []WebsterParty) map[string]int32 {
	out := map[string]int32{}
	for _, p := range ps {
		out[p.Name] = p.Seats
	}
	return out
}

// Karmada pkg/util/helper/webstermethod_test.go (ExampleAllocateWebsterSeats
// and the Wikipedia Sainte-Laguë example), the comment of
// assignByStaticWeightStrategy, and ties by hand.
func TestAllocateWebsterSeats(t *testing.T) {
	tests := []struct {
		name    string
		seats   int32
		parties []WebsterParty
		order   NameOrder
		want    map[string]int32
	}{
		{"karmada example", 4, []WebsterParty{{Name: "Alpha", Votes: 1200}, {Name: "Beta", Votes: 900}, {Name: "Gamma", Votes: 400}}, NamesAscending,
			map[string]int32{"Alpha": 2, "Beta": 1, "Gamma": 1}},
		// Seat 6 ties A (100000/5) and D (20000/1): D has fewer seats.
		{"wikipedia 8 seats", 8, []WebsterParty{{Name: "A", Votes: 100000}, {Name: "B", Votes: 80000}, {Name: "C", Votes: 30000}, {Name: "D", Votes: 20000}}, NamesAscending,
			map[string]int32{"A": 3, "B": 3, "C": 1, "D": 1}},
		{"9 at 1:2", 9, []WebsterParty{{Name: "A", Votes: 1}, {Name: "B", Votes: 2}}, NamesAscending, map[string]int32{"A": 3, "B": 6}},
		{"9 at 1:3", 9, []WebsterParty{{Name: "A", Votes: 1}, {Name: "B", Votes: 3}}, NamesAscending, map[string]int32{"A": 2, "B": 7}},
		// Equal votes and seats: the name order decides.
		{"tie ascending", 1, []WebsterParty{{Name: "b", Votes: 5}, {Name: "a", Votes: 5}}, NamesAscending, map[string]int32{"a": 1, "b": 0}},
		{"tie descending", 1, []WebsterParty{{Name: "b", Votes: 5}, {Name: "a", Votes: 5}}, NamesDescending, map[string]int32{"a": 0, "b": 1}},
		// Equal priority 1 (3/3 and 1/1): fewer seats wins before the name.
		{"fewer seats first", 2, []WebsterParty{{Name: "a", Votes: 3}, {Name: "z", Votes: 1}}, NamesAscending, map[string]int32{"a": 1, "z": 1}},
		// Initial seats count in the priorities: a has 2 (3/5), b 0 (1).
		{"initial seats", 2, []WebsterParty{{Name: "a", Votes: 3, Seats: 2}, {Name: "b", Votes: 1}}, NamesAscending, map[string]int32{"a": 3, "b": 1}},
		{"zero seats", 0, []WebsterParty{{Name: "a", Votes: 3}}, NamesAscending, map[string]int32{"a": 0}},
		// All votes 0: round robin by name.
		{"no votes", 5, []WebsterParty{{Name: "c"}, {Name: "a"}, {Name: "b"}}, NamesAscending, map[string]int32{"a": 2, "b": 2, "c": 1}},
		{"no votes descending", 5, []WebsterParty{{Name: "c"}, {Name: "a"}, {Name: "b"}}, NamesDescending, map[string]int32{"a": 1, "b": 2, "c": 2}},
		{"zero-vote party never served", 3, []WebsterParty{{Name: "a", Votes: 1}, {Name: "b"}}, NamesAscending, map[string]int32{"a": 3, "b": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, impl := range []struct {
				name string
				fn   func(int32, []WebsterParty, NameOrder) []WebsterParty
			}{{"sequential", websterSequential}, {"threshold", websterThreshold}} {
				got := impl.fn(tt.seats, tt.parties, tt.order)
				gm := seatsByName(got)
				for n, w := range tt.want {
					if gm[n] != w {
						t.Errorf("%s: %s = %d, want %d (all %v)", impl.name, n, gm[n], w, gm)
					}
				}
				for i := 1; i < len(got); i++ {
					if got[i-1].Name >= got[i].Name {
						t.Errorf("%s: not sorted by name: %v", impl.name, got)
					}
				}
			}
			if _, err := AllocateWebsterSeats(tt.seats, tt.parties, tt.order); err != nil {
				t.Error(err)
			}
		})
	}
}

// Large house sizes use the threshold computation: check it against the
// exact proportional shares (3:2:1 divides 600 000 000 exactly).
func TestAllocateWebsterSeatsLarge(t *testing.T) {
	got, err := AllocateWebsterSeats(600_000_000, []WebsterParty{{Name: "a", Votes: 3}, {Name: "b", Votes: 2}, {Name: "c", Votes: 1}}, NamesAscending)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{"a": 300_000_000, "b": 200_000_000, "c": 100_000_000}
	for n, w := range want {
		if seatsByName(got)[n] != w {
			t.Errorf("%s = %d, want %d", n, seatsByName(got)[n], w)
		}
	}
}

func TestTieBreakOrder(t *testing.T) {
	// FNV-32a: "uid-2" hashes to 1371823062 (even), "uid-1" to 1355045443 (odd).
	for uid, want := range map[string]NameOrder{"": NamesAscending, "uid-2": NamesAscending, "binding-1": NamesAscending, "uid-1": NamesDescending, "binding-2": NamesDescending} {
		if got := TieBreakOrder(uid); got != want {
			t.Errorf("TieBreakOrder(%q) = %v, want %v", uid, got, want)
		}
	}
}

func TestAllocateWebsterSeatsBadInput(t *testing.T) {
	tests := []struct {
		seats   int32
		parties []WebsterParty
		order   NameOrder
		want    string
	}{
		{-1, []WebsterParty{{Name: "a", Votes: 1}}, NamesAscending, "seats=-1"},
		{1, nil, NamesAscending, "1 seats for no parties"},
		{1, []WebsterParty{{Name: "a", Votes: -3}}, NamesAscending, `party "a" votes=-3`},
		{1, []WebsterParty{{Name: "a", Votes: 1, Seats: -1}}, NamesAscending, `party "a" seats=-1`},
		{1, []WebsterParty{{Name: "a", Votes: 1}, {Name: "a", Votes: 2}}, NamesAscending, `party "a" listed twice`},
		{1, []WebsterParty{{Votes: 1}}, NamesAscending, "parties[0]: empty name"},
		{1, []WebsterParty{{Name: "a", Votes: 1}}, NameOrder(5), "order=5"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := AllocateWebsterSeats(tt.seats, tt.parties, tt.order)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if got, err := AllocateWebsterSeats(0, nil, NamesAscending); err != nil || len(got) != 0 {
		t.Errorf("no seats, no parties: %v, %v", got, err)
	}
}
