package karmada

import (
	"fmt"
	"math"
	"sort"

	"github.com/schedkit/schedkit/resource"
)

// Karmada's resource-model validation messages (ValidateClusterResourceModels
// in pkg/apis/cluster/validation), in the order the rules are checked.
const (
	MsgModelGradeRepeated      = "The grade of each models should not be the same"
	MsgModelRangeCount         = "The number of resource types should be the same"
	MsgModelMaxNotAboveMin     = "The max value of each resource must be greater than the min value"
	MsgModelFirstMinNotZero    = "The min value of each resource in the first model should be 0"
	MsgModelResourceMismatch   = "The resource types of each models should be the same"
	MsgModelNotContiguous      = "Model intervals for resources must be contiguous and non-overlapping"
	MsgModelLastMaxNotMaxInt64 = "The max value of each resource in the last model should be MaxInt64"
)

// ResourceModelError is the first rule a list of resource models breaks, as
// ValidateResourceModels reports it: the model's index and grade, the range
// (-1 when the rule is about the whole model), its resource and bounds, and
// Karmada's message for the rule (one of the Msg… constants).
type ResourceModelError struct {
	Index    int
	Grade    uint
	Range    int
	Resource resource.Name
	Min, Max resource.Quantity
	Message  string
}

// Error names the model, its grade, the range and its bounds, then
// Karmada's message.
func (e *ResourceModelError) Error() string {
	if e.Range < 0 {
		return fmt.Sprintf("estimator: resourceModels[%d] (grade %d): %s", e.Index, e.Grade, e.Message)
	}
	return fmt.Sprintf("estimator: resourceModels[%d] (grade %d): ranges[%d] %q [min=%s, max=%s): %s",
		e.Index, e.Grade, e.Range, e.Resource, e.Min.String(), e.Max.String(), e.Message)
}

// gibibyte is Karmada's GB constant (mutation.GB): 1024³ bytes.
const gibibyte = 1024 * 1024 * 1024

// DefaultResourceModels returns Karmada's default resource models
// (mutation.SetDefaultClusterResourceModels), installed on a new cluster when
// none are given: nine grades, each a cpu range and a memory range
// [Min, Max):
//
//	grade 0: cpu [0,1)     memory [0,4Gi)
//	grade 1: cpu [1,2)     memory [4Gi,16Gi)
//	grade 2: cpu [2,4)     memory [16Gi,32Gi)
//	grade 3: cpu [4,8)     memory [32Gi,64Gi)
//	grade 4: cpu [8,16)    memory [64Gi,128Gi)
//	grade 5: cpu [16,32)   memory [128Gi,256Gi)
//	grade 6: cpu [32,64)   memory [256Gi,512Gi)
//	grade 7: cpu [64,128)  memory [512Gi,1Ti)
//	grade 8: cpu [128,MaxInt64) memory [1Ti,MaxInt64)
func DefaultResourceModels() []ResourceModel {
	cpu := []int64{0, 1, 2, 4, 8, 16, 32, 64, 128}
	mem := []int64{0, 4, 16, 32, 64, 128, 256, 512, 1024}
	models := make([]ResourceModel, len(cpu))
	for g := range cpu {
		cpuMax := resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
		memMax := resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
		if g+1 < len(cpu) {
			cpuMax = resource.NewQuantity(cpu[g+1], resource.DecimalSI)
			memMax = resource.NewQuantity(mem[g+1]*gibibyte, resource.BinarySI)
		}
		models[g] = ResourceModel{Grade: uint(g), Ranges: []ResourceModelRange{
			{Name: resource.CPU, Min: resource.NewQuantity(cpu[g], resource.DecimalSI), Max: cpuMax},
			{Name: resource.Memory, Min: resource.NewQuantity(mem[g]*gibibyte, resource.BinarySI), Max: memMax},
		}}
	}
	return models
}

// StandardizeResourceModels returns a standardized copy of models, as
// Karmada's API server does on create and update
// (mutation.StandardizeClusterResourceModels): sorted by grade ascending,
// the first grade's every Min set to 0 and the last grade's every Max set to
// MaxInt64 (each keeping its quantity format). models is not modified. Equal
// grades keep their relative order (Karmada's sort is not stable, but
// ValidateResourceModels rejects equal grades either way).
func StandardizeResourceModels(models []ResourceModel) []ResourceModel {
	out := cloneModels(models)
	if len(out) == 0 {
		return out
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Grade < out[j].Grade })
	for i := range out[0].Ranges {
		r := &out[0].Ranges[i]
		r.Min = resource.NewQuantity(0, r.Min.Format())
	}
	last := &out[len(out)-1]
	for i := range last.Ranges {
		r := &last.Ranges[i]
		r.Max = resource.NewQuantity(math.MaxInt64, r.Max.Format())
	}
	return out
}

// ValidateResourceModels checks models with Karmada's rules, in Karmada's
// order, and returns the first one broken as a *ResourceModelError (nil
// when valid; an empty list is valid). Walking the models in the order
// given, for model i:
//
//  1. its grade differs from model i-1's (MsgModelGradeRepeated);
//  2. it has as many ranges as model i-1 (MsgModelRangeCount);
//
// then for each range j:
//
//  3. Max > Min (MsgModelMaxNotAboveMin);
//  4. in the first model, Min is 0 (MsgModelFirstMinNotZero);
//  5. in later models, the name equals model i-1's range j name, so the
//     order of ranges matters (MsgModelResourceMismatch);
//  6. in later models, Min equals model i-1's range j Max
//     (MsgModelNotContiguous);
//  7. in the last model, Max.Value() is MaxInt64
//     (MsgModelLastMaxNotMaxInt64).
//
// Karmada validates after StandardizeResourceModels, so equal grades are
// adjacent; rule 1 alone does not catch non-adjacent equal grades. Rule 6
// compares Karmada quantities as Go structs, so "2" and "2000m" can count as
// different there; here they compare numerically. Any resource name is
// accepted (Karmada ≥ v1.8; the documentation's "cpu, memory, storage,
// ephemeral-storage only" is outdated).
func ValidateResourceModels(models []ResourceModel) error {
	for i := range models {
		m := &models[i]
		if i != 0 && m.Grade == models[i-1].Grade {
			return &ResourceModelError{Index: i, Grade: m.Grade, Range: -1, Message: MsgModelGradeRepeated}
		}
		if i != 0 && len(models[i-1].Ranges) != len(m.Ranges) {
			return &ResourceModelError{Index: i, Grade: m.Grade, Range: -1, Message: MsgModelRangeCount}
		}
		for j := range m.Ranges {
			r := &m.Ranges[j]
			fail := func(msg string) error {
				return &ResourceModelError{Index: i, Grade: m.Grade, Range: j, Resource: r.Name, Min: r.Min, Max: r.Max, Message: msg}
			}
			if r.Max.Cmp(r.Min) <= 0 {
				return fail(MsgModelMaxNotAboveMin)
			}
			if i == 0 {
				if !r.Min.IsZero() {
					return fail(MsgModelFirstMinNotZero)
				}
			} else if prev := &models[i-1].Ranges[j]; prev.Name != r.Name {
				return fail(MsgModelResourceMismatch)
			} else if prev.Max.Cmp(r.Min) != 0 {
				return fail(MsgModelNotContiguous)
			}
			if i == len(models)-1 && r.Max.Value() != math.MaxInt64 {
				return fail(MsgModelLastMaxNotMaxInt64)
			}
		}
	}
	return nil
}
