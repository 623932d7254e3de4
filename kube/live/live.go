// Package live runs a schedkit Scheduler on a live cluster: client-go
// informers feed the scheduler's cluster through the same events the
// offline cluster takes (so queueing hints move waiting pods as in
// kube-scheduler), the scheduler binds through the API server, reports
// failures and preemptions on the pods as kube-scheduler does, and answers
// what-if questions on the cluster as it is now.
//
// Objects are converted with kube/convert, that is with kubeload's rules:
// the cluster a Live starts from is the one kubeload builds from a dump of
// the same objects, and each later change is read with the same per-object
// rules (kubeload.ReadObject).
package live

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// Config says what a Live runs.
type Config struct {
	// Client talks to the API server.
	Client kubernetes.Interface
	// Registry and Profiles are the scheduler's plugins and profiles
	// (configfile.Configuration's, loaded against Plugins(Client) so that
	// DefaultBinder binds through the API). The profiles' schedulerNames
	// are the pods this scheduler takes: pending pods naming another
	// scheduler are left to it.
	Registry *framework.Registry
	Profiles []framework.Profile
	// Options are passed to scheduling.New (seed, parallelism, ...).
	Options []scheduling.Option
	// Resync is the informers' resync period (0: none).
	Resync time.Duration
	// SyncTimeout bounds the wait for the first list of every informer
	// (default 30 s): an unreachable API server is an error then.
	SyncTimeout time.Duration
	// WriteAPI, when set, makes the scheduler act on the API server as
	// kube-scheduler does: PodScheduled conditions, Events, nominated
	// nodes, victims deleted. Without it (what-if use) Live only watches.
	WriteAPI bool
	// Logf, when set, receives one line per notable event.
	Logf func(format string, args ...any)
}

// Live is a schedkit Scheduler fed by informers.
type Live struct {
	cfg     Config
	sched   *scheduling.Scheduler
	names   []string
	factory informers.SharedInformerFactory
	queue   workqueue.TypedRateLimitingInterface[objectRef]
	writer  *writer

	pods    cache.Indexer
	nodes   cache.Indexer
	storage map[string]cache.Indexer // by kind
	objects map[string]cache.Indexer // the other kinds (objectKinds), by kind

	// claims writes DynamicResources' claim changes to the API server
	// (nil when the API server serves no resource.k8s.io/v1).
	claims *claimWriter

	what   *whatif.WhatIf
	whatMu sync.Mutex
	// inflight counts the events the worker is applying; progress wakes
	// a question waiting for the feed to catch up (catchUp).
	inflight atomic.Int32
	progress chan struct{}

	mu      sync.Mutex
	applied map[objectRef]string // resourceVersion last applied
	lastPod map[objectRef]*api.Pod
	// values are the objects of objectKinds the scheduler holds, as
	// converted; the scheduler takes each kind's list whole.
	values map[objectRef]any
	stats  Stats
}

// objectKinds are the kinds the feed follows besides pods, nodes and
// storage, in the order a dump lists them: Namespaces (namespace
// selectors), Services and the workload controllers (PodTopologySpread's
// default constraints), PriorityClasses (the priority of a pod created
// without one) and PodDisruptionBudgets (preemption).
var objectKinds = []string{"Namespace", "Service", "ReplicationController", "ReplicaSet", "StatefulSet", "PriorityClass", "PodDisruptionBudget"}

// Stats count what the feed did, for reports and tests.
type Stats struct {
	// Events applied to the scheduler, by kind.
	Applied map[string]int
	// Ignored counts fields schedkit does not model, by "Kind path".
	Ignored map[string]int
	// Rejected are the objects whose conversion failed or the scheduler
	// refused (by "Kind namespace/name", the error names the field): not
	// in the scheduler, so never bound by it.
	Rejected map[string]string
	// Retries counts events applied again after an error.
	Retries int
}

// objectRef names an object the feed tracks.
type objectRef struct {
	Kind, Namespace, Name string
}

