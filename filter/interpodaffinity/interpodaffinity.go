// Package interpodaffinity is kube-scheduler's InterPodAffinity plugin: a
// node where the pod's required pod affinity is unmet, or where the pod's
// or an existing pod's required anti-affinity is violated, rejects the
// pod, and nodes whose topology domains hold more of the pods the pod's
// preferred terms select (and of the pods whose terms select the pod)
// score higher. It reproduces v1.37 (the default release) and v1.36, with
// its args (InterPodAffinityArgs). Its terms (terms.go) resolve the
// incoming pod's namespace selectors against the cycle's snapshot as the
// plugin's release does.
package interpodaffinity

import (
	"context"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/slicepool"
)

// Reasons of InterPodAffinity's Filter, verbatim from kube-scheduler
// (interpodaffinity/filtering.go).
const (
	// ErrReasonAffinityRulesNotMatch: the incoming pod's required pod
	// affinity is not met on the node (UnschedulableAndUnresolvable).
	ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinityRulesNotMatch: the incoming pod's required pod
	// anti-affinity is violated on the node (Unschedulable).
	ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules"
	// ErrReasonExistingAntiAffinityRulesNotMatch: an existing pod's required
	// anti-affinity rejects the incoming pod (Unschedulable).
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// InterPodAffinity is kube-scheduler's InterPodAffinity plugin of the
// handle's release.
//
// PreFilter counts, per topology domain, the existing pods that the
// incoming pod's required (anti-)affinity terms select and the existing
// pods whose required anti-affinity selects the incoming pod; Filter then
// checks, in kube's order:
//
//  1. the incoming pod's required affinity: the node has every term's
//     topology key and each term's domain holds a pod matching all terms —
//     or no pod anywhere matches and the pod matches its own terms (the first
//     pod of a self-affine group) — else UnschedulableAndUnresolvable;
//  2. the incoming pod's required anti-affinity: no selected pod in the
//     node's domain of any term — else Unschedulable;
//  3. the existing pods' required anti-affinity: no domain of the node is
//     claimed by an existing pod whose term selects the incoming pod — else
//     Unschedulable.
//
// PreFilter returns Skip when the incoming pod has no required terms and no
// existing pod's required anti-affinity term selects it. AddPod and
// RemovePod keep the counts exact for nominated pods and preemption.
//
// PreScore walks the existing pods — every pod on every node of the
// snapshot when the incoming pod has preferred (anti-)affinity terms,
// otherwise only the pods with (anti-)affinity — and, for each existing
// pod on a node with labels, adds to the score of the topology domain
// (key, value of the pod's node):
//
//   - +weight for each preferred affinity term of the incoming pod the
//     existing pod matches, −weight for each preferred anti-affinity term;
//   - +hardPodAffinityWeight for each required affinity term of the
//     existing pod that the incoming pod matches (when the weight is > 0);
//   - +weight for each preferred affinity term of the existing pod the
//     incoming pod matches, −weight for each preferred anti-affinity term.
//
// Score(node) = Σ over topology keys of the score of the node's domain.
// NormalizeScore maps [min, max] of the scores to [0, 100] with a float,
// truncated; when all scores are equal every node gets 0. PreScore returns
// Skip when ignorePreferredTermsOfExistingPods is set and the incoming pod
// has no preferred terms, or when no domain got a contribution.
//
// In v1.36 an incoming pod's term whose namespaceSelector has only NotIn
// and DoesNotExist requirements selects pods of every namespace, the
// excluded ones included (selectsEveryNamespace): in the affinity and
// anti-affinity counts, the self-affinity check, AddPod and RemovePod, and
// the scores. From v1.37 the selector is matched against each namespace's
// labels.
//
// The cycle's CycleState must carry the Snapshot (the runner sets it): the
// nodes with required anti-affinity pods and the namespace labels come from
// it.
type InterPodAffinity struct {
	args InterPodAffinityArgs
	// h runs the walks over every node on the framework's workers (nil:
	// on the calling goroutine).
	h framework.Handle
	// kube is the release whose namespace selector rules the incoming
	// pod's terms follow (newAffTerm).
	kube framework.KubeVersion
	// Rejection statuses are fixed; build them once (the runner never
	// mutates returned statuses).
	affinityFail     *framework.Status
	antiAffinityFail *framework.Status
	existingFail     *framework.Status
	// hits recycles the dense counts' hit bitmaps of released PreFilter
	// states (framework.ReleasableStateData).
	hits *slicepool.Pool[uint64]
	// anyAntiHint is kube-scheduler v1.37's queueing hint for anti-affinity
	// (any term matching, not all: afterPodChange).
	anyAntiHint bool
	// doms recycles the per-value score slices of released PreScore states
	// (framework.ReleasableStateData). Nil (a plugin built without New)
	// means no recycling.
	doms *slicepool.Pool[int64]
	// reference selects the score's walk over every existing pod (kube's
	// algorithm) instead of the snapshot pod index; tests compare both.
	reference bool
}

// New builds InterPodAffinity for the handle's kube-scheduler release from
// args, an InterPodAffinityArgs or a pointer to one (nil:
// DefaultInterPodAffinityArgs()), validated by InterPodAffinityArgs.Validate
// (kube's constructor validates too). A nil handle means sequential
// PreFilter and PreScore work and framework.DefaultKubeVersion. It is the
// plugin's framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.InterPodAffinityName, args, h, DefaultInterPodAffinityArgs, newInterPodAffinity)
}

func newInterPodAffinity(args InterPodAffinityArgs, h framework.Handle) (framework.Plugin, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	v := framework.DefaultKubeVersion
	if h != nil {
		v = h.KubeVersion()
	}
	return &InterPodAffinity{
		args:             args,
		h:                h,
		kube:             v,
		affinityFail:     framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
		antiAffinityFail: framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
		existingFail:     framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
		hits:             &slicepool.Pool[uint64]{},
		anyAntiHint:      filter.Release(h).AtLeast(framework.KubeV137),
		doms:             &slicepool.Pool[int64]{},
	}, nil
}

// Name returns "InterPodAffinity".
func (pl *InterPodAffinity) Name() string { return config.InterPodAffinityName }

var (
	_ framework.SignPlugin  = (*InterPodAffinity)(nil)
	_ framework.SignRefuser = (*InterPodAffinity)(nil)
)

// SignPod refuses pods with pod affinity or anti-affinity and signs the
// labels others' affinity may match (interpodaffinity/plugin.go). Unlike
// kube's, it signs them also with ignorePreferredTermsOfExistingPods: the
// existing pods' required anti-affinity still reads them in Filter.
func (pl *InterPodAffinity) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if pl.RefusesSign(pod) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with InterPodAffinity are not signable")
	}
	return []framework.SignFragment{{Key: framework.SignerLabels, Value: pod.Pod.Labels}}, nil
}

// RefusesSign reports whether SignPod refuses pod: it has pod affinity or
// anti-affinity.
func (pl *InterPodAffinity) RefusesSign(pod *framework.PodInfo) bool {
	a := pod.Pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}
