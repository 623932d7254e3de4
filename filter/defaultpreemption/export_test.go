package defaultpreemption

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

// DryRun is dryRun for the package's external tests: the number of
// candidates found from offset, at most the plugin's candidate count.
func (pl *DefaultPreemption) DryRun(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, m *framework.NodeToStatus, nodes []*framework.NodeInfo, offset int) (int, error) {
	cands, _, err := pl.dryRun(ctx, state, pod, m, nodes, offset, pl.numCandidates(len(nodes)), &dryRunScratch{})
	return len(cands), err
}