func (r objectRef) key() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Start lists the cluster, builds the scheduler on it and starts feeding
// it: the initial cluster is what kubeload builds from a dump of the
// listed objects. It returns when the informers have synced, or with an
// error naming the API server when they cannot within SyncTimeout.
// Scheduling itself starts with Run.
func Start(ctx context.Context, cfg Config) (*Live, error) {
	if cfg.Client == nil {
		return nil, errors.New("live: Config.Client is nil")
	}
	if len(cfg.Profiles) == 0 {
		return nil, errors.New("live: no profiles")
	}
	if cfg.SyncTimeout == 0 {
		cfg.SyncTimeout = 30 * time.Second
	}
	// Fail fast with a clear error when the API server is missing.
	vctx, cancel := context.WithTimeout(ctx, cfg.SyncTimeout)
	_, err := cfg.Client.Discovery().ServerVersion()
	cancel()
	if err != nil {
		return nil, fmt.Errorf("live: API server unreachable: %w", err)
	}
	_ = vctx
	l := &Live{cfg: cfg, applied: map[objectRef]string{}, lastPod: map[objectRef]*api.Pod{}, storage: map[string]cache.Indexer{},
		objects: map[string]cache.Indexer{}, values: map[objectRef]any{}, progress: make(chan struct{}, 1),
		stats: Stats{Applied: map[string]int{}, Ignored: map[string]int{}, Rejected: map[string]string{}}}
	for _, p := range cfg.Profiles {
		name := p.SchedulerName
		if name == "" {
			name = scheduling.DefaultSchedulerName
		}
		l.names = append(l.names, name)
	}
	l.queue = workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[objectRef](50*time.Millisecond, 30*time.Second))
	f := informers.NewSharedInformerFactory(cfg.Client, cfg.Resync)
	l.factory = f
	watch := func(kind string, inf cache.SharedIndexInformer) cache.Indexer {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { l.enqueue(kind, obj) },
			UpdateFunc: func(_, obj any) { l.enqueue(kind, obj) },
			DeleteFunc: func(obj any) { l.enqueue(kind, obj) },
		})
		return inf.GetIndexer()
	}
	l.pods = watch("Pod", f.Core().V1().Pods().Informer())
	l.nodes = watch("Node", f.Core().V1().Nodes().Informer())
	l.storage["PersistentVolume"] = watch("PersistentVolume", f.Core().V1().PersistentVolumes().Informer())
	l.storage["PersistentVolumeClaim"] = watch("PersistentVolumeClaim", f.Core().V1().PersistentVolumeClaims().Informer())
	l.storage["StorageClass"] = watch("StorageClass", f.Storage().V1().StorageClasses().Informer())
	l.storage["CSINode"] = watch("CSINode", f.Storage().V1().CSINodes().Informer())
	l.storage["CSIDriver"] = watch("CSIDriver", f.Storage().V1().CSIDrivers().Informer())
	l.storage["CSIStorageCapacity"] = watch("CSIStorageCapacity", f.Storage().V1().CSIStorageCapacities().Informer())
	l.storage["VolumeAttachment"] = watch("VolumeAttachment", f.Storage().V1().VolumeAttachments().Informer())
	served := draResources(cfg.Client)
	dra := served["resourceclaims"]
	if dra {
		l.storage["ResourceSlice"] = watch("ResourceSlice", f.Resource().V1().ResourceSlices().Informer())
		l.storage["DeviceClass"] = watch("DeviceClass", f.Resource().V1().DeviceClasses().Informer())
		l.storage["ResourceClaim"] = watch("ResourceClaim", f.Resource().V1().ResourceClaims().Informer())
		l.storage["ResourceClaimTemplate"] = watch("ResourceClaimTemplate", f.Resource().V1().ResourceClaimTemplates().Informer())
		if served["devicetaintrules"] {
			l.storage["DeviceTaintRule"] = watch("DeviceTaintRule", f.Resource().V1().DeviceTaintRules().Informer())
		} else {
			l.logf("live: the API server serves no %s DeviceTaintRules: devices are tainted by their slices only", draGroupVersion)
		}
	} else {
		l.logf("live: the API server serves no %s: pods with resource claims wait", draGroupVersion)
	}
	l.objects["Namespace"] = watch("Namespace", f.Core().V1().Namespaces().Informer())
	l.objects["Service"] = watch("Service", f.Core().V1().Services().Informer())
	l.objects["ReplicationController"] = watch("ReplicationController", f.Core().V1().ReplicationControllers().Informer())
	l.objects["ReplicaSet"] = watch("ReplicaSet", f.Apps().V1().ReplicaSets().Informer())
	l.objects["StatefulSet"] = watch("StatefulSet", f.Apps().V1().StatefulSets().Informer())
	l.objects["PriorityClass"] = watch("PriorityClass", f.Scheduling().V1().PriorityClasses().Informer())
	l.objects["PodDisruptionBudget"] = watch("PodDisruptionBudget", f.Policy().V1().PodDisruptionBudgets().Informer())
	f.Start(ctx.Done())
	sctx, scancel := context.WithTimeout(ctx, cfg.SyncTimeout)
	defer scancel()
	for kind, ok := range f.WaitForCacheSync(sctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("live: listing %v from the API server did not finish within %s", kind, cfg.SyncTimeout)
		}
	}
	// The initial cluster: a dump of everything listed.
	var objs []runtime.Object
	add := func(ix cache.Indexer, kind string) {
		items := ix.List()
		sort.Slice(items, func(i, j int) bool { return keyOf(items[i]) < keyOf(items[j]) })
		for _, o := range items {
			ro := o.(runtime.Object)
			objs = append(objs, ro)
			if m, err := meta.Accessor(o); err == nil {
				l.applied[objectRef{kind, m.GetNamespace(), m.GetName()}] = m.GetResourceVersion()
			}
		}
	}
	for _, kind := range objectKinds {
		add(l.objects[kind], kind)
	}
	add(l.nodes, "Node")
	for _, kind := range sortedKinds(l.storage) {
		add(l.storage[kind], kind)
	}
	add(l.pods, "Pod")
	dump, err := convert.Load(kubeload.Options{SchedulerNames: l.names}, objs...)
	if err != nil {
		return nil, fmt.Errorf("live: initial cluster: %w", err)
	}
	for _, f := range dump.Report.Ignored {
		l.stats.Ignored[f.Kind+" "+f.Path] += f.Count
	}
	// The objects of objectKinds, one by one with the per-object rules, as
	// later events bring them.
	for _, kind := range objectKinds {
		for _, o := range l.objects[kind].List() {
			m, _ := meta.Accessor(o)
			ref := objectRef{kind, m.GetNamespace(), m.GetName()}
			v, err := convert.Object(kubeload.Options{SchedulerNames: l.names}, o.(runtime.Object))
			if err != nil || v.Value == nil {
				delete(l.applied, ref)
				continue
			}
			l.values[ref] = v.Value
		}
	}
	// Pods the dump left out are not in the cluster: forget their versions
	// so that a later change is looked at again.
	inDump := map[string]bool{}
	for _, p := range dump.Pods {
		inDump[p.Key()] = true
		l.lastPod[objectRef{"Pod", p.Namespace, p.Name}] = p
	}
	for r := range l.applied {
		if r.Kind == "Pod" && !inDump[r.key()] {
			delete(l.applied, r)
		}
	}
	cluster, err := dump.Cluster()
	if err != nil {
		return nil, fmt.Errorf("live: initial cluster: %w", err)
	}
	opts := slices.Clone(cfg.Options)
	if dra {
		// Claims are allocated and reserved in the API server before
		// their pods are bound, as kube-scheduler's PreBind does.
		l.claims = newClaimWriter(ctx, cfg.Client, l.storage["ResourceClaim"])
		opts = append(opts, scheduling.WithClaimWriter(l.claims))
	}
	if cfg.WriteAPI {
		l.writer = newWriter(cfg.Client, l.pods, cfg.Logf)
		// Victims are deleted through the API and leave the cluster when
		// the informer sees them go, as in kube-scheduler's cache.
		opts = append(opts, scheduling.WithDecisionHandler(l.writer.decision), scheduling.WithObservedEviction())
	}
	w, err := whatif.New(cluster, cfg.Registry, cfg.Profiles, opts...)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	l.what, l.sched = w, w.Scheduler()
	if l.writer != nil {
		l.writer.forked = func() bool { return l.sched.Cluster().Forked() > 0 }
	}
	if l.writer != nil {
		l.writer.start(ctx)
	}
	go l.work(ctx)
	return l, nil
}

