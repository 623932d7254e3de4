package resource

import "strings"

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
	return isQualifiedName(quotaRequestsPrefix + string(n))
}

// isQualifiedName is apimachinery's IsQualifiedName: an optional DNS-1123
// subdomain prefix and "/", then a name of at most 63 characters made of
// alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric.
func isQualifiedName(s string) bool {
	prefix, name, hasPrefix := strings.Cut(s, "/")
	if !hasPrefix {
		name = prefix
	} else if prefix == "" || strings.Contains(name, "/") || !isDNS1123Subdomain(prefix) {
		return false
	}
	if name == "" || len(name) > 63 || !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain reports whether s is at most 253 characters of
// dot-separated labels of lower-case alphanumerics and '-', each starting
// and ending with an alphanumeric.
func isDNS1123Subdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

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
