// Package testplugins holds the small plugins and generators that the
// scheduler's tests and its subpackages' tests schedule with, so that every
// package's tests read the same scenario the same way:
//
//   - Fit (filter "ScFit": pod count and cpu) and Least (score "ScLeast":
//     the cpu left free, as a percentage);
//   - Step, a Reserve/Permit/PreBind/PostBind plugin driven by pod labels,
//     with a Recorder of its calls;
//   - Register, which registers them under their names;
//   - DrawNode and DrawPod, rapid generators of small nodes and pods;
//   - ZonedVolumeCluster and VolumeStep, a zoned cluster with a CSI class
//     and random volume events on it.
//
// It imports no scheduler package, so package scheduling's own tests can
// use it too.
package testplugins

import (
	"context"
	"fmt"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// Fit is the filter plugin "ScFit": a node fits when it has room for one
// more pod and for the pod's cpu.
type Fit struct{}

// InsufficientCPU and TooManyPods are Fit's rejections.
var (
	InsufficientCPU = framework.NewStatus(framework.Unschedulable, "Insufficient cpu")
	TooManyPods     = framework.NewStatus(framework.Unschedulable, "Too many pods")
)

// Name returns "ScFit".
func (Fit) Name() string { return "ScFit" }

// Filter rejects a node without room for one more pod or for the pod's cpu.
func (Fit) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if int64(len(n.Pods))+1 > n.Allocatable.Pods {
		return TooManyPods
	}
	if pod.Requests.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		return InsufficientCPU
	}
	return nil
}

// Least is the score plugin "ScLeast": the node's cpu left free after
// placing the pod, as a percentage of its allocatable cpu.
type Least struct{}

// Name returns "ScLeast".
func (Least) Name() string { return "ScLeast" }

// Score returns the percentage of the node's cpu left free after placing
// the pod (0 for a node without cpu).
func (Least) Score(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if n.Allocatable.MilliCPU == 0 {
		return 0, nil
	}
	return (n.Allocatable.MilliCPU - n.Requested.MilliCPU - pod.Requests.MilliCPU) * 100 / n.Allocatable.MilliCPU, nil
}

// ScoreExtensions returns nil: the scores are already in [0, 100].
func (Least) ScoreExtensions() framework.ScoreExtensions { return nil }

// Recorder records the Reserve, Unreserve, PreBind and PostBind calls of
// Step plugins, safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls []string
}

// Add records one call.
func (r *Recorder) Add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

// Calls returns a copy of the calls recorded so far, in order.
func (r *Recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// Step is a plugin for every point after Filter, driven by the pod's
// labels: "fail-<name>" makes it fail with an error, "reject-<name>"
// rejects, "wait-<name>=<duration>" makes Permit wait and "deny-<name>"
// makes Permit reject. It records its calls in its Recorder.
type Step struct {
	name string
	rec  *Recorder
}

// NewStep returns the Step plugin name recording into rec.
func NewStep(name string, rec *Recorder) *Step { return &Step{name: name, rec: rec} }

// Name returns the plugin's name.
func (p *Step) Name() string { return p.name }

func (p *Step) verdict(pod *framework.PodInfo) *framework.Status {
	if _, ok := pod.Pod.Labels["fail-"+p.name]; ok {
		return framework.AsStatus(fmt.Errorf("%s failed", p.name))
	}
	if _, ok := pod.Pod.Labels["reject-"+p.name]; ok {
		return framework.NewStatus(framework.Unschedulable, p.name+" says no")
	}
	return nil
}

// Reserve records the call and answers as the pod's labels say.
func (p *Step) Reserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	p.rec.Add(fmt.Sprintf("Reserve %s %s %s", p.name, pod.Pod.Name, node))
	return p.verdict(pod)
}

// Unreserve records the call.
func (p *Step) Unreserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) {
	p.rec.Add(fmt.Sprintf("Unreserve %s %s %s", p.name, pod.Pod.Name, node))
}

// Permit waits, denies or answers as the pod's labels say.
func (p *Step) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) (*framework.Status, time.Duration) {
	if v, ok := pod.Pod.Labels["wait-"+p.name]; ok {
		d, _ := time.ParseDuration(v)
		return framework.NewStatus(framework.Wait), d
	}
	if _, ok := pod.Pod.Labels["deny-"+p.name]; ok {
		return framework.NewStatus(framework.Unschedulable, p.name+" denies"), 0
	}
	return p.verdict(pod), 0
}

// PreBind records the call and answers as the pod's labels say.
func (p *Step) PreBind(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	p.rec.Add(fmt.Sprintf("PreBind %s %s %s", p.name, pod.Pod.Name, node))
	return p.verdict(pod)
}

// PostBind records the call.
func (p *Step) PostBind(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) {
	p.rec.Add(fmt.Sprintf("PostBind %s %s %s", p.name, pod.Pod.Name, node))
}

// T0 is the tests' start time on a fake clock.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Register registers Fit, Least and the Step plugins "A" and "B" (recording
// into rec) in reg.
func Register(reg *framework.Registry, rec *Recorder) error {
	if err := reg.Register("ScFit", func(any, framework.Handle) (framework.Plugin, error) { return Fit{}, nil }); err != nil {
		return err
	}
	if err := reg.Register("ScLeast", func(any, framework.Handle) (framework.Plugin, error) { return Least{}, nil }); err != nil {
		return err
	}
	for _, n := range []string{"A", "B"} {
		if err := reg.Register(n, func(any, framework.Handle) (framework.Plugin, error) { return NewStep(n, rec), nil }); err != nil {
			return err
		}
	}
	return nil
}

// DrawNode draws node n<i> with 0.5–8 cpu, 512 Mi–8 Gi of memory and room
// for 1–8 pods.
func DrawNode(t *rapid.T, i int) *api.Node {
	return st.MakeNode().Name(fmt.Sprintf("n%03d", i)).Capacity(map[string]string{
		"cpu":    fmt.Sprintf("%dm", rapid.IntRange(500, 8000).Draw(t, "nodeCPU")),
		"memory": fmt.Sprintf("%dMi", rapid.IntRange(512, 8192).Draw(t, "nodeMem")),
		"pods":   fmt.Sprint(rapid.IntRange(1, 8).Draw(t, "nodePods")),
	}).Obj()
}

// DrawPod draws pod name with priority 0–3 and requests of 0–3 cpu and
// 0–2.5 Gi of memory.
func DrawPod(t *rapid.T, name string) *api.Pod {
	return st.MakePod().Name(name).Priority(int32(rapid.IntRange(0, 3).Draw(t, "prio"))).Req(map[string]string{
		"cpu":    fmt.Sprintf("%dm", 100*rapid.IntRange(0, 30).Draw(t, "podCPU")),
		"memory": fmt.Sprintf("%dMi", 128*rapid.IntRange(0, 20).Draw(t, "podMem")),
	}).Obj()
}
