package st

import (
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// PDB returns a PodDisruptionBudget in namespace matching labels key=value,
// with status.disruptionsAllowed set to allowed.
func PDB(namespace, name, key, value string, allowed int32) api.PodDisruptionBudget {
	return *builder.MakePDB(name).Namespace(namespace).MatchLabel(key, value).DisruptionsAllowed(allowed).Obj()
}
