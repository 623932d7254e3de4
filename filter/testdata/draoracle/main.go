// Command draoracle runs kube-scheduler v1.37.2's own DynamicResources plugin
// (with k8s.io/dynamic-resource-allocation v0.37.2's structured allocator and
// CEL environment) on cases read as JSON lines from stdin, and prints kube's
// answers as JSON lines. It is a separate module under testdata so that
// schedkit itself imports nothing from k8s.io; schedkit's tests never build
// it. Its answers are pinned as literals in schedkit's tests.
//
// Two kinds of case:
//
//   - "cel": compiles one device selector the way the scheduler does (stored
//     expressions, through the plugin's compile cache) and the way the API
//     server validates a new selector (new expressions, with the worst-case
//     cost estimate), evaluates it on one device, and prints the compile
//     errors, the estimated costs, the result, the runtime error (as CEL
//     returns it and as the allocator reports it) and the actual cost.
//   - "dra": creates the DeviceTaintRules, nodes, ResourceSlices,
//     DeviceClasses and ResourceClaims through a fake clientset, builds the
//     plugin with the default v1.37 feature gates and default arguments,
//     and runs the pods
//     one after the other through PreEnqueue, PreFilter, Filter on every
//     node, Score and NormalizeScore on the feasible nodes, PostFilter when
//     none is feasible, and Reserve and PreBind on the best-scored node
//     (the first one in node order on a tie). It prints every status and
//     the claims' allocations and reservations after each pod. With "fit"
//     it first runs NodeResourcesFit (its SignPod, PreFilter, Filter,
//     PreScore and Score) and NodeResourcesBalancedAllocation (PreScore and
//     Score) on the pod and every node, configured as "fit" says.
//
// Build and run (from this directory):
//
//	go build -o /tmp/draoracle . && /tmp/draoracle < cases.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/cel/environment"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	cgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	"k8s.io/utils/ptr"
)

type celDevice struct {
	Driver                   string                                                    `json:"driver"`
	AllowMultipleAllocations *bool                                                     `json:"allowMultipleAllocations,omitempty"`
	Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes,omitempty"`
	Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity,omitempty"`
}

type celCase struct {
	Expression string    `json:"expression"`
	Device     celDevice `json:"device"`
}

type celOutcome struct {
	// StoredCompileError is the compile error in the scheduler's (stored
	// expressions) environment, "" when it compiles.
	StoredCompileError string `json:"storedCompileError,omitempty"`
	// StoredMaxCost is the worst-case cost estimate in that environment.
	StoredMaxCost *uint64 `json:"storedMaxCost,omitempty"`
	// NewCompileError is the compile error when the API server validates
	// the selector as a new expression.
	NewCompileError string `json:"newCompileError,omitempty"`
	// NewMaxCost is the worst-case estimate for a new expression; the API
	// server rejects the selector when it exceeds 1000000.
	NewMaxCost *uint64 `json:"newMaxCost,omitempty"`
	// Match is the result when the evaluation succeeded.
	Match *bool `json:"match,omitempty"`
	// Error is the evaluation error as DeviceMatches returns it.
	Error string `json:"error,omitempty"`
	// Enhanced is that error as the allocator reports it after
	// cel.EnhanceRuntimeError.
	Enhanced string `json:"enhanced,omitempty"`
	// ActualCost is the runtime cost of the evaluation.
	ActualCost *uint64 `json:"actualCost,omitempty"`
}

type draCase struct {
	Nodes   []*v1.Node                   `json:"nodes"`
	Slices  []*resourceapi.ResourceSlice `json:"slices"`
	Classes []*resourceapi.DeviceClass   `json:"classes"`
	Claims  []*resourceapi.ResourceClaim `json:"claims"`
	Pods    []*v1.Pod                    `json:"pods"`
	// Fit, when set, also runs NodeResourcesFit and
	// NodeResourcesBalancedAllocation on each pod (fitOutcome).
	Fit *fitCase `json:"fit,omitempty"`
	// TaintRules are DeviceTaintRules, created before the slices.
	TaintRules []*resourceapi.DeviceTaintRule `json:"deviceTaintRules,omitempty"`
}

// fitCase configures NodeResourcesFit's scoring strategy (Strategy, Fit)
// and NodeResourcesBalancedAllocation's resources (Balanced).
type fitCase struct {
	Strategy string                `json:"strategy"`
	Fit      []config.ResourceSpec `json:"fit"`
	Balanced []config.ResourceSpec `json:"balanced"`
}

