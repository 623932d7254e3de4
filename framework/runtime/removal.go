package runtime

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

// VictimRemovalFilter is an optional extension of Filter plugins for
// preemption, whose dry run removes a node's lower-priority pods (from the
// node and, through the PreFilter extensions' RemovePod, from the cycle
// state) and filters the node again. VictimRemoval reports, for pod, how
// the plugin's Filter verdict on a node can change under such removals:
//   - unchanged: not at all, status included: the verdict reads nothing
//     of the node's pods nor of what RemovePod changes;
//   - keepsPass: a node that passes still passes.
//
// unchanged implies keepsPass.
type VictimRemovalFilter interface {
	framework.FilterPlugin
	VictimRemoval(pod *framework.PodInfo) (unchanged, keepsPass bool)
}

// victimRemovalOf returns pl as a VictimRemovalFilter (nil when it does
// not implement it).
func victimRemovalOf(pl framework.FilterPlugin) VictimRemovalFilter {
	v, _ := pl.(VictimRemovalFilter)
	return v
}

// RejectionsKeptByRemoval returns the Filter plugins (by name) whose
// rejection of a node stays exactly the node's verdict when pods are
// removed from it, for pod in the cycle of state: the plugin's own verdict
// is unchanged by removals and every plugin filtering before it this cycle
// (not skipped) keeps its pass. A node that Filter rejected with such a
// plugin's status is rejected with the same status by a preemption dry run
// that removes victims from it, so the dry run need not copy the node.
// Plugins that do not implement VictimRemovalFilter promise nothing.
func (f *Framework) RejectionsKeptByRemoval(state *framework.CycleState, pod *framework.PodInfo) []string {
	var kept []string
	for _, i := range f.skipFilter.onIn(state.SkipFilterPlugins()) {
		pl := f.filter[i]
		unchanged, keepsPass := false, false
		if r := f.removal[i]; r != nil {
			unchanged, keepsPass = r.VictimRemoval(pod)
		}
		if unchanged {
			kept = append(kept, pl.Name())
		}
		if !unchanged && !keepsPass {
			break
		}
	}
	return kept
}

// NodeLocalFilterFragments appends to buf what NodeLocalFragments gives
// for the profile's PreFilter and Filter plugins alone, when every Filter
// plugin the cycle of state leaves on and every PreFilter extension it
// calls is node-local for pod (framework.NodeLocalFilters); ok is false
// otherwise.
func (f *Framework) NodeLocalFilterFragments(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, buf []framework.SignFragment) (_ []framework.SignFragment, ok bool) {
	skip := state.SkipFilterPlugins()
	for _, i := range f.skipFilter.onIn(skip) {
		if !isNodeLocal(f.filter[i], pod) {
			return buf, false
		}
	}
	for _, j := range f.skipFilter.trackedOnIn(skip) {
		if !isNodeLocal(f.preFilter[f.extensions[j].i], pod) {
			return buf, false
		}
	}
	local := f.localSigners() // sets localFilters
	return f.appendLocal(ctx, pod, local[:f.sign.localFilters], buf)
}

var _ framework.NodeLocalFilters = (*Framework)(nil)
