package scheduling

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/internal/goroutine"
)

// WaitingPod is a pod held at Permit: it is assumed on its node and waits
// until every plugin that returned Wait allows it, one of them rejects it,
// or a plugin's timeout (capped at framework.MaxPermitTimeout) passes, as
// kube-scheduler's waitingPod. Allow and Reject may be called from any
// goroutine, including from inside a plugin during a scheduling cycle.
type WaitingPod struct {
	pod  *api.Pod
	node string
	// waits are the plugins the pod waited for, in Permit order, and
	// deadlines when each times out: what a Scheduler's Revert re-arms.
	waits     []fwruntime.PermitWait
	deadlines []time.Time
	// ord numbers the scheduler's waiting pods in creation order.
	ord uint64

	mu       sync.Mutex
	pending  map[string]framework.Timer
	resolved bool
	onDone   func(*WaitingPod, *framework.Status)
	// verdicts holds Allow and Reject calls made from outside an open
	// fork (nil until the scheduler lists the pod).
	verdicts atomic.Pointer[liveVerdicts]
}

func newWaitingPod(pod *api.Pod, node string, waits []fwruntime.PermitWait, clock framework.Clock, onDone func(*WaitingPod, *framework.Status)) *WaitingPod {
	w := &WaitingPod{pod: pod, node: node, waits: slices.Clone(waits), deadlines: make([]time.Time, len(waits)), onDone: onDone}
	now := clock.Now()
	for i, pw := range waits {
		w.deadlines[i] = now.Add(pw.Timeout)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.arm(clock, nil)
	return w
}

// arm starts a timeout timer for each plugin of waits in keep (every
// plugin when keep is nil), in Permit order, each firing at its original
// deadline. The caller holds w.mu.
func (w *WaitingPod) arm(clock framework.Clock, keep map[string]bool) {
	w.pending = make(map[string]framework.Timer, len(w.waits))
	now := clock.Now()
	for i, pw := range w.waits {
		if keep != nil && !keep[pw.Plugin] {
			continue
		}
		plugin, timeout := pw.Plugin, pw.Timeout
		w.pending[plugin] = clock.AfterFunc(w.deadlines[i].Sub(now), func() {
			w.Reject(plugin, fmt.Sprintf("rejected due to timeout after waiting %v at plugin %v", timeout, plugin))
		})
	}
}

// pendingSet returns the plugins that have not allowed the pod yet.
func (w *WaitingPod) pendingSet() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]bool, len(w.pending))
	for p := range w.pending {
		out[p] = true
	}
	return out
}

// stopLocked stops the pending timers. The caller holds w.mu.
func (w *WaitingPod) stopLocked() {
	for _, t := range w.pending {
		t.Stop()
	}
	w.pending = nil
}

// abandon ends the wait without calling its completion: a Scheduler's
// Revert drops a pod that began waiting inside the fork.
func (w *WaitingPod) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked()
	w.resolved = true
}

// restore puts the wait back as it was at a Fork: waiting for the plugins
// in pending, each timing out at its original deadline.
func (w *WaitingPod) restore(clock framework.Clock, pending map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked()
	w.resolved = false
	w.arm(clock, pending)
}

// Pod returns the waiting pod (assumed on Node; read-only).
func (w *WaitingPod) Pod() *api.Pod { return w.pod }

// Node returns the node the pod is assumed on.
func (w *WaitingPod) Node() string { return w.node }

