// Package st holds the helpers tests share: the object builders of package
// framework/builder under their kube-style names (st.MakePod() is
// builder.MakePod()), random clusters for property tests, and fakes.
package st

import (
	"strconv"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// PodWrapper is builder.PodWrapper.
type PodWrapper = builder.PodWrapper

// NodeWrapper is builder.NodeWrapper.
type NodeWrapper = builder.NodeWrapper

// MakePod is builder.MakePod.
func MakePod() *PodWrapper { return builder.MakePod() }

// MakeNode is builder.MakeNode: the node gets pods: 110 unless its
// capacity or allocatable names pods.
func MakeNode() *NodeWrapper { return builder.MakeNode() }

func itoa(i int) string { return strconv.Itoa(i) }

// NodeInfo returns the NodeInfo of a node name with capacity (and
// allocatable) alloc, holding pods, each placed on it (their
// spec.nodeName is set); it fails the test on an error.
func NodeInfo(t interface{ Fatal(args ...any) }, name string, alloc map[string]string, pods ...*api.Pod) *fw.NodeInfo {
	node := MakeNode().Name(name).Capacity(alloc).Obj()
	infos := make([]*fw.PodInfo, len(pods))
	for i, p := range pods {
		p.Spec.NodeName = name
		infos[i] = fw.MustPodInfo(p)
	}
	ni, err := fw.NewNodeInfo(node, infos...)
	if err != nil {
		t.Fatal(err)
	}
	return ni
}
