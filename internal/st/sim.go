package st

import (
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// PDB returns a PodDisruptionBudget in namespace matching labels key=value,
// with status.disruptionsAllowed set to allowed.
func PDB(namespace, name, key, value string, allowed int32) fw.PodDisruptionBudget {
	return *builder.MakePDB(name).Namespace(namespace).MatchLabel(key, value).DisruptionsAllowed(allowed).Obj()
}
