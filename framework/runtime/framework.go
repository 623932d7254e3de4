package runtime

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/parallel"
)

// Option configures a Framework.
type Option func(*Framework)

// WithClock sets the clock plugins see through Handle.Clock (default:
// RealClock); a scheduling.Scheduler passes its own.
func WithClock(c framework.Clock) Option { return func(f *Framework) { f.clock = c } }

// WithParallelism sets the number of workers for per-node loops (default
// 1, i.e. sequential; results are identical at any setting). Values below 1
// are an error of NewFramework. Above 1 the Framework starts its own
// Workers, which Close stops; WithWorkers shares one set instead.
func WithParallelism(n int) Option { return func(f *Framework) { f.parallelism, f.workers = n, nil } }

// WithWorkers runs the Framework's per-node loops on w, which others may
// share (a scheduling.Scheduler gives all its profiles one set); the
// parallelism is w.Size(). The Framework does not close w: its owner
// does, after the last cycle. A nil w is an error of NewFramework.
func WithWorkers(w *Workers) Option {
	return func(f *Framework) {
		f.workers, f.workersSet = w, true
		if w != nil {
			f.parallelism = w.Size()
		}
	}
}

// WithKubeVersion sets the kube-scheduler release whose behaviour the
// plugins reproduce (Handle.KubeVersion; default
// framework.DefaultKubeVersion). The zero KubeVersion is an error of
// NewFramework.
func WithKubeVersion(v framework.KubeVersion) Option { return func(f *Framework) { f.kubeVersion = v } }

// WithExtenders adds scheduler extenders, consulted after Filter and Score.
func WithExtenders(e ...framework.Extender) Option {
	return func(f *Framework) { f.extenders = append(f.extenders, e...) }
}

type scorePlugin struct {
	framework.ScorePlugin
	weight int64
	// The fast paths the plugin implements (nil where it does not),
	// found when the framework is built rather than in every cycle.
	batch    fastpath.BatchScorePlugin
	bounded  fastpath.BoundedBatchScorePlugin
	adder    fastpath.AddingBatchScorePlugin
	fusing   fastpath.FusingBatchScorePlugin
	constant fastpath.ConstantScorePlugin
}

// newScorePlugin returns sp with weight w and its fast paths.
func newScorePlugin(sp framework.ScorePlugin, w int64) scorePlugin {
	e := scorePlugin{ScorePlugin: sp, weight: w}
	e.batch, _ = sp.(fastpath.BatchScorePlugin)
	e.bounded, _ = sp.(fastpath.BoundedBatchScorePlugin)
	e.adder, _ = sp.(fastpath.AddingBatchScorePlugin)
	e.fusing, _ = sp.(fastpath.FusingBatchScorePlugin)
	e.constant, _ = sp.(fastpath.ConstantScorePlugin)
	return e
}

// filterFast is the fast paths a filter plugin implements (nil where it
// does not), found when the framework is built rather than in every
// cycle.
type filterFast struct {
	batch     fastpath.BatchFilterPlugin
	rejecter  fastpath.RejectingFilterPlugin
	trusted   bool
	deferring fastpath.DeferringRejectingFilterPlugin
	costly    fastpath.CostlyFilterPlugin
}

// Framework runs a profile's plugins for one pod at a time. It is built once
// and safe for concurrent cycles (each cycle has its own CycleState).
type Framework struct {
	profile     framework.Profile
	clock       framework.Clock
	parallelism int
	// workers run the per-node loops (WithWorkers, or the Framework's own
	// when ownWorkers); pool is theirs (nil: every loop runs inline).
	workers    *Workers
	workersSet bool
	ownWorkers bool
	pool       *parallel.Pool
	minChunk   int // the workers' MinChunk
	passLeast  int // and their passLeast
	fusedLeast int // and their fusedLeast
	// sampledSpan is how many positions recent filter loops that stopped
	// early evaluated per feasible node they needed, in sixteenths (0: no
	// such loop yet): the estimate of the next such loop's length.
	sampledSpan atomic.Uint64
	kubeVersion framework.KubeVersion
	extenders   []framework.Extender
	plugins     map[string]framework.Plugin

	queueSort  framework.QueueSortPlugin
	preEnqueue []framework.PreEnqueuePlugin
	preFilter  []framework.PreFilterPlugin
	filter     []framework.FilterPlugin
	// filterNamed holds, for each Filter plugin, the last rejection it
	// returned and its copy naming the plugin (namedRejection).
	filterNamed []atomic.Pointer[namedStatus]
	postFilter  []framework.PostFilterPlugin
	preScore    []framework.PreScorePlugin
	score       []scorePlugin
	// preparers are the score plugins that prepare their cycle state
	// beside the PreScore plugins (fastpath.ScorePreparer).
	preparers []fastpath.ScorePreparer
	// preScoreOrder is the order in which the workers of a shared
	// PreScore step claim its tasks (preScoreRun): the plugins that walk
	// the cluster (fastpath.ClusterWalkingPreScorePlugin), then the
	// preparers, then the other plugins, each group in profile order.
	preScoreOrder []int
	reserve       []framework.ReservePlugin
	permit        []framework.PermitPlugin
	preBind       []framework.PreBindPlugin
	bind          []framework.BindPlugin
	postBind      []framework.PostBindPlugin
	placement     placementPlugins
	filterIndex   map[string]int
	filterNames   []string     // filterNames[i] is filter[i].Name()
	filterFast    []filterFast // filterFast[i] is filter[i]'s
	// preFilterNames[i] is preFilter[i].Name().
	preFilterNames []string
	// preFilterBounds are the PreFilter plugins that bound their results
	// before they run (fastpath.BoundedPreFilterPlugin).
	preFilterBounds []fastpath.BoundedPreFilterPlugin
	// skipFilter and skipScore are the combinations of PreFilter and
	// PreScore plugins that returned Skip in a cycle.
	skipFilter, skipScore skipSets
	// removal[i] is filter[i]'s VictimRemovalFilter, if it has one.
	removal []VictimRemovalFilter
	// extensions are the PreFilter plugins' non-nil PreFilterExtensions,
	// read once, with the plugin's index in preFilter.
	extensions []preFilterExtension
	scoreIndex map[string]int
	scratch    keptPool[scratch]
	// batch pools the runner's plugin-by-plugin buffers (batchScratch).
	batch keptPool[batchScratch]
	// states pools the cycle states Schedule creates itself.
	states keptPool[framework.CycleState]
	// sign caches the plugins that sign pods (signature.go).
	sign signState
	// svc are the Handle's services (handle.go).
	svc services

	// blind are the PreScore plugins (indices in preScore) that a cycle on
	// several workers runs beside PreFilter (fastpath.NodeBlindPreScorePlugin),
	// blindMask their bits, and lateOrder is preScoreOrder without them:
	// the tasks of the PreScore step that follow such a PreFilter step.
	blind     []int
	blindMask uint64
	lateOrder []int
	// wordNodes is set when every PreScore plugin reads its nodes within
	// the cycle only (fastpath.CycleScopedPreScorePlugin): a cycle's
	// steps after the filters then read the feasible nodes as words the
	// collector does not scan (Result.cycleNodes).
	wordNodes bool
	// isolated has the bits of the PreFilter plugins (indices in
	// preFilter) that the PreFilter step on several workers (frontRun)
	// runs as tasks of their own (fastpath.IsolatedPreFilterPlugin), and
	// front lists that step's tasks in the order they are claimed
	// (frontOrder); a cycle takes that step when there are two or more
	// and frontsPreFilter says so.
	isolated uint64
	front    []frontTask
	// constantScorers is set when a score plugin may give every node one
	// score (fastpath.ConstantScorePlugin).
	constantScorers bool
}

