package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/schedkit/schedkit/framework"
)

// fake implements every extension point; nil funcs mean Success.
type fake struct {
	name      string
	preFilter func(nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status)
	filter    func(n *framework.NodeInfo) *framework.Status
	preScore  func(nodes []*framework.NodeInfo) *framework.Status
	score     func(n *framework.NodeInfo) (int64, *framework.Status)
	normalize func(s framework.NodeScoreList) *framework.Status
	reserve   func() *framework.Status
	permit    func() (*framework.Status, time.Duration)
	bind      func() *framework.Status
	postFilt  func() (*framework.PostFilterResult, *framework.Status)
	log       *eventLog
}

type eventLog struct {
	mu sync.Mutex
	ev []string
}

func (l *eventLog) add(format string, a ...any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ev = append(l.ev, fmt.Sprintf(format, a...))
}

func (f *fake) Name() string { return f.name }
func (f *fake) PreFilter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	f.log.add("PreFilter %s", f.name)
	if f.preFilter == nil {
		return nil, nil
	}
	return f.preFilter(nodes)
}
func (f *fake) PreFilterExtensions() framework.PreFilterExtensions { return nil }
func (f *fake) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if f.filter == nil {
		return nil
	}
	return f.filter(n)
}
func (f *fake) PreScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	if f.preScore == nil {
		return nil
	}
	return f.preScore(nodes)
}
func (f *fake) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if f.score == nil {
		return 0, nil
	}
	return f.score(n)
}
func (f *fake) ScoreExtensions() framework.ScoreExtensions {
	if f.normalize == nil {
		return nil
	}
	return f
}
func (f *fake) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, s framework.NodeScoreList) *framework.Status {
	return f.normalize(s)
}
func (f *fake) Reserve(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	f.log.add("Reserve %s", f.name)
	if f.reserve == nil {
		return nil
	}
	return f.reserve()
}
func (f *fake) Unreserve(context.Context, *framework.CycleState, *framework.PodInfo, string) {
	f.log.add("Unreserve %s", f.name)
}
func (f *fake) Permit(context.Context, *framework.CycleState, *framework.PodInfo, string) (*framework.Status, time.Duration) {
	if f.permit == nil {
		return nil, 0
	}
	return f.permit()
}
func (f *fake) Bind(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	f.log.add("Bind %s", f.name)
	if f.bind == nil {
		return nil
	}
	return f.bind()
}
func (f *fake) PostFilter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if f.postFilt == nil {
		return nil, framework.NewStatus(framework.Unschedulable, f.name+" could not help")
	}
	return f.postFilt()
}

// registryOf registers the fakes under their names.
func registryOf(fakes ...*fake) *framework.Registry {
	r := framework.NewRegistry()
	for _, f := range fakes {
		f := f
		if err := r.Register(f.name, func(any, framework.Handle) (framework.Plugin, error) { return f, nil }); err != nil {
			panic(err)
		}
	}
	return r
}

// nodeNum returns the number in a "n<k>" node name.
func nodeNum(n *framework.NodeInfo) int {
	var k int
	fmt.Sscanf(n.Name(), "n%d", &k)
	return k
}

// hashedFilterScore returns a filter plugin F that rejects each node with
// probability about rejectPct percent and a score plugin S scoring each
// node 0..3, both drawn from seed by the node's number.
func hashedFilterScore(seed uint64, rejectPct int64) (flt, sc *fake) {
	flt = &fake{name: "F", filter: func(ni *framework.NodeInfo) *framework.Status {
		if hashScore(seed, 99, nodeNum(ni), 0, 99) < rejectPct {
			return framework.NewStatus(framework.Unschedulable, "no")
		}
		return nil
	}}
	sc = &fake{name: "S", score: func(ni *framework.NodeInfo) (int64, *framework.Status) {
		return hashScore(seed, 1, nodeNum(ni), 0, 3), nil
	}}
	return flt, sc
}
