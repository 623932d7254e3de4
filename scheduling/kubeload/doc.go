// Package kubeload reads real cluster dumps — what `kubectl get … -o json`
// and `-o yaml` print — into schedkit's object model and builds a
// cluster.Cluster from them, so that what-if questions can be asked of
// the cluster an operator runs.
//
// It accepts one object, a List (kubectl's or an API list such as
// PodList), a stream of JSON objects or multi-document YAML, of any mix of
// kinds, gzip-compressed or not. It reads Nodes, Pods, Namespaces,
// Services, ReplicaSets, StatefulSets, ReplicationControllers,
// PriorityClasses, PodDisruptionBudgets, the storage objects
// (PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
// CSIDrivers, CSIStorageCapacities, VolumeAttachments), scheduler-plugins'
// PodGroups, kube's alpha PodGroups and Workloads
// (scheduling.k8s.io/v1alpha2), the Dynamic Resource Allocation objects
// (ResourceSlices, DeviceClasses, ResourceClaims, ResourceClaimTemplates,
// DeviceTaintRules of resource.k8s.io/v1 and v1beta2) and Koordinator NodeMetrics; other
// kinds are counted and skipped.
// Every field an API server writes is accepted: the fields schedkit models
// are decoded strictly (an invalid quantity is an error naming the
// document, the object and the field path) and every other field is
// skipped and counted in the Report, by kind and path. A key given twice in
// one object, whatever the field, is an error naming the document, the
// object and the field path, as kube-apiserver's strict field validation
// refuses it (the last value would otherwise win silently). Pods are treated as
// kube-scheduler's informer and cache treat them: terminal pods are not
// listed, pods being deleted keep their resources on their node, pending
// pods being deleted are not scheduled, pods with scheduling gates are
// pending with their gates (the scheduler's SchedulingGates PreEnqueue
// plugin holds them until the gates are removed), pods on nodes missing
// from the dump take part in nothing; a pod without spec.priority gets it
// from its PriorityClass (or the global default) as the Priority admission
// plugin would. A Node with capacity and no allocatable gets its capacity
// as allocatable, as the API server's defaulting gives it (noted in the
// Report; an explicitly empty allocatable is kept, as the defaulting keeps
// it, and noted too). Claims and volumes keep the binding state the API server
// reported; a pod naming a claim the dump lacks, or whose generic ephemeral
// volume's claim the dump lacks, is kept (kube-scheduler's VolumeBinding
// rejects it at PreFilter) and listed in the Report, as are pods whose
// resource claims the dump lacks, the DRA objects kube's allocator sets
// apart (a slice of a node the dump lacks or of an older pool generation,
// a device name repeated in a pool, a claim naming a missing class: all
// kept) and pods using scheduling features schedkit does not model
// (dynamic resource allocation). A namespace the dump names only through its objects (`kubectl
// get nodes,pods -A` prints no Namespace objects) is inferred with the
// label kubernetes.io/metadata.name=<name>, the label the API server gives
// every namespace, so that affinity namespaceSelectors on it match as in
// the cluster; the Report lists each inferred namespace, and each pod whose
// namespaceSelector needs other namespace labels.
//
// The package sits under scheduling because its product is a
// cluster.Cluster and its rules are the scheduler's view of the API
// (informer filters, cache semantics, admission defaults); framework stays
// the object model without input formats, and examples and users reach the
// loader and the what-if API side by side.
package kubeload
