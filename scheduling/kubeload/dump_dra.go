package kubeload

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// The DRA objects are all kept, as kube-scheduler's informers list them
// whatever they refer to: a slice of a node the dump lacks still counts
// towards its pool's completeness, a pool with duplicate device names is
// one kube's allocator refuses to allocate from, a claim naming a missing
// class is one DynamicResources finds unschedulable. Dump remarks on each
// (Report.Notes), so that answers that differ from expectations can be
// traced to the dump.

// Note reasons of the DRA objects.
const (
	reasonSliceNoNode      = "spec.nodeName not in the dump: no node of the cluster reaches its devices; kept, as kube's allocator counts the slice towards its pool's completeness"
	reasonStaleSlice       = "spec.pool.generation older than its pool's newest: kube's allocator ignores the slice's devices"
	reasonDuplicateDevice  = "device name repeated in its pool: kube's allocator treats the pool as invalid where it sees both devices (no device of the pool is allocated there)"
	reasonMissingClass     = "deviceClassName not in the dump: DynamicResources' PreFilter finds pods using the unallocated claim unschedulable (request <r>: device class <c> does not exist) until the class exists"
	reasonMissingClassTmpl = "deviceClassName not in the dump: DynamicResources' PreFilter finds pods whose claims are made from the template unschedulable (request <r>: device class <c> does not exist) until the class exists"
	reasonMissingDRAClaim  = "resourceClaim not in the dump: DynamicResources' PreEnqueue holds the pod back until the claim exists (a placed pod keeps its node)"
	reasonClaimNotMade     = "claim from a resourceClaimTemplate not created yet (no status.resourceClaimStatuses entry): DynamicResources' PreEnqueue holds the pod back until the resource claim controller creates it (a placed pod keeps its node)"
)

// poolID identifies a pool of devices.
type poolID struct{ driver, pool string }

// checkDRA remarks on the slices kube's allocator sets apart (a node the
// dump lacks, an older pool generation, a device name repeated in a pool)
// and on the unallocated claims and the templates naming classes the dump
// lacks.
func (l *Loader) checkDRA(d *Dump, nodes map[string]bool) {
	slices := d.DRA.ResourceSlices
	newest := map[poolID]int64{}
	for _, s := range slices {
		id := poolID{s.Spec.Driver, s.Spec.Pool.Name}
		if g, ok := newest[id]; !ok || s.Spec.Pool.Generation > g {
			newest[id] = s.Spec.Pool.Generation
		}
	}
	// devices maps each device of a pool's newest generation to the first
	// slice that lists it.
	devices := map[poolID]map[string]string{}
	for _, s := range slices {
		src := l.seen[objectKey{kindResourceSlice, "", s.Name}]
		if n := s.Spec.NodeName; n != nil && *n != "" && !nodes[*n] {
			l.note(src, kindResourceSlice, s.Name, reasonSliceNoNode, "spec.nodeName "+*n)
		}
		id := poolID{s.Spec.Driver, s.Spec.Pool.Name}
		if g := newest[id]; s.Spec.Pool.Generation < g {
			l.note(src, kindResourceSlice, s.Name, reasonStaleSlice, fmt.Sprintf("pool %s/%s generation %d, newest %d", id.driver, id.pool, s.Spec.Pool.Generation, g))
			continue
		}
		names := devices[id]
		if names == nil {
			names = map[string]string{}
			devices[id] = names
		}
		for i := range s.Spec.Devices {
			name := s.Spec.Devices[i].Name
			if first, dup := names[name]; dup {
				l.note(src, kindResourceSlice, s.Name, reasonDuplicateDevice, fmt.Sprintf("pool %s/%s: device %s, also in slice %s", id.driver, id.pool, name, first))
				continue
			}
			names[name] = s.Name
		}
	}
	classes := make(map[string]bool, len(d.DRA.DeviceClasses))
	for _, c := range d.DRA.DeviceClasses {
		classes[c.Name] = true
	}
	for _, c := range d.DRA.ResourceClaims {
		if c.Status.Allocation != nil {
			continue // allocated: the class is no longer read
		}
		if missing := missingClasses(&c.Spec.Devices, classes); missing != "" {
			k := objectKey{kindResourceClaim, c.Namespace, c.Name}
			l.note(l.seen[k], k.kind, c.Namespace+"/"+c.Name, reasonMissingClass, missing)
		}
	}
	for _, t := range d.DRA.ResourceClaimTemplates {
		if missing := missingClasses(&t.Spec.Spec.Devices, classes); missing != "" {
			k := objectKey{kindResourceClaimTemplate, t.Namespace, t.Name}
			l.note(l.seen[k], k.kind, t.Namespace+"/"+t.Name, reasonMissingClassTmpl, missing)
		}
	}
}

// missingClasses lists the requests of dc naming a class not in classes
// ("" when none), as "request gpu: deviceClassName big-gpu".
func missingClasses(dc *api.DeviceClaim, classes map[string]bool) string {
	var out []string
	add := func(request, class string) {
		if !classes[class] {
			out = append(out, fmt.Sprintf("request %s: deviceClassName %s", request, class))
		}
	}
	for i := range dc.Requests {
		r := &dc.Requests[i]
		if r.Exactly != nil {
			add(r.Name, r.Exactly.DeviceClassName)
		}
		for j := range r.FirstAvailable {
			add(r.Name+"/"+r.FirstAvailable[j].Name, r.FirstAvailable[j].DeviceClassName)
		}
	}
	return strings.Join(out, ", ")
}

// checkPodClaims remarks on a pod whose resource claims the dump lacks: a
// claim it names, or the claim of a template the resource claim controller
// has not created (kube's resourceclaim.Name: the pod's status names the
// claim made for each template entry).
func (l *Loader) checkPodClaims(src source, p *api.Pod) {
	var missing, notMade []string
	for i := range p.Spec.ResourceClaims {
		rc := &p.Spec.ResourceClaims[i]
		var name *string
		switch {
		case rc.ResourceClaimName != nil:
			name = rc.ResourceClaimName
		case rc.ResourceClaimTemplateName != nil:
			made := false
			for _, st := range p.Status.ResourceClaimStatuses {
				if st.Name == rc.Name {
					name, made = st.ResourceClaimName, true
					break
				}
			}
			if !made {
				notMade = append(notMade, rc.Name+" (template "+*rc.ResourceClaimTemplateName+")")
				continue
			}
		}
		if name == nil {
			continue // no claim needed for this entry
		}
		if _, ok := l.seen[objectKey{kindResourceClaim, p.Namespace, *name}]; !ok {
			missing = append(missing, *name)
		}
	}
	if len(missing) > 0 {
		l.note(src, "Pod", p.Key(), reasonMissingDRAClaim, "resourceClaim "+strings.Join(missing, ", "))
	}
	if len(notMade) > 0 {
		l.note(src, "Pod", p.Key(), reasonClaimNotMade, "spec.resourceClaims "+strings.Join(notMade, ", "))
	}
}
