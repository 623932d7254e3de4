package karmada

import (
	"fmt"
	"math"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// This file holds the object model of the Karmada multi-cluster estimators:
// member clusters as Karmada's scheduler sees them (resource summary and
// graded resource models), per-replica requirements, and the per-cluster
// answers. Field names follow Karmada's cluster.karmada.io/v1alpha1 and
// work.karmada.io/v1alpha2 APIs so that manifests translate field for field.

// UnauthenticReplica is the per-cluster answer of an estimator that could
// not estimate the cluster (Karmada's estimatorclient.UnauthenticReplica).
// CalAvailableReplicas ignores it.
const UnauthenticReplica int32 = -1

// MaxPodsPerVirtualNode is the pod capacity Karmada v1.18+ gives every
// virtual node it builds from a resource-model grade (the Kubernetes default
// of 110 pods per node).
const MaxPodsPerVirtualNode = 110

// ResourceModelRange is one resource's interval [Min, Max) within a grade
// (Karmada ResourceModelRange). Only Min is used by the estimators; Max is
// checked by ValidateResourceModels.
type ResourceModelRange struct {
	Name resource.Name     `json:"name"`
	Min  resource.Quantity `json:"min"`
	Max  resource.Quantity `json:"max"`
}

// ResourceModel is one grade of a cluster's customized resource models
// (Karmada ResourceModel): a node whose free resources fall in every range of
// the grade belongs to it.
type ResourceModel struct {
	Grade  uint                 `json:"grade"`
	Ranges []ResourceModelRange `json:"ranges"`
}

// AllocatableModeling is the number of nodes of one grade
// (Karmada AllocatableModeling, in status.resourceSummary).
type AllocatableModeling struct {
	Grade uint `json:"grade"`
	Count int  `json:"count"`
}

// ResourceSummary is a member cluster's aggregate resources, as Karmada's
// cluster status controller reports them in status.resourceSummary:
// Allocatable is the sum of every node's allocatable; Allocated the requests
// of the pods bound to a node and not terminal; Allocating the requests of
// the pods without a node. Each holds the pod count under "pods".
// AllocatableModelings counts the nodes per resource-model grade.
type ResourceSummary struct {
	Allocatable          resource.List         `json:"allocatable,omitempty"`
	Allocating           resource.List         `json:"allocating,omitempty"`
	Allocated            resource.List         `json:"allocated,omitempty"`
	AllocatableModelings []AllocatableModeling `json:"allocatableModelings,omitempty"`
}

// Clone returns a deep copy of s (nil for nil).
func (s *ResourceSummary) Clone() *ResourceSummary {
	if s == nil {
		return nil
	}
	c := &ResourceSummary{
		Allocatable: s.Allocatable.Clone(),
		Allocating:  s.Allocating.Clone(),
		Allocated:   s.Allocated.Clone(),
	}
	if s.AllocatableModelings != nil {
		c.AllocatableModelings = append([]AllocatableModeling(nil), s.AllocatableModelings...)
	}
	return c
}

// Cluster is a member cluster as Karmada's scheduler sees it: its name and
// labels, its resource models (spec.resourceModels) and its resource summary
// (status.resourceSummary; nil when not collected yet).
type Cluster struct {
	Name            string            `json:"name"`
	Labels          map[string]string `json:"labels,omitempty"`
	ResourceModels  []ResourceModel   `json:"resourceModels,omitempty"`
	ResourceSummary *ResourceSummary  `json:"resourceSummary,omitempty"`
}

// NodeClaim is the node affinity, node selector and tolerations every
// replica requires (Karmada NodeClaim).
type NodeClaim struct {
	HardNodeAffinity *api.NodeSelector `json:"hardNodeAffinity,omitempty"`
	NodeSelector     map[string]string `json:"nodeSelector,omitempty"`
	Tolerations      []api.Toleration  `json:"tolerations,omitempty"`
}

// ReplicaRequirements are the requirements of one replica (Karmada
// ReplicaRequirements): its resource requests and node claim.
type ReplicaRequirements struct {
	ResourceRequest resource.List `json:"resourceRequest,omitempty"`
	NodeClaim       *NodeClaim    `json:"nodeClaim,omitempty"`
}

// Component is one pod template of a multi-template workload (Karmada
// Component): Replicas pods, each with Requirements. A complete set of a
// workload holds every component's replicas.
type Component struct {
	Name         string               `json:"name"`
	Replicas     int32                `json:"replicas"`
	Requirements *ReplicaRequirements `json:"replicaRequirements,omitempty"`
}

// AssumedWorkload is a workload already assigned to a cluster but not yet
// visible in its resource summary (Karmada's in-flight workloads, deducted
// when SchedulingOvercommitProtection is on).
type AssumedWorkload struct {
	Name       string      `json:"name,omitempty"`
	Components []Component `json:"components"`
}

// TargetCluster is a number of replicas for one cluster: an estimate of the
// replicas a cluster can hold, or a division result (Karmada TargetCluster).
type TargetCluster struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas"`
}

