package runtime

// Adaptive node sampling bounds, kube-scheduler's (the same in v1.36 and
// v1.37; pkg/scheduler/schedule_one.go).
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// NumFeasibleNodesToFind is kube-scheduler's numFeasibleNodesToFind
// (schedule_one.go): how many feasible nodes a cycle over numNodes
// candidate nodes keeps before it stops filtering (the value for
// CycleOptions.NumFeasibleToFind), given percentageOfNodesToScore (the
// profile's when set, else the scheduler's). Below 100 nodes it is all of
// them; a percentage of 0 means adaptive, 50 − numNodes/125 percent but at
// least 5; the result is at least 100. Configuration validation keeps the
// percentage within [0, 100]; the formula is applied as kube applies it to
// any value.
func NumFeasibleNodesToFind(numNodes int, percentage int32) int {
	if numNodes < minFeasibleNodesToFind {
		return numNodes
	}
	if percentage == 0 {
		percentage = int32(50 - numNodes/125)
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	k := int(int64(numNodes) * int64(percentage) / 100)
	if k < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return k
}
