package scheduling

import (
	"fmt"
	"maps"
	"slices"

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

// claimFromTemplate is the claim the StatefulSet controller creates for
// pod from template t: <template name>-<pod name> in the pod's namespace,
// with the template's labels, annotations and spec, and class defaultClass
// when the template names none (storage_defaultclass.go).
func claimFromTemplate(pod *api.Pod, t *api.PersistentVolumeClaim, defaultClass string) *api.PersistentVolumeClaim {
	c := &api.PersistentVolumeClaim{Spec: t.Spec}
	c.Name, c.Namespace = t.Name+"-"+pod.Name, pod.Namespace
	c.Labels, c.Annotations = maps.Clone(t.Labels), maps.Clone(t.Annotations)
	withDefaultClass(c, defaultClass)
	return c
}

// addReplicaClaims gives replica pod its claims from the templates, on the
// question's fork: each claim is created unless it exists (the controller
// then reuses it, bound or not), and the pod's volumes become one claim
// volume per template, named after it, followed by the pod's other
// volumes (k8s.io/kubernetes pkg/controller/statefulset updateStorage).
func (w *WhatIf) addReplicaClaims(pod *api.Pod, templates []*api.PersistentVolumeClaim, defaultClass string) error {
	if len(templates) == 0 {
		return nil
	}
	c := w.s.cluster
	vols := make([]api.Volume, 0, len(templates)+len(pod.Spec.Volumes))
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	for _, t := range templates {
		claim := claimFromTemplate(pod, t, defaultClass)
		if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, claim.Namespace, claim.Name); !ok {
			if err := c.AddStorageObject(claim); err != nil {
				return fmt.Errorf("replica %s: claim %s from template %q: %w", pod.Key(), claim.Key(), t.Name, err)
			}
		}
		vols = append(vols, api.Volume{Name: t.Name, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim.Name}}})
	}
	for _, v := range pod.Spec.Volumes {
		if !slices.ContainsFunc(templates, func(t *api.PersistentVolumeClaim) bool { return t.Name == v.Name }) {
			vols = append(vols, v)
		}
	}
	pod.Spec.Volumes = vols
	return nil
}

// claimsText describes the claims replicas of template get from the
// templates: "data: storage 10Gi, class standard-rwo".
func claimsText(template *api.Pod, templates []*api.PersistentVolumeClaim, defaultClass string) []string {
	out := make([]string, len(templates))
	for i, t := range templates {
		c := claimFromTemplate(template, t, defaultClass)
		class := api.ClaimClass(c)
		if class == "" {
			class = `""`
		}
		out[i] = fmt.Sprintf("%s: %s, class %s", t.Name, listText(c.Spec.Resources.Requests), class)
	}
	return out
}
