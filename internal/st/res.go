package st

import (
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// LabelIn is builder.LabelIn.
func LabelIn(key string, values ...string) fw.NodeSelectorTerm {
	return builder.LabelIn(key, values...)
}

// NameIn is builder.NameIn.
func NameIn(names ...string) fw.NodeSelectorTerm { return builder.NameIn(names...) }
