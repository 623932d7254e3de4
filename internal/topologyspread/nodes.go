package topologyspread

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// HasAllKeys reports whether labels carry the topology key of every
// constraint (kube-scheduler's nodeLabelsMatchSpreadConstraints).
func HasAllKeys(labels map[string]string, cs []Constraint) bool {
	for i := range cs {
		if _, ok := labels[cs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// Inclusion decides, for one incoming pod, which nodes count towards a
// constraint under its node inclusion policies (kube-scheduler's
// matchNodeInclusionPolicies): with nodeAffinityPolicy Honor the node must
// match the pod's nodeSelector and required node affinity; with
// nodeTaintsPolicy Honor the node must have no NoSchedule or NoExecute taint
// the pod does not tolerate. Build it once per cycle with NewInclusion.
type Inclusion struct {
	affinity    api.RequiredNodeAffinity
	tolerations []api.Toleration
	// needAffinity and needTaints say whether any constraint honours the
	// policy, so Eval can skip work no constraint reads.
	needAffinity, needTaints bool
}

// NewInclusion compiles the pod's required node affinity and keeps its
// tolerations for the constraints cs.
func NewInclusion(pod *api.Pod, cs []Constraint) *Inclusion {
	in := &Inclusion{affinity: api.GetRequiredNodeAffinity(pod), tolerations: pod.Spec.Tolerations}
	for i := range cs {
		if cs[i].NodeAffinityPolicy == api.NodeInclusionPolicyHonor {
			in.needAffinity = true
		}
		if cs[i].NodeTaintsPolicy == api.NodeInclusionPolicyHonor {
			in.needTaints = true
		}
	}
	return in
}

// IncludesAll reports whether every node passes the inclusion checks for
// every constraint: no constraint honours taints, and none honours node
// affinity or the pod has no nodeSelector and no required node affinity.
// Callers may then skip Eval.
func (in *Inclusion) IncludesAll() bool {
	return !in.needTaints && (!in.needAffinity || in.affinity.IsEmpty())
}

// NodeVerdict is the per-node part of the inclusion check, evaluated once
// per node and reused for every constraint.
type NodeVerdict struct {
	AffinityOK bool
	TaintsOK   bool
}

// Eval checks node against the pod's required node affinity and tolerations
// (only the checks some constraint honours; the others report true).
func (in *Inclusion) Eval(node *api.Node) NodeVerdict {
	v := NodeVerdict{AffinityOK: true, TaintsOK: true}
	if in.needAffinity {
		v.AffinityOK = in.affinity.Match(node)
	}
	if in.needTaints {
		v.TaintsOK = !HasUntoleratedTaint(node.Spec.Taints, in.tolerations)
	}
	return v
}

// IndexedInclusion is an Inclusion resolved against one snapshot: Eval(k)
// is Inclusion.Eval of the snapshot's node k, from the snapshot's label
// values (api.IndexedNodeMatch) and taint classes.
type IndexedInclusion struct {
	needAffinity, needTaints bool
	affinity                 api.IndexedNodeMatch
	class                    []int32
	taintsOK                 []bool // by taint class
}

// Indexed resolves in against snap.
func (in *Inclusion) Indexed(snap *framework.Snapshot) *IndexedInclusion {
	x := &IndexedInclusion{needAffinity: in.needAffinity, needTaints: in.needTaints}
	if in.needAffinity {
		x.affinity = in.affinity.Indexed(snap)
	}
	if in.needTaints {
		tc := snap.TaintClasses()
		x.class, x.taintsOK = tc.Class, make([]bool, len(tc.Taints))
		for c, taints := range tc.Taints {
			x.taintsOK[c] = !HasUntoleratedTaint(taints, in.tolerations)
		}
	}
	return x
}

// Eval is Inclusion.Eval of the snapshot's node k.
func (x *IndexedInclusion) Eval(k int) NodeVerdict {
	v := NodeVerdict{AffinityOK: true, TaintsOK: true}
	if x.needAffinity {
		v.AffinityOK = x.affinity.Match(k)
	}
	if x.needTaints {
		v.TaintsOK = x.taintsOK[x.class[k]]
	}
	return v
}

// Includes reports whether a node with verdict v counts towards c.
func (v NodeVerdict) Includes(c *Constraint) bool {
	if c.NodeAffinityPolicy == api.NodeInclusionPolicyHonor && !v.AffinityOK {
		return false
	}
	if c.NodeTaintsPolicy == api.NodeInclusionPolicyHonor && !v.TaintsOK {
		return false
	}
	return true
}

// Includes reports whether node counts towards c (Eval then Includes).
func (in *Inclusion) Includes(c *Constraint, node *api.Node) bool {
	return in.Eval(node).Includes(c)
}

// HasUntoleratedTaint reports whether some NoSchedule or NoExecute taint is
// not tolerated (PreferNoSchedule taints never exclude a node).
func HasUntoleratedTaint(taints []api.Taint, tolerations []api.Toleration) bool {
	for i := range taints {
		t := &taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !api.TolerationsTolerateTaint(tolerations, t) {
			return true
		}
	}
	return false
}

// Query is the pod index query that counts what CountMatching counts: pods
// in namespace ns, not being deleted, matching sel. ok is false when sel
// matches everything (CountMatching counts nothing then).
func Query(sel api.Selector, ns string) (q framework.PodQuery, ok bool) {
	if sel.IsEverything() {
		return q, false
	}
	return framework.PodQuery{Terms: []framework.PodTerm{{Namespaces: []string{ns}, NamespaceSelector: api.NothingSelector(), Selector: sel}},
		SkipTerminating: true}, true
}

// CountMatching counts the pods that are in namespace ns, are not being
// deleted and match sel (kube-scheduler's countPodsMatchSelector). As in
// kube-scheduler, a selector that matches everything (an empty labelSelector
// {}) counts nothing.
func CountMatching(pods []*framework.PodInfo, sel *api.Selector, ns string) int {
	if sel.IsEverything() {
		return 0
	}
	n := 0
	for _, pi := range pods {
		if counts(pi.Pod, sel, ns) {
			n++
		}
	}
	return n
}

// Counts reports whether CountMatching counts pod pi: pi is in namespace
// ns, is not being deleted and matches sel, which does not match
// everything.
func Counts(pi *framework.PodInfo, sel *api.Selector, ns string) bool {
	return !sel.IsEverything() && counts(pi.Pod, sel, ns)
}

func counts(p *api.Pod, sel *api.Selector, ns string) bool {
	return p.DeletionTimestamp == nil && p.Namespace == ns && sel.Matches(p.Labels)
}