var _ framework.Handle = (*Framework)(nil)

// NewFramework instantiates the profile's plugins from registry (each
// plugin once, shared across extension points) and checks the profile: an
// unknown plugin, a plugin listed twice at one point, a plugin that does not
// implement a point it is listed at, more than one QueueSort plugin, a score
// plugin without a weight, a weight for a plugin that does not score, args
// for an unknown plugin, or weights with which a node's total could leave
// int64 (Σ of the positive weights × MaxNodeScore above MaxTotalScore, or
// of the negative ones below math.MinInt64) are errors naming the profile,
// plugin and value; the placement points are checked the same way, with at
// most one PlacementGenerate plugin; a profile whose KubeVersion is set
// must be of the framework's release. (A configuration file is held to kube-scheduler's own
// running-total check by configfile.Load; every profile it loads
// passes this one.)
func NewFramework(registry *framework.Registry, p framework.Profile, opts ...Option) (*Framework, error) {
	if registry == nil {
		return nil, fmt.Errorf("framework: nil registry")
	}
	f := &Framework{profile: p, clock: framework.RealClock{}, parallelism: 1, kubeVersion: framework.DefaultKubeVersion, plugins: map[string]framework.Plugin{}}
	for _, o := range opts {
		o(f)
	}
	prefix := fmt.Sprintf("framework: profile %q", p.SchedulerName)
	if f.clock == nil {
		return nil, fmt.Errorf("%s: WithClock(nil): a clock is required", prefix)
	}
	if f.kubeVersion.IsZero() {
		return nil, fmt.Errorf("%s: WithKubeVersion: the zero KubeVersion names no release (use framework.DefaultKubeVersion or ParseKubeVersion)", prefix)
	}
	if f.workersSet && f.workers == nil {
		return nil, fmt.Errorf("%s: WithWorkers(nil): workers are required", prefix)
	}
	if f.parallelism < 1 {
		return nil, fmt.Errorf("%s: parallelism=%d: must be at least 1", prefix, f.parallelism)
	}
	f.svc.base = framework.NewHandle(f.clock, f.parallelism, f.kubeVersion)
	if !p.KubeVersion.IsZero() && p.KubeVersion != f.kubeVersion {
		return nil, fmt.Errorf("%s: built for kube %s, but the framework reproduces %s (use WithKubeVersion(%s))", prefix, p.KubeVersion, f.kubeVersion, p.KubeVersion)
	}
	for name := range p.Args {
		if _, ok := registry.Lookup(name); !ok {
			return nil, fmt.Errorf("%s: args for unknown plugin %q (registered: %v)", prefix, name, registry.Names())
		}
	}
	get := func(point, name string) (framework.Plugin, error) {
		if pl, ok := f.plugins[name]; ok {
			return pl, nil
		}
		fac, ok := registry.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("%s: %s: unknown plugin %q (registered: %v)", prefix, point, name, registry.Names())
		}
		pl, err := fac(p.Args[name], f)
		if err != nil {
			return nil, fmt.Errorf("%s: plugin %q: %w", prefix, name, err)
		}
		if pl == nil {
			return nil, fmt.Errorf("%s: plugin %q: factory returned nil", prefix, name)
		}
		f.plugins[name] = pl
		return pl, nil
	}
	var err error
	if len(p.QueueSort) > 1 {
		return nil, fmt.Errorf("%s: QueueSort: only one plugin may be enabled, got %v", prefix, p.QueueSort)
	}
	var qs []framework.QueueSortPlugin
	if qs, err = collect[framework.QueueSortPlugin]("QueueSort", p.QueueSort, get, prefix); err != nil {
		return nil, err
	}
	if len(qs) == 1 {
		f.queueSort = qs[0]
	}
	if f.preEnqueue, err = collect[framework.PreEnqueuePlugin]("PreEnqueue", p.PreEnqueue, get, prefix); err != nil {
		return nil, err
	}
	if f.preFilter, err = collect[framework.PreFilterPlugin]("PreFilter", p.PreFilter, get, prefix); err != nil {
		return nil, err
	}
	if f.filter, err = collect[framework.FilterPlugin]("Filter", p.Filter, get, prefix); err != nil {
		return nil, err
	}
	if f.postFilter, err = collect[framework.PostFilterPlugin]("PostFilter", p.PostFilter, get, prefix); err != nil {
		return nil, err
	}
	if f.preScore, err = collect[framework.PreScorePlugin]("PreScore", p.PreScore, get, prefix); err != nil {
		return nil, err
	}
	var scores []framework.ScorePlugin
	if scores, err = collect[framework.ScorePlugin]("Score", p.Score, get, prefix); err != nil {
		return nil, err
	}
	if f.reserve, err = collect[framework.ReservePlugin]("Reserve", p.Reserve, get, prefix); err != nil {
		return nil, err
	}
	if f.permit, err = collect[framework.PermitPlugin]("Permit", p.Permit, get, prefix); err != nil {
		return nil, err
	}
	if f.preBind, err = collect[framework.PreBindPlugin]("PreBind", p.PreBind, get, prefix); err != nil {
		return nil, err
	}
	if f.bind, err = collect[framework.BindPlugin]("Bind", p.Bind, get, prefix); err != nil {
		return nil, err
	}
	if f.postBind, err = collect[framework.PostBindPlugin]("PostBind", p.PostBind, get, prefix); err != nil {
		return nil, err
	}
	if err = f.buildPlacement(p, get, prefix); err != nil {
		return nil, err
	}
	for name, w := range p.Weights {
		if !slices.Contains(p.Score, name) {
			return nil, fmt.Errorf("%s: weight %d for plugin %q, which is not a Score plugin of the profile", prefix, w, name)
		}
	}
	var hi, lo int64 // bounds of a node's total: every score is in [0, MaxNodeScore]
	for _, sp := range scores {
		w, ok := p.Weights[sp.Name()]
		if !ok {
			return nil, fmt.Errorf("%s: Score plugin %q has no weight", prefix, sp.Name())
		}
		if w == 0 {
			w = 1
		}
		// Go's division truncates toward zero, so the negative bound is
		// rounded up: w·MaxNodeScore ≥ MinInt64 − lo exactly when w ≥ it.
		if (w > 0 && w > (framework.MaxTotalScore-hi)/framework.MaxNodeScore) || (w < 0 && w < (math.MinInt64-lo)/framework.MaxNodeScore) {
			return nil, fmt.Errorf("%s: Score plugin %q: weight %d makes the total score overflow int64", prefix, sp.Name(), w)
		}
		if w > 0 {
			hi += w * framework.MaxNodeScore
		} else {
			lo += w * framework.MaxNodeScore
		}
		f.score = append(f.score, newScorePlugin(sp, w))
	}
	f.filterIndex = map[string]int{}
	f.filterNames = make([]string, len(f.filter))
	f.filterNamed = make([]atomic.Pointer[namedStatus], len(f.filter))
	f.removal = make([]VictimRemovalFilter, len(f.filter))
	f.filterFast = make([]filterFast, len(f.filter))
	for i, pl := range f.filter {
		f.filterIndex[pl.Name()] = i
		f.filterNames[i] = pl.Name()
		ff := &f.filterFast[i]
		ff.batch, _ = pl.(fastpath.BatchFilterPlugin)
		ff.rejecter, _ = pl.(fastpath.RejectingFilterPlugin)
		_, ff.trusted = pl.(fastpath.TrustedRejectingFilterPlugin)
		ff.deferring, _ = pl.(fastpath.DeferringRejectingFilterPlugin)
		ff.costly, _ = pl.(fastpath.CostlyFilterPlugin)
		f.removal[i] = victimRemovalOf(pl)
	}
	f.preFilterNames = make([]string, len(f.preFilter))
	for i, pl := range f.preFilter {
		f.preFilterNames[i] = pl.Name()
		if b, ok := pl.(fastpath.BoundedPreFilterPlugin); ok {
			f.preFilterBounds = append(f.preFilterBounds, b)
		}
		if ext := pl.PreFilterExtensions(); ext != nil {
			f.extensions = append(f.extensions, preFilterExtension{i, ext})
		}
	}
	f.scoreIndex = map[string]int{}
	for i, pl := range f.score {
		f.scoreIndex[pl.Name()] = i
		if sp, ok := pl.ScorePlugin.(fastpath.ScorePreparer); ok {
			f.preparers = append(f.preparers, sp)
		}
	}
	f.skipFilter.init(f.preFilterNames, f.filterNames)
	withExt := make([]int, len(f.extensions))
	for j, e := range f.extensions {
		withExt[j] = e.i
	}
	f.skipFilter.track(withExt)
	preScoreNames := make([]string, len(f.preScore))
	for i, pl := range f.preScore {
		preScoreNames[i] = pl.Name()
	}
	scoreNames := make([]string, len(f.score))
	for i, sp := range f.score {
		scoreNames[i] = sp.Name()
	}
	f.skipScore.init(preScoreNames, scoreNames)
	for _, sp := range f.score {
		f.constantScorers = f.constantScorers || sp.constant != nil
	}
	f.preScoreOrder = preScoreOrder(f.preScore, len(f.preparers))
	if len(f.preScore) <= 64 {
		for i, pl := range f.preScore {
			if _, ok := pl.(fastpath.NodeBlindPreScorePlugin); ok {
				f.blind = append(f.blind, i)
				f.blindMask |= 1 << i
			}
		}
	}
	for _, t := range f.preScoreOrder {
		if t < len(f.preparers) || f.blindMask&(1<<(t-len(f.preparers))) == 0 {
			f.lateOrder = append(f.lateOrder, t)
		}
	}
	if len(f.preFilter) <= 64 {
		for i, pl := range f.preFilter {
			if _, ok := pl.(fastpath.IsolatedPreFilterPlugin); ok {
				f.isolated |= 1 << i
			}
		}
	}
	f.front = frontOrder(f.preFilter, f.isolated, f.preScore, f.blind)
	f.wordNodes = true
	for _, pl := range f.preScore {
		if _, ok := pl.(fastpath.CycleScopedPreScorePlugin); !ok {
			f.wordNodes = false
		}
	}
	f.minChunk, f.passLeast, f.fusedLeast = DefaultMinChunk, cheapPass*DefaultMinChunk, fusedPass*DefaultMinChunk
	if f.workers == nil && f.parallelism > 1 {
		f.workers, _ = NewWorkers(f.parallelism) // parallelism ≥ 1 was checked
		f.ownWorkers = true
	}
	if f.workers != nil {
		f.pool, f.minChunk, f.passLeast, f.fusedLeast = f.workers.pool, f.workers.minChunk, f.workers.passLeast, f.workers.fusedLeast
	}
	return f, nil
}