// fitOutcome is what NodeResourcesFit and NodeResourcesBalancedAllocation
// make of a pod before DynamicResources runs it: Fit's SignPod refusal
// ("" when it signs), PreFilter and Filter on every node, and both raw
// scores on every node (after their PreScore; Balanced is left out when
// its PreScore skips the pod). BalancedPanic is what BalancedAllocation's
// Score panicked with, if it did (it has no CEL cache for DeviceClass
// selectors: NewBalancedAllocation leaves DRACaches.celCache nil).
type fitOutcome struct {
	Sign          string             `json:"sign,omitempty"`
	PreFilter     verdict            `json:"preFilter"`
	Filter        map[string]verdict `json:"filter"`
	Scores        map[string]int64   `json:"scores"`
	Balanced      map[string]int64   `json:"balanced,omitempty"`
	BalancedPanic string             `json:"balancedPanic,omitempty"`
}

type input struct {
	Name string   `json:"name"`
	Mode string   `json:"mode"`
	CEL  *celCase `json:"cel,omitempty"`
	DRA  *draCase `json:"dra,omitempty"`
}

type verdict struct {
	Code    string   `json:"code"`
	Reasons []string `json:"reasons,omitempty"`
}

func of(s *fwk.Status) verdict {
	if s.IsSuccess() {
		return verdict{Code: "Success"}
	}
	return verdict{Code: s.Code().String(), Reasons: s.Reasons()}
}

type claimOutcome struct {
	Allocation  *resourceapi.AllocationResult                `json:"allocation,omitempty"`
	ReservedFor []resourceapi.ResourceClaimConsumerReference `json:"reservedFor,omitempty"`
}

type podOutcome struct {
	Pod         string                  `json:"pod"`
	Fit         *fitOutcome             `json:"fit,omitempty"`
	PreEnqueue  verdict                 `json:"preEnqueue"`
	PreFilter   *verdict                `json:"preFilter,omitempty"`
	Filter      map[string]verdict      `json:"filter,omitempty"`
	RawScores   map[string]int64        `json:"rawScores,omitempty"`
	Scores      map[string]int64        `json:"scores,omitempty"`
	PostFilter  *verdict                `json:"postFilter,omitempty"`
	Node        string                  `json:"node,omitempty"`
	Reserve     *verdict                `json:"reserve,omitempty"`
	PreBind     *verdict                `json:"preBind,omitempty"`
	ClaimsAfter map[string]claimOutcome `json:"claimsAfter,omitempty"`
	Err         string                  `json:"err,omitempty"`
}

