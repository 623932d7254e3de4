package scoring

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// ImageLocality thresholds (kube-scheduler v1.36): image scores below
// 23 MiB count as nothing; 1000 MiB per container is the top.
const (
	ilMB                    int64 = 1024 * 1024
	ilMinThreshold          int64 = 23 * ilMB
	ilMaxContainerThreshold int64 = 1000 * ilMB
)

// ilPreScoreKey is the state key of schedkit's ImageLocality PreScore
// (kube-scheduler has none; see ImageLocality).
const ilPreScoreKey fw.StateKey = "PreScore" + config.ImageLocalityName

// ilImage is one image the pod uses, normalized, with its spread over the
// cluster.
type ilImage struct {
	name   string
	spread float64 // nodes with the image / all nodes
}

type ilPreScoreState struct {
	images        []ilImage
	numContainers int
}

// Clone returns the state itself; it is read-only.
func (s *ilPreScoreState) Clone() fw.StateData { return s }

// ImageLocality is kube-scheduler v1.36's ImageLocality score: it favours
// nodes that already hold the pod's images. For each image of the pod's
// init containers, containers and image volumes (names normalized with
// ":latest" when untagged) that the node has, it adds
// int64(size × nodesWithImage/allNodes) — the spread counts every node of
// the snapshot, not only the feasible ones — then clamps the sum to
// [23 MiB, 1000 MiB × (init containers + containers)] and maps it linearly
// to 0–100 (image volumes add to the sum but not to the container count).
//
// schedkit adds a PreScore step (always Success) that normalizes the names
// and computes each image's spread once per cycle; without it Score does
// that work per node, with the same result.
type ImageLocality struct{}

var (
	_ fw.PreScorePlugin = (*ImageLocality)(nil)
	_ fw.ScorePlugin    = (*ImageLocality)(nil)
)

// NewImageLocality builds the plugin (it has no args).
func NewImageLocality(_ fw.Handle) (fw.Plugin, error) { return &ImageLocality{}, nil }

// Name returns "ImageLocality".
func (pl *ImageLocality) Name() string { return config.ImageLocalityName }

// NormalizedImageName appends ":latest" to an image name without a tag
// (no ':' after the last '/'), as kube-scheduler's normalizedImageName.
func NormalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name = name + ":latest"
	}
	return name
}

func (pl *ImageLocality) state(snap *fw.Snapshot, pod *fw.Pod) (*ilPreScoreState, error) {
	if snap == nil {
		return nil, errors.New("imagelocality: the cycle state has no snapshot")
	}
	total := snap.NumNodes()
	s := &ilPreScoreState{numContainers: len(pod.Spec.InitContainers) + len(pod.Spec.Containers)}
	add := func(image string) {
		n := NormalizedImageName(image)
		s.images = append(s.images, ilImage{name: n, spread: float64(snap.ImageNumNodes(n)) / float64(total)})
	}
	for i := range pod.Spec.InitContainers {
		add(pod.Spec.InitContainers[i].Image)
	}
	for i := range pod.Spec.Containers {
		add(pod.Spec.Containers[i].Image)
	}
	for i := range pod.Spec.Volumes {
		if v := pod.Spec.Volumes[i].Image; v != nil {
			add(v.Reference)
		}
	}
	return s, nil
}

// PreScore normalizes the pod's image names and computes their spread over
// state.Snapshot().
func (pl *ImageLocality) PreScore(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, _ []*fw.NodeInfo) *fw.Status {
	s, err := pl.state(state.Snapshot(), pod.Pod)
	if err != nil {
		return fw.AsStatus(err)
	}
	state.Write(ilPreScoreKey, s)
	return nil
}

// Score returns the image-locality score of node (0–100).
func (pl *ImageLocality) Score(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, node *fw.NodeInfo) (int64, *fw.Status) {
	var s *ilPreScoreState
	if d, err := state.Read(ilPreScoreKey); err == nil {
		var ok bool
		if s, ok = d.(*ilPreScoreState); !ok {
			return 0, fw.AsStatus(fmt.Errorf("invalid PreScore state, got type %T", d))
		}
	} else if s, err = pl.state(state.Snapshot(), pod.Pod); err != nil {
		return 0, fw.AsStatus(err)
	}
	var sum int64
	for i := range s.images {
		if size, ok := node.ImageSizes[s.images[i].name]; ok {
			sum += int64(float64(size) * s.images[i].spread)
		}
	}
	return ilPriority(sum, s.numContainers), nil
}

// ilPriority is kube's calculatePriority.
func ilPriority(sum int64, numContainers int) int64 {
	maxThreshold := ilMaxContainerThreshold * int64(numContainers)
	if sum < ilMinThreshold {
		sum = ilMinThreshold
	} else if sum > maxThreshold {
		sum = maxThreshold
	}
	return fw.MaxNodeScore * (sum - ilMinThreshold) / (maxThreshold - ilMinThreshold)
}

// ScoreExtensions returns nil: scores are not normalized.
func (pl *ImageLocality) ScoreExtensions() fw.ScoreExtensions { return nil }