// Close stops the workers the Framework started for its per-node loops
// (WithParallelism above 1) and waits until they have exited; workers
// given by WithWorkers are left to their owner. The Framework still
// schedules after Close, every loop on the caller's goroutine. Closing
// twice is harmless. A Framework dropped without Close has its workers
// stopped once the garbage collector finds it unreachable.
func (f *Framework) Close() {
	if f.ownWorkers {
		f.workers.Close()
	}
}

func collect[T framework.Plugin](point string, names []string, get func(point, name string) (framework.Plugin, error), prefix string) ([]T, error) {
	out := make([]T, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("%s: %s: plugin %q listed twice", prefix, point, n)
		}
		seen[n] = true
		pl, err := get(point, n)
		if err != nil {
			return nil, err
		}
		t, ok := pl.(T)
		if !ok {
			return nil, fmt.Errorf("%s: %s: plugin %q does not implement %s", prefix, point, n, point)
		}
		out = append(out, t)
	}
	return out, nil
}

// Clock returns the framework's clock.
func (f *Framework) Clock() framework.Clock { return f.clock }

// Parallelism returns the number of workers for per-node loops.
func (f *Framework) Parallelism() int { return f.parallelism }

// Parallelizer runs a plugin's loop on the framework's workers. A loop
// started while another runs on them (from a PreFilter or PreScore
// plugin that runs beside others on several workers, or from a
// concurrent cycle) runs on its caller's goroutine.
func (f *Framework) Parallelizer() framework.Parallelizer { return poolParallelizer{f} }

