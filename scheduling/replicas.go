package scheduling

import (
	"context"
	"errors"
	"fmt"
	"github.com/schedkit/schedkit/filter/dynamicresources"
	"maps"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// replicaAdder adds a capacity question's replicas to the scheduler and
// runs each one's scheduling cycle at once, as SchedulePod does (the same
// cluster, queue and event steps, then the same cycle), but without
// deriving each replica's PodInfo anew. Replicas differ from their
// template only in name (and, for a StatefulSet, in the claims their
// volumes name), and a PodInfo derives from neither (requests, compiled
// affinity terms over the labels and namespace), so the PodInfo AddPod
// built for the first replica serves every later one with that replica's
// own Pod. A replica whose volumes its claims renamed is validated again
// (ValidatePod is cheap; compiling its affinity terms again is what costs).
//
// On a fork, a replica after the first also skips the queue
// (Queue.detached): it is not pushed to the active queue and
// taken from it again, leaves no record when its cycle ends, and its
// binding moves no queued pod (no assigned-pod event). Inside the question
// every replica is taken at once by key and nothing else is popped before
// the question's Revert, so the queue's order, counters, moves and journal
// serve no one; the replica still passes the PreEnqueue gate (a gated one
// takes the queued path, which runs the gate again and fails as
// SchedulePod does), and its cycle, reason and decision are those of the
// queued path. A replica of a pod group (Coscheduling's label, a
// scheduling group) or under gang scheduling takes the queued path: those
// plugins activate and count queued siblings.
//
// From the second replica on, each cycle goes to the question's
// incremental evaluator (replicaEval) when the profile allows one.
type replicaAdder struct {
	tmpl   *framework.PodInfo // the first replica's PodInfo, nil before it
	detach bool               // replicas after the first skip the queue
	// sameSpec: replicas differ from the first only in name (no claim
	// templates rename their volumes), which api.ValidatePod reads
	// for its messages only: the first replica's validation holds for
	// every one.
	sameSpec bool
	eval     *replicaEval // nil when the profile allows none
	// evalTried: newReplicaEval ran (eval is its answer).
	evalTried bool
	// sig is the replicas' pod signature (Framework.SignPod), computed
	// once, when signed, for the detached replicas of a sameSpec question:
	// a signature is a function of what a pod's scheduling reads (its
	// spec, labels and namespace, never its name), which replicas share.
	sig    framework.PodSignature
	signed bool
	// h and state are the handle and first state of a detached replica's
	// cycle, reset for each one (Scheduler.replicaHandle, replicaState).
	h     cycleHandle
	state framework.CycleState
	// slab gives the memory of detached replicas' assumed copies
	// (Scheduler.replicaSlab).
	slab cluster.AssumedSlab
	// spare is the memory of a replica nothing holds any more, which
	// replica hands out for the next one (nil: none).
	spare *capReplica
}

// replicaEval is a runtime.Incremental for the cycles of one capacity
// question's replicas under the profile fw: between two replicas' cycles
// the fork changes only by the replica placed, which the evaluator is told.
type replicaEval struct {
	fw  *runtime.Framework
	inc *runtime.Incremental
}

// newReplicaEval returns the evaluator for replicas sharing tmpl, or nil
// when the profile's Reserve, Permit or PreBind plugins could read what
// PreFilter wrote to the cycle state (the evaluator keeps that in a state
// of its own): only VolumeBinding, for a pod without volumes, and
// DynamicResources, for a pod it skips (node-local: no claims), are
// allowed there (their PreFilter skips: they reserve and bind nothing).
func (s *Scheduler) newReplicaEval(tmpl *framework.PodInfo) *replicaEval {
	prof, err := s.profileFor(tmpl.Pod)
	if err != nil || !evalAllowed(prof, tmpl) {
		return nil
	}
	// The evaluator's state carries the scheduler's data of a cycle as
	// every cycle state does (s.newState), for the services that act for a
	// cycle (handle.go). Its PreFilter, Filter, PreScore and Score read
	// nothing per cycle from it.
	h := &cycleHandle{s: s, prof: prof}
	init := func(st *framework.CycleState) { st.Write(handleKey, h) }
	return &replicaEval{fw: prof.fw, inc: prof.fw.NewIncremental(init)}
}

// evalAllowed reports whether prof's Reserve, Permit and PreBind plugins
// leave pod's cycle to an incremental evaluator (newReplicaEval); pod nil
// asks whether they could for some pod: every one of them is
// VolumeBinding or DynamicResources.
func evalAllowed(prof *profile, pod *framework.PodInfo) bool {
	p := prof.fw.Profile()
	for _, list := range [][]string{p.Reserve, p.Permit, p.PreBind} {
		for _, name := range list {
			pl, _ := prof.fw.Plugin(name)
			dr, isDR := pl.(*dynamicresources.DynamicResources)
			switch {
			case pod == nil && (isDR || name == config.VolumeBindingName):
			case isDR && dr.NodeLocal(pod):
			case name == config.VolumeBindingName && len(pod.Pod.Spec.Volumes) == 0:
			default:
				return false
			}
		}
	}
	return true
}

// signature returns the replicas' signature, pi a replica's PodInfo.
func (a *replicaAdder) signature(ctx context.Context, s *Scheduler, pi *framework.PodInfo) framework.PodSignature {
	if !a.signed {
		if prof, err := s.profileFor(pi.Pod); err == nil {
			a.sig = prof.fw.SignPod(ctx, pi)
		}
		a.signed = true
	}
	return a.sig
}

// close releases the evaluator's state.
func (a *replicaAdder) close() {
	if a.eval != nil {
		a.eval.inc.Close()
	}
}

// capReplica is a replica's pod, the PodInfo and pending record the
// cluster keeps for it and its detached queue record, allocated together.
// Each field is assigned whole before it is read (setReplica, schedule,
// Cluster.AddPodInfo, Queue.detached), so a released replica's
// memory serves the next one as it is.
type capReplica struct {
	pod  api.Pod
	info framework.PodInfo
	rec  cluster.Entry
	qp   queue.DetachedPod
}

// replica is a pending copy of template named name (replicaOf), in the
// memory of the last released replica when there is one: a replica that
// is placed lives on in the copy Cluster.AssumeKey makes, so its pending
// copy is garbage once its cycle is over, and reusing it saves one
// allocation of about a kilobyte per replica.
func (a *replicaAdder) replica(template *api.Pod, name string) *capReplica {
	r := a.spare
	a.spare = nil
	if r == nil {
		r = new(capReplica)
	}
	setReplica(&r.pod, template, name)
	return r
}

// schedule is SchedulePod(ctx, &r.pod) on the question's fork f for the
// next replica r, a fresh copy the cluster may keep, whose key
// (namespace/name) is key.
func (a *replicaAdder) schedule(ctx context.Context, f *Fork, r *capReplica, key string) (Decision, error) {
	p, s := &r.pod, f.s
	if a.tmpl == nil {
		d, err := f.SchedulePod(ctx, p)
		if err != nil {
			return d, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if pi, _, ok := s.cluster.PodInfo(key); ok {
			a.tmpl = pi
			a.detach = len(s.forks) > 0 && !s.workload.features.GangScheduling &&
				api.PodGroupKey(p) == "" && p.Spec.SchedulingGroup == nil
		}
		if d.Outcome == OutcomeScheduled {
			a.spare = r // SchedulePod placed a copy of it
		}
		return d, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, dup := s.cluster.PodInfo(key); dup {
		return Decision{}, fmt.Errorf("scheduling: AddPod: pod %s already exists", key)
	}
	if !a.sameSpec {
		if err := api.ValidatePod(p); err != nil {
			return Decision{}, fmt.Errorf("scheduling: AddPod: %w", err)
		}
	}
	r.info = *a.tmpl
	r.info.Pod = p
	pi := &r.info
	mark := s.cluster.JournalLen()
	if err := s.cluster.AddPodInfo(key, pi, &r.rec, true); err != nil {
		return Decision{}, err
	}
	if !a.evalTried {
		a.eval, a.evalTried = s.newReplicaEval(a.tmpl), true
	}
	s.replicas = a.eval
	var d Decision
	if !a.detach || !s.preEnqueue(pi).IsSuccess() {
		// The queued path.
		s.podAdded(key)
		var err error
		if d, err = s.scheduleAddedLocked(ctx, key); err != nil {
			s.replicas = nil
			return d, err
		}
	} else {
		// podAdded and scheduleAddedLocked without the queue: a pending
		// replica has no nomination, and no gang event is due (detach).
		s.signal()
		async := s.async
		s.async = false
		qp := s.queue.Detached(&r.qp, pi, key, s.clock.Now())
		if a.sameSpec {
			qp.Sig, qp.Signed = a.signature(ctx, s, pi), true
		}
		s.replicaHandle, s.replicaState, s.replicaSlab = &a.h, &a.state, &a.slab
		d = s.scheduleCycle(ctx, qp)
		s.replicaHandle, s.replicaState, s.replicaSlab = nil, nil, nil
		s.async = async
		// Once placed, nothing holds the replica's memory but what only
		// reads what replicas share (its spec, labels and namespace, the
		// same in the next replica it becomes): the ranking the cycle kept
		// (whose pod, signed already, is not signed again) and the
		// evaluator's state. The cluster keeps the copy assume made, and
		// the decision names the pod by key (its Result, which points to
		// the pod, is kept only with explanations on).
		if d.Outcome == OutcomeScheduled && a.sameSpec && !s.keepResults && !s.cluster.Holds(key, mark, &r.rec) {
			a.spare = r
			s.replicasReused++
		}
	}
	s.replicas = nil
	if a.eval != nil && d.Outcome == OutcomeScheduled {
		if placed, _, ok := s.cluster.PodInfo(key); ok {
			a.eval.inc.Added(placed, d.Node)
		}
	}
	return d, nil
}

// Replicas adds copies of one template pod to a fork and schedules them,
// one after another, each as SchedulePod would (the same cluster, queue
// and event steps, then the same cycle), and faster: each replica reuses
// its template's PodInfo and signature, skips the queue where nothing
// reads it, and, where the profile allows, goes to an incremental
// evaluator that is told only the replica placed last. It is the engine
// of a capacity question (how many more replicas fit). Each
// replica is a pending copy named <base>-1, <base>-2, ... (base: the
// template's name, or "whatif"), skipping names the cluster holds, and,
// with claim templates, gets the claims a StatefulSet controller would
// create for it (a claim that exists already is reused). Close it before
// the fork's Commit or Revert.
type Replicas struct {
	f        *Fork
	template *api.Pod
	claims   []*api.PersistentVolumeClaim
	class    string // the default storage class claims get
	names    *replicaNamer
	a        replicaAdder
	r        *capReplica // the replica Next handed out last
	key      string
}

// Replicas returns the replicas of template on the open fork, with the
// claims of claimTemplates (each named, names unique: StatefulSet
// volumeClaimTemplates). While they are open, the cluster remembers the
// pod-group keys of the labels replicas share.
func (f *Fork) Replicas(template *api.Pod, claimTemplates []*api.PersistentVolumeClaim) (*Replicas, error) {
	switch {
	case f == nil || f.s == nil:
		return nil, errors.New("scheduling: Fork.Replicas: not a fork made by Scheduler.Fork")
	case f.closed:
		return nil, errors.New("scheduling: Fork.Replicas: the fork is already committed or reverted")
	case template == nil:
		return nil, errors.New("scheduling: Fork.Replicas: nil template")
	}
	c := f.s.cluster
	r := &Replicas{f: f, template: template, claims: claimTemplates, names: newReplicaNamer(c, template),
		a: replicaAdder{sameSpec: len(claimTemplates) == 0}}
	c.MemoGroups(true)
	if len(claimTemplates) > 0 {
		r.class = c.DefaultStorageClass()
	}
	return r, nil
}

// Next returns the next replica, a pending copy of the template under the
// next free name, with its claims added to the fork, and its key
// (namespace/name). The pod is the Replicas' own until Schedule.
func (r *Replicas) Next() (*api.Pod, string, error) {
	name, key := r.names.next()
	r.r, r.key = r.a.replica(r.template, name), key
	p := &r.r.pod
	if err := r.f.s.addReplicaClaims(p, r.claims, r.class); err != nil {
		return nil, "", err
	}
	return p, key, nil
}

// Schedule adds the replica Next returned last to the fork and runs its
// scheduling cycle at once, as SchedulePod does.
func (r *Replicas) Schedule(ctx context.Context) (Decision, error) {
	return r.a.schedule(ctx, r.f, r.r, r.key)
}

// ClaimsOf returns the claims a StatefulSet controller creates for pod
// from the claim templates, each in the class it gets.
func (r *Replicas) ClaimsOf(pod *api.Pod) []*api.PersistentVolumeClaim {
	out := make([]*api.PersistentVolumeClaim, len(r.claims))
	for i, t := range r.claims {
		out[i] = claimFromTemplate(pod, t, r.class)
	}
	return out
}

// Close releases what the replicas hold (their evaluator's state, the
// cluster's memo of their labels).
func (r *Replicas) Close() {
	r.a.close()
	r.f.s.cluster.MemoGroups(false)
}

// setReplica makes p a pending copy of template named name.
func setReplica(p, template *api.Pod, name string) {
	*p = *template
	p.Name = name
	p.UID = ""
	p.Spec.NodeName = ""
	p.Status = api.PodStatus{Phase: api.PodPending}
}

// replicaNamer hands out <base>-1, <base>-2, ... skipping names the
// cluster already has.
type replicaNamer struct {
	c         *cluster.Cluster
	namespace string
	base      string
	n         int    // the number of the last key built
	keys      string // keys built at once, one after another
	ends      []int  // where each of keys ends
	i         int    // the next key of keys
	buf       []byte // keys being built
}

// replicaKeyBatch bounds how many keys replicaNamer builds at once (one
// allocation for all): a batch doubles from 8 up to it.
const replicaKeyBatch = 512

func newReplicaNamer(c *cluster.Cluster, template *api.Pod) *replicaNamer {
	base := template.Name
	if base == "" {
		base = "whatif"
	}
	return &replicaNamer{c: c, namespace: template.Namespace, base: base}
}

// next returns the next free name and its pod key (namespace/name), the
// name a substring of the key. Each name is checked against the cluster
// when it is handed out, not when its batch is built.
func (r *replicaNamer) next() (name, key string) {
	for {
		if r.i == len(r.ends) {
			r.build()
		}
		start := 0
		if r.i > 0 {
			start = r.ends[r.i-1]
		}
		key = r.keys[start:r.ends[r.i]]
		r.i++
		if _, _, taken := r.c.PodInfo(key); !taken {
			return key[len(r.namespace)+1:], key
		}
	}
}

// build makes the next batch of keys, twice as many as the last one (up
// to replicaKeyBatch).
func (r *replicaNamer) build() {
	count := min(max(2*len(r.ends), 8), replicaKeyBatch)
	r.buf, r.ends, r.i = r.buf[:0], r.ends[:0], 0
	for range count {
		r.n++
		r.buf = append(r.buf, r.namespace...)
		r.buf = append(r.buf, '/')
		r.buf = append(r.buf, r.base...)
		r.buf = append(r.buf, '-')
		r.buf = strconv.AppendInt(r.buf, int64(r.n), 10)
		r.ends = append(r.ends, len(r.buf))
	}
	r.keys = string(r.buf)
}

// claimFromTemplate is the claim the StatefulSet controller creates for
// pod from template t: <template name>-<pod name> in the pod's namespace,
// with the template's labels, annotations and spec, and class defaultClass
// when the template names none (storage_defaultclass.go).
func claimFromTemplate(pod *api.Pod, t *api.PersistentVolumeClaim, defaultClass string) *api.PersistentVolumeClaim {
	c := &api.PersistentVolumeClaim{Spec: t.Spec}
	c.Name, c.Namespace = t.Name+"-"+pod.Name, pod.Namespace
	c.Labels, c.Annotations = maps.Clone(t.Labels), maps.Clone(t.Annotations)
	cluster.WithDefaultClass(c, defaultClass)
	return c
}

// addReplicaClaims gives replica pod its claims from the templates, on the
// question's fork: each claim is created unless it exists (the controller
// then reuses it, bound or not), and the pod's volumes become one claim
// volume per template, named after it, followed by the pod's other
// volumes (k8s.io/kubernetes pkg/controller/statefulset updateStorage).
func (s *Scheduler) addReplicaClaims(pod *api.Pod, templates []*api.PersistentVolumeClaim, defaultClass string) error {
	if len(templates) == 0 {
		return nil
	}
	c := s.cluster
	vols := make([]api.Volume, 0, len(templates)+len(pod.Spec.Volumes))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range templates {
		claim := claimFromTemplate(pod, t, defaultClass)
		if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, claim.Namespace, claim.Name); !ok {
			if err := c.AddStorageObject(claim); err != nil {
				return fmt.Errorf("replica %s: claim %s from template %q: %w", pod.Key(), claim.Key(), t.Name, err)
			}
		}
		vols = append(vols, api.Volume{Name: t.Name, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim.Name}}})
	}
	for _, v := range pod.Spec.Volumes {
		if !slices.ContainsFunc(templates, func(t *api.PersistentVolumeClaim) bool { return t.Name == v.Name }) {
			vols = append(vols, v)
		}
	}
	pod.Spec.Volumes = vols
	return nil
}
