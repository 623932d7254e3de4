package extender

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Cluster is a Server's view of the cluster: the nodes and the pods bound
// to them, which the caller keeps current (from informers, a simulation,
// or whatever it watches). Requests read an immutable snapshot; each update
// publishes a new one (copy on write: an update costs O(nodes) pointer
// copies plus the change, so batch many changes in one Update). It is safe
// for concurrent use.
type Cluster struct {
	mu   sync.Mutex // serializes updates
	snap atomic.Pointer[framework.Snapshot]
}

// NewCluster builds a view holding nodes and the pods bound to them (see
// framework.NewSnapshot for the options).
func NewCluster(nodes []*api.Node, pods []*api.Pod, opts ...framework.SnapshotOption) (*Cluster, error) {
	s, err := framework.NewSnapshot(nodes, pods, opts...)
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	c.snap.Store(s)
	return c, nil
}

// Snapshot returns the current view. It must not be mutated.
func (c *Cluster) Snapshot() *framework.Snapshot { return c.snap.Load() }

// Update applies fn to a copy of the view and publishes the copy, unless fn
// fails (the view is then unchanged).
func (c *Cluster) Update(fn func(*framework.Snapshot) error) error {
	if fn == nil {
		return errors.New("extender: Cluster.Update: nil function")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next := c.snap.Load().Clone()
	if err := fn(next); err != nil {
		return err
	}
	c.snap.Store(next)
	return nil
}

// AddNode adds a node.
func (c *Cluster) AddNode(n *api.Node) error {
	return c.Update(func(s *framework.Snapshot) error { return s.AddNode(n) })
}

// UpdateNode replaces a node object (its pods stay).
func (c *Cluster) UpdateNode(n *api.Node) error {
	return c.Update(func(s *framework.Snapshot) error { return s.UpdateNode(n) })
}

// RemoveNode removes a node and its pods.
func (c *Cluster) RemoveNode(name string) error {
	return c.Update(func(s *framework.Snapshot) error { return s.RemoveNode(name) })
}

// AddPod adds a pod bound to a node (Spec.NodeName).
func (c *Cluster) AddPod(p *api.Pod) error {
	return c.Update(func(s *framework.Snapshot) error { return s.AddPod(p) })
}

// RemovePod removes a pod.
func (c *Cluster) RemovePod(p *api.Pod) error {
	return c.Update(func(s *framework.Snapshot) error { return s.RemovePod(p) })
}
