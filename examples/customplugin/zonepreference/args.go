package zonepreference

import (
	"fmt"
	"slices"
)

// Args are ZonePreference's args: the zones it prefers, best first, and
// whether a node without a zone label is filtered out.
type Args struct {
	// Zones lists the preferred zones, best first: a node in Zones[i]
	// scores 100 − 100·i/len(Zones), a node in no listed zone 0.
	Zones []string `json:"zones"`
	// RequireZone filters out nodes without the topology.kubernetes.io/zone
	// label (default false).
	RequireZone bool `json:"requireZone"`
}

// DefaultArgs returns the args a profile gets when it names none: no
// preferred zone (every node scores 0), nodes without a zone allowed.
func DefaultArgs() Args { return Args{} }

// SetDefaults leaves the args as given: every field's zero value is its
// default.
func (a *Args) SetDefaults() {}

// Validate reports an empty or repeated zone, naming the field and value.
func (a *Args) Validate() error {
	for i, z := range a.Zones {
		if z == "" {
			return fmt.Errorf("zones[%d]: %q: must not be empty", i, z)
		}
		if slices.Index(a.Zones, z) < i {
			return fmt.Errorf("zones[%d]: %q: listed twice", i, z)
		}
	}
	return nil
}
