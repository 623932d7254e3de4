package cluster

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// KubeVersion returns the kube-scheduler release whose rule counts the
// requests of the cluster's pods (SetKubeVersion; default
// framework.DefaultKubeVersion). A zero Cluster names none.
func (c *Cluster) KubeVersion() framework.KubeVersion {
	if c.version.IsZero() && c.snap != nil {
		return framework.DefaultKubeVersion
	}
	return c.version
}

// SetKubeVersion makes the cluster count the requests of its pods as
// kube-scheduler release v does (a resize in flight:
// framework.KubeVersion.NewPodInfo): the pods added from now on, and the pods
// already in the cluster whose status makes the releases' rules differ,
// which are counted anew in their place (framework.Snapshot.ReplacePodInfo).
// scheduling.New sets the scheduler's release. O(pods); while forked only
// a release counting as the current one is taken.
func (c *Cluster) SetKubeVersion(v framework.KubeVersion) error {
	switch {
	case c.snap == nil:
		return c.zeroErr("SetKubeVersion")
	case v.IsZero():
		return errors.New("cluster: Cluster.SetKubeVersion: the zero KubeVersion names no release")
	}
	was, rule := c.KubeVersion().StatusRule(), v.StatusRule()
	if was == rule {
		c.version = v
		return nil
	}
	if c.forking() {
		return fmt.Errorf("cluster: Cluster.SetKubeVersion(%s): the cluster is forked; set the release before Fork", v)
	}
	c.version = v
	for key, e := range c.pods {
		pod := e.info.Pod
		if !api.StatusAffectsRequests(pod, was) && !api.StatusAffectsRequests(pod, rule) {
			continue
		}
		pi, err := v.NewPodInfo(pod)
		if err != nil {
			return err
		}
		if e.state != StatePending {
			if err := c.snap.ReplacePodInfo(e.info, pi); err != nil {
				return err
			}
		}
		c.setPod(key, &Entry{info: pi, state: e.state})
	}
	return nil
}
