// Package st holds the helpers tests share: the object builders of package
// framework/builder under their kube-style names (st.MakePod() is
// builder.MakePod()), random clusters for property tests, and fakes.
package st

import (
	"strconv"

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