type output struct {
	Name string       `json:"name"`
	CEL  *celOutcome  `json:"cel,omitempty"`
	DRA  []podOutcome `json:"dra,omitempty"`
	Err  string       `json:"err,omitempty"`
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// schedulerCELFeatures are the CEL features the plugin passes to its compile
// cache with the default v1.37 gates.
func schedulerCELFeatures() dracel.Features {
	return dracel.Features{
		EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		EnableListTypeAttributes: utilfeature.DefaultFeatureGate.Enabled(features.DRAListTypeAttributes),
	}
}

func runCEL(c *celCase) *celOutcome {
	out := &celOutcome{}
	fts := schedulerCELFeatures()
	compiler := dracel.GetCompiler(fts)

	stored := compiler.CompileCELExpression(c.Expression, dracel.Options{})
	if stored.Error != nil {
		out.StoredCompileError = stored.Error.Error()
	} else {
		out.StoredMaxCost = ptr.To(stored.MaxCost)
	}
	newEnv := environment.NewExpressions
	fresh := compiler.CompileCELExpression(c.Expression, dracel.Options{EnvType: &newEnv})
	if fresh.Error != nil {
		out.NewCompileError = fresh.Error.Error()
	} else {
		out.NewMaxCost = ptr.To(fresh.MaxCost)
	}

	// The scheduler receives capacities from the API server, which stores
	// them in canonical form.
	for name, dc := range c.Device.Capacity {
		dc.Value = resource.MustParse(dc.Value.String())
		c.Device.Capacity[name] = dc
	}

	// Evaluate exactly as the allocator does: through the plugin's cache.
	cacheResult := dracel.NewCache(10, fts).GetOrCompile(c.Expression)
	if cacheResult.Error != nil {
		return out
	}
	match, details, err := cacheResult.DeviceMatches(context.Background(), dracel.Device{
		Driver:                   c.Device.Driver,
		AllowMultipleAllocations: c.Device.AllowMultipleAllocations,
		Attributes:               c.Device.Attributes,
		Capacity:                 c.Device.Capacity,
	})
	if details != nil {
		out.ActualCost = details.ActualCost()
	}
	if err != nil {
		out.Error = err.Error()
		out.Enhanced = dracel.EnhanceRuntimeError(err).Error()
		return out
	}
	out.Match = ptr.To(match)
	return out
}

func runDRA(c *draCase) []podOutcome {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewSimpleClientset()
	client.PrependReactor("*", "*", versionReactor(client.Tracker()))
	inf := informers.NewSharedInformerFactory(client, 0)
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)

	var done []cache.DoneChecker
	tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		EnableDeviceTaintRules:   utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		SliceInformer:            inf.Resource().V1().ResourceSlices(),
		TaintInformer:            inf.Resource().V1().DeviceTaintRules(),
		KubeClient:               client,
	})
	must(err)
	done = append(done, tracker.HasSyncedChecker())
	claims := assumecache.NewAssumeCache(klog.FromContext(ctx), inf.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	done = append(done, claims.AddEventHandler(cache.ResourceEventHandlerFuncs{}).HasSyncedChecker())
	manager := dynamicresources.NewDRAManager(ctx, claims, tracker, inf)
	if fts.EnableDRAExtendedResource {
		erCache := manager.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache)
		reg, err := inf.Resource().V1().DeviceClasses().Informer().AddEventHandler(erCache)
		must(err)
		done = append(done, reg.HasSyncedChecker())
	}
	fh, err := runtime.NewFramework(ctx, nil, nil,
		runtime.WithClientSet(client),
		runtime.WithInformerFactory(inf),
		runtime.WithEventRecorder(&events.FakeRecorder{}),
		runtime.WithSharedDRAManager(manager),
	)
	must(err)
	args := &config.DynamicResourcesArgs{
		FilterTimeout:  &metav1.Duration{Duration: 10 * time.Second},
		BindingTimeout: &metav1.Duration{Duration: 10 * time.Minute},
	}
	p, err := dynamicresources.New(ctx, args, fh, fts)
	must(err)
	pl := p.(*dynamicresources.DynamicResources)

	// Objects reach the scheduler through the API server, which stores
	// quantities in canonical form and applies its defaults (allocation
	// mode ExactCount and count 1, toleration operator Equal, ...):
	// round-trip every object through JSON, then default it.
	roundTrip(c)
	for _, x := range c.Nodes {
		legacyscheme.Scheme.Default(x)
	}
	for _, x := range c.Slices {
		legacyscheme.Scheme.Default(x)
	}
	for _, x := range c.Classes {
		legacyscheme.Scheme.Default(x)
	}
	for _, x := range c.Claims {
		legacyscheme.Scheme.Default(x)
	}
	for _, x := range c.Pods {
		legacyscheme.Scheme.Default(x)
	}
	for _, x := range c.TaintRules {
		legacyscheme.Scheme.Default(x)
	}
	o := metav1.CreateOptions{}
	for _, x := range c.TaintRules {
		_, err := client.ResourceV1().DeviceTaintRules().Create(ctx, x, o)
		must(err)
	}
	for _, n := range c.Nodes {
		_, err := client.CoreV1().Nodes().Create(ctx, n, o)
		must(err)
	}
	for _, x := range c.Slices {
		_, err := client.ResourceV1().ResourceSlices().Create(ctx, x, o)
		must(err)
	}
	for _, x := range c.Classes {
		_, err := client.ResourceV1().DeviceClasses().Create(ctx, x, o)
		must(err)
	}
	for _, x := range c.Claims {
		_, err := client.ResourceV1().ResourceClaims(x.Namespace).Create(ctx, x, o)
		must(err)
	}
	for _, x := range c.Pods {
		_, err := client.CoreV1().Pods(x.Namespace).Create(ctx, x, o)
		must(err)
	}
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	if !cache.WaitFor(ctx, "event handlers", done...) {
		panic("event handlers did not sync")
	}

	var nodeInfos []fwk.NodeInfo
	for _, n := range c.Nodes {
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		nodeInfos = append(nodeInfos, ni)
	}

	var runFit func(*v1.Pod) *fitOutcome
	if c.Fit != nil {
		runFit = fitRunner(ctx, c.Fit, fh, fts, nodeInfos)
	}
	var outs []podOutcome
	for _, pod := range c.Pods {
		oc := podOutcome{Pod: pod.Namespace + "/" + pod.Name}
		if runFit != nil {
			oc.Fit = runFit(pod)
		}
		oc.PreEnqueue = of(pl.PreEnqueue(ctx, pod))
		state := framework.NewCycleState()
		_, st := pl.PreFilter(ctx, state, pod, nodeInfos)
		oc.PreFilter = ptr.To(of(st))
		if st.IsSuccess() || st.IsSkip() {
			oc.Filter = map[string]verdict{}
			var feasible []fwk.NodeInfo
			for _, ni := range nodeInfos {
				fst := pl.Filter(ctx, state, pod, ni)
				if st.IsSkip() {
					// The framework does not call Filter of a plugin
					// whose PreFilter returned Skip; record Success.
					fst = nil
				}
				oc.Filter[ni.Node().Name] = of(fst)
				if fst.IsSuccess() {
					feasible = append(feasible, ni)
				}
			}
			if len(feasible) > 0 {
				oc.RawScores = map[string]int64{}
				oc.Scores = map[string]int64{}
				var list fwk.NodeScoreList
				for _, ni := range feasible {
					s, sst := pl.Score(ctx, state, pod, ni)
					if !sst.IsSuccess() {
						oc.Err = fmt.Sprintf("score %s: %v", ni.Node().Name, sst.AsError())
					}
					oc.RawScores[ni.Node().Name] = s
					list = append(list, fwk.NodeScore{Name: ni.Node().Name, Score: s})
				}
				nst := pl.NormalizeScore(ctx, state, pod, list)
				if !nst.IsSuccess() {
					oc.Err = fmt.Sprintf("normalize: %v", nst.AsError())
				}
				best := ""
				bestScore := int64(-1)
				for _, ns := range list {
					oc.Scores[ns.Name] = ns.Score
					if ns.Score > bestScore {
						best, bestScore = ns.Name, ns.Score
					}
				}
				oc.Node = best
				rst := pl.Reserve(ctx, state, pod, best)
				oc.Reserve = ptr.To(of(rst))
				if rst.IsSuccess() && pod.Annotations[skipPreBind] == "true" {
					// Leave the allocation in flight for the next pods.
				} else if rst.IsSuccess() {
					bst := pl.PreBind(ctx, state, pod, best)
					oc.PreBind = ptr.To(of(bst))
					if !bst.IsSuccess() {
						pl.Unreserve(ctx, state, pod, best)
					}
				} else {
					pl.Unreserve(ctx, state, pod, best)
				}
			} else {
				_, pst := pl.PostFilter(ctx, state, pod, nil)
				oc.PostFilter = ptr.To(of(pst))
			}
		}
		oc.ClaimsAfter = map[string]claimOutcome{}
		list, err := client.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{})
		must(err)
		waitForClaims(ctx, manager, list.Items)
		for _, cl := range list.Items {
			a := cl.Status.Allocation
			if a != nil {
				a = a.DeepCopy()
				a.AllocationTimestamp = nil
				for i := range a.Devices.Results {
					if a.Devices.Results[i].ShareID != nil {
						a.Devices.Results[i].ShareID = ptr.To[types.UID]("<share>")
					}
				}
			}
			oc.ClaimsAfter[cl.Namespace+"/"+cl.Name] = claimOutcome{Allocation: a, ReservedFor: cl.Status.ReservedFor}
		}
		outs = append(outs, oc)
	}
	return outs
}

