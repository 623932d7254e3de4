package resource_test

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/resource"
)

// The expectations follow Kubernetes' pkg/apis/core/v1/helper/helpers.go
// (IsNativeResource, IsPrefixedNativeResource, IsHugePageResourceName,
// IsExtendedResourceName, IsAttachableVolumeResourceName) and
// pkg/scheduler/util's IsScalarResourceName. The native rows are
// TestIsNativeResource of pkg/apis/core/v1/helper/helpers_test.go; the
// extended rows are kube's TestIsExtendedResourceName table ("a/b" yes,
// "c/d/" no, "requests.foobar" no, "" no) plus cases derived by hand from
// the IsQualifiedName rule applied to "requests." + name.
func TestNamePredicates(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	long64 := strings.Repeat("a", 64)
	okDomain := strings.Repeat("a", 240) + ".com"   // 244 chars: "requests." makes exactly 253
	longDomain := strings.Repeat("a", 241) + ".com" // 245 chars: "requests." makes 254 > 253
	tests := []struct {
		name                                                resource.Name
		native, prefixedNative, hugePages, extended, scalar bool
	}{
		// kube TestIsNativeResource.
		{name: "pod.alpha.kubernetes.io/opaque-int-resource-foo", native: true, prefixedNative: true, scalar: true},
		{name: "kubernetes.io/resource-foo", native: true, prefixedNative: true, scalar: true},
		{name: "foo", native: true},
		{name: "a/b", extended: true, scalar: true},
		{name: "", native: true},
		// kube TestIsExtendedResourceName.
		{name: "requests.foobar", native: true},
		{name: "c/d/"},
		// Well-known names are native and not scalar (they have slots).
		{name: resource.CPU, native: true},
		{name: resource.Memory, native: true},
		{name: resource.EphemeralStorage, native: true},
		{name: resource.Pods, native: true},
		// Huge pages: the prefix alone decides (IsHugePageResourceName).
		{name: "hugepages-2Mi", native: true, hugePages: true, scalar: true},
		{name: "hugepages-", native: true, hugePages: true, scalar: true},
		{name: "huge-pages-2Mi", native: true},
		// Attachable volumes are scalar without being extended.
		{name: "attachable-volumes-aws-ebs", native: true, scalar: true},
		// Koordinator's batch resources are prefixed-native.
		{name: resource.BatchCPU, native: true, prefixedNative: true, scalar: true},
		{name: resource.MidMemory, native: true, prefixedNative: true, scalar: true},
		// Extended resources.
		{name: "nvidia.com/gpu", extended: true, scalar: true},
		{name: "example.com/foo_bar.baz-1", extended: true, scalar: true},
		{name: "example.com/" + resource.Name(long63), extended: true, scalar: true},
		{name: resource.Name(okDomain + "/gpu"), extended: true, scalar: true},
		// IsQualifiedName failures: not extended, hence ignored entirely.
		{name: "example.com/" + resource.Name(long64)},    // name part > 63
		{name: "Example.com/gpu"},                         // prefix not lower-case DNS
		{name: "example.com/"},                            // empty name part
		{name: "example.com/-gpu"},                        // name starts with '-'
		{name: "example.com/gpu!"},                        // bad character
		{name: "exa_mple.com/gpu"},                        // '_' not allowed in DNS
		{name: resource.Name(longDomain + "/gpu")},        // prefix > 253 with "requests."
		{name: "requests.example.com/gpu", native: false}, // quota-style name
		{name: "/gpu"},                                    // empty domain: "requests." prefix is "requests." — ends with '.'
	}
	for _, tc := range tests {
		t.Run(string(tc.name), func(t *testing.T) {
			if got := tc.name.IsNative(); got != tc.native {
				t.Errorf("IsNative(%q) = %v, want %v", tc.name, got, tc.native)
			}
			if got := tc.name.IsPrefixedNative(); got != tc.prefixedNative {
				t.Errorf("IsPrefixedNative(%q) = %v, want %v", tc.name, got, tc.prefixedNative)
			}
			if got := tc.name.IsHugePages(); got != tc.hugePages {
				t.Errorf("IsHugePages(%q) = %v, want %v", tc.name, got, tc.hugePages)
			}
			if got := tc.name.IsExtended(); got != tc.extended {
				t.Errorf("IsExtended(%q) = %v, want %v", tc.name, got, tc.extended)
			}
			if got := tc.name.IsScalar(); got != tc.scalar {
				t.Errorf("IsScalar(%q) = %v, want %v", tc.name, got, tc.scalar)
			}
		})
	}
}

func TestNameIsWellKnown(t *testing.T) {
	for _, n := range []resource.Name{resource.CPU, resource.Memory, resource.EphemeralStorage, resource.Pods} {
		if !n.IsWellKnown() {
			t.Errorf("IsWellKnown(%q) = false, want true", n)
		}
	}
	for _, n := range []resource.Name{"storage", "hugepages-2Mi", "nvidia.com/gpu", resource.BatchCPU, ""} {
		if n.IsWellKnown() {
			t.Errorf("IsWellKnown(%q) = true, want false", n)
		}
	}
}