// draGroupVersion is the Dynamic Resource Allocation API the feed follows.
const draGroupVersion = "resource.k8s.io/v1"

// draResources returns the resources of draGroupVersion the API server
// serves ("resourceclaims", "devicetaintrules", ...); none when it serves
// no such group version. kube-apiserver v1.37 serves DeviceTaintRules
// there by default; v1.36 serves them only at v1beta2, off by default,
// and its scheduler does not read them by default.
func draResources(client kubernetes.Interface) map[string]bool {
	out := map[string]bool{}
	list, err := client.Discovery().ServerResourcesForGroupVersion(draGroupVersion)
	if err != nil || list == nil {
		return out
	}
	for _, r := range list.APIResources {
		out[r.Name] = true
	}
	return out
}

func keyOf(o any) string {
	k, _ := cache.MetaNamespaceKeyFunc(o)
	return k
}

func sortedKinds(m map[string]cache.Indexer) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Scheduler returns the scheduler the feed keeps up to date. Use its Fork
// for what-if questions: the feed waits while a fork is open and loses no
// event.
func (l *Live) Scheduler() *scheduling.Scheduler { return l.sched }

// SchedulerNames are the schedulerNames of the profiles.
func (l *Live) SchedulerNames() []string { return slices.Clone(l.names) }

