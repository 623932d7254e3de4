package cluster

import (
	"fmt"
	"sort"

	"github.com/schedkit/schedkit/framework/api"
)

// UpdateNodeLoad stores a copy of l (named after its node), the measured
// load the Trimaran plugins read, after validating it. The node need not
// exist yet. Journaled like every mutation.
func (c *Cluster) UpdateNodeLoad(l *api.NodeLoad) error {
	if c.snap == nil {
		return c.zeroErr("UpdateNodeLoad")
	}
	if err := l.Validate(); err != nil {
		return fmt.Errorf("cluster: UpdateNodeLoad: %w", err)
	}
	setCopy(c, c.loads, l.Name, l)
	return nil
}

// NodeLoad returns the measured load of the named node (read-only).
func (c *Cluster) NodeLoad(node string) (*api.NodeLoad, bool) {
	l, ok := c.loads[node]
	return l, ok
}

// NodeLoads returns every NodeLoad, sorted by name.
func (c *Cluster) NodeLoads() []*api.NodeLoad {
	out := make([]*api.NodeLoad, 0, len(c.loads))
	for _, l := range c.loads {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
