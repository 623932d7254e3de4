package podtopologyspread

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/fastpath"
)

// TestPropNumberByIndexMatchesNumberDomains: over a numbering by node
// position (each node a value of its own, as for the hostname key), the
// run-wise numbering gives the domains, their values, their counts and
// each value's domain that the node-by-node one gives, whatever nodes are
// included (runs crossing words, words full or empty, a last word cut
// short) and with or without matching pods.
func TestPropNumberByIndexMatchesNumberDomains(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "nodes")
		values := make([]string, n)
		domain := make([]int32, n)
		for i := range n {
			values[i], domain[i] = fmt.Sprintf("node-%d", i), int32(i)
		}
		var inc []uint64
		if rapid.Bool().Draw(t, "some excluded") {
			inc = make([]uint64, (n+63)/64)
			// Words drawn whole, so that full, empty and mixed words
			// all occur; bits past n are set too, to be ignored.
			for w := range inc {
				switch rapid.IntRange(0, 3).Draw(t, "word kind") {
				case 0:
				case 1:
					inc[w] = ^uint64(0)
				default:
					inc[w] = rapid.Uint64().Draw(t, "word")
				}
			}
		}
		var pn []int32
		if rapid.Bool().Draw(t, "matching pods") {
			pn = rapid.SliceOfN(rapid.Int32Range(0, 5), n, n).Draw(t, "per node")
		}
		// A prefix already in dv and cnt (the pools hand out emptied
		// slices, but the functions append): both must keep it.
		pre := rapid.IntRange(0, 2).Draw(t, "prefix")
		dvPre, cntPre := make([]string, pre, pre+n), make([]int, pre, pre+n)
		wantDom, gotDom := noDomains(n), noDomains(n)
		wantDV, wantCnt := ptsNumberDomains(wantDom, domain, values, inc, pn, nil, n, slices.Clone(dvPre), slices.Clone(cntPre))
		gotDV, gotCnt := ptsNumberByIndex(gotDom, values, inc, pn, n, slices.Clone(dvPre), slices.Clone(cntPre))
		diffNumbering(t, "-node by node +by runs", wantDV, gotDV, wantCnt, gotCnt, wantDom, gotDom)
	})
}

// TestPropNumberDomainsMatchesNodeByNode: numbering a key's domains
// (values shared by several nodes, some nodes without the key) gives the
// domains, their values, their counts and each value's domain that a
// plain walk of the included nodes in snapshot order gives, whether the
// nodes holding matching pods come from the bitmap of the counts'
// non-zero entries or from reading every count.
func TestPropNumberDomainsMatchesNodeByNode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "nodes")
		nv := rapid.IntRange(1, 12).Draw(t, "values")
		values := make([]string, nv)
		for i := range values {
			values[i] = fmt.Sprintf("zone-%d", i)
		}
		domain := rapid.SliceOfN(rapid.Int32Range(0, int32(nv-1)), n, n).Draw(t, "value of each node")
		var inc []uint64
		if rapid.Bool().Draw(t, "some excluded") {
			inc = rapid.SliceOfN(rapid.Uint64(), (n+63)/64, (n+63)/64).Draw(t, "included")
		}
		var pn []int32
		var nz []uint64
		if rapid.Bool().Draw(t, "matching pods") {
			pn = rapid.SliceOfN(rapid.Int32Range(0, 3), n, n).Draw(t, "per node")
			if rapid.Bool().Draw(t, "bitmap") {
				nz = make([]uint64, (n+63)/64)
				for i, k := range pn {
					if k != 0 {
						nz[i>>6] |= 1 << (i & 63)
					}
				}
			}
		}
		// The walk: every included node in order, numbering its value's
		// domain on first sight and adding its matching pods.
		wantDom := noDomains(nv)
		var wantDV []string
		var wantCnt []int
		for i := range n {
			if inc != nil && inc[i>>6]&(1<<(i&63)) == 0 {
				continue
			}
			d := wantDom[domain[i]]
			if d < 0 {
				d = int32(len(wantCnt))
				wantDom[domain[i]] = d
				wantDV, wantCnt = append(wantDV, values[domain[i]]), append(wantCnt, 0)
			}
			if pn != nil {
				wantCnt[d] += int(pn[i])
			}
		}
		gotDom := noDomains(nv)
		gotDV, gotCnt := ptsNumberDomains(gotDom, domain, values, inc, pn, nz, n, nil, nil)
		diffNumbering(t, "-walk +numbered", wantDV, gotDV, wantCnt, gotCnt, wantDom, gotDom)
	})
}

