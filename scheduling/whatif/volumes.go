package whatif

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
)

// This file gives what-if replicas the claims a StatefulSet controller
// would create for them (CapacityOptions.ClaimTemplates). Their volumes
// then go through VolumeBinding like any pod's: a WaitForFirstConsumer
// claim is provisioned, or bound to an available volume, in PreBind, on
// the question's fork, and the fork's revert takes the claims, volumes
// and capacity changes back.

// checkClaimTemplates checks a question's claim templates: each named,
// names unique; the claims made from them are checked as any claim when
// added.
func checkClaimTemplates(claims []*api.PersistentVolumeClaim) error {
	seen := map[string]bool{}
	for i, c := range claims {
		switch {
		case c == nil:
			return fmt.Errorf("ClaimTemplates[%d]: nil", i)
		case c.Name == "":
			return fmt.Errorf("ClaimTemplates[%d].metadata.name: empty", i)
		case seen[c.Name]:
			return fmt.Errorf("ClaimTemplates[%d].metadata.name=%q: duplicate", i, c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// claimsText describes the claims a replica gets, one per template:
// "data: storage 10Gi, class standard-rwo".
func claimsText(templates, claims []*api.PersistentVolumeClaim) []string {
	out := make([]string, len(templates))
	for i, t := range templates {
		c := claims[i]
		class := api.ClaimClass(c)
		if class == "" {
			class = `""`
		}
		out[i] = fmt.Sprintf("%s: %s, class %s", t.Name, listText(c.Spec.Resources.Requests), class)
	}
	return out
}
