package allocator

import (
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Shared counters (DRAPartitionableDevices): devices of a pool that
// consume counters of the pool's counter sets can be allocated together
// only while the counters suffice.

// available returns the counters of a pool left by the devices allocated
// already. It is computed once per pool and kept for the allocator's life.
func (a *Allocator) available(p *pool) counterSets {
	a.countersMu.RLock()
	av, ok := a.counters[p.id]
	a.countersMu.RUnlock()
	if ok {
		return av
	}
	av = make(counterSets, len(p.counterSets))
	for name, cs := range p.counterSets {
		m := make(map[string]resource.Quantity, len(cs.Counters))
		for n, c := range cs.Counters {
			m[n] = c.Value
		}
		av[name] = m
	}
	for _, group := range [2][]*api.ResourceSlice{p.targeting, p.notTargeting} {
		for _, s := range group {
			for i := range s.Spec.Devices {
				d := &s.Spec.Devices[i]
				if !a.allocated(DeviceID{s.Spec.Driver, s.Spec.Pool.Name, d.Name}) {
					continue
				}
				for _, cc := range d.ConsumesCounters {
					set := av[cc.CounterSet]
					for n, c := range cc.Counters {
						if cur, ok := set[n]; ok {
							set[n] = cur.Sub(c.Value)
						}
					}
				}
			}
		}
	}
	a.countersMu.Lock()
	if prev, ok := a.counters[p.id]; ok {
		av = prev
	} else {
		a.counters[p.id] = av
	}
	a.countersMu.Unlock()
	return av
}

// reserveCounters adds the counters c consumes to this attempt's and
// reports whether every counter of its pool still suffices; if not, the
// reservation is taken back.
func (r *run) reserveCounters(c candidate) bool {
	av := r.available(c.pool)
	used := r.consumed[c.pool.id]
	if used == nil {
		used = make(counterSets)
		if r.consumed == nil {
			r.consumed = make(map[poolID]counterSets)
		}
		r.consumed[c.pool.id] = used
	}
	for _, cc := range c.dev.ConsumesCounters {
		set := used[cc.CounterSet]
		if set == nil {
			set = make(map[string]resource.Quantity)
			used[cc.CounterSet] = set
		}
		for n, q := range cc.Counters {
			if cur, ok := set[n]; ok {
				set[n] = cur.Add(q.Value)
			} else {
				set[n] = q.Value
			}
		}
	}
	for setName, counters := range av {
		u := used[setName]
		for n, q := range counters {
			if q.Cmp(u[n]) < 0 {
				r.releaseCounters(c)
				return false
			}
		}
	}
	return true
}

// releaseCounters takes back the counters c consumes from this attempt's.
func (r *run) releaseCounters(c candidate) {
	used := r.consumed[c.pool.id]
	for _, cc := range c.dev.ConsumesCounters {
		set := used[cc.CounterSet]
		for n, q := range cc.Counters {
			set[n] = set[n].Sub(q.Value)
		}
	}
}
