package st

import fw "github.com/schedkit/schedkit/framework"

// DRAHandle is a handle of the default release whose cluster, outside a
// cycle, is snap (DynamicResources' PreEnqueue reads it); a cycle writes
// to its own snapshot.
type DRAHandle struct {
	fw.Handle
	snap *fw.Snapshot
}

// DRAHandleOf returns the DRAHandle of snap.
func DRAHandleOf(snap *fw.Snapshot) DRAHandle {
	return DRAHandle{fw.NewHandle(fw.RealClock{}, 1, fw.KubeVersion{}), snap}
}

// DRAManager returns snap's DRA manager outside a cycle (state nil), else the
// cycle's.
func (h DRAHandle) DRAManager(state *fw.CycleState) fw.DRAManager {
	if state == nil {
		return h.snap.DRAManager()
	}
	return h.Handle.DRAManager(state)
}
