package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// Profiles: the plugins of schedkit's default profile (kube's default
// multiPoint set without the plugins schedkit does not model:
// NodeDeclaredFeatures, and any other plugin a default feature gate
// adds), the same without the four volume plugins, or the same with
// PodTopologySpread's defaulting List and no default constraints
// (scheduler_perf's scheduler-config-no-topology.yaml).
const (
	profileDefault    = "default"
	profileNoVolume   = "novolume"
	profileNoTopology = "notopology"
)

// schedkitPlugins are the plugins of schedkit's default profile
// (scheduling.DefaultProfile).
var schedkitPlugins = []string{
	names.SchedulingGates, names.PrioritySort, names.NodeUnschedulable, names.NodeName, names.TaintToleration,
	names.NodeAffinity, names.NodePorts, names.NodeResourcesFit, names.VolumeRestrictions, names.NodeVolumeLimits,
	names.VolumeBinding, names.VolumeZone, names.PodTopologySpread, names.InterPodAffinity, names.DefaultPreemption,
	names.DynamicResources, names.NodeResourcesBalancedAllocation, names.ImageLocality, names.DefaultBinder,
}

var volumePlugins = []string{names.VolumeRestrictions, names.NodeVolumeLimits, names.VolumeBinding, names.VolumeZone}

// kubeProfile is kube-scheduler's default profile (the v1 configuration's
// defaults, converted as kube-scheduler loads them) restricted to the
// named profile's plugins; it also returns the default plugins left out.
func kubeProfile(name string) (schedulerapi.KubeSchedulerProfile, []string, error) {
	keep := schedkitPlugins
	switch name {
	case profileDefault:
	case profileNoVolume:
		keep = slices.DeleteFunc(slices.Clone(keep), func(s string) bool { return slices.Contains(volumePlugins, s) })
	case profileNoTopology:
	default:
		return schedulerapi.KubeSchedulerProfile{}, nil, fmt.Errorf("-profile=%q: want %q, %q or %q", name, profileDefault, profileNoVolume, profileNoTopology)
	}
	var versioned configv1.KubeSchedulerConfiguration
	if name == profileNoTopology {
		// As the file reads: defaulting fills in the rest.
		versioned.Profiles = []configv1.KubeSchedulerProfile{{
			SchedulerName: new("default-scheduler"),
			PluginConfig: []configv1.PluginConfig{{Name: names.PodTopologySpread, Args: kruntime.RawExtension{
				Object: &configv1.PodTopologySpreadArgs{DefaultingType: configv1.ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{}},
			}}},
		}}
	}
	scheme.Scheme.Default(&versioned)
	var cfg schedulerapi.KubeSchedulerConfiguration
	if err := scheme.Scheme.Convert(&versioned, &cfg, nil); err != nil {
		return schedulerapi.KubeSchedulerProfile{}, nil, err
	}
	if len(cfg.Profiles) != 1 {
		return schedulerapi.KubeSchedulerProfile{}, nil, fmt.Errorf("default configuration has %d profiles, want 1", len(cfg.Profiles))
	}
	p := cfg.Profiles[0]
	var dropped []string
	p.Plugins.MultiPoint.Enabled = slices.DeleteFunc(p.Plugins.MultiPoint.Enabled, func(pl schedulerapi.Plugin) bool {
		if slices.Contains(keep, pl.Name) {
			return false
		}
		dropped = append(dropped, pl.Name)
		return true
	})
	return p, dropped, nil
}

// runOptions select one measured row.
type runOptions struct {
	dir              string
	stream           string
	sampled, assumed bool
	warm, timed      int
	workers          int
	profile          string
	parity           string
	cpuprofile       string
	showPlugins      bool
}

// result is one row's measurement, printed as a JSON line with the same
// fields as schedkit's side (internal/cmd/variedbench) plus Version.
type result struct {
	Side       string `json:"side"`
	Version    string `json:"version,omitempty"`
	Nodes      int    `json:"nodes"`
	Stream     string `json:"stream"`
	Sampled    bool   `json:"sampled"`
	Assumed    bool   `json:"assumed"`
	Workers    int    `json:"workers"`
	Profile    string `json:"profile"`
	Timed      int    `json:"timed"`
	CPUNanos   int64  `json:"cpu_ns"`
	WallNanos  int64  `json:"wall_ns"`
	Evaluated  int64  `json:"evaluated"`
	Placed     int    `json:"placed"`
	Mallocs    uint64 `json:"mallocs"`
	AllocBytes uint64 `json:"alloc_bytes"`
	// Signed counts the incoming pods kube's queue would sign
	// (OpportunisticBatching); a signed pod may reuse an earlier cycle's
	// hint and evaluate one node.
	Signed int `json:"signed"`
	// HandoffNanos is the machine's handoff between two cores just after
	// schedkit's timed loop on more than one worker (0 otherwise): the
	// VM's placement of its vCPUs, which moves the 2-worker times.
	HandoffNanos int64 `json:"handoff_ns,omitempty"`
}

