package runtime

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/schedkit/schedkit/framework"
)

// signState caches a framework's signing plugins (computed on first use).
type signState struct {
	once     sync.Once
	signers  []framework.SignPlugin
	refusers []framework.SignRefuser // the signers that are SignRefusers
	ok       bool
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
				if c, isCap := f.plugins[n].(framework.SignCapability); isCap && !c.CanSignPods() {
					ok = false
				}
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
// (kube's computeBatchablePlugins; a SignCapability saying no counts as
// not implementing it).
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
