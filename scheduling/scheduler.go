package scheduling

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/goroutine"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// DefaultSchedulerName is the profile of pods that name no schedulerName,
// as the Kubernetes API defaults spec.schedulerName.
const DefaultSchedulerName = "default-scheduler"

// Outcome is what one decision did with its pod.
type Outcome string

// Decision outcomes.
const (
	// OutcomeScheduled: placed and bound in one go (synchronous binding).
	OutcomeScheduled Outcome = "Scheduled"
	// OutcomeAssumed: placed; binding continues (asynchronous binding) and
	// a later OutcomeBound or failure decision reports it.
	OutcomeAssumed Outcome = "Assumed"
	// OutcomeWaiting: placed and held at Permit; a later decision reports
	// the binding.
	OutcomeWaiting Outcome = "Waiting"
	// OutcomeBound: the binding of an earlier Assumed or Waiting decision
	// finished.
	OutcomeBound Outcome = "Bound"
	// OutcomeUnschedulable: no node fits (or a plugin rejected the pod after
	// the node was chosen); the pod waits in the queue.
	OutcomeUnschedulable Outcome = "Unschedulable"
	// OutcomeError: a plugin or the scheduler failed; the pod backs off.
	OutcomeError Outcome = "Error"
	// OutcomeSkipped: the pod is being deleted and is not scheduled.
	OutcomeSkipped Outcome = "Skipped"
)

// Decision records one scheduling or binding step of one pod and explains
// it: the node and how it won (top nodes with totals, margin), or why no
// node fits (kube-scheduler's "0/N nodes are available" message), which
// stage failed, and what preemption did.
type Decision struct {
	// Cycle numbers scheduling cycles from 1; binding decisions carry the
	// cycle that placed the pod.
	Cycle   int64
	Time    time.Time
	Pod     string // namespace/name
	Profile string
	Attempt int
	Outcome Outcome
	// Node is the chosen node (empty when none).
	Node string
	// FastPath is "nominated" when the nominated node was taken without a
	// full cycle, "one-feasible" when only one node was feasible (no
	// scoring ran), "reused" (FastPathReused) when the node came from the
	// ranking of an earlier cycle of an identical pod, "" otherwise.
	FastPath string
	// ReusedFrom is, for a "reused" decision, the cycle whose evaluation
	// (filtering and scoring) it reused.
	ReusedFrom int64
	// EvaluatedNodes and FeasibleNodes count the filtered and the passing
	// nodes; StartIndex is the round-robin offset the cycle used.
	EvaluatedNodes int
	FeasibleNodes  int
	StartIndex     int
	// Top are the best nodes by total score, the chosen one first; Margin
	// is the winner's lead over the runner-up.
	Top    []runtime.RankedNode
	Margin int64
	// Ties is the number of nodes that shared the winning total (the
	// winner included); above 1, the seeded tie-break chose among them.
	Ties int
	// Stage names the failing extension point: "PreFilter", "Filter",
	// "Score", "Reserve", "Permit", "WaitOnPermit", "PreBind", "Bind".
	Stage string
	// Plugin is the failing plugin, when known.
	Plugin string
	// Message is the failure: a FitError message or an error text.
	Message string
	// NominatedNode is the node preemption nominated; Victims are the pods
	// it evicted.
	NominatedNode string
	Victims       []string
	// Result is the full explanation of the cycle (every node's filter
	// verdict, every plugin's scores), kept only WithExplanations.
	Result *runtime.Result
}

// Option configures a Scheduler.
type Option func(*Scheduler)

// WithClock sets the clock of the queue, Permit timeouts and plugins
// (default framework.RealClock): every profile's Framework gets it through
// runtime.WithClock.
func WithClock(c framework.Clock) Option { return func(s *Scheduler) { s.clock = c } }

// WithForkWait bounds how long a live method called from another
// goroutine waits for an open Fork to close (default DefaultForkWait):
// past it the call fails with ErrForkNotClosed, naming where the fork was
// opened (see Scheduler). The wait is measured on the wall clock
// (WithWallClock), not the scheduler's.
func WithForkWait(d time.Duration) Option { return func(s *Scheduler) { s.forkWait = d } }

// WithWallClock sets the clock of the bounds that run in real time
// whatever the scheduler's clock (WithClock) simulates: the fork wait
// (default framework.RealClock).
func WithWallClock(c framework.Clock) Option { return func(s *Scheduler) { s.wallClock = c } }

// WithSeed seeds the random source of tie-breaks and preemption offsets
// (default 0). The same seed and inputs give the same decisions at any
// parallelism.
func WithSeed(seed uint64) Option { return func(s *Scheduler) { s.seed = seed } }

// WithParallelism sets the workers of per-node loops (default 1): above
// 1 the scheduler starts one runtime.Workers of n that every profile's
// Framework shares, and Close stops.
func WithParallelism(n int) Option {
	return func(s *Scheduler) { s.parallelism, s.sharedWorkers = n, nil }
}

// WithWorkers runs every profile's per-node loops on w, which others may
// share (several schedulers in one process, each running its cycles in
// turn); the parallelism is w.Size(). The scheduler does not close w:
// its owner does, after the scheduler's last cycle. A nil w is an error
// of New.
func WithWorkers(w *runtime.Workers) Option {
	return func(s *Scheduler) {
		s.sharedWorkers, s.workersSet = w, true
		if w != nil {
			s.parallelism = w.Size()
		}
	}
}

// WithKubeVersion sets the kube-scheduler release whose behaviour every
// profile's plugins and the scheduler reproduce (default
// framework.DefaultKubeVersion): every profile's Framework gets it through
// runtime.WithKubeVersion. Use DefaultProfileFor with the same version for
// that release's default profile.
func WithKubeVersion(v framework.KubeVersion) Option { return func(s *Scheduler) { s.kubeVersion = v } }

