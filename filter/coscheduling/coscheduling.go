// Package coscheduling is scheduler-plugins' Coscheduling plugin
// (pkg/coscheduling, pkg/coscheduling/core) with its args: gang scheduling
// of the pods that name a scheduler-plugins PodGroup. It reads the groups
// through its handle's PodGroupManager and holds, releases and reorders
// pods through its WaitingPods and Activator; it runs with kube-scheduler's
// framework of either release (v1.37 is schedkit's default).
package coscheduling

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/journal"
	"github.com/schedkit/schedkit/resource"
)

// csPermittedDefaultTTL is the TTL scheduler-plugins' permittedPG cache
// applies when the plugin's wait is 0 (go-cache's default expiration of
// that cache, core.go NewPodGroupManager).
const csPermittedDefaultTTL = 3 * time.Second

// Coscheduling is scheduler-plugins' Coscheduling plugin: gang scheduling
// of the pods that name a api.PodGroup with the api.PodGroupLabel label.
// It reads the PodGroups and their pods through its handle's
// PodGroupManager and the pods held at Permit through its WaitingPods (a
// scheduler's; outside one there are no PodGroups, so a pod naming one is
// rejected at Permit).
//
//   - QueueSort: higher priority first; then the earlier of the group's
//     creation time (or, after a failure of the group, the time of that
//     failure, so a failing gang does not block the others) or, for a pod
//     without a group, its first attempt; then namespace/name.
//   - PreFilter (UnschedulableAndUnresolvable, so no preemption): a group
//     backing off ("podGroup ns/pg failed recently"); fewer pods in the
//     cluster than minMember; fewer pods without scheduling gates than
//     minMember (gated pods cannot join the gang until their gates are
//     removed); with minResources, a cluster whose free
//     resources (summed over nodes, the group's own pods not counted, pods
//     = minMember) cannot cover them ("resource gap: …"; a passing group is
//     not checked again for permitWaitingTimeSeconds).
//   - Permit: a pod without group passes; a pod naming a missing PodGroup
//     is rejected; when the placed (assumed or bound) pods of the group
//     reach minMember every waiting sibling is allowed; otherwise the pod
//     waits (scheduleTimeoutSeconds of the group, else
//     permitWaitingTimeSeconds, else 60 s) and the first waiting pod moves
//     its queued siblings to the active queue.
//   - PostFilter: when a pod of a group finds no node and more than
//     podGroupRejectPercentage of minMember is unplaced, every waiting pod
//     of the group is rejected, the group may back off
//     (podGroupBackoffSeconds) and is marked failed.
//   - Unreserve (a pod rejected or timed out at Permit, or failing later):
//     every waiting sibling is rejected and the group is marked failed, so
//     no pod of a failed gang stays reserved.
//
// On a virtual clock a gang that cannot be placed would be retried forever
// at one instant: each failure rejects the waiting pods, whose release
// retries the others (kube-scheduler does the same in real time until
// podGroupBackoffSeconds or the clock intervenes). So a group that failed
// at the clock's current instant is refused at PreFilter ("failed
// recently") until the clock moves; on a real clock this never triggers.
//
// The plugin's memory (backoffs, failure marks, checked minResources,
// groups seen) is part of a Scheduler's branch: Revert forgets what the
// branch added to it and restores what it removed (framework.ForkablePlugin).
type Coscheduling struct {
	args       CoschedulingArgs
	h          framework.Handle
	clock      framework.Clock
	wait       time.Duration // permitWaitingTimeSeconds
	backoff    time.Duration // podGroupBackoffSeconds (0: none)
	rejectFrac float64

	mu         sync.Mutex
	permitted  map[string]time.Time // group → end of its minResources pass
	backedOff  map[string]time.Time // group → end of its backoff
	lastFailed map[string]time.Time // group → last failure
	known      map[string]bool      // groups whose PodGroup was seen
	// The fork journals of the four maps (Fork).
	permittedSaved, backedOffSaved, lastFailedSaved journal.Map[string, time.Time]
	knownSaved                                      journal.Map[string, bool]
}

var (
	_ framework.QueueSortPlugin   = (*Coscheduling)(nil)
	_ framework.PreFilterPlugin   = (*Coscheduling)(nil)
	_ framework.PostFilterPlugin  = (*Coscheduling)(nil)
	_ framework.PermitPlugin      = (*Coscheduling)(nil)
	_ framework.ReservePlugin     = (*Coscheduling)(nil)
	_ framework.ForkablePlugin    = (*Coscheduling)(nil)
	_ framework.EnqueueExtensions = (*Coscheduling)(nil)
)