// poolParallelizer is the Framework's Parallelizer.
type poolParallelizer struct{ f *Framework }

func (p poolParallelizer) Until(ctx context.Context, pieces int, piece func(i int), _ string) {
	done := parallel.DoneOf(ctx)
	p.f.pool.Ordered(pieces, parallel.ChunkSize(pieces, p.f.parallelism), parallel.Func(func(_, lo, hi int) bool {
		return parallel.Pieces(done, lo, hi, piece)
	}))
}

// Search runs the search on the framework's workers, which persist from
// loop to loop, rather than on goroutines started for it.
func (p poolParallelizer) Search(n, size int, chunk func(lo, hi int) bool) {
	p.f.pool.Ordered(n, size, searchBody(chunk))
}

var _ framework.Searcher = poolParallelizer{}

// searchBody is a search's chunk as a parallel.Body whose chunks are
// claimed in increasing order.
type searchBody func(lo, hi int) bool

func (b searchBody) Chunk(_, lo, hi int) bool { return b(lo, hi) }
func (searchBody) InOrder()                   {}

// KubeVersion returns the kube-scheduler release the plugins reproduce.
func (f *Framework) KubeVersion() framework.KubeVersion { return f.kubeVersion }

// Profile returns the profile the framework was built from.
func (f *Framework) Profile() framework.Profile { return f.profile }

// ProfileName returns the profile's scheduler name.
func (f *Framework) ProfileName() string { return f.profile.SchedulerName }

// Plugin returns the instance of the named plugin.
func (f *Framework) Plugin(name string) (framework.Plugin, bool) {
	pl, ok := f.plugins[name]
	return pl, ok
}

// QueueSort returns the QueueSort plugin, or nil.
func (f *Framework) QueueSort() framework.QueueSortPlugin { return f.queueSort }

// HasFilterPlugins reports whether the profile has Filter plugins.
func (f *Framework) HasFilterPlugins() bool { return len(f.filter) > 0 }

// HasScorePlugins reports whether the profile has Score plugins.
func (f *Framework) HasScorePlugins() bool { return len(f.score) > 0 }

// ScoresNodeAlone reports whether a node's total score for pod depends on
// that node alone: every Score plugin is node-local
// for pod (fastpath.NodeLocalPlugin) and does not normalize, and no
// extender is configured. Scoring a set of nodes then gives each node the
// total it gets when scored alone, whatever the other nodes.
func (f *Framework) ScoresNodeAlone(pod *framework.PodInfo) bool {
	if len(f.extenders) > 0 {
		return false
	}
	for _, sp := range f.score {
		if !isNodeLocal(sp.ScorePlugin, pod) || sp.ScoreExtensions() != nil {
			return false
		}
	}
	return true
}

// HasPostFilterPlugins reports whether the profile has PostFilter plugins.
func (f *Framework) HasPostFilterPlugins() bool { return len(f.postFilter) > 0 }

// Extenders returns the configured extenders.
func (f *Framework) Extenders() []framework.Extender { return f.extenders }

// ScoreWeight returns the effective weight of a score plugin (0 if absent).
func (f *Framework) ScoreWeight(name string) int64 {
	if i, ok := f.scoreIndex[name]; ok {
		return f.score[i].weight
	}
	return 0
}

// HasPreEnqueuePlugins reports whether the profile has PreEnqueue plugins.
func (f *Framework) HasPreEnqueuePlugins() bool { return len(f.preEnqueue) > 0 }