// PendingPlugins returns the plugins that have not allowed the pod yet,
// sorted.
func (w *WaitingPod) PendingPlugins() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.pending))
	for p := range w.pending {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Allow records plugin's approval; when no plugin is left the pod proceeds
// to binding. Allowing twice, or for a plugin that did not wait, is a no-op.
// While a fork of the scheduler is open, an Allow made outside the branch
// (by a goroutine other than the one that opened the fork, and not from a
// plugin running inside one of the fork's methods) is held and takes
// effect on the live scheduler when the outermost fork closes, so a
// Revert does not undo it.
func (w *WaitingPod) Allow(plugin string) {
	v := heldVerdict{w: w, allow: true, plugin: plugin}
	if l := w.verdicts.Load(); l != nil {
		l.do(v)
		return
	}
	v.apply()
}

func (w *WaitingPod) allow(plugin string) {
	w.mu.Lock()
	if w.resolved {
		w.mu.Unlock()
		return
	}
	if t, ok := w.pending[plugin]; ok {
		t.Stop()
		delete(w.pending, plugin)
	}
	if len(w.pending) > 0 {
		w.mu.Unlock()
		return
	}
	w.resolved = true
	w.mu.Unlock()
	w.onDone(w, nil)
}

// Reject fails the pod's Permit with Unschedulable, naming plugin and msg;
// its binding cycle then unreserves it and requeues it. Rejecting a
// resolved pod is a no-op. A Reject made outside an open fork's branch is
// held until the fork closes, as for Allow.
func (w *WaitingPod) Reject(plugin, msg string) {
	v := heldVerdict{w: w, plugin: plugin, msg: msg}
	if l := w.verdicts.Load(); l != nil {
		l.do(v)
		return
	}
	v.apply()
}

func (w *WaitingPod) reject(plugin, msg string) {
	w.mu.Lock()
	if w.resolved {
		w.mu.Unlock()
		return
	}
	w.stopLocked()
	w.resolved = true
	st := framework.NewStatus(framework.Unschedulable, msg).WithPlugin(plugin)
	w.mu.Unlock()
	w.onDone(w, st)
}

// liveVerdicts holds the Allow and Reject calls made on waiting pods from
// outside an open fork: they belong to the live scheduler, which is paused
// while the fork is open, and take effect when the outermost fork closes.
type liveVerdicts struct {
	mu     sync.Mutex
	open   bool   // an outermost fork is open
	holder uint64 // the goroutine that opened it
	held   []heldVerdict
}

// heldVerdict is one Allow (allow set) or Reject held by liveVerdicts.
type heldVerdict struct {
	w           *WaitingPod
	allow       bool
	plugin, msg string
}

// apply makes the verdict on its pod.
func (v heldVerdict) apply() {
	if v.allow {
		v.w.allow(v.plugin)
	} else {
		v.w.reject(v.plugin, v.msg)
	}
}

// do applies v at once, unless a fork is open and the caller is outside
// its branch: then v is held for the live scheduler. Applying under l.mu
// orders v against a fork's opening: the fork saves the waiting pods
// either before v or after it.
func (l *liveVerdicts) do(v heldVerdict) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open && !goroutine.Within(forkMethodPrefix) && goroutine.ID() != l.holder {
		l.held = append(l.held, v)
		return
	}
	v.apply()
}

// opened records that the goroutine g is opening an outermost fork; the
// caller saves the waiting pods after it.
func (l *liveVerdicts) opened(g uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open, l.holder = true, g
}

// closed records that the outermost fork closed and applies the verdicts
// held meanwhile, in the order they were made.
func (l *liveVerdicts) closed() {
	l.mu.Lock()
	held := l.held
	l.open, l.holder, l.held = false, 0, nil
	l.mu.Unlock()
	for _, v := range held {
		v.apply()
	}
}

// forkMethodPrefix is how a method of Fork is named in a stack trace.
var forkMethodPrefix = reflect.TypeFor[Fork]().PkgPath() + ".(*Fork)."

// waitingPods is the scheduler's set of pods held at Permit, keyed by
// namespace/name, with its own lock so that plugins may use it during a
// cycle.
type waitingPods struct {
	mu   sync.Mutex
	pods map[string]*WaitingPod
	// verdicts holds the verdicts made outside an open fork.
	verdicts liveVerdicts
}

func (s *waitingPods) add(key string, w *WaitingPod) {
	w.verdicts.Store(&s.verdicts)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pods == nil {
		s.pods = map[string]*WaitingPod{}
	}
	s.pods[key] = w
}

func (s *waitingPods) remove(key string, w *WaitingPod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pods[key] == w {
		delete(s.pods, key)
	}
}

func (s *waitingPods) get(key string) (*WaitingPod, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.pods[key]
	return w, ok
}

func (s *waitingPods) list() []*WaitingPod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*WaitingPod, 0, len(s.pods))
	for _, w := range s.pods {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pod.Key() < out[j].pod.Key() })
	return out
}

var _ framework.WaitingPods = (*waitingPods)(nil)

// Get returns the waiting pod of key (framework.WaitingPods).
func (s *waitingPods) Get(key string) (framework.WaitingPod, bool) {
	if w, ok := s.get(key); ok {
		return w, true
	}
	return nil, false
}

// List returns the waiting pods sorted by namespace/name
// (framework.WaitingPods).
func (s *waitingPods) List() []framework.WaitingPod {
	ws := s.list()
	out := make([]framework.WaitingPod, len(ws))
	for i, w := range ws {
		out[i] = w
	}
	return out
}
