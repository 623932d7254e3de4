package scheduling

import (
	"reflect"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/coscheduling"
	"github.com/schedkit/schedkit/filter/gangscheduling"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scoring/podgrouppodscount"
	"github.com/schedkit/schedkit/scoring/topologyaware"
)

// collectForkables checks the workload features and collects the
// profiles' plugins with state of their own (forkables).
func (s *Scheduler) collectForkables() error {
	if err := s.workload.features.Validate(); err != nil {
		return err
	}
	seen := map[framework.Plugin]bool{}
	for _, name := range s.order {
		f := s.profiles[name].fw
		p := f.Profile()
		for _, list := range [][]string{p.PreEnqueue, p.QueueSort, p.PreFilter, p.Filter, p.PostFilter, p.PreScore, p.Score, p.Reserve, p.Permit, p.PreBind, p.Bind, p.PostBind, p.PlacementGenerate, p.PlacementScore} {
			for _, pn := range list {
				pl, ok := f.Plugin(pn)
				if !ok {
					continue
				}
				// A plugin listed at several points, or shared by several
				// profiles, is handled once; one of a type that cannot be
				// compared is handled at each listing (for a Forkable, a
				// nested branch: still exact).
				if reflect.TypeOf(pl).Comparable() {
					if seen[pl] {
						continue
					}
					seen[pl] = true
				}
				if fp, ok := pl.(framework.ForkablePlugin); ok {
					s.forkables = append(s.forkables, fp)
				}
			}
		}
	}
	return nil
}

// coschedulingPlugins are scheduler-plugins' Coscheduling and
// kube-scheduler v1.36's GangScheduling.
func coschedulingPlugins() []PluginSpec {
	return []PluginSpec{
		{Name: config.CoschedulingName, DefaultArgs: anyOf(coscheduling.DefaultCoschedulingArgs), Factory: coscheduling.New,
			Points: []string{PointQueueSort, PointPreFilter, PointPostFilter, PointReserve, PointPermit}},
		{Name: config.GangSchedulingName, Factory: gangscheduling.New, Points: []string{PointPreEnqueue, PointPermit}},
		{Name: config.TopologyPlacementGeneratorName, Factory: topologyaware.New, Points: []string{PointPlacementGenerate}},
		{Name: config.PodGroupPodsCountName, Factory: podgrouppodscount.New, Points: []string{PointPlacementScore}},
	}
}

// AddPodGroup adds a PodGroup (for Coscheduling). A group without a
// creation time gets the clock's time, as the API server stamps
// metadata.creationTimestamp. Pods waiting for their group are retried.
func (s *Scheduler) AddPodGroup(g *api.PodGroup) error { return s.addPodGroup(nil, g) }

func (s *Scheduler) addPodGroup(f *Fork, g *api.PodGroup) error {
	ev := framework.ClusterEvent{Resource: framework.ResourceCoschedulingPodGroup, ActionType: framework.Add}
	return s.clusterEvent(f, "AddPodGroup", ev, func() (old, cur any, err error) {
		if g != nil && g.CreationTimestamp.IsZero() {
			cp := *g
			cp.CreationTimestamp = s.clock.Now()
			g = &cp
		}
		if err := s.cluster.AddPodGroup(g); err != nil {
			return nil, nil, err
		}
		added, _ := s.cluster.PodGroup(g.Namespace, g.Name)
		return nil, added, nil
	})
}

// UpdatePodGroup replaces a PodGroup; the pods that wait for it are
// retried.
func (s *Scheduler) UpdatePodGroup(g *api.PodGroup) error { return s.updatePodGroup(nil, g) }

func (s *Scheduler) updatePodGroup(f *Fork, g *api.PodGroup) error {
	ev := framework.ClusterEvent{Resource: framework.ResourceCoschedulingPodGroup, ActionType: framework.Update}
	return s.clusterEvent(f, "UpdatePodGroup", ev, func() (old, cur any, err error) {
		if g == nil {
			return nil, nil, s.cluster.UpdatePodGroup(g)
		}
		prev, _ := s.cluster.PodGroup(g.Namespace, g.Name)
		if err := s.cluster.UpdatePodGroup(g); err != nil {
			return nil, nil, err
		}
		updated, _ := s.cluster.PodGroup(g.Namespace, g.Name)
		return prev, updated, nil
	})
}

// clusterEvent is the event method op on the fork f (nil: live): it
// applies a change to the cluster under the scheduler's lock and, when it
// succeeds, reports ev with the objects change returns (before and
// after).
func (s *Scheduler) clusterEvent(f *Fork, op string, ev framework.ClusterEvent, change func() (old, cur any, err error)) error {
	if err := s.check(f, op); err != nil {
		return err
	}
	if err := s.enter(f, op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	old, cur, err := change()
	if err != nil {
		return err
	}
	if ev.Resource == "" { // a storage object
		oldO, _ := old.(api.StorageObject)
		curO, _ := cur.(api.StorageObject)
		ev = s.cluster.StorageEvent(ev.ActionType, oldO, curO)
	}
	s.reportEvent(ev, old, cur, nil, true)
	s.signal()
	return nil
}

// DeletePodGroup deletes a PodGroup (its pods stay).
func (s *Scheduler) DeletePodGroup(namespace, name string) error {
	return s.deletePodGroup(nil, namespace, name)
}

func (s *Scheduler) deletePodGroup(f *Fork, namespace, name string) error {
	return s.locked(f, "DeletePodGroup", func() error { return s.cluster.DeletePodGroup(namespace, name) })
}

// locked runs the event method op's change (one that reports no cluster
// event) on the fork f (nil: live) under the scheduler's lock.
func (s *Scheduler) locked(f *Fork, op string, change func() error) error {
	if err := s.check(f, op); err != nil {
		return err
	}
	if err := s.enter(f, op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return change()
}

// EnableCoscheduling returns p with scheduler-plugins' Coscheduling
// enabled as its documented configuration does (multiPoint enabled
// Coscheduling, PrioritySort disabled): Coscheduling replaces the QueueSort
// plugin and is appended to PreFilter, PostFilter (after DefaultPreemption),
// Reserve and Permit. args are its args (nil: the defaults).
func EnableCoscheduling(p framework.Profile, args any) framework.Profile {
	name := config.CoschedulingName
	add := func(list []string) []string {
		out := make([]string, 0, len(list)+1)
		for _, n := range list {
			if n != name {
				out = append(out, n)
			}
		}
		return append(out, name)
	}
	p.QueueSort = []string{name}
	p.PreFilter = add(p.PreFilter)
	p.PostFilter = add(p.PostFilter)
	p.Reserve = add(p.Reserve)
	p.Permit = add(p.Permit)
	if args != nil {
		a := make(map[string]any, len(p.Args)+1)
		for k, v := range p.Args {
			a[k] = v
		}
		a[name] = args
		p.Args = a
	}
	return p
}
