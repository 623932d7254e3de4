package cluster

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
)

// UpdatePod replaces the object of an existing pod (by namespace/name)
// with a copy of pod, keeping its state: a pending pod as UpdatePendingPod
// replaces it, a bound pod on the same node (its resources are recounted).
// The UID and spec.nodeName cannot change (binding goes through the
// scheduler). An assumed pod (being bound) cannot be updated. Errors name
// the pod and the field.
func (c *Cluster) UpdatePod(pod *api.Pod) error {
	if c.snap == nil {
		return c.zeroErr("UpdatePod")
	}
	if pod == nil {
		return errors.New("cluster: UpdatePod: nil pod")
	}
	key := pod.Key()
	cp, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("cluster: UpdatePod: unknown pod %s", key)
	}
	old := cp.info.Pod
	switch {
	case cp.state == StatePending:
		return c.UpdatePendingPod(pod)
	case cp.state == StateAssumed:
		return fmt.Errorf("cluster: UpdatePod: pod %s is assumed on node %q (being bound); update it once bound", key, old.Spec.NodeName)
	case pod.UID != old.UID:
		return fmt.Errorf("cluster: UpdatePod: pod %s: metadata.uid=%q: cannot change (was %q)", key, pod.UID, old.UID)
	case pod.Spec.NodeName != old.Spec.NodeName:
		return fmt.Errorf("cluster: UpdatePod: pod %s: spec.nodeName=%q: cannot change (was %q)", key, pod.Spec.NodeName, old.Spec.NodeName)
	}
	if err := api.ValidatePod(pod); err != nil {
		return fmt.Errorf("cluster: UpdatePod: %w", err)
	}
	p := *pod
	pi, err := c.KubeVersion().NewPodInfo(&p)
	if err != nil {
		return fmt.Errorf("cluster: UpdatePod: %w", err)
	}
	if err := c.snapRemove(cp.info); err != nil {
		return err
	}
	if err := c.snapAdd(pi); err != nil {
		return err
	}
	c.setPod(key, &Entry{info: pi, state: cp.state})
	return nil
}

// UpdatePendingPod replaces a pending pod (by namespace/name) with a copy
// of pod, which must keep the UID and have no nodeName. The pod is
// validated as AddPod validates it.
func (c *Cluster) UpdatePendingPod(pod *api.Pod) error {
	if c.snap == nil {
		return c.zeroErr("UpdatePendingPod")
	}
	if pod == nil {
		return errors.New("cluster: UpdatePendingPod: nil pod")
	}
	key := pod.Key()
	cp, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("cluster: UpdatePendingPod: unknown pod %s", key)
	}
	switch {
	case cp.state != StatePending:
		return fmt.Errorf("cluster: UpdatePendingPod: pod %s is %s, not pending", key, cp.state)
	case pod.UID != cp.info.Pod.UID:
		return fmt.Errorf("cluster: UpdatePendingPod: pod %s: uid %q -> %q: may not change", key, cp.info.Pod.UID, pod.UID)
	case pod.Spec.NodeName != "":
		return fmt.Errorf("cluster: UpdatePendingPod: pod %s: spec.nodeName=%q: a pending pod names no node", key, pod.Spec.NodeName)
	}
	if err := api.ValidatePod(pod); err != nil {
		return fmt.Errorf("cluster: UpdatePendingPod: %w", err)
	}
	p := *pod
	pi, err := c.KubeVersion().NewPodInfo(&p)
	if err != nil {
		return fmt.Errorf("cluster: UpdatePendingPod: %w", err)
	}
	c.setPod(key, &Entry{info: pi, state: StatePending})
	return nil
}
