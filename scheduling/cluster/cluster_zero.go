package cluster

import "fmt"

// zeroErr is the error of the method op on a Cluster that New did
// not build (a zero Cluster{}): it has no snapshot to hold nodes and pods.
func (c *Cluster) zeroErr(op string) error {
	return fmt.Errorf("cluster: Cluster.%s: zero Cluster: build it with New or NewFrom", op)
}
