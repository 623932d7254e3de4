package framework

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// KubeVersion names the kube-scheduler minor release whose behaviour a
// framework reproduces: the default plugin list and order, and the plugins
// whose results changed between releases. The zero value is not a version:
// use DefaultKubeVersion, or ParseKubeVersion on user input.
type KubeVersion struct{ minor int }

// The kube-scheduler releases schedkit reproduces.
var (
	// KubeV136 is kube-scheduler v1.36 (checked against v1.36.4).
	KubeV136 = KubeVersion{36}
	// KubeV137 is kube-scheduler v1.37 (checked against v1.37.2).
	KubeV137 = KubeVersion{37}
	// DefaultKubeVersion is the newest release schedkit reproduces.
	DefaultKubeVersion = KubeV137
)

// KubeVersions lists the releases schedkit reproduces, oldest first.
func KubeVersions() []KubeVersion { return []KubeVersion{KubeV136, KubeV137} }

// ParseKubeVersion reads a release as "1.37", "v1.37" or with a patch
// number ("v1.37.2"); a release schedkit does not reproduce is an error
// that lists the ones it does.
func ParseKubeVersion(s string) (KubeVersion, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) == 3 {
		parts = parts[:2]
	}
	for _, v := range KubeVersions() {
		if len(parts) == 2 && parts[0] == "1" && parts[1] == fmt.Sprint(v.minor) {
			return v, nil
		}
	}
	var names []string
	for _, v := range KubeVersions() {
		names = append(names, v.String())
	}
	return KubeVersion{}, fmt.Errorf("kube version %q: not a release schedkit reproduces (%s)", s, strings.Join(names, ", "))
}

// String returns the release as "v1.37" ("" for the zero value).
func (v KubeVersion) String() string {
	if v.minor == 0 {
		return ""
	}
	return fmt.Sprintf("v1.%d", v.minor)
}

// IsZero reports whether v is the zero value, which names no release.
func (v KubeVersion) IsZero() bool { return v.minor == 0 }

// AtLeast reports whether v is release o or newer.
func (v KubeVersion) AtLeast(o KubeVersion) bool { return v.minor >= o.minor }

// StatusRule returns the rule by which release v counts a resize in flight
// in a bound pod's requests (component-helpers PodRequests with
// UseStatusResources, which kube-scheduler's NodeInfo, resource scores
// and pod update events use). The zero value answers as
// DefaultKubeVersion.
func (v KubeVersion) StatusRule() api.StatusRule {
	if !v.IsZero() && !v.AtLeast(KubeV137) {
		return api.StatusPerContainer
	}
	return api.StatusAggregated
}

// Set parses s into v, so that a *KubeVersion is a flag.Value.
func (v *KubeVersion) Set(s string) error {
	p, err := ParseKubeVersion(s)
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// MarshalText returns String's form.
func (v KubeVersion) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses as ParseKubeVersion.
func (v *KubeVersion) UnmarshalText(b []byte) error { return v.Set(string(b)) }

// Equal reports whether v and o name the same release (so that go-cmp
// compares values holding a KubeVersion).
func (v KubeVersion) Equal(o KubeVersion) bool { return v == o }
