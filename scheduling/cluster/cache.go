package cluster

import (
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// This file holds the scheduler-cache side of a Cluster: kube-scheduler's
// cache counts a pod on its node as soon as the scheduling cycle picks the
// node (AssumePod), before binding finishes, so that the next cycle sees
// the resources as taken. A failed binding forgets the pod (ForgetPod); a
// successful one confirms it (FinishBinding). Here the three steps move a
// pod between StatePending, StateAssumed and StateBound, journaled like every
// other change.

// Assume places the pending pod namespace/name on node: the pod (a new copy
// with spec.nodeName set and no nominated node) counts on the node from now
// on. A pod that is not pending or a missing node is an error naming both.
func (c *Cluster) Assume(namespace, name, node string) error {
	if c.snap == nil {
		return c.zeroErr("Assume")
	}
	_, err := c.AssumeKey(PodKey(namespace, name), node, -1, nil)
	return err
}

// assumedPod is the memory of an assumed pod: its copies of the pod and
// its PodInfo, and the records of its assume and of its bind.
type assumedPod struct {
	pod   api.Pod
	info  framework.PodInfo
	rec   Entry
	bound Entry
}

// AssumedSlab hands out assumedPods from arrays of assumedSlabLen, one
// allocation for that many assumed pods, for pods that all leave the
// cluster together (a capacity question's replicas, which its Revert
// removes): an array stays in memory while any of its pods does.
type AssumedSlab struct {
	free []assumedPod
}

const assumedSlabLen = 32

// next returns unused memory for an assumed pod.
func (s *AssumedSlab) next() *assumedPod {
	if len(s.free) == 0 {
		s.free = make([]assumedPod, assumedSlabLen)
	}
	a := &s.free[0]
	s.free = s.free[1:]
	return a
}

// AssumeKey is Assume for the pod key (namespace/name); it returns the
// assumed pod's PodInfo. at is the node's index in the snapshot when the
// caller knows it (runtime.Result.SelectedIndex), or -1; slab, when not
// nil, gives the memory of the assumed pod (otherwise it is allocated).
func (c *Cluster) AssumeKey(key, node string, at int, slab *AssumedSlab) (*framework.PodInfo, error) {
	if c.snap == nil {
		return nil, c.zeroErr("AssumeKey")
	}
	cp, ok := c.pods[key]
	if !ok {
		return nil, fmt.Errorf("cluster: assume: unknown pod %s", key)
	}
	if cp.state != StatePending {
		return nil, fmt.Errorf("cluster: assume: pod %s is %s on node %q, not pending", key, cp.state, cp.info.Pod.Spec.NodeName)
	}
	var a *assumedPod // one allocation for the pod, its PodInfo and records
	if slab != nil {
		a = slab.next()
	} else {
		a = new(assumedPod)
	}
	a.pod, a.info = *cp.info.Pod, *cp.info
	a.pod.Spec.NodeName = node
	a.pod.Status.NominatedNodeName = ""
	a.info.Pod = &a.pod
	a.bound = Entry{info: &a.info, state: StateBound}
	a.rec = Entry{info: &a.info, state: StateAssumed, bound: &a.bound}
	// The snapshot finds the node (a missing one leaves it unchanged).
	if err := c.snapAddAt(&a.info, at); err != nil {
		if _, ok := c.snap.Get(node); !ok {
			return nil, fmt.Errorf("cluster: assume: pod %s: node %q not found", key, node)
		}
		return nil, err
	}
	c.replacePod(key, cp, true, &a.rec)
	return &a.info, nil
}

// Forget undoes Assume: the pod leaves its node and is pending again. A pod
// that is not assumed is an error.
func (c *Cluster) Forget(namespace, name string) error {
	if c.snap == nil {
		return c.zeroErr("Forget")
	}
	key := PodKey(namespace, name)
	cp, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("cluster: forget: unknown pod %s", key)
	}
	if cp.state != StateAssumed {
		return fmt.Errorf("cluster: forget: pod %s is %s, not assumed", key, cp.state)
	}
	if err := c.snapRemove(cp.info); err != nil {
		return err
	}
	p := *cp.info.Pod
	p.Spec.NodeName = ""
	pi := *cp.info
	pi.Pod = &p
	c.setPod(key, &Entry{info: &pi, state: StatePending})
	return nil
}

// Bind confirms an assumed pod on its node (kube-scheduler's FinishBinding
// after the API binding). A pod that is not assumed, or assumed on another
// node, is an error.
func (c *Cluster) Bind(namespace, name, node string) error {
	if c.snap == nil {
		return c.zeroErr("Bind")
	}
	return c.BindKey(PodKey(namespace, name), node)
}

// BindKey is Bind for the pod key (namespace/name).
func (c *Cluster) BindKey(key, node string) error {
	if c.snap == nil {
		return c.zeroErr("BindKey")
	}
	cp, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("cluster: bind: unknown pod %s", key)
	}
	if cp.state != StateAssumed {
		return fmt.Errorf("cluster: bind: pod %s is %s, not assumed", key, cp.state)
	}
	if cp.info.Pod.Spec.NodeName != node {
		return fmt.Errorf("cluster: bind: pod %s is assumed on node %q, not %q", key, cp.info.Pod.Spec.NodeName, node)
	}
	b := cp.bound // the record assume made for this bind
	if b == nil || b.info != cp.info {
		b = &Entry{info: cp.info, state: StateBound}
	}
	c.replacePod(key, cp, true, b)
	return nil
}
