package scoring

import (
	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// ShapePoint is a point of a utilization-to-score shape (a
// RequestedToCapacityRatio strategy's, VolumeBinding's) with its score
// scaled to 0–framework.MaxNodeScore: at Util percent the score is Score.
type ShapePoint struct{ Util, Score int64 }

// ScaleShape returns the points of a configured shape with their scores
// (0–config.MaxCustomPriorityScore) scaled to 0–framework.MaxNodeScore,
// as kube-scheduler scales them before building the function; nil for an
// empty shape.
func ScaleShape(points []config.UtilizationShapePoint) []ShapePoint {
	var out []ShapePoint
	for _, p := range points {
		out = append(out, ShapePoint{
			Util:  int64(p.Utilization),
			Score: int64(p.Score) * (framework.MaxNodeScore / int64(config.MaxCustomPriorityScore)),
		})
	}
	return out
}

// BrokenLinear is kube-scheduler's helper.BuildBrokenLinearFunction over
// shape (utilizations strictly increasing, as validation guarantees) at
// p: the first point's score left of it, the last point's score right of
// it, and integer linear interpolation (truncating toward zero) in
// between.
func BrokenLinear(shape []ShapePoint, p int64) int64 {
	for i := range shape {
		if p <= shape[i].Util {
			if i == 0 {
				return shape[0].Score
			}
			a, b := shape[i-1], shape[i]
			return a.Score + (b.Score-a.Score)*(p-a.Util)/(b.Util-a.Util)
		}
	}
	return shape[len(shape)-1].Score
}
