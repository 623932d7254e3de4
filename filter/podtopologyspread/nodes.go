package podtopologyspread

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/boolbit"
)

// hasAllKeys reports whether labels carry the topology key of every
// constraint (kube-scheduler's nodeLabelsMatchSpreadConstraints).
func hasAllKeys(labels map[string]string, cs []constraint) bool {
	for i := range cs {
		if _, ok := labels[cs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// inclusion decides, for one incoming pod, which nodes count towards a
// constraint under its node inclusion policies (kube-scheduler's
// matchNodeInclusionPolicies): with nodeAffinityPolicy Honor the node must
// match the pod's nodeSelector and required node affinity; with
// nodeTaintsPolicy Honor the node must have no NoSchedule or NoExecute taint
// the pod does not tolerate. buildConstraints it once per cycle with newInclusion.
type inclusion struct {
	affinity    api.RequiredNodeAffinity
	tolerations []api.Toleration
	// needAffinity and needTaints say whether any constraint honours the
	// policy, so Eval can skip work no constraint reads.
	needAffinity, needTaints bool
}

// newInclusion compiles the pod's required node affinity and keeps its
// tolerations for the constraints cs.
func newInclusion(pod *api.Pod, cs []constraint) *inclusion {
	in := &inclusion{affinity: api.GetRequiredNodeAffinity(pod), tolerations: pod.Spec.Tolerations}
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
func (in *inclusion) IncludesAll() bool {
	return !in.needTaints && (!in.needAffinity || in.affinity.IsEmpty())
}

// nodeVerdict is the per-node part of the inclusion check, evaluated once
// per node and reused for every constraint.
type nodeVerdict struct {
	AffinityOK bool
	TaintsOK   bool
}

// Eval checks node against the pod's required node affinity and tolerations
// (only the checks some constraint honours; the others report true).
func (in *inclusion) Eval(node *api.Node) nodeVerdict {
	v := nodeVerdict{AffinityOK: true, TaintsOK: true}
	if in.needAffinity {
		v.AffinityOK = in.affinity.Match(node)
	}
	if in.needTaints {
		v.TaintsOK = !hasUntoleratedTaint(node.Spec.Taints, in.tolerations)
	}
	return v
}

// indexedInclusion is an inclusion resolved against one snapshot: Eval(k)
// is inclusion.Eval of the snapshot's node k, read from two bitmaps of the
// snapshot's nodes by position.
type indexedInclusion struct {
	// affBits are the nodes the pod's required node affinity matches
	// (Snapshot.NodesMatching); nil when no constraint honours it or the
	// pod has none (every node passes).
	affBits []uint64
	// taintBits are the nodes whose NoSchedule and NoExecute taints the
	// pod tolerates (toleratedNodes); nil when no constraint honours
	// taints.
	taintBits []uint64
}

// Indexed resolves in against snap. Pods that write their node
// constraints, or their tolerations, alike share the bitmaps, which the
// snapshot keeps while its nodes stay the same.
func (in *inclusion) Indexed(snap *framework.Snapshot) *indexedInclusion {
	x := &indexedInclusion{}
	if in.needAffinity && !in.affinity.IsEmpty() {
		x.affBits = snap.NodesMatching(&in.affinity)
	}
	if in.needTaints {
		x.taintBits = toleratedNodes(snap, in.tolerations)
	}
	return x
}

// everyNode reports whether each of the snapshot's n nodes passes x's
// checks: a pod whose node constraints or tolerations every node meets
// (a nodeSelector of the OS every node runs) excludes none, as one
// without them.
func (x *indexedInclusion) everyNode(n int) bool {
	return allNodes(x.affBits, n) && allNodes(x.taintBits, n)
}

// allNodes reports whether bitmap b (nil: every node) holds each of n
// nodes.
func allNodes(b []uint64, n int) bool {
	if b == nil {
		return true
	}
	for w := range n >> 6 {
		if b[w] != ^uint64(0) {
			return false
		}
	}
	rest := uint64(1)<<(n&63) - 1
	return n&63 == 0 || b[n>>6]&rest == rest
}

// Eval is inclusion.Eval of the snapshot's node k.
func (x *indexedInclusion) Eval(k int) nodeVerdict {
	v := nodeVerdict{AffinityOK: true, TaintsOK: true}
	if x.affBits != nil {
		v.AffinityOK = x.affBits[k>>6]&(1<<(k&63)) != 0
	}
	if x.taintBits != nil {
		v.TaintsOK = x.taintBits[k>>6]&(1<<(k&63)) != 0
	}
	return v
}

// toleratedMemoPrefix starts the plugin's keys in the snapshot's NodesMemo.
const toleratedMemoPrefix = "PodTopologySpread/tolerated:"

// toleratedNodes returns the snapshot's nodes that have no NoSchedule or
// NoExecute taint tolerations leave untolerated, as a bitmap by position,
// kept in the snapshot's NodesMemo under the tolerations as written. It
// is read-only.
func toleratedNodes(snap *framework.Snapshot, tolerations []api.Toleration) []uint64 {
	var buf [256]byte
	key := appendTolerationsKey(append(buf[:0], toleratedMemoPrefix...), tolerations)
	return snap.NodesMemo(key, func() any {
		tc := snap.TaintClasses()
		ok := make([]bool, len(tc.Taints))
		for c, taints := range tc.Taints {
			ok[c] = !hasUntoleratedTaint(taints, tolerations)
		}
		n := snap.NumNodes()
		bits := make([]uint64, (n+63)/64)
		class := tc.Class[:n]
		for w := range bits {
			var word uint64
			for i := w * 64; i < min(w*64+64, n); i++ {
				word |= uint64(boolbit.Of(ok[class[i]])) << (i & 63)
			}
			bits[w] = word
		}
		return bits
	}).([]uint64)
}

// appendTolerationsKey appends to b a key of tolerations as written (what
// Toleration.ToleratesTaint reads of each, in order): equal lists get
// equal keys, different ones different keys.
func appendTolerationsKey(b []byte, tolerations []api.Toleration) []byte {
	str := func(b []byte, s string) []byte {
		n := len(s)
		return append(append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n)), s...)
	}
	for i := range tolerations {
		t := &tolerations[i]
		b = str(str(str(str(b, t.Key), string(t.Operator)), t.Value), string(t.Effect))
	}
	return b
}

// Includes reports whether a node with verdict v counts towards c.
func (v nodeVerdict) Includes(c *constraint) bool {
	if c.NodeAffinityPolicy == api.NodeInclusionPolicyHonor && !v.AffinityOK {
		return false
	}
	if c.NodeTaintsPolicy == api.NodeInclusionPolicyHonor && !v.TaintsOK {
		return false
	}
	return true
}

// Includes reports whether node counts towards c (Eval then Includes).
func (in *inclusion) Includes(c *constraint, node *api.Node) bool {
	return in.Eval(node).Includes(c)
}

// hasUntoleratedTaint reports whether some NoSchedule or NoExecute taint is
// not tolerated (PreferNoSchedule taints never exclude a node).
func hasUntoleratedTaint(taints []api.Taint, tolerations []api.Toleration) bool {
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

// selectorQuery is the pod index query that counts what countMatching counts: pods
// in namespace ns, not being deleted, matching sel. ok is false when sel
// matches everything (countMatching counts nothing then).
func selectorQuery(sel api.Selector, ns string) (q framework.PodQuery, ok bool) {
	if sel.IsEverything() {
		return q, false
	}
	return framework.PodQuery{Terms: []framework.PodTerm{{Namespaces: []string{ns}, NamespaceSelector: api.NothingSelector(), Selector: sel}},
		SkipTerminating: true}, true
}

// countMatching counts the pods that are in namespace ns, are not being
// deleted and match sel (kube-scheduler's countPodsMatchSelector). As in
// kube-scheduler, a selector that matches everything (an empty labelSelector
// {}) counts nothing.
func countMatching(pods []*framework.PodInfo, sel *api.Selector, ns string) int {
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

// countsPod reports whether countMatching counts pod pi: pi is in namespace
// ns, is not being deleted and matches sel, which does not match
// everything.
func countsPod(pi *framework.PodInfo, sel *api.Selector, ns string) bool {
	return !sel.IsEverything() && counts(pi.Pod, sel, ns)
}

func counts(p *api.Pod, sel *api.Selector, ns string) bool {
	return p.DeletionTimestamp == nil && p.Namespace == ns && sel.Matches(p.Labels)
}
