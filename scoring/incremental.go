package scoring

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// AddedOnSnapshot reports whether every added pod is a pod on a node that
// is snap's own NodeInfo: what an IncrementalPreScorePlugin that reads the
// added pods' nodes by snapshot position (PodTopologySpread,
// InterPodAffinity) needs of them.
func AddedOnSnapshot(snap *framework.Snapshot, added []fastpath.AddedPod) bool {
	all := snap.Nodes()
	for _, a := range added {
		if a.Pod == nil || a.Pod.Pod == nil || a.Node == nil || a.Node.Node() == nil {
			return false
		}
		if k := a.Node.Index(); k < 0 || k >= len(all) || all[k] != a.Node {
			return false
		}
	}
	return true
}