// WithPercentageOfNodesToScore sets the scheduler-wide
// percentageOfNodesToScore (0, the default, is adaptive); a profile's value
// overrides it.
func WithPercentageOfNodesToScore(p int32) Option { return func(s *Scheduler) { s.pctToScore = p } }

// WithQueueOptions tunes backoff and the unschedulable pool.
func WithQueueOptions(o QueueOptions) Option { return func(s *Scheduler) { s.queueOpts = o } }

// WithAsyncBinding runs each binding cycle (WaitOnPermit, PreBind, Bind,
// PostBind) on its own goroutine, as kube-scheduler does; the default runs
// it synchronously, which a simulation needs for reproducible results.
func WithAsyncBinding() Option { return func(s *Scheduler) { s.async = true } }

// WithExtenders adds scheduler extenders to every profile.
func WithExtenders(e ...framework.Extender) Option {
	return func(s *Scheduler) { s.extenders = append(s.extenders, e...) }
}

// WithDecisionHandler calls fn with every decision, in order (binding
// decisions of asynchronous binding arrive from binding goroutines, one at
// a time).
func WithDecisionHandler(fn func(Decision)) Option {
	return func(s *Scheduler) { s.SetDecisionHandler(fn) }
}

// SetDecisionHandler replaces the decision handler (nil: none) that
// WithDecisionHandler sets: the decisions made after it returns go to fn.
// Any goroutine may call it, e.g. to record one phase of a simulation.
func (s *Scheduler) SetDecisionHandler(fn func(Decision)) {
	if fn == nil {
		s.onDecision.Store(nil)
		return
	}
	s.onDecision.Store(&fn)
}

// WithExplanations keeps each cycle's full runtime.Result in its
// Decision (memory grows with nodes × score plugins per decision).
func WithExplanations() Option { return func(s *Scheduler) { s.keepResults = true } }

// WithFailureExplanations keeps the full runtime.Result only in the
// decisions of cycles that failed (Unschedulable, Error): the cycles run
// with explanations, and a successful cycle's Result is recycled, so
// memory grows with the failures only.
func WithFailureExplanations() Option { return func(s *Scheduler) { s.keepFailed = true } }

// WithObservedEviction makes preemption leave its victims in the cluster
// for the caller to delete through an API server, as kube-scheduler's
// preemption deletes them through the API and its cache keeps them until
// the deletion is observed: a victim leaves when DeletePod reports it
// gone, and the preemptor waits on its nominated node meanwhile. The
// Decision still names the victims. What-if forks are not affected: a
// preemption on a fork deletes its victims there.
func WithObservedEviction() Option { return func(s *Scheduler) { s.observedEviction = true } }

type profile struct {
	name       string
	fw         *runtime.Framework
	pct        *int32
	hasScoring bool
	hasExtFilt bool
	// canSign, batch and last are the profile's pod-signature reuse
	// (reuse.go).
	canSign bool
	batch   *batchState
	last    lastCycle
	// classes are the profile's incremental evaluators by pod signature
	// (classeval.go).
	classes classEvals
}

