package framework

// SelectedIndex returns the chosen node's position in the cycle's
// snapshot (NodeInfo.Index of SelectedNode), or -1 when none fits, so
// that a caller placing the pod there finds the node without looking its
// name up (Snapshot.AddNewPodInfoAt).
func (r *Result) SelectedIndex() int {
	if r == nil || r.selected < 0 || r.selected >= len(r.feasible) {
		return -1
	}
	return r.nodeAt(r.feasible[r.selected]).Index()
}