// Stats returns a copy of the feed's counters.
func (l *Live) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Stats{Applied: map[string]int{}, Ignored: map[string]int{}, Rejected: map[string]string{}, Retries: l.stats.Retries}
	for k, v := range l.stats.Applied {
		s.Applied[k] = v
	}
	for k, v := range l.stats.Ignored {
		s.Ignored[k] = v
	}
	for k, v := range l.stats.Rejected {
		s.Rejected[k] = v
	}
	return s
}

// Run schedules pods until ctx is done.
func (l *Live) Run(ctx context.Context) { l.sched.Run(ctx) }

// Synced reports whether every event delivered so far has been taken up:
// applied, or refused and waiting to be tried again (Stats().Rejected
// lists those).
func (l *Live) Synced() bool { return l.queue.Len() == 0 }

func (l *Live) logf(format string, args ...any) {
	if l.cfg.Logf != nil {
		l.cfg.Logf(format, args...)
	}
}

// enqueue records that an object changed; the worker reads its latest
// state from the informer's cache (a relist's or resync's events fold into
// one).
func (l *Live) enqueue(kind string, obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	l.queue.Add(objectRef{kind, m.GetNamespace(), m.GetName()})
}

func (l *Live) work(ctx context.Context) {
	go func() {
		<-ctx.Done()
		l.queue.ShutDown()
	}()
	for {
		ref, quit := l.queue.Get()
		if quit {
			return
		}
		l.inflight.Add(1)
		if err := l.apply(ref); err != nil {
			l.mu.Lock()
			l.stats.Retries++
			l.mu.Unlock()
			l.logf("live: %s %s: %v (retrying)", ref.Kind, ref.key(), err)
			l.queue.AddRateLimited(ref)
		} else {
			l.queue.Forget(ref)
		}
		l.queue.Done(ref)
		l.inflight.Add(-1)
		select {
		case l.progress <- struct{}{}:
		default:
		}
	}
}

