package api

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/internal/validation"
	"github.com/schedkit/schedkit/resource"
)

// ValidatePod checks what Kubernetes' API validation would reject and the
// algorithms cannot score sensibly: negative requests, limits, overhead or
// pod-level resources, and negative amounts in the resources its status
// reports (which the API server leaves unchecked); container resource
// names that are neither standard (cpu, memory, ephemeral-storage,
// hugepages-*) nor qualified extended or kubernetes.io names (a misspelt
// "cpus" would otherwise be ignored as kube ignores unknown names);
// preferred (anti-)affinity weights outside 1–100;
// topology spread constraints as kube-apiserver v1.36's
// validateTopologySpreadConstraints (pkg/apis/core/validation) checks
// them: maxSkew > 0, a topologyKey, whenUnsatisfiable DoNotSchedule or
// ScheduleAnyway, no two constraints with the same {topologyKey,
// whenUnsatisfiable}, minDomains > 0 and only with DoNotSchedule, node
// inclusion policies Honor or Ignore, matchLabelKeys that are label keys;
// volumes without a name, with a duplicate name, with more than one source,
// a claim volume without claimName, an ephemeral volume without a valid
// claim template; scheduling gates that are not unique qualified names.
// The error names the pod, the field path and the value. Entry points that
// take user data (cluster.Cluster, workload files) call it. NewPodInfo
// applies only the negative-quantity rule: callers building synthetic pods
// (Karmada's estimators use names like "storage") and kube's own plugin test
// cases (unvalidated weight-0 terms) stay possible.
func ValidatePod(pod *Pod) error { return validatePod(pod, true) }

// ValidatePodQuantities is the part of ValidatePod that NewPodInfo applies:
// the quantities, without the resource-name and weight rules.
func ValidatePodQuantities(pod *Pod) error { return validatePod(pod, false) }

// validatePod checks quantities; strict (names) adds the resource-name and
// weight rules.
func validatePod(pod *Pod, names bool) error {
	if pod == nil {
		return fmt.Errorf("framework: nil pod")
	}
	// check validates one resource list; path names it in an error and is
	// built only then (a valid pod builds no strings): kind "" is a pod-level
	// field, else spec.<kind>[i].resources.<field>.
	check := func(kind string, i int, field string, l resource.List, container bool) error {
		container = container && names
		bad := false
		for n, q := range l {
			if q.Sign() < 0 || container && validateContainerResourceName(n) != "" {
				bad = true
				break
			}
		}
		if !bad {
			return nil
		}
		path := field
		if kind != "" {
			path = fmt.Sprintf("spec.%s[%d].resources.%s", kind, i, field)
		}
		for _, n := range l.Names() { // name order: the same error every run
			q := l[n]
			if q.Sign() < 0 {
				return fmt.Errorf("framework: pod %s: %s[%q]=%s: must not be negative", pod.Key(), path, n, q.String())
			}
			if container {
				if err := validateContainerResourceName(n); err != "" {
					return fmt.Errorf("framework: pod %s: %s[%q]: %s", pod.Key(), path, n, err)
				}
			}
		}
		return nil
	}
	for _, f := range []struct {
		kind string
		cs   []Container
	}{{"containers", pod.Spec.Containers}, {"initContainers", pod.Spec.InitContainers}} { // fixed order: the same error every run
		kind, cs := f.kind, f.cs
		for i := range cs {
			if err := check(kind, i, "requests", cs[i].Resources.Requests, true); err != nil {
				return err
			}
			if err := check(kind, i, "limits", cs[i].Resources.Limits, true); err != nil {
				return err
			}
		}
	}
	if err := check("", 0, "spec.overhead", pod.Spec.Overhead, true); err != nil {
		return err
	}
	if r := pod.Spec.Resources; r != nil {
		if err := check("", 0, "spec.resources.requests", r.Requests, true); err != nil {
			return err
		}
		if err := check("", 0, "spec.resources.limits", r.Limits, true); err != nil {
			return err
		}
	}
	if err := validateStatusResources(pod); err != nil {
		return err
	}
	// weight checks a preferred term's weight; term names the term's list
	// (spec.affinity.<term>.preferredDuringSchedulingIgnoredDuringExecution).
	weight := func(term string, i int, w int32) error {
		if names && (w < 1 || w > 100) {
			return fmt.Errorf("framework: pod %s: spec.affinity.%s.preferredDuringSchedulingIgnoredDuringExecution[%d].weight=%d: must be within [1,100]", pod.Key(), term, i, w)
		}
		return nil
	}
	if names {
		if err := validateSpreadConstraints(pod); err != nil {
			return err
		}
	}
	if a := pod.Spec.Affinity; a != nil {
		if na := a.NodeAffinity; na != nil {
			for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
				if err := weight("nodeAffinity", i, t.Weight); err != nil {
					return err
				}
			}
		}
		if pa := a.PodAffinity; pa != nil {
			for i, t := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if err := weight("podAffinity", i, t.Weight); err != nil {
					return err
				}
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			for i, t := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if err := weight("podAntiAffinity", i, t.Weight); err != nil {
					return err
				}
			}
		}
	}
	if names {
		return validatePodVolumes(pod)
	}
	return nil
}

