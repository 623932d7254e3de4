package scoring

// batchDefaultNormalize is framework.DefaultNormalizeScore over a row of
// scores (framework.BatchScoreExtensions): the same integer operations in
// the same order, so the results are equal.
func batchDefaultNormalize(maxPriority int64, reverse bool, scores []int64) {
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
	if batchMapByTable(scores, minCount, maxCount, norm) {
		return
	}
	for i, s := range scores {
		scores[i] = norm(s)
	}
}

// batchTableMax bounds the value range batchMapByTable tabulates.
const batchTableMax = 256

// batchMapByTable replaces every score v (all within [lo, hi]) by f(v),
// evaluating f once per distinct value of the range instead of once per
// node (the normalizers' divisions); it reports false, changing nothing,
// when the range is wider than batchTableMax.
func batchMapByTable(scores []int64, lo, hi int64, f func(v int64) int64) bool {
	if hi < lo || uint64(hi-lo) >= batchTableMax {
		return false
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
