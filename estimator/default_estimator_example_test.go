package estimator_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

// ExampleDefaultEstimator estimates pods as Koordinator's default estimator
// does: 85% of cpu and 70% of memory of max(limit, request), the 250m /
// 200 MiB defaults for a pod that states nothing, and batch resources for a
// batch pod.
func ExampleDefaultEstimator() {
	reg := estimator.NewRegistry()
	est, err := reg.New("", estimator.Options{}, nil) // "" → the default estimator
	if err != nil {
		panic(err)
	}
	pods := []*api.Pod{
		builder.MakePod().Name("web").Lim(map[string]string{"cpu": "2", "memory": "4Gi"}, map[string]string{"cpu": "4", "memory": "4Gi"}).Obj(),
		builder.MakePod().Name("sidecar-less").Obj(),
		builder.MakePod().Name("spark").Priority(estimator.PriorityBatchValueDefault).
			Req(map[string]string{"kubernetes.io/batch-cpu": "8000", "kubernetes.io/batch-memory": "16Gi"}).Obj(),
	}
	for _, p := range pods {
		e, _ := est.EstimatePod(p)
		fmt.Printf("%s (%s): cpu %dm, memory %dMi\n", p.Name, estimator.PriorityClassOf(p), e[resource.CPU], e[resource.Memory]>>20)
	}
	// Output:
	// web (koord-prod): cpu 3400m, memory 2867Mi
	// sidecar-less (koord-batch): cpu 250m, memory 200Mi
	// spark (koord-batch): cpu 6800m, memory 11468Mi
}

// ExampleAssignCache feeds the cache a NodeMetric and a just-scheduled pod,
// and reads the node's usage as the LoadAware plugins do: reported usage
// plus the estimate of the pod the metric does not show yet.
func ExampleAssignCache() {
	est, _ := estimator.NewDefaultEstimator(estimator.Options{})
	cache, _ := estimator.NewAssignCache(est, estimator.CacheOptions{})
	metric := builder.MakeNodeMetric("n1").UpdateTime(time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)).
		Usage(map[string]string{"cpu": "10", "memory": "20Gi"}).Obj()
	if err := cache.UpdateNodeMetric(metric); err != nil {
		panic(err)
	}
	_ = cache.Assign("n1", builder.MakePod().Name("new").Req(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj())
	base, delta := cache.View("n1").Estimated(false, "", 0)
	for i, name := range cache.Resources() {
		fmt.Printf("%s: reported %d + estimated %d\n", name, base[i], delta[i])
	}
	// Output:
	// cpu: reported 10000 + estimated 3400
	// memory: reported 21474836480 + estimated 6012954214
}
