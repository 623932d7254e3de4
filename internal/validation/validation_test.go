package validation

import (
	"strings"
	"testing"
)

func TestIsQualifiedName(t *testing.T) {
	valid := []string{"a", "A", "1", "foo", "foo.bar_baz-1", "example.com/foo", "sub.example.com/Foo.Bar", strings.Repeat("a", 63)}
	for _, s := range valid {
		if errs := IsQualifiedName(s); errs != nil {
			t.Errorf("IsQualifiedName(%q) = %q, want valid", s, errs)
		}
	}
	invalid := []string{"", "-a", "a-", "a/b/c", "/a", "Example.com/a", "example.com/", strings.Repeat("a", 64), "a b", "example_com/a"}
	for _, s := range invalid {
		if errs := IsQualifiedName(s); errs == nil {
			t.Errorf("IsQualifiedName(%q) valid, want invalid", s)
		}
	}
}

func TestIsValidLabelValue(t *testing.T) {
	for _, s := range []string{"", "a", "a.b-c_d", strings.Repeat("z", 63)} {
		if errs := IsValidLabelValue(s); errs != nil {
			t.Errorf("IsValidLabelValue(%q) = %q", s, errs)
		}
	}
	for _, s := range []string{"-a", "a_", strings.Repeat("z", 64), "a/b"} {
		if IsValidLabelValue(s) == nil {
			t.Errorf("IsValidLabelValue(%q) valid, want invalid", s)
		}
	}
}

// TestIsDNS1123Subdomain: lower-case labels of alphanumerics and '-',
// each starting and ending with an alphanumeric, 253 characters at most.
func TestIsDNS1123Subdomain(t *testing.T) {
	for _, s := range []string{"a", "example.com", "a-b.c1", strings.Repeat("a", 63) + "." + strings.Repeat("b", 63)} {
		if errs := IsDNS1123Subdomain(s); errs != nil {
			t.Errorf("IsDNS1123Subdomain(%q) = %q, want valid", s, errs)
		}
	}
	for _, s := range []string{"", "A.com", "-a.com", "a-.com", "a..b", ".a", strings.Repeat("a", 254), "a_b"} {
		if IsDNS1123Subdomain(s) == nil {
			t.Errorf("IsDNS1123Subdomain(%q) valid, want invalid", s)
		}
	}
}

// TestValidNamesAllocateNothing: label keys and values are checked every
// cycle a pod's node-affinity terms are compiled, so a valid one is
// checked without allocating; the messages of invalid ones are kept.
func TestValidNamesAllocateNothing(t *testing.T) {
	for _, s := range []string{"a", "example.com/foo", "sub.example.com/Foo.Bar", "topology.kubernetes.io/zone"} {
		if n := testing.AllocsPerRun(100, func() { _ = IsQualifiedName(s) }); n != 0 {
			t.Errorf("IsQualifiedName(%q): %v allocations, want 0", s, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = IsValidLabelValue("zone-a") }); n != 0 {
		t.Errorf("IsValidLabelValue: %v allocations, want 0", n)
	}
	cases := map[string][]string{
		"a/b/c":         {"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
		"/a":            {"prefix part must be non-empty"},
		"example.com/":  {"name part must be non-empty", "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"},
		"Example.com/a": {"prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"},
	}
	for s, want := range cases {
		if got := IsQualifiedName(s); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("IsQualifiedName(%q) = %q, want %q", s, got, want)
		}
	}
}
