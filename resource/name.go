package resource

import (
	"strings"

	"github.com/schedkit/schedkit/internal/validation"
)

// Name is a resource name such as "cpu", "memory" or "nvidia.com/gpu".
type Name string

// Well-known resource names.
const (
	// CPU is measured in cores; its dense slot holds milli-cores.
	CPU Name = "cpu"
	// Memory is measured in bytes.
	Memory Name = "memory"
	// EphemeralStorage is measured in bytes.
	EphemeralStorage Name = "ephemeral-storage"
	// Pods is the number of pods a node accepts.
	Pods Name = "pods"
)

// Resource names of Koordinator's priority-class resources (batch and mid
// tiers). They are prefixed-native names, so they are scalar resources.
const (
	BatchCPU    Name = "kubernetes.io/batch-cpu"
	BatchMemory Name = "kubernetes.io/batch-memory"
	MidCPU      Name = "kubernetes.io/mid-cpu"
	MidMemory   Name = "kubernetes.io/mid-memory"
)

const (
	hugePagesPrefix       = "hugepages-"
	attachableVolumesPref = "attachable-volumes-"
	nativeDomainSuffix    = "kubernetes.io/"
	quotaRequestsPrefix   = "requests."
)

// IsWellKnown reports whether n is cpu, memory, ephemeral-storage or pods,
// the resources with a fixed slot in Vector.
func (n Name) IsWellKnown() bool {
	switch n {
	case CPU, Memory, EphemeralStorage, Pods:
		return true
	}
	return false
}

// IsPrefixedNative reports whether n lives in the kubernetes.io domain
// ("kubernetes.io/batch-cpu", "example.kubernetes.io/x").
func (n Name) IsPrefixedNative() bool {
	return strings.Contains(string(n), nativeDomainSuffix)
}

// IsNative reports whether n is a native resource: a name without a domain
// or a prefixed-native name, as Kubernetes' helper.IsNativeResource.
func (n Name) IsNative() bool {
	return !strings.Contains(string(n), "/") || n.IsPrefixedNative()
}

// IsExtended reports whether n is an extended resource ("nvidia.com/gpu"):
// a name with a domain outside kubernetes.io that is not a quota name and
// that, prefixed with "requests.", is a valid qualified name — Kubernetes'
// helper.IsExtendedResourceName ("c/d/" and "Example.com/gpu" are not).
func (n Name) IsExtended() bool {
	if n.IsNative() || strings.HasPrefix(string(n), quotaRequestsPrefix) {
		return false
	}
	return validation.IsQualifiedName(quotaRequestsPrefix+string(n)) == nil
}

// IsHugePages reports whether n is a huge-pages resource ("hugepages-2Mi").
func (n Name) IsHugePages() bool {
	return strings.HasPrefix(string(n), hugePagesPrefix)
}

// IsScalar reports whether n is accounted as a scalar resource by the
// scheduler: extended, huge pages, prefixed-native or attachable volumes, as
// kube-scheduler's IsScalarResourceName. Other unknown names are ignored by
// resource accounting, exactly as kube-scheduler ignores them.
func (n Name) IsScalar() bool {
	return n.IsExtended() || n.IsHugePages() || n.IsPrefixedNative() ||
		strings.HasPrefix(string(n), attachableVolumesPref)
}

// DeviceClassPrefix starts the extended resource name every DeviceClass
// implicitly offers: "deviceclass.resource.kubernetes.io/<class name>".
const DeviceClassPrefix = "deviceclass.resource.kubernetes.io/"

// IsDRAExtended reports whether a DeviceClass may back n (Kubernetes'
// IsDRAExtendedResourceName): an extended resource name or a class's
// implicit name (DeviceClassPrefix).
func (n Name) IsDRAExtended() bool {
	return n.IsExtended() || strings.HasPrefix(string(n), DeviceClassPrefix)
}