// RunPreEnqueuePlugins runs the PreEnqueue plugins in order and returns the
// first non-Success status, naming its plugin (kube-scheduler's queue
// keeps such a pod out of the active queue); nil when every plugin admits
// the pod.
func (f *Framework) RunPreEnqueuePlugins(ctx context.Context, pod *api.Pod) *framework.Status {
	for _, pl := range f.preEnqueue {
		if s := pl.PreEnqueue(ctx, pod); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// namedStatus is a rejection and its copy naming the plugin.
type namedStatus struct{ from, to *framework.Status }

// namedRejection returns s, a rejection by Filter plugin i, naming the
// plugin. Statuses are never mutated, and plugins often return one
// shared status for a reason (NodeResourcesFit's "Insufficient cpu"):
// the copy made for the plugin's last such status is returned again for
// it, so that a dry run's filter runs, which reject one node after the
// other with it, do not each allocate a copy.
func (f *Framework) namedRejection(i int, s *framework.Status) *framework.Status {
	name := f.filterNames[i]
	if s.Plugin() == name {
		return s
	}
	if c := f.filterNamed[i].Load(); c != nil && c.from == s {
		return c.to
	}
	to := s.WithPlugin(name)
	f.filterNamed[i].Store(&namedStatus{s, to})
	return to
}

// RunPreFilterPlugins runs PreFilter in order with kube-scheduler's rules:
// Skip marks the plugin's Filter as skipped; UnschedulableAndUnresolvable
// stops at once; Unschedulable is remembered while the rest still run; any
// other failure is an Error. Results are intersected; an empty intersection
// is UnschedulableAndUnresolvable "node(s) didn't satisfy plugin(s) [..]
// simultaneously". It returns the merged result, the status and the plugins
// that narrowed the node set (read-only: it may share the framework's
// own list of names). The plugins get the nodes of the state's
// snapshot (Snapshot.Nodes), with state.AllNodes set while they run.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo) (*framework.PreFilterResult, *framework.Status, []string) {
	var nodes []*framework.NodeInfo
	if snap := state.Snapshot(); snap != nil {
		nodes = snap.Nodes()
		defer state.SetAllNodes(state.AllNodes())
		state.SetAllNodes(true)
	}
	m := preFilterMerge{skip: skipCollector{k: &f.skipFilter}, names: f.preFilterNames}
	for i, pl := range f.preFilter {
		r, s := pl.PreFilter(ctx, state, pod, nodes)
		switch {
		case s == nil && r == nil:
			continue // a success over every node: nothing to fold
		case s.IsSkip():
			m.skip.add(i, f.preFilterNames[i])
			continue
		}
		if m.add(i, f.preFilterNames[i], r, s) {
			return m.result, m.status, m.withNodes
		}
	}
	state.SetSkipFilterPlugins(m.skip.set())
	return m.result, m.status, m.withNodes
}

// preFilterMerge folds the PreFilter plugins' outcomes, in profile order,
// into the step's: the merged PreFilterResult, the status and the plugins
// that narrowed the nodes, as kube-scheduler's RunPreFilterPlugins does.
type preFilterMerge struct {
	result    *framework.PreFilterResult
	status    *framework.Status
	withNodes []string
	skip      skipCollector
	// names are the plugins' names, by index: the first plugin to narrow
	// the nodes is named by a one-name view of them, not a new slice.
	names []string
}

// preFilterEnds reports whether a PreFilter status ends the step at its plugin
// whatever the other plugins return: an UnschedulableAndUnresolvable
// rejection or an error.
func preFilterEnds(s *framework.Status) bool {
	return !s.IsSuccess() && !s.IsSkip() && s.Code() != framework.Unschedulable
}

// add folds plugin i's (named name) outcome and reports whether the step
// ends with it: the plugins after it do not count, and the step returns
// m's result, status and plugins without recording the skipped plugins.
func (m *preFilterMerge) add(i int, name string, r *framework.PreFilterResult, s *framework.Status) bool {
	if s.IsSkip() {
		m.skip.add(i, name)
		return false
	}
	if !s.IsSuccess() {
		s = s.WithPlugin(name)
		switch s.Code() {
		case framework.UnschedulableAndUnresolvable:
			m.result, m.status, m.withNodes = nil, s, nil
			return true
		case framework.Unschedulable:
			m.status = s
			return false
		}
		m.result, m.status, m.withNodes = nil, framework.AsStatus(fmt.Errorf("running PreFilter plugin %q: %w", name, s.ErrOrCode())).WithPlugin(name), nil
		return true
	}
	switch {
	case r.AllNodes():
	case m.result.AllNodes():
		// The plugin's own set, read-only: no copy.
		m.result = r
		if len(m.withNodes) == 0 && i < len(m.names) && m.names[i] == name {
			m.withNodes = m.names[i : i+1 : i+1] // an append copies
		} else {
			m.withNodes = append(m.withNodes, name)
		}
	default:
		m.withNodes, m.result = append(m.withNodes, name), m.result.Merge(r)
	}
	if !m.result.AllNodes() && len(m.result.NodeNames) == 0 {
		// kube prints the plugins as a sorted set (sets.List).
		msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", slices.Sorted(slices.Values(m.withNodes)))
		if len(m.withNodes) == 1 {
			msg = fmt.Sprintf("node(s) didn't satisfy plugin %v", m.withNodes[0])
		}
		m.status = framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
		return true
	}
	return false
}

// activeFilters returns the Filter plugins not skipped this cycle, with
// their indices in the profile, in pls' and idx's arrays (grown as
// needed).
func (f *Framework) activeFilters(state *framework.CycleState, pls []framework.FilterPlugin, idx []int16) ([]framework.FilterPlugin, []int16) {
	pls, idx = pls[:0], idx[:0]
	for _, i := range f.skipFilter.onIn(state.SkipFilterPlugins()) {
		pls = append(pls, f.filter[i])
		idx = append(idx, int16(i))
	}
	return pls, idx
}

// RunFilterPlugins runs the non-skipped Filter plugins on one node in order,
// stopping at the first non-Success; a status that is not a rejection
// becomes an Error. The returned status names the plugin.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	// The plugins left on come from the framework's memo of skip sets,
	// which copies of the state (preemption's dry run) share.
	for _, i := range f.skipFilter.onIn(state.SkipFilterPlugins()) {
		pl := f.filter[i]
		if s := pl.Filter(ctx, state, pod, node); !s.IsSuccess() {
			if !s.IsRejected() {
				return framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), s.ErrOrCode())).WithPlugin(pl.Name())
			}
			return f.namedRejection(i, s)
		}
	}
	return nil
}

// preFilterExtension is a PreFilter plugin's PreFilterExtensions, with
// the plugin's index in Framework.preFilter.
type preFilterExtension struct {
	i   int
	ext framework.PreFilterExtensions
}

