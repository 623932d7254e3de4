package scheduling

import "github.com/schedkit/schedkit/framework"

// Extension point names, as kube-scheduler's configuration spells them.
const (
	PointQueueSort  = "queueSort"
	PointPreFilter  = "preFilter"
	PointFilter     = "filter"
	PointPostFilter = "postFilter"
	PointPreScore   = "preScore"
	PointScore      = "score"
	PointReserve    = "reserve"
	PointPermit     = "permit"
	PointPreBind    = "preBind"
	PointBind       = "bind"
	PointPostBind   = "postBind"
)

var allPoints = [...]string{PointQueueSort, PointPreFilter, PointFilter, PointPostFilter, PointPreScore, PointScore,
	PointReserve, PointPermit, PointPreBind, PointBind, PointPostBind}

// AllPoints lists the extension points in kube-scheduler's order (a new
// slice on every call).
func AllPoints() []string { return append([]string(nil), allPoints[:]...) }

// ExtensionPoints lists, in kube-scheduler's order, the extension points pl
// implements.
func ExtensionPoints(pl framework.Plugin) []string {
	var out []string
	has := func(point string) bool {
		switch point {
		case PointQueueSort:
			_, ok := pl.(framework.QueueSortPlugin)
			return ok
		case PointPreFilter:
			_, ok := pl.(framework.PreFilterPlugin)
			return ok
		case PointFilter:
			_, ok := pl.(framework.FilterPlugin)
			return ok
		case PointPostFilter:
			_, ok := pl.(framework.PostFilterPlugin)
			return ok
		case PointPreScore:
			_, ok := pl.(framework.PreScorePlugin)
			return ok
		case PointScore:
			_, ok := pl.(framework.ScorePlugin)
			return ok
		case PointReserve:
			_, ok := pl.(framework.ReservePlugin)
			return ok
		case PointPermit:
			_, ok := pl.(framework.PermitPlugin)
			return ok
		case PointPreBind:
			_, ok := pl.(framework.PreBindPlugin)
			return ok
		case PointBind:
			_, ok := pl.(framework.BindPlugin)
			return ok
		case PointPostBind:
			_, ok := pl.(framework.PostBindPlugin)
			return ok
		}
		return false
	}
	for _, p := range allPoints {
		if has(p) {
			out = append(out, p)
		}
	}
	return out
}