// Scheduler is kube-scheduler's scheduling loop over an in-memory Cluster:
// a queue ordered by the profiles' QueueSort plugin with kube's backoff,
// several profiles selected by schedulerName, the scheduling cycle
// (nominated-node and one-feasible fast paths, adaptive node sampling with
// a round-robin start, first-fit when nothing scores, seeded host
// selection), assume, Reserve, Permit with waiting pods, and the binding
// cycle (PreBind, Bind, PostBind), synchronous by default or asynchronous.
// Any failure after assume unreserves in reverse order, forgets the pod
// and requeues it.
//
// Cluster events (AddNode, UpdateNode, RemoveNode, AddPod, DeletePod,
// UpdateNodeMetric and the others) go through the Scheduler so that the
// queue hears of them. Plugins run while the scheduler's lock is held and
// must not call its methods (they may use WaitingPod handles).
//
// # Concurrency and forks
//
// Methods are safe for concurrent use, and no event a method accepted is
// lost: what-if branches never mix with the live scheduler. Fork opens a
// branch and returns its handle, a *Fork, whose methods (AddPod,
// SchedulePod, ScheduleOne, RemoveNode, ..., nested Fork) change the
// branch; its Revert undoes exactly the branch's changes, its Commit keeps
// them. While a branch is open the live scheduler is paused for everyone
// else:
//
//   - The live methods called from other goroutines wait until the
//     outermost fork's Commit or Revert, then run on the live state:
//     events (AddPod, DeletePod, AddNode, ...), ScheduleOne and the loops
//     built on it, Fork itself, and the reads (State, QueueLengths,
//     PendingReason, NextWakeup), which therefore never show a branch.
//     They wait at most the fork wait (WithForkWait, default
//     DefaultForkWait), so that a fork its goroutine never closes cannot
//     pause the scheduler silently: past it the event methods, Fork and
//     State return ErrForkNotClosed naming the goroutine that opened the
//     fork and where, ScheduleOne reports that nothing ran with that error
//     as its decision's Message (ProcessBindings and RunUntilIdle report
//     0), and the other reads return their zero values. Asynchronous
//     binding cycles wait, unbounded, before they record their binding
//     (so WaitForBindings waits for the fork too).
//   - The goroutine that called Scheduler.Fork must use the fork's
//     methods until it closes the branch: the live event methods return
//     ErrForkOpen to it (ScheduleOne, ProcessBindings and RunUntilIdle
//     report that nothing ran, and WaitForBindings returns at once)
//     rather than wait for a Revert that goroutine would never reach; its
//     live reads see the branch. Only the opener is recognized: a fork
//     handed to another goroutine may be used there, but that goroutine's
//     live calls wait like anyone's, so it must close the fork first.
//   - WaitingPod and WaitingPods do not wait (plugins use them during
//     cycles). A WaitingPod's Allow or Reject made while a fork is open
//     acts on the branch when it comes from the goroutine that opened the
//     fork or from a plugin running inside one of the fork's methods;
//     from any other goroutine (an approver, a timeout on a real clock)
//     it belongs to the live scheduler: it is held, and takes effect live
//     when the outermost fork's Commit or Revert closes the branch.
//     Cluster returns the scheduler's own, unsynchronized cluster (see
//     Cluster); State is the way to watch a running scheduler.
//
// Close every fork with a deferred Revert (after a Commit it changes
// nothing; the error it then returns is dropped):
//
//	f, err := s.Fork()
//	if err != nil {
//		return err
//	}
//	defer f.Revert()
type Scheduler struct {
	mu sync.Mutex
	// branch is the open outermost fork (nil when none), branchG the
	// goroutine that opened it and branchAt where (a trace kept in
	// spareTrace for the next fork once the fork closes); branchEnd (on
	// mu) wakes the live methods that wait for it to close, at most
	// forkWait on the wallClock; waitExpired says one gave up, so the
	// close wakes Run.
	branch      *Fork
	branchG     uint64
	branchAt    *goroutine.Trace
	spareTrace  atomic.Pointer[goroutine.Trace]
	branchEnd   sync.Cond
	forkWait    time.Duration
	wallClock   framework.Clock
	waitExpired bool

	cluster     *cluster.Cluster
	profiles    map[string]*profile
	order       []string
	queue       *queue.Queue
	nominator   *queue.Nominator
	waiting     waitingPods
	clock       framework.Clock
	seed        uint64
	pcg         *rand.PCG
	rng         *rand.Rand
	parallelism int
	workers     *runtime.Workers // nil at parallelism 1; the scheduler's own unless sharedWorkers
	// sharedWorkers and workersSet: WithWorkers.
	sharedWorkers *runtime.Workers
	workersSet    bool
	kubeVersion   framework.KubeVersion
	pctToScore    int32
	queueOpts     QueueOptions
	extenders     []framework.Extender
	async         bool
	keepResults   bool
	keepFailed    bool // WithFailureExplanations
	// observedEviction: WithObservedEviction.
	observedEviction bool
	// claimWriter: WithClaimWriter (nil: none).
	claimWriter ClaimWriter
	// replicas, while a capacity question's replicaAdder runs a replica's
	// cycle, is the evaluator that cycle may use (see replicaEval).
	replicas *replicaEval
	// replicaCycles counts the cycles replicas' evaluators computed,
	// classCycles those of the class evaluators (classeval.go), which
	// noClassEvals turns off and which serve snapshots of minClassNodes
	// nodes or more (minClassEvalNodes; tests lower it).
	replicaCycles, classCycles int
	noClassEvals               bool
	minClassNodes              int
	// replicasReused counts the detached replicas whose memory served the
	// next replica (replicaAdder.replica).
	replicasReused int
	// replicaHandle and replicaState, while a capacity question's
	// detached replica's cycle runs (replicaAdder), are the memory of that
	// cycle's handle and first state, each taken once (cycleHandle,
	// newState): nothing keeps a replica's handle or state past its cycle
	// (its binding is synchronous and releases the state, and a replica
	// that waits, fails or is rejected ends the question's replicaAdder),
	// so the question reuses one of each.
	replicaHandle *cycleHandle
	replicaState  *framework.CycleState
	// spareState is a state whose cycle ended in a binding on the
	// scheduler's lock (runBinding), released, for the next cycle
	// (newState): a state is a couple of kilobytes with pointers, which a
	// fresh allocation per cycle would hand the collector, and its
	// memo of value types (CycleState.Release) stays warm. Nil while a
	// cycle holds it.
	spareState *framework.CycleState
	// replicaSlab, while a capacity question's detached replica's cycle
	// runs, gives the memory of the replica's assumed copy: every one of
	// them leaves the cluster with the question's Revert.
	replicaSlab *cluster.AssumedSlab
	workload    workload
	// onDecision is the decision handler (nil: none); decisionMu
	// serializes its calls.
	onDecision atomic.Pointer[func(Decision)]
	decisionMu sync.Mutex

	// noPostFilter skips PostFilter (preemption) while a what-if question
	// places pods that must not preempt (whatif.go).
	noPostFilter bool

	nextStart int
	cycle     int64
	reuse     *runtime.Result // recycled cycle result without explanations
	// Pod-signature reuse (reuse.go): off, the maximum age of a ranking,
	// and the reuse state hidden by each open Fork.
	noReuse     bool
	reuseMaxAge time.Duration
	// fullRescore makes v1.37's rescore of a kept ranking score every
	// kept node even when each would score its kept total (tests compare
	// the two).
	fullRescore bool
	reuseForks  []reuseFork
	reasons     map[string]string
	forks       []forkState
	// handlers are the plugins' cluster event handlers
	// (Handle.AddClusterEventHandler), each once.
	handlers []framework.ClusterEventHandler

	readyMu sync.Mutex
	ready   []*binding
	bindWG  sync.WaitGroup
	wake    chan struct{}

	// Fork bookkeeping: reasonsSaved journals reasons per open fork;
	// waitSeq numbers the pods held at Permit in creation order. While a
	// fork is open (forkDepth > 0), deferred holds the Permit verdicts of
	// asynchronous bindings started before the Fork (delivered at the last
	// Commit, dropped by Revert); readyMu guards both.
	reasonsSaved forkJournal[reason]
	waitSeq      uint64
	deferred     []verdict
	forkDepth    int
	// forkables are the profiles' plugins with state of their own
	// (framework.ForkablePlugin), each instance once: Fork, Commit and
	// Revert call theirs.
	forkables []framework.ForkablePlugin
}