// catchUpLimit bounds how long a question waits for the feed to apply the
// events already delivered.
const catchUpLimit = 100 * time.Millisecond

// catchUp waits, at most catchUpLimit, until the feed has applied the
// events delivered so far: a question asked then sees them, and questions
// asked back to back do not hold the feed back (while a question's fork is
// open the feed waits).
func (l *Live) catchUp() {
	if l.Synced() && l.inflight.Load() == 0 {
		return
	}
	limit := time.NewTimer(catchUpLimit)
	defer limit.Stop()
	for !l.Synced() || l.inflight.Load() != 0 {
		select {
		case <-l.progress:
		case <-limit.C:
			return
		}
	}
}

func (l *Live) indexer(kind string) cache.Indexer {
	switch kind {
	case "Pod":
		return l.pods
	case "Node":
		return l.nodes
	}
	if ix, ok := l.objects[kind]; ok {
		return ix
	}
	return l.storage[kind]
}

// apply brings the scheduler's copy of one object to the informer's.
func (l *Live) apply(ref objectRef) error {
	obj, exists, err := l.indexer(ref.Kind).GetByKey(ref.key())
	if err != nil {
		return err
	}
	l.mu.Lock()
	rv, known := l.applied[ref]
	l.mu.Unlock()
	if !exists {
		if !known {
			return nil
		}
		if err := l.remove(ref); err != nil {
			return err
		}
		l.forget(ref)
		return nil
	}
	m, _ := meta.Accessor(obj)
	if known && rv == m.GetResourceVersion() {
		return nil // a resync, or an event already applied
	}
	o, err := convert.Object(kubeload.Options{SchedulerNames: l.names}, obj.(runtime.Object))
	if err != nil {
		// Never schedule a pod schedkit cannot read: report it and take it
		// out of the scheduler (other schedulers may take it).
		l.mu.Lock()
		l.stats.Rejected[ref.Kind+" "+ref.key()] = err.Error()
		l.mu.Unlock()
		l.logf("live: %s %s left to others: %v", ref.Kind, ref.key(), err)
		if known {
			if err := l.remove(ref); err != nil {
				return err
			}
			l.forget(ref)
		}
		return nil
	}
	if p, ok := o.Value.(*api.Pod); ok && p.Spec.Priority == nil {
		// The priority a dump's pod gets: its PriorityClass's, as the
		// Priority admission plugin sets it (an API server has set it on
		// every pod it holds).
		kubeload.ResolvePriority(p, l.priorityClasses())
	}
	l.mu.Lock()
	delete(l.stats.Rejected, ref.Kind+" "+ref.key())
	for _, f := range o.Report.Ignored {
		l.stats.Ignored[f.Kind+" "+f.Path] += f.Count
	}
	l.mu.Unlock()
	if o.Value == nil || !l.takes(o.Value) {
		// Terminal, or pending for another scheduler: not in the cluster.
		if known {
			if err := l.remove(ref); err != nil {
				return err
			}
			l.forget(ref)
		}
		return nil
	}
	if p, ok := o.Value.(*api.Pod); ok && known && statusOnly(l.lastPod[ref], p) {
		// kube-scheduler ignores an update of a pending pod that changes
		// only its status (its own PodScheduled condition, say).
		l.mu.Lock()
		l.applied[ref] = m.GetResourceVersion()
		l.lastPod[ref] = p
		l.mu.Unlock()
		return nil
	}
	if err := l.upsert(ref, o.Value, known, m.GetResourceVersion()); err != nil {
		// The scheduler refused the object (a pod on a node not yet
		// seen, an affinity it cannot compile): reported, and retried
		// with backoff in case a later event makes it valid.
		l.mu.Lock()
		l.stats.Rejected[ref.Kind+" "+ref.key()] = err.Error()
		l.mu.Unlock()
		return err
	}
	l.mu.Lock()
	if p, ok := o.Value.(*api.Pod); ok {
		l.lastPod[ref] = p
	}
	l.applied[ref] = m.GetResourceVersion()
	l.stats.Applied[ref.Kind]++
	l.mu.Unlock()
	return nil
}