// ComponentSetEstimate is the number of complete component sets a cluster
// can hold (Karmada ComponentSetEstimationResponse).
type ComponentSetEstimate struct {
	Name string `json:"name"`
	Sets int32  `json:"sets"`
}

// clamp32 converts v to int32, saturating. Karmada converts with a bare
// int32() cast, which wraps for values beyond MaxInt32; we saturate instead.
func clamp32(v int64) int32 {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	if v < math.MinInt32 {
		return math.MinInt32
	}
	return int32(v)
}

// satAdd adds two non-negative int64 values, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies two non-negative int64 values, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// checkList rejects negative quantities in l, naming what and the
// resource (the first negative one by name).
func checkList(what string, l resource.List) error {
	if !hasNegative(l) {
		return nil
	}
	for _, n := range l.Names() {
		if q := l[n]; q.Sign() < 0 {
			return fmt.Errorf("estimator: %s[%q]=%s: must not be negative", what, n, q.String())
		}
	}
	return nil
}

// hasNegative reports whether l holds a negative quantity, without
// allocating.
func hasNegative(l resource.List) bool {
	for _, q := range l {
		if q.Sign() < 0 {
			return true
		}
	}
	return false
}

// checkRequirements rejects negative requests.
func checkRequirements(what string, r *ReplicaRequirements) error {
	if r == nil {
		return nil
	}
	return checkList(what+".resourceRequest", r.ResourceRequest)
}

// checkComponents rejects negative replica counts and negative requests.
func checkComponents(what string, comps []Component) error {
	for i := range comps {
		c := &comps[i]
		p := fmt.Sprintf("%s[%d] (%q)", what, i, c.Name)
		if c.Replicas < 0 {
			return fmt.Errorf("estimator: %s.replicas=%d: must not be negative", p, c.Replicas)
		}
		if err := checkRequirements(p, c.Requirements); err != nil {
			return err
		}
	}
	return nil
}

// checkCluster validates what every estimator reads from a cluster: a
// non-nil cluster with a name, non-negative summary quantities and node
// counts, and resource models whose Mins are non-negative and whose grades
// list each resource at most once.
func checkCluster(i int, c *Cluster) error {
	if c == nil {
		return fmt.Errorf("estimator: clusters[%d] is nil", i)
	}
	if c.Name == "" {
		return fmt.Errorf("estimator: clusters[%d]: empty name", i)
	}
	p := fmt.Sprintf("cluster %q", c.Name)
	for gi := range c.ResourceModels {
		m := &c.ResourceModels[gi]
		seen := make(map[resource.Name]bool, len(m.Ranges))
		for ri := range m.Ranges {
			r := &m.Ranges[ri]
			if seen[r.Name] {
				return fmt.Errorf("estimator: %s: resourceModels[%d] (grade %d): resource %q listed twice", p, gi, m.Grade, r.Name)
			}
			seen[r.Name] = true
			if r.Min.Sign() < 0 {
				return fmt.Errorf("estimator: %s: resourceModels[%d] (grade %d): %q min=%s: must not be negative", p, gi, m.Grade, r.Name, r.Min.String())
			}
		}
	}
	s := c.ResourceSummary
	if s == nil {
		return nil
	}
	for _, l := range []struct {
		name string
		list resource.List
	}{{"allocatable", s.Allocatable}, {"allocated", s.Allocated}, {"allocating", s.Allocating}} {
		if err := checkList(p+": resourceSummary."+l.name, l.list); err != nil {
			return err
		}
	}
	for _, am := range s.AllocatableModelings {
		if am.Count < 0 {
			return fmt.Errorf("estimator: %s: allocatableModelings grade %d count=%d: must not be negative", p, am.Grade, am.Count)
		}
	}
	return nil
}

// checkClusters validates a cluster list: non-empty, valid clusters,
// unique names.
func checkClusters(clusters []*Cluster) error {
	if len(clusters) == 0 {
		return fmt.Errorf("estimator: empty cluster list")
	}
	seen := make(map[string]int, len(clusters))
	for i, c := range clusters {
		if err := checkCluster(i, c); err != nil {
			return err
		}
		if j, dup := seen[c.Name]; dup {
			return fmt.Errorf("estimator: clusters[%d] and clusters[%d] are both named %q", j, i, c.Name)
		}
		seen[c.Name] = i
	}
	return nil
}