// New builds a scheduler over cluster with one framework per profile (built
// from registry). Every profile needs a Bind plugin and a distinct
// schedulerName (empty means DefaultSchedulerName); all profiles must use
// the same QueueSort plugin with the same args (as kube-scheduler
// requires); percentageOfNodesToScore must be within [0,100]. Errors name
// the profile and the value.
func New(cl *cluster.Cluster, registry *framework.Registry, profiles []framework.Profile, opts ...Option) (*Scheduler, error) {
	if cl == nil {
		return nil, errors.New("scheduling: New: nil cl")
	}
	if len(profiles) == 0 {
		return nil, errors.New("scheduling: New: no profiles")
	}
	s := &Scheduler{cluster: cl, profiles: map[string]*profile{}, clock: framework.RealClock{}, wallClock: framework.RealClock{}, forkWait: DefaultForkWait, parallelism: 1, minClassNodes: minClassEvalNodes, kubeVersion: framework.DefaultKubeVersion,
		nominator: queue.NewNominator(), reasons: map[string]string{}, wake: make(chan struct{}, 1)}
	s.branchEnd.L = &s.mu
	for _, o := range opts {
		o(s)
	}
	if s.kubeVersion.IsZero() {
		return nil, errors.New("scheduling: New: WithKubeVersion: the zero KubeVersion names no release (use framework.DefaultKubeVersion or framework.ParseKubeVersion)")
	}
	if s.clock == nil {
		return nil, errors.New("scheduling: New: WithClock(nil): a clock is required")
	}
	if s.wallClock == nil {
		return nil, errors.New("scheduling: New: WithWallClock(nil): a clock is required")
	}
	if s.forkWait <= 0 {
		return nil, fmt.Errorf("scheduling: New: WithForkWait(%v): must be positive", s.forkWait)
	}
	if s.parallelism < 1 {
		return nil, fmt.Errorf("scheduling: New: parallelism=%d: must be at least 1", s.parallelism)
	}
	if err := s.queueOpts.validate(); err != nil {
		return nil, err
	}
	if err := s.validateReuse(); err != nil {
		return nil, err
	}
	if s.pctToScore < 0 || s.pctToScore > 100 {
		return nil, fmt.Errorf("scheduling: percentageOfNodesToScore=%d: must be within [0,100]", s.pctToScore)
	}
	s.pcg = rand.NewPCG(s.seed, s.seed^0x9E3779B97F4A7C15)
	s.rng = rand.New(s.pcg)
	switch {
	case s.workersSet && s.sharedWorkers == nil:
		return nil, errors.New("scheduling: New: WithWorkers(nil): workers are required")
	case s.sharedWorkers != nil:
		s.workers = s.sharedWorkers
	case s.parallelism > 1:
		s.workers, _ = runtime.NewWorkers(s.parallelism) // parallelism ≥ 1 was checked
	}
	if err := s.buildProfiles(registry, profiles); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the workers of the per-node loops the scheduler started
// (WithParallelism above 1; not those of WithWorkers) and waits until
// they have exited. The scheduler still schedules
// after Close, every loop on the caller's goroutine; closing twice is
// harmless. A scheduler dropped without Close has its workers stopped
// once the garbage collector finds them unreachable.
func (s *Scheduler) Close() {
	if s.workers != nil && s.sharedWorkers == nil {
		s.workers.Close()
	}
}

// buildProfiles is the rest of New once the options are checked: the
// profiles' Frameworks, the queue and the cluster's pods.
func (s *Scheduler) buildProfiles(registry *framework.Registry, profiles []framework.Profile) error {
	var less func(a, b *framework.QueuedPodInfo) bool
	var first framework.Profile
	for i, p := range profiles {
		if p.SchedulerName == "" {
			p.SchedulerName = DefaultSchedulerName
		}
		if _, dup := s.profiles[p.SchedulerName]; dup {
			return fmt.Errorf("scheduling: New: profile %d: duplicate schedulerName %q", i, p.SchedulerName)
		}
		if v := p.PercentageOfNodesToScore; v != nil && (*v < 0 || *v > 100) {
			return fmt.Errorf("scheduling: profile %q: percentageOfNodesToScore=%d: must be within [0,100]", p.SchedulerName, *v)
		}
		if len(p.Bind) == 0 {
			return fmt.Errorf("scheduling: profile %q: at least one Bind plugin is needed (e.g. %q)", p.SchedulerName, config.DefaultBinderName)
		}
		if !p.KubeVersion.IsZero() && p.KubeVersion != s.kubeVersion {
			return fmt.Errorf("scheduling: profile %q: built for kube %s, but the scheduler reproduces %s (use WithKubeVersion(%s), or DefaultProfileFor(%s))",
				p.SchedulerName, p.KubeVersion, s.kubeVersion, p.KubeVersion, s.kubeVersion)
		}
		if i == 0 {
			first = p
		} else if !slices.Equal(p.QueueSort, first.QueueSort) || (len(p.QueueSort) == 1 && !reflect.DeepEqual(p.Args[p.QueueSort[0]], first.Args[first.QueueSort[0]])) {
			return fmt.Errorf("scheduling: profile %q: QueueSort %v (with its args) differs from profile %q's %v; all profiles must share one",
				p.SchedulerName, p.QueueSort, first.SchedulerName, first.QueueSort)
		}
		f, err := runtime.NewFramework(registry, p, s.frameworkOptions()...)
		if err != nil {
			return fmt.Errorf("scheduling: %w", err)
		}
		sp := &profile{name: p.SchedulerName, fw: f, pct: p.PercentageOfNodesToScore, hasScoring: f.HasScorePlugins(), canSign: f.CanSign()}
		for _, e := range s.extenders {
			sp.hasScoring = sp.hasScoring || e.IsPrioritizer()
			sp.hasExtFilt = sp.hasExtFilt || e.IsFilter()
		}
		if i == 0 && f.QueueSort() != nil {
			less = f.QueueSort().Less
		}
		s.profiles[p.SchedulerName] = sp
		s.order = append(s.order, p.SchedulerName)
	}
	// The cluster counts its pods' requests by the scheduler's release.
	if err := s.cluster.SetKubeVersion(s.kubeVersion); err != nil {
		return err
	}
	s.queue = queue.New(s.clock, less, s.queueOpts.config())
	s.queue.Gate = s.preEnqueue
	if !s.queueOpts.DisableQueueingHints {
		hints, err := buildQueueingHints(context.Background(), s.profiles, s.order, s.kubeVersion)
		if err != nil {
			return fmt.Errorf("scheduling: %w", err)
		}
		s.queue.Hints, s.queue.Snapshot = hints, s.cluster.Snapshot
	}
	if err := s.collectForkables(); err != nil {
		return err
	}
	for _, m := range s.cluster.NodeMetrics() {
		s.nodeMetricUpdated(m)
	}
	for _, r := range s.cluster.Pods() {
		if r.State != cluster.StatePending {
			pi, _, _ := s.cluster.PodInfo(r.Pod.Key())
			s.podAssigned(pi, true)
			continue
		}
		if _, err := s.profileFor(r.Pod); err != nil {
			return err
		}
		pi, _, _ := s.cluster.PodInfo(r.Pod.Key())
		s.enqueue(pi)
		s.nominateAdded(r.Pod.Key(), pi)
	}
	return nil
}

// nominateAdded records the nominated node of a pending pod just added and
// enqueued. kube-scheduler v1.37's PriorityQueue.addPod records it for
// every pod, a gated one too, so that its nominated space stays reserved
// (kubernetes/kubernetes#139057); v1.36's records it only when the pod enters activeQ
// (moveToActiveQ), so a pod its scheduling gates hold back is nominated
// only once an update of it reaches the nominator.
func (s *Scheduler) nominateAdded(key string, pi *framework.PodInfo) {
	nnn := pi.Pod.Status.NominatedNodeName
	if nnn == "" {
		return
	}
	if !s.kubeVersion.AtLeast(framework.KubeV137) {
		if p, ok := s.queue.Get(key); ok && p.Where == queue.Gated {
			return
		}
	}
	s.nominator.Add(key, pi, nnn)
}

// built reports a Scheduler not made by New (a zero or nil Scheduler),
// whose methods answer with this error or nothing instead of panicking.
func (s *Scheduler) built() error {
	if s == nil || s.queue == nil {
		return errors.New("scheduling: Scheduler not built by New")
	}
	return nil
}

// Cluster returns the scheduler's cluster itself, which is not
// synchronized: read it only where no other goroutine uses the scheduler
// (a single-goroutine simulation between calls, or the goroutine holding
// a fork, which then reads the branch), and change it only through the
// scheduler's or a fork's event methods. To watch a scheduler that other
// goroutines drive, use State, a consistent copy.
func (s *Scheduler) Cluster() *cluster.Cluster { return s.cluster }

// Clock returns the scheduler's clock.
func (s *Scheduler) Clock() framework.Clock { return s.clock }

// KubeVersion returns the kube-scheduler release the scheduler reproduces.
func (s *Scheduler) KubeVersion() framework.KubeVersion { return s.kubeVersion }

// Profiles returns the schedulerNames of the profiles, in order.
func (s *Scheduler) Profiles() []string { return slices.Clone(s.order) }

// Framework returns the framework of a profile.
func (s *Scheduler) Framework(schedulerName string) (*runtime.Framework, bool) {
	p, ok := s.profiles[schedulerName]
	if !ok {
		return nil, false
	}
	return p.fw, true
}

func (s *Scheduler) profileFor(pod *api.Pod) (*profile, error) {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = DefaultSchedulerName
	}
	p, ok := s.profiles[name]
	if !ok {
		return nil, fmt.Errorf("scheduling: pod %s: unknown schedulerName %q (profiles: %v)", pod.Key(), name, s.order)
	}
	return p, nil
}