// podRecord is one pod's outcome (see schedkit's side).
type podRecord struct {
	I         int    `json:"i"`
	Pod       string `json:"pod"`
	Evaluated int    `json:"evaluated"`
	Feasible  int    `json:"feasible"`
	Scored    bool   `json:"scored"`
	Best      int64  `json:"best"`
	Ties      int    `json:"ties"`
	Node      string `json:"node"`
	Victims   int    `json:"victims,omitempty"`
}

func runKube(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var o runOptions
	fs.StringVar(&o.dir, "dir", "", "export directory (variedbench export -dir)")
	fs.StringVar(&o.stream, "stream", "varied", "incoming stream: one of the export's (meta.json's streams)")
	fs.BoolVar(&o.sampled, "sampled", false, "kube's adaptive percentageOfNodesToScore (default: 100, every node)")
	fs.BoolVar(&o.assumed, "assumed", false, "assume each placed pod in the cache before the next")
	fs.IntVar(&o.warm, "warm", 20, "warm-up pods, untimed")
	fs.IntVar(&o.timed, "timed", 0, "timed pods (0: every pod of the stream after the warm-up)")
	fs.IntVar(&o.workers, "workers", 1, "workers of the per-node loops (the scheduler's parallelism)")
	fs.StringVar(&o.profile, "profile", profileDefault, "default, novolume or notopology (see schedkit's side)")
	fs.StringVar(&o.parity, "parity", "", "write each pod's outcome as JSON lines to this file")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed loop to this file")
	fs.BoolVar(&o.showPlugins, "show-plugins", false, "print the profile's plugins per extension point to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.dir == "" {
		return errors.New("run: -dir is required")
	}
	if o.warm < 0 || o.timed < 0 || o.workers < 1 {
		return fmt.Errorf("-warm=%d -timed=%d -workers=%d: want warm, timed ≥ 0 and workers ≥ 1", o.warm, o.timed, o.workers)
	}
	res, recs, err := measureKube(o)
	if err != nil {
		return err
	}
	if o.parity != "" {
		if err := writeRecords(o.parity, recs); err != nil {
			return err
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Printf("%s\n", b)
	return err
}

// scoreCapture is the profile's framework with RunScorePlugins observed:
// it keeps the best total and the number of nodes tied at it, for the
// pod-by-pod comparison (prioritizeNodes adds nothing to the plugins'
// totals without extenders). The cost, one pass over the scored nodes'
// totals, is part of kube's measured time.
type scoreCapture struct {
	framework.Framework
	scored bool
	best   int64
	ties   int
}

func (s *scoreCapture) RunScorePlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, *fwk.Status) {
	out, st := s.Framework.RunScorePlugins(ctx, state, pod, nodes)
	if st.IsSuccess() && len(out) > 0 {
		s.scored, s.best, s.ties = true, out[0].TotalScore, 0
		for i := range out {
			switch t := out[i].TotalScore; {
			case t > s.best:
				s.best, s.ties = t, 1
			case t == s.best:
				s.ties++
			}
		}
	}
	return out, st
}

// measureKube builds kube-scheduler's Scheduler (scheduler.New: the
// default registry, the profile's framework runtime, the cache, the
// scheduling snapshot, the queue as pod nominator) on a fake clientset
// (with no informer started unless the export has storage objects, which
// the volume plugins read through informers), adds the export's nodes
// and existing pods to the cache as its informers would, and schedules the stream as kube's
// schedulingCycle does: Cache.UpdateSnapshot, then Scheduler.SchedulePod
// (findNodesThatFitPod, prioritizeNodes, host selection), then, when
// assumed, assume's Cache.AssumePod of a copy with the chosen node. No
// Reserve, Permit or binding runs, as on schedkit's side, nor PostFilter
// (preemption) but on a preempting stream (preemptFor).
func measureKube(o runOptions) (result, []podRecord, error) {
	res := result{Side: "kube", Version: kubeVersion(), Stream: o.stream, Sampled: o.sampled, Assumed: o.assumed, Workers: o.workers, Profile: o.profile}
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	c, err := readCluster(o.dir, o.stream)
	if err != nil {
		return res, nil, err
	}
	res.Nodes = len(c.nodes)
	if o.timed == 0 {
		o.timed = len(c.incoming) - o.warm
	}
	if o.timed < 1 || len(c.incoming) < o.warm+o.timed {
		return res, nil, fmt.Errorf("%s: %d incoming pods, want more than -warm=%d and at least warm+timed=%d", o.dir, len(c.incoming), o.warm, o.warm+o.timed)
	}
	res.Timed = o.timed
	prof, dropped, err := kubeProfile(o.profile)
	if err != nil {
		return res, nil, err
	}
	if o.profile == profileNoTopology {
		// Without default spreading constraints pods can be signed, and
		// a signed pod may reuse the cycle before (OpportunisticBatching),
		// which schedkit's side does not run: the cases of this
		// configuration are measured with the gate off, as their
		// OpportunisticBatchingDisabled workloads.
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(features.OpportunisticBatching): false}); err != nil {
			return res, nil, err
		}
	}
	preempt := slices.Contains(c.meta.Preempting, o.stream)
	if preempt {
		// The victims' API calls run inside the cycle, as schedkit's
		// evictions do (SchedulerAsyncPreemption off, as
		// PreemptionAsync's 5000Nodes workload runs).
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(features.SchedulerAsyncPreemption): false}); err != nil {
			return res, nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	client := fake.NewClientset()
	// Without storage objects no informer is started
	// (scheduler.NewInformerFactory only adds the pod informer's field
	// selector, irrelevant here): the cache gets the objects directly and
	// the namespace and Service listers read their indexers. With them,
	// the volume plugins read claims and volumes through assume caches
	// that only an informer's events fill: the namespaces, Services and
	// storage objects are created in the fake clientset and the informers
	// started once the scheduler has registered its own.
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	startInformers := c.hasStorage()
	if startInformers {
		if err := createObjects(client, c); err != nil {
			return res, nil, err
		}
	} else {
		nsIndexer := informerFactory.Core().V1().Namespaces().Informer().GetIndexer()
		for _, ns := range c.namespaces {
			if err := nsIndexer.Add(ns); err != nil {
				return res, nil, err
			}
		}
		// PodTopologySpread's default constraints select by the Services
		// of the pod's namespace, read through the Service lister.
		svcIndexer := informerFactory.Core().V1().Services().Informer().GetIndexer()
		for _, svc := range c.services {
			if err := svcIndexer.Add(svc); err != nil {
				return res, nil, err
			}
		}
	}
	opts := []scheduler.Option{scheduler.WithProfiles(prof), scheduler.WithParallelism(int32(o.workers))}
	if !o.sampled {
		opts = append(opts, scheduler.WithPercentageOfNodesToScore(new(int32(100))))
	}
	recorders := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	sched, err := scheduler.New(ctx, client, informerFactory, nil, recorders, opts...)
	if err != nil {
		return res, nil, err
	}
	if startInformers {
		informerFactory.Start(ctx.Done())
		for typ, ok := range informerFactory.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return res, nil, fmt.Errorf("informer of %v did not sync", typ)
			}
		}
	}
	profFwk, ok := sched.Profiles[prof.SchedulerName]
	if !ok {
		return res, nil, fmt.Errorf("no framework for profile %q", prof.SchedulerName)
	}
	if len(c.resourceSlices)+len(c.resourceClaims) > 0 {
		if err := waitForDRA(profFwk, c); err != nil {
			return res, nil, err
		}
	}
	if o.showPlugins {
		showPlugins(profFwk, dropped)
	}
	snap, ok := profFwk.SnapshotSharedLister().(*internalcache.Snapshot)
	if !ok {
		return res, nil, fmt.Errorf("snapshot lister is %T, want *cache.Snapshot", profFwk.SnapshotSharedLister())
	}
	for _, n := range c.nodes {
		sched.Cache.AddNode(logger, n)
	}
	for _, p := range c.pods {
		if err := sched.Cache.AddPod(logger, p); err != nil {
			return res, nil, fmt.Errorf("existing pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	batching := utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching)
	queued := make([]*framework.QueuedPodInfo, 0, o.warm+o.timed)
	for _, p := range c.incoming[:o.warm+o.timed] {
		// As the scheduling queue builds it (newQueuedPodInfo), before
		// the cycle: PodInfo and, with OpportunisticBatching, the pod's
		// signature.
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			return res, nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		q := &framework.QueuedPodInfo{PodInfo: pi}
		if batching {
			q.PodSignature = profFwk.SignPod(ctx, p)
			if q.PodSignature != nil {
				res.Signed++
			}
		}
		queued = append(queued, q)
	}
	cy := &kubeCycler{sched: sched, fwk: &scoreCapture{Framework: profFwk}, snap: snap, logger: logger, assumed: o.assumed,
		recs: make([]podRecord, 0, len(queued)), events: c.events, churnNodes: c.churnNodes}
	if o.assumed {
		// As schedkit's side names them: the pod's name, "-assumed-" and
		// its place in the stream from 1.
		cy.assumedNames = make([]string, len(queued))
		for i, q := range queued {
			cy.assumedNames[i] = q.Pod.Name + "-assumed-" + strconv.Itoa(i+1)
		}
	}
	if preempt {
		cy.preempt = &kubePreemption{client: client, pods: informerFactory.Core().V1().Pods().Informer().GetIndexer(), existing: map[string]*v1.Pod{}}
		for _, p := range c.pods {
			cy.preempt.existing[p.Namespace+"/"+p.Name] = p
		}
	}
	for _, q := range queued[:o.warm] {
		if err := cy.cycle(ctx, q); err != nil {
			return res, nil, err
		}
	}
	cy.evaluated, cy.placed = 0, 0
	// The cluster's construction is not the cycles' garbage: collected
	// before the timed loop, and before its profile starts.
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if o.cpuprofile != "" {
		pf, err := os.Create(o.cpuprofile)
		if err != nil {
			return res, nil, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return res, nil, err
		}
	}
	cpu0, err := cpuTime()
	if err != nil {
		return res, nil, err
	}
	t0 := time.Now()
	for _, q := range queued[o.warm:] {
		if err := cy.cycle(ctx, q); err != nil {
			return res, nil, err
		}
	}
	wall := time.Since(t0)
	cpu1, err := cpuTime()
	if err != nil {
		return res, nil, err
	}
	runtime.ReadMemStats(&m1)
	if o.cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	res.CPUNanos, res.WallNanos = int64(cpu1-cpu0), int64(wall)
	res.Evaluated, res.Placed = cy.evaluated, cy.placed
	res.Mallocs, res.AllocBytes = m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc
	return res, cy.recs, nil
}

// kubeCycler runs the cycles of one row.
type kubeCycler struct {
	sched   *scheduler.Scheduler
	fwk     *scoreCapture
	snap    *internalcache.Snapshot
	logger  klog.Logger
	assumed bool
	// assumedNames are the assumed copies' names, by the pod's place in
	// the stream, made before the timed loop (assumed rows only).
	assumedNames []string
	evaluated    int64
	placed       int
	recs         []podRecord
	// events change the cluster before the stream's pods, adding and
	// removing churnNodes as the node informer's handlers would.
	events     []churnEvent
	churnNodes map[string]*v1.Node
	// preempt, for a preempting stream, runs PostFilter on a pod no node
	// fits.
	preempt *kubePreemption
}

// kubePreemption is what a preempting stream's cycles need beyond the
// scheduler: the fake clientset, whose actions name the victims, the pod
// informer's store, where the preemption evaluator looks the preemptor
// up, and the existing pods by namespace/name, to remove the victims from
// the cache.
type kubePreemption struct {
	client   *fake.Clientset
	pods     toolscache.Indexer
	existing map[string]*v1.Pod
}

// churn applies the events due before the stream's pod i: Cache.AddNode
// and Cache.RemoveNode, as the node informer's add and delete handlers
// call them.
func (c *kubeCycler) churn(i int) error {
	for len(c.events) > 0 && c.events[0].Before <= i {
		e := c.events[0]
		c.events = c.events[1:]
		n := c.churnNodes[e.Node]
		switch e.Op {
		case opAddNode:
			c.sched.Cache.AddNode(c.logger, n)
		case opRemoveNode:
			if err := c.sched.Cache.RemoveNode(c.logger, n); err != nil {
				return fmt.Errorf("churn before pod %d: %w", e.Before, err)
			}
		}
	}
	return nil
}

// cycle runs one scheduling cycle for q (schedulingCycle up to the
// assume), recording its outcome, after the churn due before it.
func (c *kubeCycler) cycle(ctx context.Context, q *framework.QueuedPodInfo) error {
	if err := c.churn(len(c.recs)); err != nil {
		return err
	}
	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	if err := c.sched.Cache.UpdateSnapshot(c.logger, c.snap); err != nil {
		return err
	}
	c.fwk.scored = false
	r, err := c.sched.SchedulePod(ctx, c.fwk, state, q)
	rec := podRecord{I: len(c.recs), Pod: q.Pod.Name}
	if err != nil {
		var fe *framework.FitError
		if !errors.As(err, &fe) {
			return fmt.Errorf("pod %s: %w", q.Pod.Name, err)
		}
		// PreFilter rejections leave NodeToStatus empty (every node has
		// the absent status); Filter rejections list each node.
		rec.Evaluated = fe.Diagnosis.NodeToStatus.Len()
		c.evaluated += int64(rec.Evaluated)
		if c.preempt == nil {
			c.recs = append(c.recs, rec)
			return nil
		}
		var node string
		if q, node, err = c.preemptFor(ctx, state, q, fe, &rec); err != nil || node == "" {
			c.recs = append(c.recs, rec)
			return err
		}
		// The pod's next cycle, as the scheduler runs it for a pod
		// nominated to a node: findNodesThatFitPod evaluates that node
		// first.
		if err := c.sched.Cache.UpdateSnapshot(c.logger, c.snap); err != nil {
			return err
		}
		state = framework.NewCycleState()
		state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
		c.fwk.scored = false
		if r, err = c.sched.SchedulePod(ctx, c.fwk, state, q); err != nil {
			return fmt.Errorf("pod %s on its nominated node %s: %w", q.Pod.Name, node, err)
		}
		c.evaluated += int64(r.EvaluatedNodes)
		rec.Node = r.SuggestedHost
		c.placed++
		c.recs = append(c.recs, rec)
		return c.assume(q, r)
	}
	rec.Evaluated, rec.Feasible, rec.Node = r.EvaluatedNodes, r.FeasibleNodes, r.SuggestedHost
	if c.fwk.scored {
		rec.Scored, rec.Best, rec.Ties = true, c.fwk.best, c.fwk.ties
	}
	c.evaluated += int64(rec.Evaluated)
	c.placed++
	c.recs = append(c.recs, rec)
	return c.assume(q, r)
}

// preemptFor runs PostFilter (DefaultPreemption) for q, which fit no node
// (fe), as schedulingAlgorithm's caller does: the preemptor is in the pod
// informer's store while it runs, as it is in the API. When PostFilter
// nominates a node it removes the victims, those whose status the
// preemption patched, from the cache as the pod informer's delete handler
// would, records their number in rec and returns q with the nominated
// node set on a copy of its pod, and the node ("" without a nomination).
func (c *kubeCycler) preemptFor(ctx context.Context, state fwk.CycleState, q *framework.QueuedPodInfo, fe *framework.FitError, rec *podRecord) (*framework.QueuedPodInfo, string, error) {
	p := c.preempt
	p.client.ClearActions()
	if err := p.pods.Add(q.Pod); err != nil {
		return q, "", err
	}
	pr, st := c.fwk.RunPostFilterPlugins(ctx, state, q.Pod, fe.Diagnosis.NodeToStatus)
	if err := p.pods.Delete(q.Pod); err != nil {
		return q, "", err
	}
	if !st.IsSuccess() || pr == nil || pr.NominatingInfo == nil || pr.NominatingInfo.NominatedNodeName == "" {
		return q, "", nil
	}
	node := pr.NominatingInfo.NominatedNodeName
	for _, a := range p.client.Actions() {
		if a.GetVerb() != "patch" || a.GetResource().Resource != "pods" {
			continue
		}
		key := a.GetNamespace() + "/" + a.(clienttesting.PatchAction).GetName()
		v, ok := p.existing[key]
		if !ok {
			return q, "", fmt.Errorf("preemption of %s patched %s, not an existing pod", q.Pod.Name, key)
		}
		if err := c.sched.Cache.RemovePod(c.logger, v); err != nil {
			return q, "", fmt.Errorf("remove victim %s: %w", key, err)
		}
		delete(p.existing, key)
		rec.Victims++
	}
	pod := q.Pod.DeepCopy()
	pod.Status.NominatedNodeName = node
	pi := *q.PodInfo
	pi.Pod = pod
	next := *q
	next.PodInfo = &pi
	return &next, node, nil
}

// assume assumes q's pod on r's node when the row assumes placed pods.
func (c *kubeCycler) assume(q *framework.QueuedPodInfo, r scheduler.ScheduleResult) error {
	if !c.assumed {
		return nil
	}
	// As assumeAndReserve and assume do; the copy gets a name and UID of
	// its own as on schedkit's side (the requests-and-images stream comes
	// from a second generator whose UIDs can equal existing pods'), made
	// before the timed loop.
	assumed := q.DeepCopy()
	assumed.Pod.Name = c.assumedNames[len(c.recs)-1]
	assumed.Pod.UID = types.UID(assumed.Pod.Name)
	assumed.Pod.Spec.NodeName = r.SuggestedHost
	if err := c.sched.Cache.AssumePod(c.logger, assumed.Pod); err != nil {
		return fmt.Errorf("assume %s: %w", assumed.Pod.Name, err)
	}
	c.sched.SchedulingQueue.DeleteNominatedPodIfExists(assumed.Pod)
	return nil
}

// waitForDRA waits until the DRA manager of f lists every ResourceSlice
// and ResourceClaim of c and every device the claims allocate: its
// trackers take them from the informers' events, which WaitForCacheSync
// does not wait for. A tracker that reports a modification while it is
// listed (errClaimTrackerConcurrentModification) is asked again, as
// kube's PreFilter asks it.
func waitForDRA(f framework.Framework, c *cluster) error {
	m := f.SharedDRAManager()
	if m == nil {
		return errors.New("the framework has no DRA manager")
	}
	allocated := 0
	for _, rc := range c.resourceClaims {
		if rc.Status.Allocation != nil {
			allocated += len(rc.Status.Allocation.Devices.Results)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		slices, err1 := m.ResourceSlices().ListWithDeviceTaintRules()
		claims, err2 := m.ResourceClaims().List()
		devices, err3 := m.ResourceClaims().ListAllAllocatedDevices()
		err := errors.Join(err1, err2, err3)
		if err == nil && len(slices) == len(c.resourceSlices) && len(claims) == len(c.resourceClaims) && devices.Len() == allocated {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("DRA manager: %d slices, %d claims, %d allocated devices after a minute, want %d, %d, %d (last error: %v)",
				len(slices), len(claims), devices.Len(), len(c.resourceSlices), len(c.resourceClaims), allocated, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// createObjects adds c's namespaces, Services, storage and DRA objects to
// the fake clientset's tracker, statuses included (it keeps them as
// given), for the informers to list.
func createObjects(client *fake.Clientset, c *cluster) error {
	for _, objs := range [][]kruntime.Object{objects(c.namespaces), objects(c.services), objects(c.storageClasses),
		objects(c.csiNodes), objects(c.claims), objects(c.volumes), objects(c.deviceClasses), objects(c.resourceSlices),
		objects(c.resourceClaims)} {
		for _, o := range objs {
			if err := client.Tracker().Add(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// objects returns l as runtime objects.
func objects[T kruntime.Object](l []T) []kruntime.Object {
	out := make([]kruntime.Object, len(l))
	for i, o := range l {
		out[i] = o
	}
	return out
}

// cpuTime is the process's user + system CPU time.
func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// showPlugins prints the framework's plugins per extension point.
func showPlugins(f framework.Framework, dropped []string) {
	pl := f.ListPlugins()
	for _, e := range []struct {
		name string
		set  *schedulerapi.PluginSet
	}{{"PreFilter", &pl.PreFilter}, {"Filter", &pl.Filter}, {"PreScore", &pl.PreScore}, {"Score", &pl.Score},
		{"Reserve", &pl.Reserve}, {"PreBind", &pl.PreBind}, {"Bind", &pl.Bind}} {
		var s []string
		for _, p := range e.set.Enabled {
			if p.Weight != 0 {
				s = append(s, fmt.Sprintf("%s(%d)", p.Name, p.Weight))
			} else {
				s = append(s, p.Name)
			}
		}
		fmt.Fprintf(os.Stderr, "%-9s %s\n", e.name, strings.Join(s, " "))
	}
	sort.Strings(dropped)
	fmt.Fprintf(os.Stderr, "left out: %s\n", strings.Join(dropped, " "))
}

// writeRecords writes recs to path as JSON lines.
func writeRecords(path string, recs []podRecord) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			f.Close()
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