// New builds the plugin from args (nil: DefaultCoschedulingArgs(); a
// CoschedulingArgs or a pointer to one is used as given), validated as
// scheduler-plugins' ValidateCoschedulingArgs; it is a framework.Factory.
// A nil h is a framework that runs on no scheduler (framework.NewHandle).
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.CoschedulingName, args, h, DefaultCoschedulingArgs, newCoscheduling)
}

func newCoscheduling(a CoschedulingArgs, h framework.Handle) (framework.Plugin, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if h == nil {
		h = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
	}
	pl := &Coscheduling{args: a, h: h, clock: framework.RealClock{},
		wait: time.Duration(a.PermitWaitingTimeSeconds) * time.Second, backoff: time.Duration(a.PodGroupBackoffSeconds) * time.Second,
		rejectFrac: float64(a.PodGroupRejectPercentage) / 100,
		permitted:  map[string]time.Time{}, backedOff: map[string]time.Time{}, lastFailed: map[string]time.Time{}, known: map[string]bool{}}
	if h.Clock() != nil {
		pl.clock = h.Clock()
	}
	return pl, nil
}

// Name returns "Coscheduling".
func (pl *Coscheduling) Name() string { return config.CoschedulingName }

// Args returns the validated args.
func (pl *Coscheduling) Args() CoschedulingArgs { return pl.args }

// Memory is what a Coscheduling plugin remembers across cycles, by PodGroup
// key (namespace/name): the end of each group's minResources pass
// (Permitted) and backoff (BackedOff), its last failure (LastFailed), and
// the groups whose PodGroup it has seen (Known, sorted).
type Memory struct {
	Permitted, BackedOff, LastFailed map[string]time.Time
	Known                            []string
}

// Memory returns a copy of what the plugin remembers.
func (pl *Coscheduling) Memory() Memory {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	m := Memory{Permitted: maps.Clone(pl.permitted), BackedOff: maps.Clone(pl.backedOff), LastFailed: maps.Clone(pl.lastFailed)}
	m.Known = slices.Sorted(maps.Keys(pl.known))
	return m
}

// group returns the key and PodGroup of a pod's group: "" when the pod
// names none, a nil group when the PodGroup does not exist.
func (pl *Coscheduling) group(pgm framework.PodGroupManager, pod *api.Pod) (string, *api.PodGroup) {
	key := api.PodGroupKey(pod)
	if key == "" {
		return key, nil
	}
	g, ok := pgm.PodGroup(key)
	if !ok {
		return key, nil
	}
	pl.mu.Lock()
	if !pl.known[key] {
		pl.knownSaved.Set(pl.known, key, true)
	}
	pl.mu.Unlock()
	return key, g
}

// Less orders the queue; see Coscheduling.
func (pl *Coscheduling) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue()
	if pa != pb {
		return pa > pb
	}
	ta, tb := pl.creationTime(a), pl.creationTime(b)
	if ta.Equal(tb) {
		return a.Pod.Key() < b.Pod.Key()
	}
	return ta.Before(tb)
}

// creationTime is scheduler-plugins' GetCreationTimestamp: the group's last
// failure, else its creation time, else (no group, or no PodGroup) the
// pod's first attempt (its queue time before the first attempt; the anchor
// dereferences the unset pointer).
func (pl *Coscheduling) creationTime(q *framework.QueuedPodInfo) time.Time {
	ts := q.Timestamp
	if q.InitialAttemptTimestamp != nil {
		ts = *q.InitialAttemptTimestamp
	}
	key := api.PodGroupKey(q.Pod)
	if key == "" {
		return ts
	}
	pl.mu.Lock()
	failed, ok := pl.lastFailed[key]
	pl.mu.Unlock()
	if ok {
		return failed
	}
	g, ok := pl.h.PodGroupManager().PodGroup(key)
	if !ok {
		return ts
	}
	return g.CreationTimestamp
}

// PreFilter rejects a pod whose group cannot be placed whole; see
// Coscheduling.
func (pl *Coscheduling) PreFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	pgm := pl.h.PodGroupManager()
	key, g := pl.group(pgm, pod.Pod)
	if g == nil {
		return nil, nil
	}
	now := pl.clock.Now()
	pl.mu.Lock()
	until, backing := pl.backedOff[key]
	if failed, ok := pl.lastFailed[key]; ok && failed.Equal(now) {
		// Failed at this very instant: wait for the clock to move (see
		// Coscheduling on virtual time).
		until, backing = now, true
	}
	pl.mu.Unlock()
	if backing && !now.After(until) {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("podGroup %v failed recently", key))
	}
	total, _ := pgm.PodGroupCounts(g.Namespace, g.Name)
	if int(g.Spec.MinMember) > total {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(
			"pre-filter pod %v cannot find enough sibling pods, current pods number: %v, minMember of group: %v", pod.Pod.Name, total, g.Spec.MinMember))
	}
	if gated := pgm.PodGroupGated(g.Namespace, g.Name); gated > total-int(g.Spec.MinMember) {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(
			"pre-filter pod %v cannot proceed due to gated pods in the same PodGroup", pod.Pod.Name))
	}
	if g.Spec.MinResources == nil {
		return nil, nil
	}
	pl.mu.Lock()
	until, ok := pl.permitted[key]
	pl.mu.Unlock()
	if ok && !now.After(until) {
		return nil, nil
	}
	if gap := csResourceGap(nodes, g); gap != "" {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "resource gap: "+gap)
	}
	ttl := pl.wait
	if ttl == 0 {
		ttl = csPermittedDefaultTTL
	}
	pl.mu.Lock()
	pl.permittedSaved.Set(pl.permitted, key, now.Add(ttl))
	pl.mu.Unlock()
	return nil, nil
}