// validateStatusResources rejects a negative amount in the resources the
// kubelet reports (container statuses' resources and allocatedResources,
// the pod-level status.resources and status.allocatedResources): the API
// server does not validate them, but the kubelet never writes one, and
// counted on a node it would free capacity. Names are not checked: kube
// ignores the ones it does not know.
func validateStatusResources(pod *Pod) error {
	// check returns the first negative amount of l by name; path names l
	// and is built only then.
	check := func(l resource.List, path func() string) error {
		if !anyNegative(l) {
			return nil
		}
		for _, n := range l.Names() { // name order: the same error every run
			if q := l[n]; q.Sign() < 0 {
				return fmt.Errorf("framework: pod %s: %s[%q]=%s: must not be negative", pod.Key(), path(), n, q.String())
			}
		}
		return nil
	}
	checkAll := func(r *ResourceRequirements, alloc resource.List, prefix func() string) error {
		if r != nil {
			if err := check(r.Requests, func() string { return prefix() + "resources.requests" }); err != nil {
				return err
			}
			if err := check(r.Limits, func() string { return prefix() + "resources.limits" }); err != nil {
				return err
			}
		}
		return check(alloc, func() string { return prefix() + "allocatedResources" })
	}
	for _, f := range []struct {
		field string
		list  []ContainerStatus
	}{{"containerStatuses", pod.Status.ContainerStatuses}, {"initContainerStatuses", pod.Status.InitContainerStatuses}} { // fixed order: the same error every run
		for i := range f.list {
			cs := &f.list[i]
			if err := checkAll(cs.Resources, cs.AllocatedResources, func() string { return fmt.Sprintf("status.%s[%d].", f.field, i) }); err != nil {
				return err
			}
		}
	}
	return checkAll(pod.Status.Resources, pod.Status.AllocatedResources, func() string { return "status." })
}

// anyNegative reports whether some amount of l is negative.
func anyNegative(l resource.List) bool {
	for _, q := range l {
		if q.Sign() < 0 {
			return true
		}
	}
	return false
}

// validateSpreadConstraints is kube-apiserver v1.36's
// validateTopologySpreadConstraints, first error only (label selector
// syntax is checked when the pod's selectors are parsed).
func validateSpreadConstraints(pod *Pod) error {
	for i, c := range pod.Spec.TopologySpreadConstraints {
		path := fmt.Sprintf("spec.topologySpreadConstraints[%d]", i)
		fail := func(field string, format string, args ...any) error {
			return fmt.Errorf("framework: pod %s: %s.%s%s", pod.Key(), path, field, fmt.Sprintf(format, args...))
		}
		if c.MaxSkew <= 0 {
			return fail("maxSkew", "=%d: must be greater than zero", c.MaxSkew)
		}
		if c.TopologyKey == "" {
			return fail("topologyKey", ": required (can not be empty)")
		}
		if c.WhenUnsatisfiable != DoNotSchedule && c.WhenUnsatisfiable != ScheduleAnyway {
			return fail("whenUnsatisfiable", "=%q: must be %s or %s", c.WhenUnsatisfiable, DoNotSchedule, ScheduleAnyway)
		}
		for j, o := range pod.Spec.TopologySpreadConstraints[i+1:] {
			if o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				return fail("{topologyKey, whenUnsatisfiable}", "={%s, %s}: duplicate value (spec.topologySpreadConstraints[%d])", c.TopologyKey, c.WhenUnsatisfiable, i+1+j)
			}
		}
		if m := c.MinDomains; m != nil {
			if *m <= 0 {
				return fail("minDomains", "=%d: must be greater than zero", *m)
			}
			if c.WhenUnsatisfiable != DoNotSchedule {
				return fail("minDomains", "=%d: can only use minDomains if whenUnsatisfiable=%s, not %s", *m, DoNotSchedule, c.WhenUnsatisfiable)
			}
		}
		for _, f := range []struct {
			field string
			p     *NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} { // fixed order: the same error every run
			if f.p != nil && *f.p != NodeInclusionPolicyHonor && *f.p != NodeInclusionPolicyIgnore {
				return fail(f.field, "=%q: must be %s or %s", *f.p, NodeInclusionPolicyHonor, NodeInclusionPolicyIgnore)
			}
		}
		for j, k := range c.MatchLabelKeys {
			if errs := validation.IsQualifiedName(k); len(errs) > 0 {
				return fail(fmt.Sprintf("matchLabelKeys[%d]", j), "=%q: %s", k, strings.Join(errs, "; "))
			}
		}
	}
	return nil
}

// validateContainerResourceName is kube-apiserver's rule for container
// resource names: a name without a domain must be standard; a name with one
// must be a kubernetes.io name or a valid extended resource name.
func validateContainerResourceName(n resource.Name) string {
	s := string(n)
	if s == "" {
		return "empty resource name"
	}
	if !strings.Contains(s, "/") {
		switch {
		case n == resource.CPU, n == resource.Memory, n == resource.EphemeralStorage, n.IsHugePages():
			return ""
		}
		return "must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-*)"
	}
	if n.IsPrefixedNative() || n.IsExtended() {
		return ""
	}
	return "doesn't follow extended resource name standard"
}

// ValidateNode checks a node's capacity and allocatable for negative
// quantities; the error names the node, the field and the value.
func ValidateNode(node *Node) error {
	if node == nil {
		return fmt.Errorf("framework: nil node")
	}
	// Allocatable first, then capacity: a fixed order, so that the error
	// named is the same on every run.
	for _, f := range []struct {
		path string
		l    resource.List
	}{{"status.allocatable", node.Status.Allocatable}, {"status.capacity", node.Status.Capacity}} {
		path, l := f.path, f.l
		for _, n := range l.Names() {
			if q := l[n]; q.Sign() < 0 {
				return fmt.Errorf("framework: node %q: %s[%q]=%s: must not be negative", node.Name, path, n, q.String())
			}
		}
	}
	return nil
}
