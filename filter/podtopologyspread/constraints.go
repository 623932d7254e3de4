// What PodTopologySpread's filter and score share: turning a pod's
// topology spread constraints, or the configured defaults, into compiled
// constraints; the default selector derived from the Services and workload
// controllers that select the pod; which nodes count towards a constraint;
// and which existing pods count. Everything here reproduces kube-scheduler
// v1.36 pkg/scheduler/framework/plugins/podtopologyspread/common.go and
// plugins/helper/spread.go.

package podtopologyspread

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/validation"
)

// labelHostname is the well-known node label whose constraints the score
// counts on the node itself rather than per domain.
const labelHostname = "kubernetes.io/hostname"

// labelTopologyZone is the well-known zone label used by the system default
// constraints.
const labelTopologyZone = "topology.kubernetes.io/zone"

// constraint is a compiled topology spread constraint: kube-scheduler's
// internal topologySpreadConstraint. Unset fields of the API constraint are
// already resolved: MinDomains 1, NodeAffinityPolicy Honor, NodeTaintsPolicy
// Ignore; matchLabelKeys are merged into Selector.
type constraint struct {
	MaxSkew            int32
	TopologyKey        string
	Selector           api.Selector
	MinDomains         int32
	NodeAffinityPolicy api.NodeInclusionPolicy
	NodeTaintsPolicy   api.NodeInclusionPolicy
}

// IsHostname reports whether the constraint spreads over the
// kubernetes.io/hostname label (the score counts those per node).
func (c *constraint) IsHostname() bool { return c.TopologyKey == labelHostname }

// systemDefaultConstraints returns kube-scheduler's built-in default
// constraints used with defaultingType System: hostname with maxSkew 3 and
// zone with maxSkew 5, both ScheduleAnyway. The slice is new on every call.
func systemDefaultConstraints() []api.TopologySpreadConstraint {
	return []api.TopologySpreadConstraint{
		{TopologyKey: labelHostname, WhenUnsatisfiable: api.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: labelTopologyZone, WhenUnsatisfiable: api.ScheduleAnyway, MaxSkew: 5},
	}
}

// buildConstraints returns the pod's constraints whose whenUnsatisfiable equals action,
// compiled. A pod with its own constraints uses them; a pod without uses
// defaults, but only when a selector can be derived from the Services,
// ReplicationControllers, ReplicaSets and StatefulSets of snap that select
// it (defaultSelector); that selector then replaces every default
// constraint's selector. snap may be nil only when the pod has its own
// constraints or defaults is empty.
//
// The pod's own constraints are validated first (validatePodConstraints); a
// bad field or selector is an error naming the pod, the field and the value.
// This matches kube-scheduler v1.36 getConstraints/buildDefaultConstraints.
func buildConstraints(pod *api.Pod, action api.UnsatisfiableConstraintAction, defaults []api.TopologySpreadConstraint, snap *framework.Snapshot) ([]constraint, error) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		if err := validatePodConstraints(pod); err != nil {
			return nil, err
		}
		out, err := compile(pod.Spec.TopologySpreadConstraints, pod.Labels, action)
		if err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod.Key(), err)
		}
		return out, nil
	}
	used, selectorFree := defaultsWith(defaults, action)
	if !used {
		return nil, nil
	}
	var out []constraint
	var err error
	if !selectorFree {
		// Compiling may fail: its error comes first.
		if out, err = compile(defaults, pod.Labels, action); err != nil {
			return nil, err
		}
	}
	if snap == nil {
		return nil, errors.New("default topology spread constraints need the cycle's snapshot (its services and controllers), but the cycle state has none")
	}
	sel := defaultSelector(pod, snap.Services, snap.Controllers)
	if sel.IsEverything() {
		return nil, nil // most pods without services or controllers: nothing compiled
	}
	if out == nil { // selector-free defaults, compiled only now
		if out, err = compile(defaults, pod.Labels, action); err != nil {
			return nil, err
		}
	}
	for i := range out {
		out[i].Selector = sel
	}
	return out, nil
}

// defaultsWith reports whether some of the default constraints have the
// action and whether none of those has a labelSelector (so compiling them
// cannot fail; validated arguments never have one).
func defaultsWith(defaults []api.TopologySpreadConstraint, action api.UnsatisfiableConstraintAction) (used, selectorFree bool) {
	selectorFree = true
	for i := range defaults {
		if defaults[i].WhenUnsatisfiable == action {
			used = true
			selectorFree = selectorFree && defaults[i].LabelSelector == nil
		}
	}
	return used, selectorFree
}

