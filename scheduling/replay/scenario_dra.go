package replay

import (
	"encoding/json"
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
)

// draKind lists a scenario's DRA objects of one kind for validateDRA.
type draKind struct {
	field int
	name  string
	n     int
	// check validates entry i and returns its identity ("" for a nil
	// entry) and, for a slice, the node it names ("" for none).
	check func(i int) (key, node string, err error)
}

// validateDRA checks the scenario's Dynamic Resource Allocation objects:
// each valid (api.ValidateResourceSlice and the others), no duplicate, a
// slice's spec.nodeName a node the scenario has (initially or by a node
// event). Errors name the entry as validateStorage's do.
func (w *Scenario) validateDRA(nodes map[string]bool) error {
	d := &w.DRA
	kinds := []draKind{
		{fieldDeviceClasses, "deviceClasses", len(d.DeviceClasses), func(i int) (string, string, error) {
			c := d.DeviceClasses[i]
			if c == nil {
				return "", "", nil
			}
			return "DeviceClass " + c.Name, "", api.ValidateDeviceClass(c)
		}},
		{fieldResourceSlices, "resourceSlices", len(d.ResourceSlices), func(i int) (string, string, error) {
			s := d.ResourceSlices[i]
			if s == nil {
				return "", "", nil
			}
			node := ""
			if s.Spec.NodeName != nil {
				node = *s.Spec.NodeName
			}
			return "ResourceSlice " + s.Name, node, api.ValidateResourceSlice(s)
		}},
		{fieldResourceClaimTemplates, "resourceClaimTemplates", len(d.ResourceClaimTemplates), func(i int) (string, string, error) {
			t := d.ResourceClaimTemplates[i]
			if t == nil {
				return "", "", nil
			}
			return "ResourceClaimTemplate " + t.Namespace + "/" + t.Name, "", api.ValidateResourceClaimTemplate(t)
		}},
		{fieldResourceClaims, "resourceClaims", len(d.ResourceClaims), func(i int) (string, string, error) {
			c := d.ResourceClaims[i]
			if c == nil {
				return "", "", nil
			}
			return "ResourceClaim " + c.Namespace + "/" + c.Name, "", api.ValidateResourceClaim(c)
		}},
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		for i := range k.n {
			key, node, err := k.check(i)
			at := func() string { return w.at(k.field, i, k.name) }
			switch {
			case key == "":
				return fmt.Errorf("%s: nil object", at())
			case err != nil:
				return fmt.Errorf("%s: %w", at(), err)
			case seen[key]:
				return fmt.Errorf("%s: %s: duplicate", at(), key)
			case node != "" && !nodes[node]:
				return fmt.Errorf("%s: %s: spec.nodeName %q is not a node of the scenario", at(), key, node)
			}
			seen[key] = true
		}
	}
	return nil
}

// draHandlers are the cluster file's DRA fields. Claims and templates
// without a namespace are in "default"; requests get the API server's
// defaults (api.DeviceClaim.SetDefaults).
func draHandlers(w *Scenario, b *budget) map[string]func(json.RawMessage, int) error {
	add := func(decode func(json.RawMessage) error) func(json.RawMessage, int) error {
		return func(raw json.RawMessage, _ int) error {
			if err := b.take(1); err != nil {
				return err
			}
			return decode(raw)
		}
	}
	d := &w.DRA
	return map[string]func(json.RawMessage, int) error{
		"resourceSlices": add(func(raw json.RawMessage) error { return appendEntries(raw, &d.ResourceSlices) }),
		"deviceClasses":  add(func(raw json.RawMessage) error { return appendEntries(raw, &d.DeviceClasses) }),
		"resourceClaims": add(func(raw json.RawMessage) error {
			var c api.ResourceClaim
			if err := strict(raw, &c); err != nil {
				return err
			}
			c.Namespace = orDefault(c.Namespace)
			c.Spec.Devices.SetDefaults()
			d.ResourceClaims = append(d.ResourceClaims, &c)
			return nil
		}),
		"resourceClaimTemplates": add(func(raw json.RawMessage) error {
			var t api.ResourceClaimTemplate
			if err := strict(raw, &t); err != nil {
				return err
			}
			t.Namespace = orDefault(t.Namespace)
			t.Spec.Spec.Devices.SetDefaults()
			d.ResourceClaimTemplates = append(d.ResourceClaimTemplates, &t)
			return nil
		}),
	}
}

func orDefault(namespace string) string {
	if namespace == "" {
		return "default"
	}
	return namespace
}
