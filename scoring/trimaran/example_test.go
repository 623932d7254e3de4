package trimaran_test

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scoring/trimaran"
)

// TargetLoadPacking scores a 4-cpu node measured at 20% cpu for a pod
// requesting 1 cpu without a limit (predicted 1.5 cpu): the node would be
// at 100·(800+1500)/4000 = 57.5%, above the 40% target, so it scores
// round(40·(100−57.5)/(100−40)) = 28.
func ExampleNewTargetLoadPacking() {
	loads := trimaran.NodeLoads{"n1": builder.MakeNodeLoad("n1").Metric(api.LoadMetricCPU, api.LoadOperatorAverage, 20).Obj()}
	pl, err := trimaran.TargetLoadPackingFactoryWith(trimaran.WithNodeLoadSource(loads))(nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ni, err := framework.NewNodeInfo(builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4"}).Obj())
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := framework.MustPodInfo(builder.MakePod().Name("p").Req(map[string]string{"cpu": "1"}).Obj())
	cs := framework.NewCycleState()
	tlp := pl.(*trimaran.TargetLoadPacking)
	if st := tlp.PreScore(context.Background(), cs, pod, []*framework.NodeInfo{ni}); !st.IsSuccess() {
		fmt.Println(st)
		return
	}
	score, st := tlp.Score(context.Background(), cs, pod, ni)
	fmt.Println(pl.Name(), score, st.IsSuccess())
	// Output: TargetLoadPacking 28 true
}