// csResourceGap is scheduler-plugins' CheckClusterResource: minResources
// with pods = minMember, minus each node's free resources (allocatable −
// requested, the group's own pods on the node not counted), node by node,
// until nothing is missing. It returns what is still missing ("" when the
// cluster covers it), as "name=amount" in name order.
func csResourceGap(nodes []*framework.NodeInfo, g *api.PodGroup) string {
	type want struct {
		name   resource.Name
		amount int64
	}
	var wants []want
	for _, n := range g.Spec.MinResources.Names() {
		if n == resource.Pods {
			continue // replaced by minMember
		}
		q := g.Spec.MinResources[n]
		amount := q.Value()
		if n == resource.CPU {
			amount = q.MilliValue()
		}
		wants = append(wants, want{n, amount})
	}
	wants = append(wants, want{resource.Pods, int64(g.Spec.MinMember)})
	missing := 0
	for _, w := range wants {
		if w.amount > 0 {
			missing++
		}
	}
	key := g.Key()
	for _, ni := range nodes {
		if missing == 0 {
			break
		}
		if ni == nil || ni.Node() == nil {
			continue
		}
		// The group's own pods on the node do not count as used.
		var own resource.Vector
		pods := int64(len(ni.Pods))
		for _, pi := range ni.Pods {
			if api.PodGroupKey(pi.Pod) == key {
				own.Add(pi.Requests)
				pods--
			}
		}
		for i := range wants {
			w := &wants[i]
			if w.amount <= 0 {
				continue
			}
			free := ni.Allocatable.Pods - pods
			if w.name != resource.Pods {
				free = ni.Allocatable.Get(w.name) - ni.Requested.Get(w.name) + own.Get(w.name)
			}
			if w.amount -= free; w.amount <= 0 {
				missing--
			}
		}
	}
	if missing == 0 {
		return ""
	}
	gap := resource.List{}
	for _, w := range wants {
		switch {
		case w.amount <= 0:
		case w.name == resource.CPU:
			gap[w.name] = resource.NewMilliQuantity(w.amount, resource.DecimalSI)
		default:
			gap[w.name] = resource.NewQuantity(w.amount, resource.DecimalSI)
		}
	}
	return gap.String()
}

// PreFilterExtensions returns nil.
func (pl *Coscheduling) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// PostFilter rejects the waiting pods of a group that a pod of it cannot
// join; see Coscheduling.
func (pl *Coscheduling) PostFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	pgm := pl.h.PodGroupManager()
	key, g := pl.group(pgm, pod.Pod)
	if g == nil {
		return &framework.PostFilterResult{}, framework.NewStatus(framework.Unschedulable, "can not find pod group")
	}
	total, assigned := pgm.PodGroupCounts(g.Namespace, g.Name)
	if assigned >= int(g.Spec.MinMember) {
		return &framework.PostFilterResult{}, framework.NewStatus(framework.Unschedulable)
	}
	if float64(int(g.Spec.MinMember)-assigned)/float64(g.Spec.MinMember) <= pl.rejectFrac {
		return &framework.PostFilterResult{}, framework.NewStatus(framework.Unschedulable)
	}
	pl.rejectWaiting(key, "optimistic rejection in PostFilter")
	now := pl.clock.Now()
	pl.mu.Lock()
	if pl.backoff > 0 && total >= int(g.Spec.MinMember) {
		pl.backedOffSaved.Set(pl.backedOff, key, now.Add(pl.backoff))
	}
	pl.permittedSaved.Delete(pl.permitted, key)
	pl.lastFailedSaved.Set(pl.lastFailed, key, now)
	pl.mu.Unlock()
	pl.reorder()
	return &framework.PostFilterResult{}, framework.NewStatus(framework.Unschedulable,
		fmt.Sprintf("PodGroup %v gets rejected due to Pod %v is unschedulable even after PostFilter", key, pod.Pod.Name))
}

