package configfile_test

import (
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

// ExampleLoad loads a bin-packing profile: NodeResourcesFit scores
// with MostAllocated and weight 5, ImageLocality is switched off. Listing
// NodeResourcesFit at score moves it in front of the other default score
// plugins there (kube-scheduler's multiPoint precedence); the others keep
// their default order and weights.
func ExampleLoad() {
	cfg, err := configfile.Load([]byte(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: bin-packing
  plugins:
    multiPoint:
      disabled:
      - name: ImageLocality
    score:
      enabled:
      - name: NodeResourcesFit
        weight: 5
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p := cfg.Profiles[0]
	fmt.Println(p.SchedulerName, "scores", len(p.Score), "plugins:")
	for _, name := range p.Score {
		fmt.Println(" ", name, p.Weights[name])
	}
	fit := p.Args[config.NodeResourcesFitName].(noderesources.NodeResourcesFitArgs)
	fmt.Println("strategy:", fit.ScoringStrategy.Type, fit.ScoringStrategy.Resources)
	fmt.Println("parallelism:", cfg.Parallelism, "percentageOfNodesToScore:", cfg.PercentageOfNodesToScore)

	_, err = configfile.Load([]byte(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 120
`))
	fmt.Println(err)
	// Output:
	// bin-packing scores 8 plugins:
	//   NodeResourcesFit 5
	//   TaintToleration 3
	//   NodeAffinity 2
	//   VolumeBinding 1
	//   PodTopologySpread 2
	//   InterPodAffinity 2
	//   DynamicResources 2
	//   NodeResourcesBalancedAllocation 1
	// strategy: MostAllocated [{cpu 1} {memory 1}]
	// parallelism: 16 percentageOfNodesToScore: 50
	// configfile: configuration: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: 120: not in valid range [0, 100]
}
