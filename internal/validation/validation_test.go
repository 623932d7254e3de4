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
