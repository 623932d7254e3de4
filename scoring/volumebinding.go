package scoring

import (
	"context"
	"math"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/volumebinding"
)

// VolumeBinding is the score half of kube-scheduler's VolumeBinding
// plugin. Its score exists behind kube's StorageCapacityScoring feature
// gate (args.StorageCapacityScoring; by default on from v1.37, where the
// gate is beta, and off in v1.36, where it is alpha). With the gate off,
// PreScore always returns Skip and the plugin never scores. With it on,
// PreScore runs for every pod (volume_binding.go PreScore:
// hasStaticBindings || EnableStorageCapacityScoring), so a pod without
// claims scores 0 on every node, and each node scores the mean over
// storage classes of shape(utilization), where a class's utilization is
// the requested bytes over the capacity (100 when the capacity is 0 or
// smaller) of the volumes Filter matched there (static bindings), or,
// without any, of the volumes to provision and the CSIStorageCapacity
// found for them; the mean is rounded, and a node without classes scores
// 0. The shape's scores (0–10) are scaled by 10. The default shape
// {0: 10, 100: 0} prefers emptier storage.
type VolumeBinding struct {
	enabled bool
	shape   []ShapePoint
	skip    *framework.Status
}

var (
	_ framework.PreScorePlugin = (*VolumeBinding)(nil)
	_ framework.ScorePlugin    = (*VolumeBinding)(nil)
)

// NewVolumeBinding validates args (an unset StorageCapacityScoring
// follows h's release) and builds the score half;
// VolumeBindingFactory is its framework.Factory.
func NewVolumeBinding(args config.VolumeBindingArgs, h framework.Handle) (framework.Plugin, error) {
	args, err := volumebinding.ArgsFor(args, h)
	if err != nil {
		return nil, err
	}
	pl := &VolumeBinding{enabled: args.CapacityScoring(), skip: framework.NewStatus(framework.Skip)}
	pl.shape = ScaleShape(args.Shape)
	return pl, nil
}

// VolumeBindingFactory is NewVolumeBinding as a framework.Factory: nil args
// mean config.DefaultVolumeBindingArgs(); a config.VolumeBindingArgs or a
// pointer to one is used as given.
func VolumeBindingFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.VolumeBindingName, args, h, config.DefaultVolumeBindingArgs, NewVolumeBinding)
}

// Name returns "VolumeBinding".
func (pl *VolumeBinding) Name() string { return config.VolumeBindingName }

// PreScore returns Skip unless capacity scoring is on.
func (pl *VolumeBinding) PreScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	if !pl.enabled {
		return pl.skip
	}
	return nil
}

// Score is the node's storage score (0 for a pod without claims).
func (pl *VolumeBinding) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s := pl.state(state)
	if s == nil {
		return 0, nil
	}
	return pl.nodeScore(s, node), nil
}

// state returns the filter half's cycle state, nil when the plugin does
// not score or the pod has no claims (PreFilter skipped).
func (pl *VolumeBinding) state(state *framework.CycleState) *volumebinding.State {
	if !pl.enabled {
		return nil
	}
	d, err := state.Read(volumebinding.StateKey)
	if err != nil {
		return nil
	}
	s, _ := d.(*volumebinding.State)
	return s
}

func (pl *VolumeBinding) nodeScore(s *volumebinding.State, node *framework.NodeInfo) int64 {
	var buf [4]volumebinding.ClassStorage
	classes, ok := s.ClassStorage(node, true, buf[:0])
	if !ok {
		return 0
	}
	return vbNodeScore(pl.shape, classes)
}

var _ framework.BoundedBatchScorePlugin = (*VolumeBinding)(nil)

// ScoreBatch is Score over nodes, reading the cycle state once: a pod
// without claims, which v1.37 scores on every node, costs one store per
// node.
func (pl *VolumeBinding) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
	return st
}

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score of the batch.
func (pl *VolumeBinding) ScoreBatchBounds(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	if len(nodes) == 0 {
		return 1, 0, nil
	}
	s := pl.state(state)
	if s == nil {
		clear(out[:len(nodes)])
		return 0, 0, nil
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for i, n := range nodes {
		v := pl.nodeScore(s, n)
		out[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, nil
}

// vbNodeScore is kube's volumeCapacityScorer: the rounded mean over the
// classes of shape(utilization), a class's utilization being
// requested*100/capacity, or 100 when the capacity is 0 or exceeded; 0
// without classes.
func vbNodeScore(shape []ShapePoint, classes []volumebinding.ClassStorage) int64 {
	if len(classes) == 0 {
		return 0
	}
	var sum int64
	for _, c := range classes {
		u := int64(100)
		if c.Capacity != 0 && c.Requested <= c.Capacity {
			u = c.Requested * 100 / c.Capacity
		}
		sum += BrokenLinear(shape, u)
	}
	return int64(math.Round(float64(sum) / float64(len(classes))))
}

// ScoreExtensions returns nil.
func (pl *VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }

var _ framework.NodeLocalPlugin = (*VolumeBinding)(nil)

// NodeLocal is true only for a pod without volumes: storage capacity
// scoring reads claims and volumes that bindings change.
func (pl *VolumeBinding) NodeLocal(pod *framework.PodInfo) bool {
	return pod != nil && pod.Pod != nil && len(pod.Pod.Spec.Volumes) == 0
}

var _ framework.SignPlugin = (*VolumeBinding)(nil)

// SignPod signs the pod's volumes (volumebinding/volume_binding.go).
func (pl *VolumeBinding) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod.Pod)}}, nil
}
