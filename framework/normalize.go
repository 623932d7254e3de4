package framework

// DefaultNormalizeScore scales scores so the highest becomes maxPriority:
// s = maxPriority × s / max (integer division), then, if reverse,
// s = maxPriority − s. When every score is 0 (max == 0) the scores stay 0,
// or all become maxPriority when reverse. This is kube-scheduler's
// helper.DefaultNormalizeScore; inputs are assumed ≥ 0.
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores NodeScoreList) *Status {
	var maxCount int64
	for i := range scores {
		if scores[i].Score > maxCount {
			maxCount = scores[i].Score
		}
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxPriority
			}
		}
		return nil
	}
	for i := range scores {
		s := maxPriority * scores[i].Score / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i].Score = s
	}
	return nil
}
