package defaultpreemption

import (
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// callExtenders is kube-scheduler v1.36's Evaluator.callExtenders
// (framework/preemption/preemption.go): every interested extender that
// supports preemption gets the candidates' victims and returns the
// candidates it keeps, with the victims it names (in its order, with its
// PDB violation count), which the next extender gets. An error, or a kept
// node without victims, fails preemption unless the extender is ignorable
// (its error is then skipped, the node dropped). The kept candidates stay
// in dry-run order (kube: Go map order).
func (pl *DefaultPreemption) callExtenders(exts []framework.Extender, pod *framework.PodInfo, cands []preemptCandidate, snap *framework.Snapshot) ([]preemptCandidate, *framework.Status) {
	if len(exts) == 0 || len(cands) == 0 {
		return cands, nil
	}
	victims := make(map[string]*framework.Victims, len(cands))
	for _, c := range cands {
		v := &framework.Victims{Pods: make([]*api.Pod, len(c.victims)), NumPDBViolations: int64(c.pdbViolations)}
		for i, pi := range c.victims {
			v.Pods[i] = pi.Pod
		}
		victims[c.node] = v
	}
	for _, e := range exts {
		pe, ok := e.(framework.PreemptionExtender)
		if !ok || !pe.SupportsPreemption() || !e.IsInterested(pod) {
			continue
		}
		got, err := pe.ProcessPreemption(pod, victims, snap)
		if err != nil {
			if e.IsIgnorable() {
				continue
			}
			return nil, framework.AsStatus(err)
		}
		for node, v := range got {
			if v == nil || len(v.Pods) == 0 {
				if e.IsIgnorable() {
					delete(got, node)
					continue
				}
				return nil, framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", node))
			}
		}
		victims = got
		if len(victims) == 0 {
			break
		}
	}
	var out []preemptCandidate
	for _, c := range cands {
		v, ok := victims[c.node]
		if !ok {
			continue
		}
		ni, ok := snap.Get(c.node)
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("nodeinfo not found for node name %q", c.node))
		}
		kept := preemptCandidate{node: c.node, pdbViolations: int(v.NumPDBViolations), victims: make([]*framework.PodInfo, 0, len(v.Pods))}
		for _, p := range v.Pods {
			pi := podOnNode(ni, p)
			if pi == nil {
				return nil, framework.AsStatus(fmt.Errorf("extender victim %s is not on node %q", p.Key(), c.node))
			}
			kept.victims = append(kept.victims, pi)
		}
		out = append(out, kept)
	}
	return out, nil
}

// podOnNode returns the PodInfo of p (same UID, or namespace and name
// without one) among the node's pods.
func podOnNode(ni *framework.NodeInfo, p *api.Pod) *framework.PodInfo {
	for _, pi := range ni.Pods {
		if pi.Pod == p || (p.UID != "" && pi.Pod.UID == p.UID) || (p.UID == "" && pi.Pod.UID == "" && pi.Pod.Key() == p.Key()) {
			return pi
		}
	}
	return nil
}
