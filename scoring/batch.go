package scoring

// batchDefaultNormalize is framework.DefaultNormalizeScore over a row of
// scores (framework.BatchScoreExtensions): the same integer operations in
// the same order, so the results are equal.
func batchDefaultNormalize(maxPriority int64, reverse bool, scores []int64) {
	var maxCount int64
	for _, s := range scores {
		if s > maxCount {
			maxCount = s
		}
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i] = maxPriority
			}
		}
		return
	}
	for i, s := range scores {
		s = maxPriority * s / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i] = s
	}
}