func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Scheduler) emit(d Decision) {
	if s.onDecision.Load() == nil {
		return
	}
	s.decisionMu.Lock()
	defer s.decisionMu.Unlock()
	if fn := s.onDecision.Load(); fn != nil { // the handler set last
		(*fn)(d)
	}
}

// AddPod adds a copy of pod to the cluster: with spec.nodeName it is bound
// there; otherwise it joins the queue of its profile. A schedulerName no
// profile has, a duplicate pod, a missing node or invalid affinity is an
// error naming the pod, and the pod is not added.
func (s *Scheduler) AddPod(pod *api.Pod) error { return s.addPod(nil, pod, false) }

// AddObservedPod is AddPod for a pod as an API server holds it, as
// kube-scheduler's informer delivers it: the cluster plays no controller
// for it (cluster.Cluster.AddObservedPod), so the pod waits for the claims
// of its generic ephemeral volumes and ResourceClaimTemplates the API
// server does not hold yet, as in kube-scheduler. Live feeds use it.
func (s *Scheduler) AddObservedPod(pod *api.Pod) error { return s.addPod(nil, pod, true) }

func (s *Scheduler) addPod(f *Fork, pod *api.Pod, observed bool) error {
	if err := s.check(f, "AddPod"); err != nil {
		return err
	}
	if pod == nil {
		return errors.New("scheduling: AddPod: nil pod")
	}
	if err := s.enter(f, "AddPod"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return s.addPodEvent(pod, observed)
}

// addPodEvent is AddPod (AddObservedPod when observed) with the
// scheduler's lock held.
func (s *Scheduler) addPodEvent(pod *api.Pod, observed bool) error {
	if pod.Spec.NodeName == "" {
		if _, err := s.profileFor(pod); err != nil {
			return err
		}
	}
	add := s.cluster.AddPod
	if observed {
		add = s.cluster.AddObservedPod
	}
	if err := add(pod); err != nil {
		return err
	}
	s.podAdded(pod.Key())
	return nil
}

// podAdded tells the queue and the plugins of the pod the cluster just
// added (AddPod after the cluster's part).
func (s *Scheduler) podAdded(key string) {
	pi, st, _ := s.cluster.PodInfo(key)
	if st == cluster.StatePending {
		s.enqueue(pi)
		s.nominateAdded(key, pi)
		if s.workload.features.GangScheduling {
			// A new pod may complete a gang (kube reports unscheduled pod
			// additions with the GangScheduling feature on).
			s.reportEvent(framework.EventUnscheduledPodAdd, nil, pi, nil, false)
		}
	} else {
		s.podAssigned(pi, true)
		s.reportEvent(framework.EventAssignedPodAdd, nil, pi, nil, true)
	}
	s.signal()
}

// DeletePod deletes the pod: a pod waiting at Permit is rejected first, a
// queued pod leaves the queue, and the resources of a placed pod are freed
// (which may let unschedulable pods in).
func (s *Scheduler) DeletePod(namespace, name string) error { return s.deletePod(nil, namespace, name) }

func (s *Scheduler) deletePod(f *Fork, namespace, name string) error {
	if err := s.check(f, "DeletePod"); err != nil {
		return err
	}
	if err := s.enter(f, "DeletePod"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return s.deletePodLocked(namespace, name, "deleted")
}

func (s *Scheduler) deletePodLocked(namespace, name, why string) error {
	key := cluster.PodKey(namespace, name)
	if w, ok := s.waiting.get(key); ok {
		w.Reject("", fmt.Sprintf("pod %s %s while waiting at Permit", key, why))
	}
	pi, st, ok := s.cluster.PodInfo(key)
	if !ok {
		return fmt.Errorf("scheduling: DeletePod: unknown pod %s", key)
	}
	if _, err := s.cluster.DeletePod(namespace, name); err != nil {
		return err
	}
	s.queue.Delete(key)
	s.nominator.Remove(key)
	s.setReason(key, "")
	switch {
	case st != cluster.StatePending:
		s.podAssigned(pi, false)
		s.reportEvent(framework.EventAssignedPodDelete, pi, nil, nil, true)
	case pi.Pod.Status.NominatedNodeName != "":
		// Lower-priority pods counted the nominated pod on its node.
		s.reportEvent(framework.EventAssignedPodDelete, pi, nil, queue.LowerOrEqualPriority(pi.Pod.PriorityValue()), false)
	}
	if len(pi.Pod.Spec.ResourceClaims) > 0 { // the cluster released its claims
		s.reportEvent(framework.ClusterEvent{Resource: framework.ResourceResourceClaim, ActionType: framework.Update}, nil, nil, nil, true)
	}
	s.signal()
	return nil
}

// AddNode adds a node; unschedulable pods are retried.
func (s *Scheduler) AddNode(n *api.Node) error { return s.addNode(nil, n) }

func (s *Scheduler) addNode(f *Fork, n *api.Node) error {
	if err := s.check(f, "AddNode"); err != nil {
		return err
	}
	if err := s.enter(f, "AddNode"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := s.cluster.AddNode(n); err != nil {
		return err
	}
	added, _ := s.cluster.Node(n.Name)
	s.reportEvent(framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.Add}, nil, added, nil, true)
	s.signal()
	return nil
}

// UpdateNode replaces a node object; unschedulable pods are retried.
func (s *Scheduler) UpdateNode(n *api.Node) error { return s.updateNode(nil, n) }

func (s *Scheduler) updateNode(f *Fork, n *api.Node) error {
	if err := s.check(f, "UpdateNode"); err != nil {
		return err
	}
	if err := s.enter(f, "UpdateNode"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	old, ok := s.cluster.Node(n.Name)
	if err := s.cluster.UpdateNode(n); err != nil {
		return err
	}
	updated, _ := s.cluster.Node(n.Name)
	if ok {
		s.reportEvents(framework.NodeUpdateEvents(old, updated), old, updated, nil, true)
	}
	s.signal()
	return nil
}

// RemoveNode removes a node. Its pods are deleted (pods waiting at Permit
// there are rejected) and returned with spec.nodeName cleared, so that a
// caller acting as their controller can add them again.
func (s *Scheduler) RemoveNode(name string) ([]*api.Pod, error) { return s.removeNode(nil, name) }

func (s *Scheduler) removeNode(f *Fork, name string) ([]*api.Pod, error) {
	if err := s.check(f, "RemoveNode"); err != nil {
		return nil, err
	}
	if err := s.enter(f, "RemoveNode"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ni, ok := s.cluster.NodeInfo(name)
	if !ok {
		return nil, fmt.Errorf("scheduling: RemoveNode: unknown node %q", name)
	}
	for _, pi := range ni.Pods {
		if w, ok := s.waiting.get(pi.Pod.Key()); ok {
			w.Reject("", fmt.Sprintf("node %s removed while pod %s waited at Permit", name, pi.Pod.Key()))
		}
	}
	for _, pi := range ni.Pods {
		s.podAssigned(pi, false)
	}
	node, pods := ni.Node(), slices.Clone(ni.Pods)
	evicted, err := s.cluster.RemoveNode(name)
	if err != nil {
		return nil, err
	}
	for _, p := range evicted {
		s.queue.Delete(p.Key())
		s.nominator.Remove(p.Key())
	}
	// The node's pods are deleted with it, then the node.
	for _, pi := range pods {
		s.reportEvent(framework.EventAssignedPodDelete, pi, nil, nil, false)
	}
	s.reportEvent(framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.Delete}, node, nil, nil, false)
	s.signal()
	return evicted, nil
}

// UpdateNodeMetric records a node's NodeMetric; unschedulable pods are
// retried.
func (s *Scheduler) UpdateNodeMetric(m *api.NodeMetric) error {
	return s.updateNodeMetric(nil, m)
}

func (s *Scheduler) updateNodeMetric(f *Fork, m *api.NodeMetric) error {
	if err := s.check(f, "UpdateNodeMetric"); err != nil {
		return err
	}
	if err := s.enter(f, "UpdateNodeMetric"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	old, had := s.cluster.NodeMetric(m.Name)
	if err := s.cluster.UpdateNodeMetric(m); err != nil {
		return err
	}
	s.nodeMetricUpdated(m)
	cur, _ := s.cluster.NodeMetric(m.Name)
	ev := framework.ClusterEvent{Resource: framework.ResourceNodeMetric, ActionType: framework.Update}
	var oldObj any
	if had {
		oldObj = old
	} else {
		ev.ActionType = framework.Add
	}
	s.reportEvent(ev, oldObj, cur, nil, true)
	s.signal()
	return nil
}

// WaitingPod returns the pod namespace/name if it is held at Permit.
func (s *Scheduler) WaitingPod(namespace, name string) (*WaitingPod, bool) {
	return s.waiting.get(cluster.PodKey(namespace, name))
}

// WaitingPods returns the pods held at Permit, sorted by namespace/name.
func (s *Scheduler) WaitingPods() []*WaitingPod { return s.waiting.list() }

// PendingReason returns why the pending pod namespace/name is not placed
// yet: its last failure message ("" when it has not been tried or is
// placed).
func (s *Scheduler) PendingReason(namespace, name string) string {
	if s.built() != nil || s.lockRead("PendingReason") != nil {
		return ""
	}
	defer s.mu.Unlock()
	return s.reasons[cluster.PodKey(namespace, name)]
}

// Gated reports whether the pending pod namespace/name is held by its
// PreEnqueue plugins (scheduling gates), which kube-scheduler does not
// try until they let it go, and their message.
func (s *Scheduler) Gated(namespace, name string) (reason string, gated bool) {
	if s.built() != nil || s.lockRead("Gated") != nil {
		return "", false
	}
	defer s.mu.Unlock()
	qp, ok := s.queue.Get(cluster.PodKey(namespace, name))
	if !ok || qp.Where != queue.Gated {
		return "", false
	}
	return qp.GateMsg, true
}

// QuestionMode is a switch a what-if question turns on for its length
// (Scheduler.InMode).
type QuestionMode uint8

const (
	// ExplainAll keeps every decision's full explanation
	// (Decision.Result), as WithExplanations does.
	ExplainAll QuestionMode = 1 << iota
	// FreeRoomOnly places pods in free room only: PostFilter plugins
	// (preemption) do not run.
	FreeRoomOnly
)

// InMode runs fn with the switches of m on, and puts them back as they
// were afterwards.
func (s *Scheduler) InMode(m QuestionMode, fn func() error) error {
	var flags []*bool
	if m&ExplainAll != 0 {
		flags = append(flags, &s.keepResults)
	}
	if m&FreeRoomOnly != 0 {
		flags = append(flags, &s.noPostFilter)
	}
	s.mu.Lock()
	old := make([]bool, len(flags))
	for i, f := range flags {
		old[i], *f = *f, true
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		for i, f := range flags {
			*f = old[i]
		}
		s.mu.Unlock()
	}()
	return fn()
}

// QueueLengths returns the sizes of the active queue, the backoff queues
// and the unschedulable pool.
func (s *Scheduler) QueueLengths() (active, backoff, unschedulable int) {
	if s.built() != nil || s.lockRead("QueueLengths") != nil {
		return 0, 0, 0
	}
	defer s.mu.Unlock()
	return s.queue.Lens()
}

// NextWakeup returns when a backoff ends or a leftover flush retries an
// unschedulable pod, if the active queue is empty; a simulation advances
// its clock there.
func (s *Scheduler) NextWakeup() (time.Time, bool) {
	if s.built() != nil || s.lockRead("NextWakeup") != nil {
		return time.Time{}, false
	}
	defer s.mu.Unlock()
	return s.queue.NextWakeup()
}

// StaleWakeup is NextWakeup counting, of the pods waiting after an error
// and of the unschedulable pool, only those that failed before the latest
// cluster event: a retry of the others would meet the cluster they failed
// on. A simulation with no event left advances its clock there to let the
// queue retry them (kube's periodic flush), and stops when there is none.
func (s *Scheduler) StaleWakeup() (time.Time, bool) {
	if s.built() != nil || s.lockRead("StaleWakeup") != nil {
		return time.Time{}, false
	}
	defer s.mu.Unlock()
	return s.queue.StaleWakeup()
}

// AddPodFromHandler is AddPod for a decision handler (WithDecisionHandler):
// the handler runs inside a scheduling cycle, with the lock AddPod would
// wait for held, so a handler that resubmits a pod (as Replay does for
// evicted and preempted pods) adds it here. The pod joins the queue as
// AddPod's does.
func (s *Scheduler) AddPodFromHandler(pod *api.Pod) error {
	if _, err := s.profileFor(pod); err != nil {
		return err
	}
	if err := s.cluster.AddPod(pod); err != nil {
		return err
	}
	pi, _, _ := s.cluster.PodInfo(pod.Key())
	s.queue.Add(pi)
	return nil
}

// cycleHandle is the scheduler's own data of a cycle, kept in the cycle's
// CycleState under its private key (handleKey), which no plugin reads: the
// services that act for a cycle (handle.go: evicting, binding volumes, the
// DRA manager) find it there.
type cycleHandle struct {
	s    *Scheduler
	prof *profile
	// victims are the pods the cycle's preemption evicted.
	victims []string
	// bindingLocked says the binding cycle runs with the scheduler's lock
	// held (synchronous binding), for the services PreBind plugins change
	// the cluster through.
	bindingLocked bool
	// binding says the binding cycle runs (PreBind on, or its failure).
	binding bool
}

// cycleHandle returns a new handle for a cycle under prof: for a
// detached replica's, replicaHandle reset (taken once).
func (s *Scheduler) cycleHandle(prof *profile) *cycleHandle {
	h := s.replicaHandle
	if h == nil {
		return &cycleHandle{s: s, prof: prof}
	}
	s.replicaHandle = nil
	*h = cycleHandle{s: s, prof: prof}
	return h
}

// Clone returns the handle itself: it is shared by cloned states.
func (h *cycleHandle) Clone() framework.StateData { return h }

const handleKey framework.StateKey = "schedkit.scheduling/Scheduler"

// handleFrom returns the scheduler's data of the cycle of state.
func handleFrom(state *framework.CycleState) (*cycleHandle, bool) {
	if state == nil {
		return nil, false
	}
	d, err := state.Read(handleKey)
	if err != nil {
		return nil, false
	}
	h, ok := d.(*cycleHandle)
	return h, ok
}

// ProcessBindings runs the binding cycles of pods whose Permit wait ended
// (allowed, rejected or timed out) in synchronous mode, and returns how
// many ran. ScheduleOne calls it first; call it after moving a framework.FakeClock.
func (s *Scheduler) ProcessBindings(ctx context.Context) int { return s.processBindings(nil, ctx) }

func (s *Scheduler) processBindings(f *Fork, ctx context.Context) int {
	if s.check(f, "ProcessBindings") != nil || s.enter(f, "ProcessBindings") != nil {
		return 0
	}
	defer s.mu.Unlock()
	return s.runReadyLocked(ctx)
}

// RunUntilIdle schedules until no pod is ready at the clock's current time
// and no binding is pending to run, and returns the number of cycles.
func (s *Scheduler) RunUntilIdle(ctx context.Context) int { return s.runUntilIdle(nil, ctx) }

func (s *Scheduler) runUntilIdle(f *Fork, ctx context.Context) int {
	n := 0
	for ctx.Err() == nil {
		if _, ok := s.scheduleOne(f, ctx); !ok {
			if s.processBindings(f, ctx) == 0 {
				break
			}
			continue
		}
		n++
	}
	return n
}

// Run schedules pods until ctx is done, sleeping on the clock when the
// queue is empty (until an event, a resolved Permit wait or the next
// backoff flush). Use it with framework.RealClock; with a framework.FakeClock drive the
// scheduler with ScheduleOne and the clock instead.
func (s *Scheduler) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if s.RunUntilIdle(ctx) > 0 {
			continue
		}
		var timer framework.Timer
		if t, ok := s.NextWakeup(); ok {
			timer = s.clock.AfterFunc(t.Sub(s.clock.Now()), s.signal)
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// WaitForBindings waits until every asynchronous binding cycle started so
// far has finished (pods still held at Permit keep theirs running). Called
// by the goroutine that holds a fork open it returns at once: the bindings
// wait for that fork to close.
func (s *Scheduler) WaitForBindings() {
	if s.built() != nil {
		return
	}
	s.mu.Lock()
	held := s.holdsBranch()
	s.mu.Unlock()
	if !held {
		s.bindWG.Wait()
	}
}

// buildQueueingHints collects the profiles' EnqueueExtensions as kube's
// buildQueueingHintMap (scheduler.go) of release v: a nil hint function
// means Queue; a plugin without EnqueueExtensions registers every event.
// In v1.36 a plugin that registers Node/Add without UpdateNodeTaint also
// gets UpdateNodeTaint with Queue (kube's workaround for
// kubernetes/kubernetes#109437); v1.37 removed it, so a taint-only node update no
// longer requeues a pod such a plugin rejected.
func buildQueueingHints(ctx context.Context, profiles map[string]*profile, order []string, v framework.KubeVersion) (*queue.Hints, error) {
	taintWorkaround := !v.AtLeast(framework.KubeV137)
	h := &queue.Hints{ByProfile: map[string][]queue.HintFn{}}
	for _, name := range order {
		exts, err := profiles[name].fw.EnqueueExtensions(ctx)
		if err != nil {
			return nil, err
		}
		var list []queue.HintFn
		for _, pe := range exts {
			nodeAdd, nodeTaint := false, false
			for _, e := range pe.Events {
				if e.Event.Resource == framework.ResourceNode {
					nodeAdd = nodeAdd || e.Event.ActionType&framework.Add != 0
					nodeTaint = nodeTaint || e.Event.ActionType&framework.UpdateNodeTaint != 0
				}
				list = append(list, queue.HintFn{Event: e.Event, Plugin: pe.Plugin, Fn: e.QueueingHintFn})
			}
			if taintWorkaround && nodeAdd && !nodeTaint {
				list = append(list, queue.HintFn{Event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeTaint}, Plugin: pe.Plugin})
			}
		}
		h.ByProfile[name] = list
	}
	return h, nil
}