// RunPreFilterExtensionAddPod calls AddPod on every non-skipped PreFilter
// plugin with extensions.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, pod, toAdd *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if len(f.extensions) == 0 {
		return nil
	}
	// The extensions of the plugins the state's skip set leaves out come
	// from the framework's memo of skip sets.
	for _, j := range f.skipFilter.trackedOnIn(state.SkipFilterPlugins()) {
		e := f.extensions[j]
		if s := e.ext.AddPod(ctx, state, pod, toAdd, node); !s.IsSuccess() {
			name := f.preFilterNames[e.i]
			return framework.AsStatus(fmt.Errorf("running AddPod on PreFilter plugin %q: %w", name, s.ErrOrCode())).WithPlugin(name)
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod calls RemovePod on every non-skipped
// PreFilter plugin with extensions.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, pod, toRemove *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if len(f.extensions) == 0 {
		return nil
	}
	// The extensions of the plugins the state's skip set leaves out come
	// from the framework's memo of skip sets.
	for _, j := range f.skipFilter.trackedOnIn(state.SkipFilterPlugins()) {
		e := f.extensions[j]
		if s := e.ext.RemovePod(ctx, state, pod, toRemove, node); !s.IsSuccess() {
			name := f.preFilterNames[e.i]
			return framework.AsStatus(fmt.Errorf("running RemovePod on PreFilter plugin %q: %w", name, s.ErrOrCode())).WithPlugin(name)
		}
	}
	return nil
}

// RunFilterPluginsWithNominatedPods filters node in up to two passes, as
// kube-scheduler: first with the nominated pods of priority ≥ the pod's
// added (on a cloned state and node), then, if that passed and pods were
// added, without them. Both passes must pass.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo, nominated []*framework.PodInfo) *framework.Status {
	var added []*framework.PodInfo
	for _, np := range nominated {
		if np.Pod.PriorityValue() >= pod.Pod.PriorityValue() && !framework.SamePod(np.Pod, pod.Pod) {
			added = append(added, np)
		}
	}
	if len(added) == 0 {
		return f.RunFilterPlugins(ctx, state, pod, node)
	}
	st := state.Clone()
	ni := node.Clone()
	for _, np := range added {
		ni.AddPodInfo(np)
		if s := f.RunPreFilterExtensionAddPod(ctx, st, pod, np, ni); !s.IsSuccess() {
			return s
		}
	}
	if s := f.RunFilterPlugins(ctx, st, pod, ni); !s.IsSuccess() {
		return s
	}
	return f.RunFilterPlugins(ctx, state, pod, node)
}

// RunPostFilterPlugins runs PostFilter plugins in order until one succeeds
// (its result is returned), one returns UnschedulableAndUnresolvable, or one
// errors. Unschedulable results accumulate: the last non-Noop result is
// kept and reasons are concatenated; the first rejecting plugin is named.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, statuses *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	var result *framework.PostFilterResult
	var reasons []string
	var rejector string
	for _, pl := range f.postFilter {
		r, s := pl.PostFilter(ctx, state, pod, statuses)
		if s.IsSuccess() {
			return r, s.WithPlugin(pl.Name())
		}
		if s.Code() == framework.UnschedulableAndUnresolvable {
			return r, s.WithPlugin(pl.Name())
		}
		if !s.IsRejected() {
			return nil, framework.AsStatus(s.ErrOrCode()).WithPlugin(pl.Name())
		}
		if r != nil && r.NominatingInfo != nil && r.Mode != framework.ModeNoop {
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
		if rejector == "" {
			rejector = pl.Name()
		}
	}
	return result, framework.NewStatus(framework.Unschedulable, reasons...).WithPlugin(rejector)
}

// RunPreScorePlugins runs PreScore over the feasible nodes; Skip marks the
// plugin's Score as skipped; any other failure is an Error (the first in
// profile order). With nodes enough for more than one of the framework's
// workers, the plugins run at the same time as one another, one per
// worker (each writes its own state; none reads another's PreScore
// state), beside the score plugins that prepare their state
// (fastpath.ScorePreparer), and their statuses are then read in profile
// order.
func (f *Framework) RunPreScorePlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	s, _ := f.runPreScore(ctx, state, pod, nodes, nil, false)
	return s
}

// runPreScore is RunPreScorePlugins, reading the statuses of the plugins
// that front ran beside PreFilter (nil: none did) instead of running
// them again. The plugins run side by side on the workers when the
// scored nodes are enough to share a loop, or, with awake, whatever
// their number: awake is set for a cycle whose filter loop ran on a pool
// of more than two workers, which are then up (smallLoop), so that the
// PreScore step of a cycle keeping a few hundred nodes of kube's
// sampling (microseconds a plugin: topology spread, node affinity, the
// image states) takes its longest plugin rather than their sum. It
// reports whether the step ran on the workers, where the score
// preparers (fastpath.ScorePreparer) ran too.
func (f *Framework) runPreScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, front *frontRun, awake bool) (*framework.Status, bool) {
	skip := skipCollector{k: &f.skipScore}
	state.SetScoredNodes(len(nodes))
	order, ran := f.preScoreOrder, uint64(0)
	if front != nil {
		order, ran = f.lateOrder, f.blindMask
	}
	var statuses []*framework.Status // each plugin's, when they ran on the workers
	if len(order) > 1 && (awake || f.pool.Width(len(nodes), f.minChunk) > 1) {
		bs := f.getBatchScratch()
		defer f.batch.Put(bs)
		r := &bs.preScore
		*r = preScoreRun{prepare: f.preparers, plugins: f.preScore, order: order, ctx: ctx, state: state, pod: pod, nodes: nodes, out: grow(r.out, len(f.preScore))}
		f.pool.Ordered(len(order), 1, r)
		statuses = r.out
		defer r.release()
	}
	for i, pl := range f.preScore {
		var s *framework.Status
		switch {
		case ran&(1<<i) != 0:
			s = front.out[i]
		case statuses != nil:
			s = statuses[i]
		default:
			s = pl.PreScore(ctx, state, pod, nodes)
		}
		if s.IsSkip() {
			skip.add(i, pl.Name())
			continue
		}
		if !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running PreScore plugin %q: %w", pl.Name(), s.ErrOrCode())).WithPlugin(pl.Name()), statuses != nil
		}
	}
	state.SetSkipScorePlugins(skip.set())
	return nil, statuses != nil
}

// RunReservePluginsReserve runs Reserve in order and returns the first
// failure (a rejection keeps its code; anything else becomes an Error). It
// does not unreserve: see Reserve.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	for _, pl := range f.reserve {
		if s := pl.Reserve(ctx, state, pod, nodeName); !s.IsSuccess() {
			if s.IsRejected() {
				return s.WithPlugin(pl.Name())
			}
			return framework.AsStatus(fmt.Errorf("running Reserve plugin %q: %w", pl.Name(), s.ErrOrCode())).WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunReservePluginsUnreserve runs Unreserve on every reserve plugin in
// reverse order.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) {
	for i := len(f.reserve) - 1; i >= 0; i-- {
		f.reserve[i].Unreserve(ctx, state, pod, nodeName)
	}
}

