package cel

import (
	"fmt"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// Names of the device variable and its fields.
const (
	deviceVar     = "device"
	driverVar     = "driver"
	multiAllocVar = "allowMultipleAllocations"
	attributesVar = "attributes"
	capacityVar   = "capacity"
)

// Limits of the resource.k8s.io/v1 API that size the declarations.
const (
	// MaxCost is the cost limit of one selector evaluation and of its
	// worst-case estimate (resource.k8s.io/v1 CELSelectorExpressionMaxCost).
	MaxCost = 1000000
	// MaxExpressionLength is the longest selector expression the API
	// accepts (CELSelectorExpressionMaxLength).
	MaxExpressionLength = 10 * 1024

	maxDomainLength          = 63 // DeviceMaxDomainLength
	maxIDLength              = 32 // DeviceMaxIDLength
	maxDriverLength          = 63 // DriverNameMaxLength
	maxAttributesPerDevice   = 32 // ResourceSliceMaxAttributesAndCapacitiesPerDevice
	maxAttributeValueLength  = 64 // DeviceAttributeMaxValueLength
	maxAttributeValuesPerDev = 48 // ResourceSliceMaxAttributeValuesPerDevice
	interruptCheckFrequency  = 100
)

// DeviceTypeName is the CEL type name of the device variable.
const DeviceTypeName = "kubernetes.DRADevice"

// EnvKind selects one of the two environments Kubernetes compiles device
// selectors in.
type EnvKind int

const (
	// Stored is the environment of expressions already stored in the API:
	// the scheduler's. It has every library of every version, the device's
	// allowMultipleAllocations field, attribute values of dynamic type (so
	// that list attributes work with macros) and the includes function.
	Stored EnvKind = iota
	// New is the environment the API server validates a new or changed
	// selector in, for kube-apiserver v1.37 with its default feature gates
	// (compatibility version 1.36, DRAConsumableCapacity on,
	// DRAListTypeAttributes off): attribute values are of the unknown type
	// (google.protobuf.Any), the lists library is at version 0 and there is
	// no includes function.
	New
)

func (k EnvKind) String() string {
	if k == New {
		return "NewExpressions"
	}
	return "StoredExpressions"
}

// environment is one compiled CEL environment with what the size
// estimator and the output-type check need.
type environment struct {
	env           *celgo.Env
	attributeType *celgo.Type
	sizes         *deviceSizes
	emptyMap      ref.Val
}

// loader bundles options the way Kubernetes' environment sets do.
type loader struct {
	envOpts  []celgo.EnvOption
	progOpts []celgo.ProgramOption
}

func (l loader) CompileOptions() []celgo.EnvOption     { return l.envOpts }
func (l loader) ProgramOptions() []celgo.ProgramOption { return l.progOpts }

// deviceProvider declares the kubernetes.DRADevice struct type on top of
// the environment's own type provider.
type deviceProvider struct {
	types.Provider
	types.Adapter
	fields map[string]*celgo.Type
}

func (p *deviceProvider) FindStructType(name string) (*types.Type, bool) {
	if name == DeviceTypeName {
		return types.NewTypeTypeWithParam(celgo.ObjectType(DeviceTypeName)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *deviceProvider) FindStructFieldNames(name string) ([]string, bool) {
	if name == DeviceTypeName {
		return []string{}, false
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *deviceProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if name != DeviceTypeName {
		return p.Provider.FindStructFieldType(name, field)
	}
	t, ok := p.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

// newEnvironment builds the Kubernetes v1.37 CEL environment of DRA device
// selectors of the given kind. The libraries are those of Kubernetes' base
// environment that a device selector can reach; see the package
// documentation for the ones left out.
func newEnvironment(kind EnvKind) (*environment, error) {
	base, err := celgo.NewEnv()
	if err != nil {
		return nil, err
	}
	listsVersion := uint32(1)
	if kind == New {
		listsVersion = 0
	}
	baseOpts := loader{
		envOpts: []celgo.EnvOption{
			celgo.HomogeneousAggregateLiterals(),
			celgo.EagerlyValidateDeclarations(true),
			celgo.DefaultUTCTimeZone(true),
			celgo.Lib(regexLib{}),
			celgo.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
			celgo.Lib(listsLib{version: listsVersion}),
			celgo.CrossTypeNumericComparisons(true),
			celgo.OptionalTypes(),
			celgo.Lib(quantityLib{}),
			celgo.ASTValidators(
				celgo.ValidateDurationLiterals(),
				celgo.ValidateTimestampLiterals(),
				celgo.ValidateRegexLiterals(),
				celgo.ValidateHomogeneousAggregateLiterals(),
			),
			ext.Strings(ext.StringsVersion(2)),
			ext.Sets(),
			ext.TwoVarComprehensions(),
			celgo.Lib(semverLib{}),
			ext.Lists(ext.ListsVersion(3)),
		},
		progOpts: []celgo.ProgramOption{
			celgo.EvalOptions(celgo.OptOptimize, celgo.OptTrackCost),
			celgo.CostLimit(MaxCost),
			celgo.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
			celgo.CostTracking(&kubeCost{}),
		},
	}
	env, err := base.Extend(celgo.Lib(baseOpts))
	if err != nil {
		return nil, err
	}

	// The device variable.
	str := func(n uint64) *declNode { return &declNode{maxElements: n} }
	attribute := str(maxAttributeValueLength)
	attrType := celgo.AnyType
	if kind == Stored {
		attribute = str(max(maxAttributeValueLength, maxAttributeValuesPerDev))
		attrType = celgo.DynType
	}
	innerAttrs := &declNode{maxElements: maxAttributesPerDevice, key: str(maxIDLength), elem: attribute}
	outerAttrs := &declNode{maxElements: maxAttributesPerDevice, key: str(maxDomainLength), elem: innerAttrs}
	innerCap := &declNode{maxElements: maxAttributesPerDevice, key: str(maxIDLength), elem: str(0)}
	outerCap := &declNode{maxElements: maxAttributesPerDevice, key: str(maxDomainLength), elem: innerCap}
	device := &declNode{fields: map[string]*declNode{
		driverVar:     str(maxDriverLength),
		attributesVar: outerAttrs,
		capacityVar:   outerCap,
		multiAllocVar: str(1),
	}}
	fields := map[string]*celgo.Type{
		driverVar:     celgo.StringType,
		attributesVar: celgo.MapType(celgo.StringType, celgo.MapType(celgo.StringType, attrType)),
		capacityVar:   celgo.MapType(celgo.StringType, celgo.MapType(celgo.StringType, QuantityType)),
		multiAllocVar: celgo.BoolType,
	}
	prov := env.CELTypeProvider()
	adapter, ok := prov.(types.Adapter)
	if !ok {
		adapter = types.DefaultTypeAdapter
	}
	provider := &deviceProvider{Provider: prov, Adapter: adapter, fields: fields}
	draOpts := []celgo.EnvOption{
		ext.Bindings(ext.BindingsVersion(0)),
		celgo.Variable(deviceVar, celgo.ObjectType(DeviceTypeName)),
	}
	if kind == Stored {
		draOpts = append(draOpts, includesOverload())
	}
	draOpts = append(draOpts, celgo.CustomTypeProvider(provider), celgo.CustomTypeAdapter(provider))
	env, err = env.Extend(celgo.Lib(loader{envOpts: draOpts}))
	if err != nil {
		return nil, fmt.Errorf("build DRA CEL environment: %w", err)
	}
	return &environment{
		env:           env,
		attributeType: attrType,
		sizes:         &deviceSizes{device: device, attribute: attribute},
		emptyMap:      env.CELTypeAdapter().NativeToValue(map[string]any{}),
	}, nil
}
