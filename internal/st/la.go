package st

import (
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// NodeMetricWrapper is builder.NodeMetricWrapper.
type NodeMetricWrapper = builder.NodeMetricWrapper

// MakeNodeMetric is builder.MakeNodeMetric.
func MakeNodeMetric(name string) *NodeMetricWrapper { return builder.MakeNodeMetric(name) }

// LAHandle is a minimal framework.Handle with a given clock.
type LAHandle struct{ C fw.Clock }

// Clock returns the handle's clock.
func (h LAHandle) Clock() fw.Clock { return h.C }

// Parallelism returns 1.
func (h LAHandle) Parallelism() int { return 1 }

// KubeVersion returns framework.DefaultKubeVersion.
func (h LAHandle) KubeVersion() fw.KubeVersion { return fw.DefaultKubeVersion }