// fitRunner builds NodeResourcesFit and NodeResourcesBalancedAllocation
// as c configures them and returns what runs them on a pod.
func fitRunner(ctx context.Context, c *fitCase, fh fwk.Handle, fts feature.Features, nodeInfos []fwk.NodeInfo) func(*v1.Pod) *fitOutcome {
	fp, err := noderesources.NewFit(ctx, &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
		Type: config.ScoringStrategyType(c.Strategy), Resources: c.Fit}}, fh, fts)
	must(err)
	fit := fp.(*noderesources.Fit)
	bp, err := noderesources.NewBalancedAllocation(ctx, &config.NodeResourcesBalancedAllocationArgs{Resources: c.Balanced}, fh, fts)
	must(err)
	ba := bp.(*noderesources.BalancedAllocation)
	return func(pod *v1.Pod) *fitOutcome {
		out := &fitOutcome{Filter: map[string]verdict{}, Scores: map[string]int64{}}
		if _, st := fit.SignPod(ctx, pod); !st.IsSuccess() {
			out.Sign = st.Message()
		}
		state := framework.NewCycleState()
		_, st := fit.PreFilter(ctx, state, pod, nodeInfos)
		out.PreFilter = of(st)
		for _, ni := range nodeInfos {
			out.Filter[ni.Node().Name] = of(fit.Filter(ctx, state, pod, ni))
		}
		must(fit.PreScore(ctx, state, pod, nodeInfos).AsError())
		bst := ba.PreScore(ctx, state, pod, nodeInfos)
		if !bst.IsSkip() {
			must(bst.AsError())
			out.Balanced = map[string]int64{}
		}
		for _, ni := range nodeInfos {
			s, sst := fit.Score(ctx, state, pod, ni)
			must(sst.AsError())
			out.Scores[ni.Node().Name] = s
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					out.Balanced, out.BalancedPanic = nil, fmt.Sprint(r)
				}
			}()
			for _, ni := range nodeInfos {
				if out.Balanced != nil {
					s, sst := ba.Score(ctx, state, pod, ni)
					must(sst.AsError())
					out.Balanced[ni.Node().Name] = s
				}
			}
		}()
		return out
	}
}