func (l *Live) forget(ref objectRef) {
	l.mu.Lock()
	delete(l.applied, ref)
	delete(l.lastPod, ref)
	l.stats.Applied[ref.Kind]++
	l.mu.Unlock()
}

// takes says whether the cluster holds the object: a pending pod only when
// one of the profiles schedules it (kubeload's Dump rule).
func (l *Live) takes(v any) bool {
	p, ok := v.(*api.Pod)
	if !ok || p.Spec.NodeName != "" {
		return true
	}
	name := p.Spec.SchedulerName
	if name == "" {
		name = kubeload.DefaultSchedulerName
	}
	return slices.Contains(l.names, name)
}

func (l *Live) upsert(ref objectRef, v any, known bool, version string) error {
	s := l.sched
	if c, ok := v.(*api.ResourceClaim); ok && l.claims != nil {
		// A claim the scheduler wrote itself: the cluster holds the
		// version written, and keeps it while the informer delivers
		// older ones (checked under the scheduler's lock, so that no
		// write of its own slips in between), as kube-scheduler's assume
		// cache does. A claim it created is already in the cluster when
		// the informer first delivers it.
		if !known {
			err := s.AddStorageObject(c)
			if err == nil || !strings.Contains(err.Error(), "already exists") {
				return err
			}
		}
		_, err := s.UpdateStorageObjectUnless(c, func() bool { return l.claims.stale(c.Namespace+"/"+c.Name, version) })
		return err
	}
	switch o := v.(type) {
	case *api.Pod:
		if !known {
			return s.AddObservedPod(o)
		}
		if err := s.UpdatePod(o); err != nil {
			if isUnknown(err) {
				// A preemption victim the scheduler evicted from its
				// cluster: as in kube-scheduler's cache, it holds its
				// resources until the API server has deleted it, and the
				// preemptor waits on its nominated node meanwhile.
				return s.AddObservedPod(o)
			}
			// Bound by someone else, or recreated under the same name:
			// the pod is replaced.
			if derr := s.DeletePod(o.Namespace, o.Name); derr != nil {
				return fmt.Errorf("%w; %w", err, derr)
			}
			return s.AddObservedPod(o)
		}
		return nil
	case *api.Node:
		if !known {
			return s.AddNode(o)
		}
		return s.UpdateNode(o)
	case api.StorageObject:
		if !known {
			return s.AddStorageObject(o)
		}
		return s.UpdateStorageObject(o)
	case api.Namespace, api.Service, api.WorkloadController, kubeload.PriorityClass, api.PodDisruptionBudget:
		return l.setValue(ref, v)
	}
	return fmt.Errorf("live: %s %s: kind not fed", ref.Kind, ref.key())
}

// setValue records the object of one of objectKinds (nil: deleted) and
// gives the scheduler its kind's new list.
func (l *Live) setValue(ref objectRef, v any) error {
	l.mu.Lock()
	old, had := l.values[ref]
	if v == nil {
		delete(l.values, ref)
	} else {
		l.values[ref] = v
	}
	l.mu.Unlock()
	err := l.give(ref, v)
	if err != nil {
		// Refused (a budget whose selector does not compile): the
		// scheduler keeps the list it had.
		l.mu.Lock()
		if had {
			l.values[ref] = old
		} else {
			delete(l.values, ref)
		}
		l.mu.Unlock()
	}
	return err
}