// noDomains returns n value ids' domains, none numbered yet (−1).
func noDomains(n int) []int32 {
	d := make([]int32, n)
	for i := range d {
		d[i] = -1
	}
	return d
}

// diffNumbering fails t where two numberings differ: their domain
// values, their counts or each value's domain (legend names the sides).
func diffNumbering(t *rapid.T, legend string, wantDV, gotDV []string, wantCnt, gotCnt []int, wantDom, gotDom []int32) {
	if diff := cmp.Diff(wantDV, gotDV); diff != "" {
		t.Fatalf("domain values (%s):\n%s", legend, diff)
	}
	if diff := cmp.Diff(wantCnt, gotCnt); diff != "" {
		t.Fatalf("counts (%s):\n%s", legend, diff)
	}
	if diff := cmp.Diff(wantDom, gotDom); diff != "" {
		t.Fatalf("domain of each value (%s):\n%s", legend, diff)
	}
}

// TestPropPathsOfMatchesUpdates: the critical paths of a list of counts
// are those kube-scheduler's criticalPaths.update builds, each domain new,
// in order: the smallest count (its first domain) and the one it would
// keep beside it, ties included.
func TestPropPathsOfMatchesUpdates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		counts := rapid.SliceOfN(rapid.IntRange(0, 4), 0, 200).Draw(t, "counts")
		want := ptsPaths{{Domain: -1, MatchNum: math.MaxInt32}, {Domain: -1, MatchNum: math.MaxInt32}}
		for d, num := range counts {
			switch {
			case num < want[0].MatchNum:
				want[1] = want[0]
				want[0] = ptsPath{Domain: int32(d), MatchNum: num}
			case num < want[1].MatchNum:
				want[1] = ptsPath{Domain: int32(d), MatchNum: num}
			}
		}
		if got := ptsPathsOf(counts); got != want {
			t.Fatalf("counts %v: paths %+v, want %+v", counts, got, want)
		}
	})
}

// TestPropRejectsOneMatchesVerdict: FilterRejects' loop for one
// constraint over many values lists exactly the nodes verdict rejects,
// in order, each with verdict's status: a node without the key, a value
// that is no domain (count 0, rejected only when the bound is below 0),
// and counts at, below and above the bound.
func TestPropRejectsOneMatchesVerdict(t *testing.T) {
	pl, err := New(DefaultPodTopologySpreadArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		values := rapid.IntRange(1, 40).Draw(t, "values")
		nodes := rapid.IntRange(1, 60).Draw(t, "nodes")
		h := ptsHoisted{
			dom:    rapid.SliceOfN(rapid.Int32Range(-1, int32(values-1)), nodes, nodes).Draw(t, "dom"),
			counts: rapid.SliceOfN(rapid.IntRange(0, 4), values, values).Draw(t, "counts"),
			limit:  rapid.IntRange(-1, 3).Draw(t, "limit"),
		}
		if rapid.Bool().Draw(t, "numbered domains") {
			h.domOf = rapid.SliceOfN(rapid.Int32Range(-1, int32(values-1)), values, values).Draw(t, "domOf")
		}
		idx := rapid.SliceOfN(rapid.Int32Range(0, int32(nodes-1)), 0, 64).Draw(t, "idx")
		var want []fastpath.NodeRejection
		for i, k := range idx {
			if st := pl.(*PodTopologySpread).verdict([]ptsHoisted{h}, int(k)); st != nil {
				want = append(want, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
		got := pl.(*PodTopologySpread).rejectsOne(&h, idx, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("rejectsOne %v, verdict %v", got, want)
		}
	})
}