// rejectWaiting rejects every pod of group key held at Permit, in
// namespace/name order.
func (pl *Coscheduling) rejectWaiting(key, msg string) {
	for _, w := range pl.h.WaitingPods().List() {
		if api.PodGroupKey(w.Pod()) == key {
			w.Reject(pl.Name(), msg)
		}
	}
}

// Permit holds a pod until its group reaches minMember; see Coscheduling.
func (pl *Coscheduling) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) (*framework.Status, time.Duration) {
	pgm := pl.h.PodGroupManager()
	key, g := pl.group(pgm, pod.Pod)
	if key == "" {
		return nil, 0
	}
	if g == nil {
		return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("PodGroup %s not found", key)), 0
	}
	_, assigned := pgm.PodGroupCounts(g.Namespace, g.Name) // the pod itself is assumed
	if assigned >= int(g.Spec.MinMember) {
		pl.mu.Lock()
		_, failed := pl.lastFailed[key]
		pl.lastFailedSaved.Delete(pl.lastFailed, key)
		pl.mu.Unlock()
		if failed {
			pl.reorder()
		}
		for _, w := range pl.h.WaitingPods().List() {
			if api.PodGroupKey(w.Pod()) == key {
				w.Allow(pl.Name())
			}
		}
		return nil, 0
	}
	if assigned == 1 {
		var siblings []string
		pending, _ := pgm.PodGroupPods(g.Namespace, g.Name)
		for _, p := range pending {
			if p.Name != pod.Pod.Name {
				siblings = append(siblings, p.Key())
			}
		}
		pl.h.Activator().Activate(siblings)
	}
	return framework.NewStatus(framework.Wait), pl.waitTime(g)
}

// waitTime is scheduler-plugins' GetWaitTimeDuration: the group's
// scheduleTimeoutSeconds, else permitWaitingTimeSeconds, else 60 s.
func (pl *Coscheduling) waitTime(g *api.PodGroup) time.Duration {
	if t := g.Spec.ScheduleTimeoutSeconds; t != nil && *t != 0 {
		return time.Duration(*t) * time.Second
	}
	if pl.wait != 0 {
		return pl.wait
	}
	return time.Duration(DefaultPermitWaitingTimeSeconds) * time.Second
}

// Reserve does nothing.
func (pl *Coscheduling) Reserve(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	return nil
}

// Unreserve rejects every waiting sibling of a pod that leaves its node and
// marks the group failed; see Coscheduling. It may run in a binding
// goroutine, so it reads only the plugin's memory and the waiting pods.
func (pl *Coscheduling) Unreserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) {
	key := api.PodGroupKey(pod.Pod)
	if key == "" {
		return
	}
	pl.mu.Lock()
	known := pl.known[key]
	pl.mu.Unlock()
	if !known {
		return
	}
	pl.rejectWaiting(key, "rejection in Unreserve")
	pl.mu.Lock()
	pl.permittedSaved.Delete(pl.permitted, key)
	pl.lastFailedSaved.Set(pl.lastFailed, key, pl.clock.Now())
	pl.mu.Unlock()
	pl.reorder()
}

// reorder tells the queue that Less changed for queued pods (a group's
// last failure moved its pods): the scheduler re-sorts before its next pop.
func (pl *Coscheduling) reorder() { pl.h.Activator().QueueOrderChanged() }

// Fork opens a branch of the plugin's memory with the Scheduler's Fork;
// Revert restores the groups the branch changed (O(groups changed)),
// Commit keeps them.
func (pl *Coscheduling) Fork() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.permittedSaved.Open()
	pl.backedOffSaved.Open()
	pl.lastFailedSaved.Open()
	pl.knownSaved.Open()
}

// Commit keeps the innermost branch's changes (see Fork).
func (pl *Coscheduling) Commit() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.permittedSaved.Commit()
	pl.backedOffSaved.Commit()
	pl.lastFailedSaved.Commit()
	pl.knownSaved.Commit()
}

// Revert undoes the innermost branch's changes (see Fork).
func (pl *Coscheduling) Revert() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.permittedSaved.Revert(pl.permitted)
	pl.backedOffSaved.Revert(pl.backedOff)
	pl.knownSaved.Revert(pl.known)
	if pl.lastFailedSaved.Revert(pl.lastFailed) {
		pl.reorder()
	}
}

// EventsToRegister: a pod added, a PodGroup added or updated, each without
// a hint (scheduler-plugins pkg/coscheduling/coscheduling.go).
func (pl *Coscheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: framework.Add}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceCoschedulingPodGroup, ActionType: framework.Add | framework.Update}},
	}, nil
}