// skipPreBind is the pod annotation that stops a pod after Reserve, so
// that its allocation stays in flight while the next pods are scheduled.
const skipPreBind = "draoracle/skip-prebind"

// versionReactor gives created objects a UID (when they have none), a name
// (from generateName) and a resourceVersion, and rejects updates of a
// stale resourceVersion, as the API server does; the assume cache and the
// plugin's conflict handling depend on it.
func versionReactor(tracker cgotesting.ObjectTracker) cgotesting.ReactionFunc {
	var mu sync.Mutex
	counter := 0
	return func(action cgotesting.Action) (bool, apiruntime.Object, error) {
		var obj apiruntime.Object
		switch a := action.(type) {
		case cgotesting.CreateAction:
			obj = a.GetObject()
		case cgotesting.UpdateAction:
			obj = a.GetObject()
		default:
			return false, nil, nil
		}
		m, ok := obj.(metav1.Object)
		if !ok {
			return false, nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		counter++
		switch action.GetVerb() {
		case "create":
			if m.GetUID() == "" {
				m.SetUID(types.UID(fmt.Sprintf("uid-%d", counter)))
			}
			if m.GetName() == "" {
				m.SetName(fmt.Sprintf("%s%d", m.GetGenerateName(), counter))
			}
		case "update":
			old, err := tracker.Get(action.GetResource(), m.GetNamespace(), m.GetName())
			if err != nil {
				return true, nil, err
			}
			if old.(metav1.Object).GetResourceVersion() != m.GetResourceVersion() {
				return true, nil, apierrors.NewConflict(action.GetResource().GroupResource(), m.GetName(), fmt.Errorf("resourceVersion %q is stale", m.GetResourceVersion()))
			}
		}
		m.SetResourceVersion(fmt.Sprintf("%d", counter))
		return false, nil, nil
	}
}

// waitForClaims waits until the scheduler's claim cache holds every claim
// at its API version (or a newer assumed one), as a scheduler does before
// its next cycle once the informers caught up.
func waitForClaims(ctx context.Context, manager *dynamicresources.DefaultDRAManager, claims []resourceapi.ResourceClaim) {
	deadline := time.Now().Add(10 * time.Second)
	for _, c := range claims {
		for {
			cached, err := manager.ResourceClaims().Get(c.Namespace, c.Name)
			if err == nil && version(cached.ResourceVersion) >= version(c.ResourceVersion) {
				break
			}
			if time.Now().After(deadline) {
				panic(fmt.Sprintf("claim %s/%s not cached at version %s", c.Namespace, c.Name, c.ResourceVersion))
			}
			time.Sleep(time.Millisecond)
		}
	}
}

func version(rv string) int {
	v, _ := strconv.Atoi(rv)
	return v
}

// roundTrip replaces every object of c by its JSON round trip.
func roundTrip(c *draCase) {
	b, err := json.Marshal(c)
	must(err)
	var out draCase
	must(json.Unmarshal(b, &out))
	*c = out
}

func main() {
	// PreBind records the binding conditions' metrics.
	schedmetrics.Register()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<26)
	enc := json.NewEncoder(os.Stdout)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var in input
		must(json.Unmarshal(line, &in))
		out := output{Name: in.Name}
		func() {
			defer func() {
				if r := recover(); r != nil {
					out.Err = fmt.Sprint(r)
				}
			}()
			switch in.Mode {
			case "cel":
				out.CEL = runCEL(in.CEL)
			case "dra":
				out.DRA = runDRA(in.DRA)
			default:
				out.Err = "unknown mode " + in.Mode
			}
		}()
		must(enc.Encode(out))
	}
	must(sc.Err())
}
