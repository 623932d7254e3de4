package cluster

import (
	"github.com/schedkit/schedkit/framework/api"
)

// This file plays the DefaultStorageClass admission plugin for the claims
// the cluster and the what-if questions create (generic ephemeral volumes'
// claims, StatefulSet replicas' claims): a claim that names no class gets
// the cluster's default class, as when the API server admits it
// (k8s.io/kubernetes plugin/pkg/admission/storage/storageclass/setdefault
// Admit).

// Default-class annotations of StorageClasses (k8s.io/kubernetes
// pkg/volume/util IsDefaultStorageClassAnnotation and its beta form).
const (
	annDefaultClass     = "storageclass.kubernetes.io/is-default-class"
	annBetaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
)

// DefaultStorageClass returns the class the admission plugin gives a claim
// that names none: the newest class annotated as default, then the first
// by name ("" when there is none), as k8s.io/kubernetes pkg/volume/util
// GetDefaultClass picks it. O(storage objects).
func (c *Cluster) DefaultStorageClass() string {
	var best *api.StorageClass
	for _, sc := range c.Storage().StorageClasses {
		if sc.Annotations[annDefaultClass] != "true" && sc.Annotations[annBetaDefaultClass] != "true" {
			continue
		}
		if best == nil || sc.CreationTimestamp.After(best.CreationTimestamp) ||
			sc.CreationTimestamp.Equal(best.CreationTimestamp) && sc.Name < best.Name {
			best = sc
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

// namesClass reports whether a claim names its class: by
// spec.storageClassName or the beta annotation, even an empty one
// (component-helpers' PersistentVolumeClaimHasClass).
func namesClass(claim *api.PersistentVolumeClaim) bool {
	_, beta := claim.Annotations[api.AnnBetaStorageClass]
	return beta || claim.Spec.StorageClassName != nil
}

// WithDefaultClass sets class as claim's class when claim names none and
// class is not "".
func WithDefaultClass(claim *api.PersistentVolumeClaim, class string) {
	if class != "" && !namesClass(claim) {
		claim.Spec.StorageClassName = &class
	}
}
