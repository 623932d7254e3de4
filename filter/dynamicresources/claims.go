package dynamicresources

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// This file finds a pod's ResourceClaims (kube's resourceclaim.Name,
// IsForPod and IsReservedForPod, and the plugin's foreachPodResourceClaim)
// and the claim for extended resources backed by DRA
// (extendeddynamicresources.go in kube; its requests: internal/dra/extended).

// errClaimNotCreated is resourceclaim.ErrClaimNotFound: a template's
// claim is not named in the pod's status yet.
var errClaimNotCreated = errors.New("ResourceClaim not created yet")

// errClaimNotFound is the assume cache's error for a claim it does not
// hold.
func errClaimNotFound(namespace, name string) error {
	return fmt.Errorf("could not find ResourceClaim %q", namespace+"/"+name)
}

// podClaimName is resourceclaim.Name: the name of the claim behind one of
// the pod's spec.resourceClaims (nil when a template's claim was not
// needed), and whether the claim must be checked for being the pod's.
func podClaimName(pod *api.Pod, pc *api.PodResourceClaim) (*string, bool, error) {
	switch {
	case pc.ResourceClaimName != nil:
		return pc.ResourceClaimName, false, nil
	case pc.ResourceClaimTemplateName != nil:
		for i := range pod.Status.ResourceClaimStatuses {
			if st := &pod.Status.ResourceClaimStatuses[i]; st.Name == pc.Name {
				return st.ResourceClaimName, true, nil
			}
		}
		return nil, false, fmt.Errorf(`pod "%s/%s": %w`, pod.Namespace, pod.Name, errClaimNotCreated)
	}
	return nil, false, fmt.Errorf(`pod "%s/%s", spec.resourceClaim %q: none of the supported fields are set`, pod.Namespace, pod.Name, pc.Name)
}

// claimIsForPod is resourceclaim.IsForPod without pod groups: the claim is
// in the pod's namespace and the pod is its controller.
func claimIsForPod(pod *api.Pod, c *api.ResourceClaim) error {
	if c.Namespace != pod.Namespace {
		return fmt.Errorf("ResourceClaim %s/%s is not in the same namespace as Pod %s/%s", c.Namespace, c.Name, pod.Namespace, pod.Name)
	}
	if ref := c.ControllerRef(); ref == nil || ref.UID != pod.UID {
		return fmt.Errorf("ResourceClaim %s/%s was not created for Pod %s/%s (Pod is not owner)", c.Namespace, c.Name, pod.Namespace, pod.Name)
	}
	return nil
}

// reservedForPod is resourceclaim.IsReservedForPod without pod groups.
func reservedForPod(pod *api.Pod, c *api.ResourceClaim) bool {
	for i := range c.Status.ReservedFor {
		if c.Status.ReservedFor[i].UID == pod.UID {
			return true
		}
	}
	return false
}

// podClaims is foreachPodResourceClaim: the claims of the pod's
// spec.resourceClaims that exist, or the first reason the pod cannot be
// scheduled yet (a claim not created, missing, being deleted, or not the
// pod's).
func podClaims(view framework.DRAView, pod *api.Pod) ([]*api.ResourceClaim, error) {
	var out []*api.ResourceClaim
	for i := range pod.Spec.ResourceClaims {
		name, checkOwner, err := podClaimName(pod, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return nil, err
		}
		if name == nil {
			continue
		}
		c, ok := view.ResourceClaim(pod.Namespace, *name)
		if !ok {
			return nil, errClaimNotFound(pod.Namespace, *name)
		}
		if c.DeletionTimestamp != nil {
			return nil, fmt.Errorf("resourceclaim %q is being deleted", c.Name)
		}
		if checkOwner {
			if err := claimIsForPod(pod, c); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// The extended-resource claim: its in-memory name before PreBind creates
// it and the annotation that marks it.
const (
	specialClaimName        = "<extended-resources>"
	extendedClaimAnnotation = "resource.kubernetes.io/extended-resource-claim"
)

// extendedClass is the class that backs extended resource name, or nil
// (DRAView.ExtendedResourceClass).
func extendedClass(view framework.DRAView, name resource.Name) *api.DeviceClass {
	return view.ExtendedResourceClass(name)
}

// isDRAExtendedName is kube's IsDRAExtendedResourceName.
func isDRAExtendedName(n resource.Name) bool { return n.IsDRAExtended() }

// extendedRequests returns the pod's non-zero requests of extended
// resources some DeviceClass backs (nil when there is none), with every
// extended request of the pod (kube's podScalarResources).
func extendedRequests(view framework.DRAView, pod *api.Pod) map[resource.Name]int64 {
	if len(view.DeviceClasses()) == 0 {
		return nil
	}
	reqs := api.PodRequests(pod, api.RequestOptions{})
	backed := false
	for n, q := range reqs {
		if q.IsZero() || !isDRAExtendedName(n) {
			continue
		}
		if extendedClass(view, n) != nil {
			backed = true
			break
		}
	}
	if !backed {
		return nil
	}
	out := make(map[resource.Name]int64)
	for n, q := range reqs {
		if n.IsScalar() || isDRAExtendedName(n) {
			out[n] = q.Value()
		}
	}
	return out
}

// findExtendedClaim returns the extended-resource claim a previous cycle
// created for the pod (annotated, controlled by the pod), or nil.
func findExtendedClaim(view framework.DRAView, pod *api.Pod) *api.ResourceClaim {
	for _, c := range view.ResourceClaims() {
		if c.Annotations[extendedClaimAnnotation] != "true" {
			continue
		}
		for _, o := range c.OwnerReferences {
			if o.Name == pod.Name && o.Controller && o.UID == pod.UID {
				return c
			}
		}
	}
	return nil
}

// newExtendedClaim is the in-memory extended-resource claim of a pod,
// without requests until Filter gives each node its own.
func newExtendedClaim(pod *api.Pod) *api.ResourceClaim {
	c := &api.ResourceClaim{}
	c.Namespace, c.Name = pod.Namespace, specialClaimName
	c.UID = "extended-resources/" + pod.Namespace + "/" + pod.Name + "/" + pod.UID
	c.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true}}
	c.Annotations = map[string]string{extendedClaimAnnotation: "true"}
	return c
}
