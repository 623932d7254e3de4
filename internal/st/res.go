package st

import (
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// LabelIn is builder.LabelIn.
func LabelIn(key string, values ...string) api.NodeSelectorTerm {
	return builder.LabelIn(key, values...)
}

// NameIn is builder.NameIn.
func NameIn(names ...string) api.NodeSelectorTerm { return builder.NameIn(names...) }
