package framework

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// fake implements every extension point; nil funcs mean Success.
type fake struct {
	name      string
	preFilter func(nodes []*NodeInfo) (*PreFilterResult, *Status)
	filter    func(n *NodeInfo) *Status
	preScore  func(nodes []*NodeInfo) *Status
	score     func(n *NodeInfo) (int64, *Status)
	normalize func(s NodeScoreList) *Status
	reserve   func() *Status
	permit    func() (*Status, time.Duration)
	bind      func() *Status
	postFilt  func() (*PostFilterResult, *Status)
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
func (f *fake) PreFilter(_ context.Context, _ *CycleState, _ *PodInfo, nodes []*NodeInfo) (*PreFilterResult, *Status) {
	f.log.add("PreFilter %s", f.name)
	if f.preFilter == nil {
		return nil, nil
	}
	return f.preFilter(nodes)
}
func (f *fake) PreFilterExtensions() PreFilterExtensions { return nil }
func (f *fake) Filter(_ context.Context, _ *CycleState, _ *PodInfo, n *NodeInfo) *Status {
	if f.filter == nil {
		return nil
	}
	return f.filter(n)
}
func (f *fake) PreScore(_ context.Context, _ *CycleState, _ *PodInfo, nodes []*NodeInfo) *Status {
	if f.preScore == nil {
		return nil
	}
	return f.preScore(nodes)
}
func (f *fake) Score(_ context.Context, _ *CycleState, _ *PodInfo, n *NodeInfo) (int64, *Status) {
	if f.score == nil {
		return 0, nil
	}
	return f.score(n)
}
func (f *fake) ScoreExtensions() ScoreExtensions {
	if f.normalize == nil {
		return nil
	}
	return f
}
func (f *fake) NormalizeScore(_ context.Context, _ *CycleState, _ *PodInfo, s NodeScoreList) *Status {
	return f.normalize(s)
}
func (f *fake) Reserve(context.Context, *CycleState, *PodInfo, string) *Status {
	f.log.add("Reserve %s", f.name)
	if f.reserve == nil {
		return nil
	}
	return f.reserve()
}
func (f *fake) Unreserve(context.Context, *CycleState, *PodInfo, string) {
	f.log.add("Unreserve %s", f.name)
}
func (f *fake) Permit(context.Context, *CycleState, *PodInfo, string) (*Status, time.Duration) {
	if f.permit == nil {
		return nil, 0
	}
	return f.permit()
}
func (f *fake) Bind(context.Context, *CycleState, *PodInfo, string) *Status {
	f.log.add("Bind %s", f.name)
	if f.bind == nil {
		return nil
	}
	return f.bind()
}
func (f *fake) PostFilter(context.Context, *CycleState, *PodInfo, *NodeToStatus) (*PostFilterResult, *Status) {
	if f.postFilt == nil {
		return nil, NewStatus(Unschedulable, f.name+" could not help")
	}
	return f.postFilt()
}

// registryOf registers the fakes under their names.
func registryOf(fakes ...*fake) *Registry {
	r := NewRegistry()
	for _, f := range fakes {
		f := f
		if err := r.Register(f.name, func(any, Handle) (Plugin, error) { return f, nil }); err != nil {
			panic(err)
		}
	}
	return r
}

// nodeNum returns the number in a "n<k>" node name.
func nodeNum(n *NodeInfo) int {
	var k int
	fmt.Sscanf(n.Name(), "n%d", &k)
	return k
}
