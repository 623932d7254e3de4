package trimaran

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// newTargetLoadPacking builds TargetLoadPacking with its default args
// reading src.
func newTargetLoadPacking(h framework.Handle, src NodeLoadSource) (*TargetLoadPacking, error) {
	pl, err := TargetLoadPackingFactoryWith(WithNodeLoadSource(src))(nil, h)
	if err != nil {
		return nil, err
	}
	return pl.(*TargetLoadPacking), nil
}

// newLoadVariationRiskBalancing builds LoadVariationRiskBalancing with its
// default args reading src.
func newLoadVariationRiskBalancing(h framework.Handle, src NodeLoadSource) (*LoadVariationRiskBalancing, error) {
	pl, err := LoadVariationRiskBalancingFactoryWith(WithNodeLoadSource(src))(nil, h)
	if err != nil {
		return nil, err
	}
	return pl.(*LoadVariationRiskBalancing), nil
}

// The Trimaran plugins read the loads WithNodeLoadSource gives them; built
// without it (as by their plain Factory) no node has a load and every node
// scores the minimum.
func TestTrimaranNodeLoadSourceOption(t *testing.T) {
	loads := NodeLoads{"node-1": &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "node-1"},
		Metrics: []api.LoadMetric{{Type: api.LoadMetricCPU, Operator: api.LoadOperatorLatest, Value: 10}}}}
	pod := trimaranPod(0, 0, 0, []int64{100}, nil)
	for _, tt := range []struct {
		name    string
		factory framework.Factory
		want    int64
	}{
		// 10 % of 1000m + 100m = 20 % → round(40 + 60·20/40) = 70.
		{"TargetLoadPacking with loads", TargetLoadPackingFactoryWith(WithNodeLoadSource(loads)), 70},
		{"TargetLoadPacking without", NewTargetLoadPacking, framework.MinNodeScore},
		// CPU mean 10 % + request 10 % = 0.2, σ 0: (1 − 0.2/2)·100 = 90.
		{"LoadVariationRiskBalancing with loads", LoadVariationRiskBalancingFactoryWith(WithNodeLoadSource(loads)), 90},
		{"LoadVariationRiskBalancing without", NewLoadVariationRiskBalancing, framework.MinNodeScore},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := tt.factory(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := scoreOnce(t, pl.(framework.ScorePlugin), pod, trimaranNode()); got != tt.want {
				t.Errorf("score = %d, want %d", got, tt.want)
			}
		})
	}
	if _, err := newLVRB(DefaultLoadVariationRiskBalancingArgs(), nil, WithNodeLoadSource(nil)); err == nil {
		t.Error("LoadVariationRiskBalancing: nil source accepted")
	}
}
