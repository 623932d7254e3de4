package podtopologyspread

import (
	"github.com/schedkit/schedkit/framework/api"
)

// Workload controller kinds (the kinds a pod's controller owner reference
// names) that defaultSelector looks up, with the apiVersion kube-scheduler
// requires of the owner reference.
const (
	KindReplicationController = "ReplicationController"
	KindReplicaSet            = "ReplicaSet"
	KindStatefulSet           = "StatefulSet"
)

// ownerKind returns the controller kind an owner reference names, or "" when
// it names none that default spreading uses. kube-scheduler matches the
// exact group/version/kind (v1 ReplicationController, apps/v1 ReplicaSet,
// apps/v1 StatefulSet); schedkit also accepts an empty apiVersion, since
// hand-built objects often omit it.
func ownerKind(ref *api.OwnerReference) string {
	switch ref.Kind {
	case KindReplicationController:
		if ref.APIVersion == "v1" || ref.APIVersion == "" {
			return ref.Kind
		}
	case KindReplicaSet, KindStatefulSet:
		if ref.APIVersion == "apps/v1" || ref.APIVersion == "" {
			return ref.Kind
		}
	}
	return ""
}

// defaultSelector returns the selector kube-scheduler derives for default
// spreading (plugins/helper.DefaultSelector in v1.36): the union of the
// selectors of the pod's namespace's Services that select the pod (a
// Service with a nil selector selects nothing), plus the selector of the
// ReplicationController, ReplicaSet or StatefulSet named by the pod's
// controller owner reference, looked up by kind, namespace and name in
// controllers. A ReplicationController's matchLabels are merged into the
// label set; a ReplicaSet's or StatefulSet's selector (and any expressions of
// a ReplicationController) is ANDed as requirements, and skipped when it
// does not compile. A result that matches everything means "no selector".
func defaultSelector(pod *api.Pod, services []api.Service, controllers []api.WorkloadController) api.Selector {
	set := map[string]string{}
	for i := range services {
		svc := &services[i]
		if svc.Namespace != pod.Namespace || svc.Selector == nil || !setMatches(svc.Selector, pod.Labels) {
			continue
		}
		for k, v := range svc.Selector {
			set[k] = v
		}
	}
	ref := pod.ControllerRef()
	if ref == nil {
		return api.SelectorFromSet(set)
	}
	kind := ownerKind(ref)
	if kind == "" {
		return api.SelectorFromSet(set)
	}
	var ctrl *api.WorkloadController
	for i := range controllers {
		c := &controllers[i]
		if c.Kind == kind && c.Namespace == pod.Namespace && c.Name == ref.Name {
			ctrl = c
			break
		}
	}
	if ctrl == nil {
		return api.SelectorFromSet(set)
	}
	if kind == KindReplicationController {
		for k, v := range ctrl.Selector.MatchLabels {
			set[k] = v
		}
		if len(ctrl.Selector.MatchExpressions) == 0 {
			return api.SelectorFromSet(set)
		}
	}
	sel := api.SelectorFromSet(set)
	if _, err := ctrl.Selector.Compile(); err != nil {
		return sel
	}
	if kind != KindReplicationController {
		for k, v := range ctrl.Selector.MatchLabels {
			sel = sel.With(k, api.LabelSelectorOpIn, v)
		}
	}
	for _, e := range ctrl.Selector.MatchExpressions {
		sel = sel.With(e.Key, e.Operator, e.Values...)
	}
	return sel
}

// setMatches reports whether labels contain every key/value pair of set.
func setMatches(set, labels map[string]string) bool {
	for k, v := range set {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}
