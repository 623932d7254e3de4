package scheduling

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling/internal/compose"
	"github.com/schedkit/schedkit/scoring"
)

// volumeBindingPlugin is kube-scheduler's VolumeBinding under its kube
// name: the filter half (PreFilter, Filter, Reserve, Unreserve), the score
// half (PreScore, Score: only with the StorageCapacityScoring gate, on by
// default from v1.37) and
// PreBind, which binds the reserved volumes in the scheduler's Cluster
// (Cluster.BindPodVolumes) and then lets the assume cache forget them.
// The assume cache branches with the Scheduler (the filter half's Fork).
type volumeBindingPlugin struct {
	*compose.SplitWithPreFilter
	vb *filter.VolumeBinding
}

// AssumedCount returns the sizes of the plugin's assume cache
// (filter.VolumeBinding.AssumedCount): what a what-if question must leave
// as it found.
func (p *volumeBindingPlugin) AssumedCount() (volumes, claims int) { return p.vb.AssumedCount() }

var (
	_ framework.ReservePlugin   = (*volumeBindingPlugin)(nil)
	_ framework.PreBindPlugin   = (*volumeBindingPlugin)(nil)
	_ framework.PreFilterPlugin = (*volumeBindingPlugin)(nil)
	_ framework.ForkablePlugin  = (*volumeBindingPlugin)(nil)
)

// VolumeBindingFactory is NewVolumeBinding as a framework.Factory: nil args
// mean config.DefaultVolumeBindingArgs(); a config.VolumeBindingArgs or a
// pointer to one is used as given.
func VolumeBindingFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.VolumeBindingName, args, h, config.DefaultVolumeBindingArgs, NewVolumeBinding)
}

// NewVolumeBinding builds kube-scheduler's VolumeBinding: its filter half
// (PreFilter, Filter, Reserve, Unreserve, PreBind) and its score half
// (which scores only with the StorageCapacityScoring gate: args'
// StorageCapacityScoring, or unset the default of h's release, on from
// v1.37).
func NewVolumeBinding(a config.VolumeBindingArgs, h framework.Handle) (framework.Plugin, error) {
	f, err := filter.NewVolumeBinding(a, h)
	if err != nil {
		return nil, err
	}
	sc, err := scoring.NewVolumeBinding(a, h)
	if err != nil {
		return nil, err
	}
	c, err := compose.New(f, sc)
	if err != nil {
		return nil, err
	}
	return &volumeBindingPlugin{SplitWithPreFilter: c.(*compose.SplitWithPreFilter), vb: f.(*filter.VolumeBinding)}, nil
}

// Reserve assumes the node's volume decisions.
func (p *volumeBindingPlugin) Reserve(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	return p.vb.Reserve(ctx, st, pod, node)
}

// Unreserve reverts them.
func (p *volumeBindingPlugin) Unreserve(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, node string) {
	p.vb.Unreserve(ctx, st, pod, node)
}

// PreBind binds the pod's volumes in the scheduler's cluster (nothing when
// every claim is already bound). Outside a Scheduler it is an Error.
func (p *volumeBindingPlugin) PreBind(_ context.Context, st *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	pv, allBound, err := p.vb.PodVolumes(st, node)
	if err != nil {
		return framework.AsStatus(err)
	}
	if allBound {
		return nil
	}
	h, ok := handleFrom(st)
	if !ok {
		return framework.AsStatus(fmt.Errorf("VolumeBinding: pod %s: no scheduling.Scheduler in the CycleState to bind its volumes", pod.Pod.Key()))
	}
	err = h.s.bindPodVolumes(h, node, pv)
	p.vb.Forget(pv)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("binding volumes: %w", err))
	}
	return nil
}
