package config

import "fmt"

// Arg vocabulary several plugins share: scored resources and utilization
// shapes (NodeResourcesFit, NodeResourcesBalancedAllocation, VolumeBinding).

// ResourceSpec names a resource and its weight in a score
// (kube-scheduler's config.ResourceSpec).
type ResourceSpec struct {
	Name   string `json:"name"`
	Weight int64  `json:"weight,omitempty"`
}

// DefaultResourceSpecs returns kube-scheduler's default scored resources:
// cpu and memory with weight 1.
func DefaultResourceSpecs() []ResourceSpec {
	return []ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
}

// UtilizationShapePoint is one point of a utilization shape (a
// RequestedToCapacityRatio strategy's, VolumeBinding's): at Utilization
// percent (0–100) the score is Score (0–10).
type UtilizationShapePoint struct {
	Utilization int32 `json:"utilization"`
	Score       int32 `json:"score"`
}

// MaxCustomPriorityScore is the top of the 0–10 score range of a
// RequestedToCapacityRatio shape; shape scores are multiplied by
// MaxNodeScore/MaxCustomPriorityScore = 10 (kube-scheduler's).
const MaxCustomPriorityScore int32 = 10

// Bounds of a shape point's utilization (kube-scheduler's
// validation_pluginargs.go).
const (
	MinUtilization int32 = 0
	MaxUtilization int32 = 100
)

// ValidateShape checks a utilization shape (a RequestedToCapacityRatio
// strategy's, VolumeBinding's) as kube-scheduler's validateFunctionShape:
// non-empty; utilizations strictly increasing (only the first violation is
// reported); every utilization in [0, 100] and score in [0, 10]. Errors
// name path, the point and its value.
func ValidateShape(shape []UtilizationShapePoint, path string) []error {
	if len(shape) == 0 {
		return []error{fmt.Errorf("%s=[]: at least one point must be specified", path)}
	}
	var errs []error
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, fmt.Errorf("%s[%d].utilization=%d: values must be sorted in increasing order (previous %d)",
				path, i, shape[i].Utilization, shape[i-1].Utilization))
			break
		}
	}
	for i, p := range shape {
		if p.Utilization < MinUtilization || p.Utilization > MaxUtilization {
			errs = append(errs, fmt.Errorf("%s[%d].utilization=%d: not in valid range [%d, %d]", path, i, p.Utilization, MinUtilization, MaxUtilization))
		}
		if p.Score < 0 || p.Score > MaxCustomPriorityScore {
			errs = append(errs, fmt.Errorf("%s[%d].score=%d: not in valid range [0, %d]", path, i, p.Score, MaxCustomPriorityScore))
		}
	}
	return errs
}
