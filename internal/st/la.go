package st

import (
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// NodeMetricWrapper is builder.NodeMetricWrapper.
type NodeMetricWrapper = builder.NodeMetricWrapper

// MakeNodeMetric is builder.MakeNodeMetric.
func MakeNodeMetric(name string) *NodeMetricWrapper { return builder.MakeNodeMetric(name) }

// LAHandle is a minimal framework.Handle with clock c.
func LAHandle(c fw.Clock) fw.Handle { return fw.NewHandle(c, 1, fw.DefaultKubeVersion) }