// give hands the scheduler the change of ref to v (nil: deleted).
func (l *Live) give(ref objectRef, v any) error {
	s := l.sched
	switch ref.Kind {
	case "Namespace":
		if v == nil {
			return s.DeleteNamespace(ref.Name)
		}
		ns, _ := kubeload.NamespaceWithNameLabel(v.(api.Namespace))
		return s.SetNamespace(ns)
	case "Service":
		return s.SetServices(valuesOf[api.Service](l, "Service"))
	case "ReplicationController", "ReplicaSet", "StatefulSet":
		return s.SetControllers(valuesOf[api.WorkloadController](l, "ReplicationController", "ReplicaSet", "StatefulSet"))
	case "PodDisruptionBudget":
		return s.SetDisruptionBudgets(valuesOf[api.PodDisruptionBudget](l, "PodDisruptionBudget"))
	case "PriorityClass":
		return nil // read when a pod without priority arrives
	}
	return fmt.Errorf("live: %s %s: kind not fed", ref.Kind, ref.key())
}

// valuesOf lists the values of kinds in a dump's order: kind by kind,
// each by namespace/name.
func valuesOf[T any](l *Live, kinds ...string) []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	refs := make([]objectRef, 0, len(l.values))
	for r := range l.values {
		if slices.Contains(kinds, r.Kind) {
			refs = append(refs, r)
		}
	}
	rank := func(k string) int { return slices.Index(kinds, k) }
	sort.Slice(refs, func(i, j int) bool {
		if a, b := rank(refs[i].Kind), rank(refs[j].Kind); a != b {
			return a < b
		}
		return refs[i].key() < refs[j].key()
	})
	out := make([]T, 0, len(refs))
	for _, r := range refs {
		out = append(out, l.values[r].(T))
	}
	return out
}

// priorityClasses are the PriorityClasses the feed holds.
func (l *Live) priorityClasses() []kubeload.PriorityClass {
	return valuesOf[kubeload.PriorityClass](l, "PriorityClass")
}

func (l *Live) remove(ref objectRef) error {
	s := l.sched
	var err error
	switch ref.Kind {
	case "Pod":
		err = s.DeletePod(ref.Namespace, ref.Name)
	case "Node":
		_, err = s.RemoveNode(ref.Name)
	case "Namespace", "Service", "ReplicationController", "ReplicaSet", "StatefulSet", "PriorityClass", "PodDisruptionBudget":
		err = l.setValue(ref, nil)
	default:
		err = s.DeleteStorageObject(api.StorageKind(ref.Kind), ref.Namespace, ref.Name)
	}
	if err != nil && isUnknown(err) {
		return nil // already gone (a preemption victim the scheduler evicted)
	}
	return err
}

func isUnknown(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "unknown pod") || strings.Contains(err.Error(), "unknown node") ||
		strings.Contains(err.Error(), "not found"))
}

// PodsOf lists the pods the informer holds with the label selector, for
// commands and tests.
func (l *Live) PodsOf(sel labels.Selector) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range l.pods.List() {
		p := o.(*corev1.Pod)
		if sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// statusOnly reports whether two versions of a pending pod differ only in
// status fields other than the nominated node and the generated resource
// claims: kube-scheduler's queue compares a pending pod's versions with
// their status stripped but for resourceClaimStatuses (the resource claim
// controller's naming of a template's claim ends DynamicResources'
// PreEnqueue wait, framework.PodSchedulingPropertiesChange).
func statusOnly(old, cur *api.Pod) bool {
	if old == nil || old.Spec.NodeName != "" || cur.Spec.NodeName != "" ||
		old.Status.NominatedNodeName != cur.Status.NominatedNodeName {
		return false
	}
	a, b := *old, *cur
	a.Status = api.PodStatus{ResourceClaimStatuses: old.Status.ResourceClaimStatuses}
	b.Status = api.PodStatus{ResourceClaimStatuses: cur.Status.ResourceClaimStatuses}
	return reflect.DeepEqual(a, b)
}