// compile keeps the constraints with the given action and compiles them, as
// kube-scheduler's filterTopologySpreadConstraints.
func compile(cs []api.TopologySpreadConstraint, podLabels map[string]string, action api.UnsatisfiableConstraintAction) ([]constraint, error) {
	var out []constraint
	for i := range cs {
		if out == nil && cs[i].WhenUnsatisfiable == action {
			out = make([]constraint, 0, len(cs)-i)
		}
		c := &cs[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := c.LabelSelector.Compile()
		if err != nil {
			return nil, fmt.Errorf("topologySpreadConstraints[%d]: %w", i, err)
		}
		// matchLabelKeys: AND the pod's own value of each listed key that
		// the pod carries (MatchLabelKeysInPodTopologySpread, on in v1.36).
		// A nil labelSelector stays "nothing".
		for _, k := range c.MatchLabelKeys {
			if v, ok := podLabels[k]; ok {
				sel = sel.With(k, api.LabelSelectorOpIn, v)
			}
		}
		tc := constraint{
			MaxSkew:            c.MaxSkew,
			TopologyKey:        c.TopologyKey,
			Selector:           sel,
			MinDomains:         1,
			NodeAffinityPolicy: api.NodeInclusionPolicyHonor,
			NodeTaintsPolicy:   api.NodeInclusionPolicyIgnore,
		}
		if c.MinDomains != nil {
			tc.MinDomains = *c.MinDomains
		}
		if c.NodeAffinityPolicy != nil {
			tc.NodeAffinityPolicy = *c.NodeAffinityPolicy
		}
		if c.NodeTaintsPolicy != nil {
			tc.NodeTaintsPolicy = *c.NodeTaintsPolicy
		}
		out = append(out, tc)
	}
	return out, nil
}

// validatePodConstraints checks the fields of the pod's topology spread
// constraints that would otherwise make kube-scheduler behave in a way the
// API server never lets happen, or silently drop a constraint:
// maxSkew > 0, a non-empty topologyKey, whenUnsatisfiable DoNotSchedule or
// ScheduleAnyway, minDomains > 0 when set, and nodeAffinityPolicy /
// nodeTaintsPolicy Honor or Ignore when set. It does not reject duplicate
// (topologyKey, whenUnsatisfiable) pairs or minDomains with ScheduleAnyway:
// kube-scheduler handles those deterministically and its own tests use them.
// All problems are joined into one error, each naming the field and value.
func validatePodConstraints(pod *api.Pod) error {
	var errs []error
	for i := range pod.Spec.TopologySpreadConstraints {
		// PreFilter and PreScore check every cycle's pod: the path is
		// formatted only for a constraint with a problem.
		c := &pod.Spec.TopologySpreadConstraints[i]
		if len(validateConstraint("", c)) > 0 {
			errs = append(errs, validateConstraint(fmt.Sprintf("topologySpreadConstraints[%d]", i), c)...)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("pod %s: %w", pod.Key(), errors.Join(errs...))
}

// validateConstraint checks one constraint's maxSkew, topologyKey,
// whenUnsatisfiable, minDomains and node inclusion policies (see
// validatePodConstraints); path prefixes each error. The label selector is
// not checked here.
func validateConstraint(path string, c *api.TopologySpreadConstraint) []error {
	var errs []error
	if c.MaxSkew <= 0 {
		errs = append(errs, fmt.Errorf("%s.maxSkew=%d: not in valid range (0, inf)", path, c.MaxSkew))
	}
	if c.TopologyKey == "" {
		errs = append(errs, fmt.Errorf("%s.topologyKey=\"\": required", path))
	} else if msg := checkQualifiedName(c.TopologyKey); msg != "" {
		errs = append(errs, fmt.Errorf("%s.topologyKey=%q: %s", path, c.TopologyKey, msg))
	}
	switch c.WhenUnsatisfiable {
	case api.DoNotSchedule, api.ScheduleAnyway:
	case "":
		errs = append(errs, fmt.Errorf("%s.whenUnsatisfiable=\"\": required", path))
	default:
		errs = append(errs, fmt.Errorf("%s.whenUnsatisfiable=%q: supported values: %q, %q", path, c.WhenUnsatisfiable, api.DoNotSchedule, api.ScheduleAnyway))
	}
	if c.MinDomains != nil && *c.MinDomains <= 0 {
		errs = append(errs, fmt.Errorf("%s.minDomains=%d: not in valid range (0, inf)", path, *c.MinDomains))
	}
	if p := c.NodeAffinityPolicy; p != nil && *p != api.NodeInclusionPolicyHonor && *p != api.NodeInclusionPolicyIgnore {
		errs = append(errs, fmt.Errorf("%s.nodeAffinityPolicy=%q: supported values: %q, %q", path, *p, api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore))
	}
	if p := c.NodeTaintsPolicy; p != nil && *p != api.NodeInclusionPolicyHonor && *p != api.NodeInclusionPolicyIgnore {
		errs = append(errs, fmt.Errorf("%s.nodeTaintsPolicy=%q: supported values: %q, %q", path, *p, api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore))
	}
	return errs
}

// checkQualifiedName returns why s is not a valid Kubernetes qualified name
// (label key syntax: an optional DNS-subdomain prefix of at most 253
// characters and "/", then a name of 1–63 alphanumerics, '-', '_' or '.',
// starting and ending with an alphanumeric), or "" when it is valid.
func checkQualifiedName(s string) string {
	return strings.Join(validation.IsQualifiedName(s), "; ")
}
