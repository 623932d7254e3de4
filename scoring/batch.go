package scoring

// DefaultNormalizeRow is framework.DefaultNormalizeScore over a row of
// scores (fastpath.BatchScoreExtensions): the same integer operations in
// the same order, so the results are equal.
func DefaultNormalizeRow(maxPriority int64, reverse bool, scores []int64) {
	var maxCount int64
	minCount := int64(0)
	for _, s := range scores {
		if s > maxCount {
			maxCount = s
		}
		minCount = min(minCount, s)
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i] = maxPriority
			}
		}
		return
	}
	norm := func(s int64) int64 {
		s = maxPriority * s / maxCount
		if reverse {
			s = maxPriority - s
		}
		return s
	}
	if MapRow(scores, minCount, maxCount, norm) {
		return
	}
	for i, s := range scores {
		scores[i] = norm(s)
	}
}

// batchTableMax bounds the value range MapRow tabulates.
const batchTableMax = 256

// batchMemoSlots is the size of MapRow's cache for wider ranges (a
// power of two).
const batchMemoSlots = 256

// MapRow replaces every score v (all within [lo, hi]) by f(v),
// evaluating f once per distinct value instead of once per node (the
// normalizers' divisions): over a table of the range when it is at most
// batchTableMax wide, else through a direct-mapped cache of the values
// met (rows hold few distinct scores, however far apart). It reports
// false, changing nothing, when hi < lo.
func MapRow(scores []int64, lo, hi int64, f func(v int64) int64) bool {
	if hi < lo {
		return false
	}
	if uint64(hi-lo) >= batchTableMax {
		batchMapMemo(scores, f)
		return true
	}
	var table [batchTableMax]int64
	width := int(hi - lo + 1)
	for k := range width {
		table[k] = f(lo + int64(k))
	}
	for i, v := range scores {
		scores[i] = table[v-lo]
	}
	return true
}

// batchMapMemo replaces every score v by f(v), keeping f's last result
// for each slot v mod batchMemoSlots. A slot starts with the key k+1,
// which no value of slot k can equal, so no slot needs a flag.
func batchMapMemo(scores []int64, f func(v int64) int64) {
	var keys, vals [batchMemoSlots]int64
	for k := range keys {
		keys[k] = int64(k) + 1
	}
	for i, v := range scores {
		slot := uint64(v) % batchMemoSlots
		if keys[slot] != v {
			keys[slot], vals[slot] = v, f(v)
		}
		scores[i] = vals[slot]
	}
}
