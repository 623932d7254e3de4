package runtime

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// signState caches a framework's signing plugins (computed on first use),
// and the plugins NodeLocalFragments asks (localOnce, local).
type signState struct {
	once     sync.Once
	signers  []framework.SignPlugin
	refusers []framework.SignRefuser // the signers that are SignRefusers
	ok       bool

	localOnce sync.Once
	local     []localSigner
	// localFilters is how many of local are PreFilter and Filter
	// plugins' (they come first).
	localFilters int
}

// localSigner is a profile's plugin at one extension point as
// NodeLocalFragments asks it: mark names the point and plugin
// (a string in an interface, boxed once), nl is nil when the plugin is
// never node-local, sp when it does not sign, and dup is set when the same
// target appeared at an earlier point (it signs once).
type localSigner struct {
	mark any
	nl   fastpath.NodeLocalPlugin
	sp   framework.SignPlugin
	dup  bool
}

func (f *Framework) signers() ([]framework.SignPlugin, bool) {
	f.sign.once.Do(func() {
		f.sign.ok = len(f.extenders) == 0
		seen := map[string]bool{}
		for _, names := range [][]string{f.profile.PreFilter, f.profile.Filter, f.profile.PreScore, f.profile.Score} {
			for _, n := range names {
				if seen[n] {
					continue
				}
				seen[n] = true
				sp, ok := f.plugins[n].(framework.SignPlugin)
				if !ok {
					f.sign.ok = false
					continue
				}
				f.sign.signers = append(f.sign.signers, sp)
				if r, isRef := sp.(framework.SignRefuser); isRef {
					f.sign.refusers = append(f.sign.refusers, r)
				}
			}
		}
	})
	return f.sign.signers, f.sign.ok
}

// CanSign reports whether the profile signs pods: no extender, and every
// PreFilter, Filter, PreScore and Score plugin implements SignPlugin
// (kube's computeBatchablePlugins).
func (f *Framework) CanSign() bool {
	_, ok := f.signers()
	return ok
}

// SignPod returns pod's signature for this profile: the JSON of every
// plugin's fragments (the last value of a key wins) and the schedulerName,
// or "" when the profile cannot sign or a plugin refuses this pod.
func (f *Framework) SignPod(ctx context.Context, pod *framework.PodInfo) framework.PodSignature {
	signers, ok := f.signers()
	if !ok {
		return ""
	}
	for _, r := range f.sign.refusers {
		if r.RefusesSign(pod) {
			return ""
		}
	}
	sig := map[string]any{framework.SignerSchedulerName: pod.Pod.Spec.SchedulerName}
	for _, pl := range signers {
		frags, st := pl.SignPod(ctx, pod)
		if !st.IsSuccess() {
			return ""
		}
		for _, fr := range frags {
			sig[fr.Key] = fr.Value
		}
	}
	b, err := json.Marshal(sig)
	if err != nil {
		return ""
	}
	return framework.PodSignature(b)
}

// localSigners lists the profile's PreFilter, Filter, PreScore and Score
// plugins' targets, in that order, once.
func (f *Framework) localSigners() []localSigner {
	f.sign.localOnce.Do(func() {
		seen := map[framework.Plugin]bool{}
		add := func(point, name string, t framework.Plugin) {
			e := localSigner{mark: any(point + "/" + name), dup: seen[t]}
			seen[t] = true
			e.nl, _ = t.(fastpath.NodeLocalPlugin)
			e.sp, _ = t.(framework.SignPlugin)
			f.sign.local = append(f.sign.local, e)
		}
		for _, pl := range f.preFilter {
			add("PreFilter", pl.Name(), pl)
		}
		for _, pl := range f.filter {
			add("Filter", pl.Name(), pl)
		}
		f.sign.localFilters = len(f.sign.local)
		for _, pl := range f.preScore {
			add("PreScore", pl.Name(), pl)
		}
		for _, sp := range f.score {
			add("Score", sp.Name(), sp.ScorePlugin)
		}
	})
	return f.sign.local
}

// nodeLocalKey is the fragment key NodeLocalFragments gives the name of
// each plugin that is node-local for the pod.
const nodeLocalKey = "nodeLocal"

// NodeLocalFragments appends to buf what this profile's node-local
// plugins read of pod, and reports whether they all could say: for each
// PreFilter, Filter, PreScore and Score plugin, in
// that order, that is node-local for pod (fastpath.NodeLocalPlugin), a
// fragment {"nodeLocal", "<point>/<name>"}, then its signature fragments
// (SignPlugin; once per plugin). Two pods whose fragments are the same
// (framework.SameFragments) get the same state, verdicts and raw scores from those
// plugins on the same nodes, whatever the other plugins make of them:
// unlike SignPod, a plugin that is not node-local neither signs nor
// refuses. An Incremental evaluator may then serve both
// (Incremental.Refresh). ok is false when a node-local plugin does not
// sign pods or refuses pod, or the profile has extenders.
func (f *Framework) NodeLocalFragments(ctx context.Context, pod *framework.PodInfo, buf []framework.SignFragment) (_ []framework.SignFragment, ok bool) {
	return f.appendLocal(ctx, pod, f.localSigners(), buf)
}

// appendLocal is NodeLocalFragments over the plugins of entries.
func (f *Framework) appendLocal(ctx context.Context, pod *framework.PodInfo, entries []localSigner, buf []framework.SignFragment) (_ []framework.SignFragment, ok bool) {
	if len(f.extenders) > 0 || pod == nil || pod.Pod == nil {
		return buf, false
	}
	for _, e := range entries {
		if e.nl == nil || !e.nl.NodeLocal(pod) {
			continue
		}
		buf = append(buf, framework.SignFragment{Key: nodeLocalKey, Value: e.mark})
		if e.dup {
			continue
		}
		if e.sp == nil {
			return buf, false
		}
		frags, st := e.sp.SignPod(ctx, pod)
		if !st.IsSuccess() {
			return buf, false
		}
		buf = append(buf, frags...)
	}
	return buf, true
}