// Reserve runs Reserve and, on failure, Unreserve on every reserve plugin in
// reverse order, returning the failure.
func (f *Framework) Reserve(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	s := f.RunReservePluginsReserve(ctx, state, pod, nodeName)
	if !s.IsSuccess() {
		f.RunReservePluginsUnreserve(ctx, state, pod, nodeName)
	}
	return s
}

// PermitWait is one plugin's Wait verdict from RunPermitPlugins.
type PermitWait struct {
	Plugin  string
	Timeout time.Duration
}

// RunPermitPlugins runs Permit in order. A rejection returns at once; Wait
// is collected with its timeout capped at MaxPermitTimeout; any other code is
// an Error. When some plugin waits, the status is Wait with the last
// waiting plugin's reasons followed by "one or more plugins asked to wait
// and no plugin rejected pod" (kube-scheduler v1.36's RunPermitPlugins),
// and the waits list the plugins to hear from.
func (f *Framework) RunPermitPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) (*framework.Status, []PermitWait) {
	var waits []PermitWait
	var wait *framework.Status
	for _, pl := range f.permit {
		s, timeout := pl.Permit(ctx, state, pod, nodeName)
		if s.IsSuccess() {
			continue
		}
		if s.IsRejected() {
			return s.WithPlugin(pl.Name()), nil
		}
		if s.IsWait() {
			if timeout > framework.MaxPermitTimeout {
				timeout = framework.MaxPermitTimeout
			}
			waits = append(waits, PermitWait{Plugin: pl.Name(), Timeout: timeout})
			wait = s
			continue
		}
		return framework.AsStatus(fmt.Errorf("running Permit plugin %q: %w", pl.Name(), s.ErrOrCode())).WithPlugin(pl.Name()), nil
	}
	if len(waits) > 0 {
		// kube appends to the last waiting plugin's own status.
		return framework.NewStatus(framework.Wait, append(slices.Clip(wait.Reasons()), "one or more plugins asked to wait and no plugin rejected pod")...), waits
	}
	return nil, nil
}

// RunPreBindPlugins runs PreBind in order; the first failure is returned (a
// rejection keeps its code, anything else becomes an Error).
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	for _, pl := range f.preBind {
		if s := pl.PreBind(ctx, state, pod, nodeName); !s.IsSuccess() {
			if s.IsRejected() {
				return s.WithPlugin(pl.Name())
			}
			return framework.AsStatus(fmt.Errorf("running PreBind plugin %q: %w", pl.Name(), s.ErrOrCode())).WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunBindPlugins runs Bind plugins until one returns other than Skip. With
// no bind plugin, or when all skip, the result is Skip.
func (f *Framework) RunBindPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	if len(f.bind) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	var s *framework.Status
	for _, pl := range f.bind {
		s = pl.Bind(ctx, state, pod, nodeName)
		if s.IsSkip() {
			continue
		}
		if !s.IsSuccess() {
			if s.IsRejected() {
				return s.WithPlugin(pl.Name())
			}
			return framework.AsStatus(fmt.Errorf("running Bind plugin %q: %w", pl.Name(), s.ErrOrCode())).WithPlugin(pl.Name())
		}
		return nil
	}
	return s
}

// RunPostBindPlugins informs every PostBind plugin.
func (f *Framework) RunPostBindPlugins(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) {
	for _, pl := range f.postBind {
		pl.PostBind(ctx, state, pod, nodeName)
	}
}

// EnqueueExtensions returns, for every plugin of the profile that can
// reject a pod before binding (PreEnqueue, PreFilter, Filter, Reserve,
// Permit; each once, in profile order), the plugin's name and its registered events:
// its own EventsToRegister, or AllEvents when it has none. An EventsToRegister error is returned naming the
// plugin.
func (f *Framework) EnqueueExtensions(ctx context.Context) ([]PluginEvents, error) {
	var out []PluginEvents
	seen := map[string]bool{}
	for _, names := range [][]string{f.profile.PreEnqueue, f.profile.PreFilter, f.profile.Filter, f.profile.Reserve, f.profile.Permit} {
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			pl := f.plugins[n]
			ext, ok := pl.(framework.EnqueueExtensions)
			pe := PluginEvents{Plugin: n}
			if !ok {
				pe.Events, pe.Default = framework.AllEvents(), true
				out = append(out, pe)
				continue
			}
			evs, err := ext.EventsToRegister(ctx)
			if err != nil {
				return nil, fmt.Errorf("framework: profile %q: plugin %q: EventsToRegister: %w", f.profile.SchedulerName, n, err)
			}
			pe.Events = evs
			out = append(out, pe)
		}
	}
	return out, nil
}

// PluginEvents are the events one plugin registered; Default marks a
// plugin without EnqueueExtensions (every event, always Queue).
type PluginEvents struct {
	Plugin  string
	Events  []framework.ClusterEventWithHint
	Default bool
}

// preScoreOrder returns the tasks of a shared PreScore step (preScoreRun:
// the np preparers, then the plugins) in the order the workers claim
// them: the plugins that walk the cluster first, since each costs as much
// as all the others together; then the preparers, each about as costly as
// a large PreScore plugin; then the other plugins.
func preScoreOrder(plugins []framework.PreScorePlugin, np int) []int {
	order := make([]int, 0, np+len(plugins))
	for i, pl := range plugins {
		if _, ok := pl.(fastpath.ClusterWalkingPreScorePlugin); ok {
			order = append(order, np+i)
		}
	}
	for i := range np {
		order = append(order, i)
	}
	for i, pl := range plugins {
		if _, ok := pl.(fastpath.ClusterWalkingPreScorePlugin); !ok {
			order = append(order, np+i)
		}
	}
	return order
}

