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

// DefaultNormalizeRange is fastpath.RangeNormalizer.NormalizeRange for a plugin
// normalizing with DefaultNormalizeScore(maxPriority, reverse, …): out[i]
// is what DefaultNormalizeScore makes of the score lo+i in a list whose
// least score is lo and greatest lo+len(out)-1.
func DefaultNormalizeRange(maxPriority int64, reverse bool, lo int64, out []int64) {
	maxCount := max(lo+int64(len(out))-1, 0)
	for i := range out {
		v := lo + int64(i)
		switch {
		case maxCount == 0 && reverse:
			v = maxPriority
		case maxCount == 0:
		case reverse:
			v = maxPriority - maxPriority*v/maxCount
		default:
			v = maxPriority * v / maxCount
		}
		out[i] = v
	}
}