// preScoreRun is RunPreScorePlugins' run of the plugins on the workers:
// out[i] is plugins[i]'s status.
type preScoreRun struct {
	// prepare are the score plugins' preparations (fastpath.ScorePreparer).
	prepare []fastpath.ScorePreparer
	plugins []framework.PreScorePlugin
	// order lists the tasks, the preparers' indices then the plugins'
	// offset by len(prepare), in the order they are claimed.
	order []int
	ctx   context.Context
	state *framework.CycleState
	pod   *framework.PodInfo
	nodes []*framework.NodeInfo
	out   []*framework.Status
}

// InOrder makes the tasks go to whichever worker is free, in the order
// of order: their costs differ by an order of magnitude.
func (r *preScoreRun) InOrder() {}

// Chunk runs the tasks order[lo:hi].
func (r *preScoreRun) Chunk(_, lo, hi int) bool {
	for _, i := range r.order[lo:hi] {
		if i < len(r.prepare) {
			r.prepare[i].PrepareScore(r.ctx, r.state, r.pod)
			continue
		}
		j := i - len(r.prepare)
		r.out[j] = r.plugins[j].PreScore(r.ctx, r.state, r.pod, r.nodes)
	}
	return false
}

// frontRun is a cycle's PreFilter step on several workers. Its tasks
// (Framework.front, in the order the workers claim them) are the isolated
// PreFilter plugins (fastpath.IsolatedPreFilterPlugin), each on its own;
// the node-blind PreScore plugins (Framework.blind), whose statuses the
// PreScore step then reads (runPreScore); and the other PreFilter
// plugins, in profile order, as one task that stops at a status ending
// the step (preFilterEnds). The PreFilter outcomes are then merged in
// profile order (run), as RunPreFilterPlugins merges them. It lives in
// the pooled batchScratch.
type frontRun struct {
	f     *Framework
	ctx   context.Context
	state *framework.CycleState
	pod   *framework.PodInfo
	nodes []*framework.NodeInfo
	// PreFilter's outcome.
	result    *framework.PreFilterResult
	status    *framework.Status
	withNodes []string
	// out[i] is PreScore plugin i's status, for the blind ones.
	out []*framework.Status
	// pre[i] is PreFilter plugin i's outcome.
	pre []preFilterOut
}

// preFilterOut is one PreFilter plugin's outcome in a frontRun.
type preFilterOut struct {
	result *framework.PreFilterResult
	status *framework.Status
}

// frontTask is a task of a frontRun: PreFilter plugin i (kind
// frontPreFilter), node-blind PreScore plugin i (frontPreScore) or the
// PreFilter plugins that are not isolated (frontSerial).
type frontTask struct {
	kind uint8
	i    int
}

const (
	frontPreFilter = iota
	frontPreScore
	frontSerial
)

// frontOrder returns a frontRun's tasks in the order the workers claim
// them: the isolated PreFilter plugins whose Filter depends on other
// nodes' pods (fastpath.IncrementalPreFilterPlugin: topology spread,
// inter-pod affinity) and the blind PreScore plugins that walk the
// cluster first, as the costly ones; then the other isolated PreFilter
// and blind PreScore plugins; then the other PreFilter plugins, if any.
// Within each group the plugins keep profile order.
func frontOrder(pre []framework.PreFilterPlugin, isolated uint64, ps []framework.PreScorePlugin, blind []int) []frontTask {
	var order []frontTask
	for _, costly := range []bool{true, false} {
		for i, pl := range pre {
			if isolated&(1<<i) == 0 {
				continue
			}
			if _, ok := pl.(fastpath.IncrementalPreFilterPlugin); ok == costly {
				order = append(order, frontTask{frontPreFilter, i})
			}
		}
		for _, i := range blind {
			if _, ok := ps[i].(fastpath.ClusterWalkingPreScorePlugin); ok == costly {
				order = append(order, frontTask{frontPreScore, i})
			}
		}
	}
	if bits.OnesCount64(isolated) < len(pre) {
		order = append(order, frontTask{kind: frontSerial})
	}
	return order
}

// InOrder makes the workers claim the tasks in Framework.front's order.
func (r *frontRun) InOrder() {}

// Chunk runs tasks [lo, hi).
func (r *frontRun) Chunk(_, lo, hi int) bool {
	f := r.f
	for _, t := range f.front[lo:hi] {
		switch t.kind {
		case frontPreFilter:
			r.preFilter(t.i)
		case frontPreScore:
			r.out[t.i] = f.preScore[t.i].PreScore(r.ctx, r.state, r.pod, nil)
		default:
			for i := range f.preFilter {
				if f.isolated&(1<<i) == 0 && preFilterEnds(r.preFilter(i)) {
					break // the plugins after it do not count
				}
			}
		}
	}
	return false
}

// preFilter runs PreFilter plugin i into r.pre[i] and returns its status.
func (r *frontRun) preFilter(i int) *framework.Status {
	o := &r.pre[i]
	o.result, o.status = r.f.preFilter[i].PreFilter(r.ctx, r.state, r.pod, r.nodes)
	return o.status
}

// run runs the step's tasks on the workers, with the state's AllNodes
// set as RunPreFilterPlugins sets it, then merges the PreFilter outcomes
// into r's result, status and plugins.
func (r *frontRun) run() {
	st := r.state
	all := st.AllNodes()
	st.SetAllNodes(true)
	r.f.pool.Ordered(len(r.f.front), 1, r)
	st.SetAllNodes(all)
	m := preFilterMerge{skip: skipCollector{k: &r.f.skipFilter}, names: r.f.preFilterNames}
	for i := range r.f.preFilter {
		o := &r.pre[i]
		if m.add(i, r.f.preFilterNames[i], o.result, o.status) {
			r.result, r.status, r.withNodes = m.result, m.status, m.withNodes
			return
		}
	}
	st.SetSkipFilterPlugins(m.skip.set())
	r.result, r.status, r.withNodes = m.result, m.status, m.withNodes
}

// release drops the run's references (the scratch is pooled).
func (r *frontRun) release() {
	clear(r.out)
	clear(r.pre)
	*r = frontRun{out: r.out[:0], pre: r.pre[:0]}
}

// release drops the run's references (the scratch is pooled).
func (r *preScoreRun) release() {
	clear(r.out)
	*r = preScoreRun{out: r.out[:0]}
}
