// Package validation holds apimachinery's name and label syntax checks
// (qualified names, label values, DNS-1123 subdomains), shared by every
// package that validates user input.
package validation

import (
	"fmt"
	"strings"
)

// Length limits of Kubernetes' apimachinery validation.
const (
	qualifiedNameMaxLength = 63
	labelValueMaxLength    = 63
	dns1123SubdomainMaxLen = 253
)

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// qnameBody reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
// (an empty s does not).
func qnameBody(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// dns1123Label reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])?.
func dns1123Label(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// IsDNS1123Subdomain reports the problems of s as a DNS-1123 subdomain
// (apimachinery's IsDNS1123Subdomain); nil when valid.
func IsDNS1123Subdomain(s string) []string {
	var errs []string
	if len(s) > dns1123SubdomainMaxLen {
		errs = append(errs, fmt.Sprintf("must be no more than %d characters", dns1123SubdomainMaxLen))
	}
	if !dns1123Subdomain(s) {
		errs = append(errs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character")
	}
	return errs
}

// dns1123Subdomain reports whether s is a non-empty run of DNS-1123
// labels joined by dots (the length aside).
func dns1123Subdomain(s string) bool {
	if s == "" {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !dns1123Label(part) {
			return false
		}
	}
	return true
}

// IsQualifiedName reports the problems of s as a Kubernetes qualified name
// (an optional DNS-subdomain prefix and '/', then a name of at most 63
// alphanumerics, '-', '_' or '.', starting and ending alphanumeric), as
// apimachinery's IsQualifiedName, which label keys and kube-scheduler's
// ignoredResources must satisfy. It returns nil when s is valid.
func IsQualifiedName(s string) []string {
	var errs []string
	prefix, name, slash := strings.Cut(s, "/")
	if !slash {
		name = prefix
	}
	switch {
	case strings.Contains(name, "/"):
		return []string{"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	case slash:
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range IsDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+m)
			}
		}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > qualifiedNameMaxLength {
		errs = append(errs, fmt.Sprintf("name part must be no more than %d characters", qualifiedNameMaxLength))
	}
	if !qnameBody(name) {
		errs = append(errs, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
	}
	return errs
}

// IsValidLabelValue reports the problems of s as a label value (empty, or
// at most 63 characters matching the qualified-name body), as
// apimachinery's IsValidLabelValue; nil when valid.
func IsValidLabelValue(s string) []string {
	var errs []string
	if len(s) > labelValueMaxLength {
		errs = append(errs, fmt.Sprintf("must be no more than %d characters", labelValueMaxLength))
	}
	if s != "" && !qnameBody(s) {
		errs = append(errs, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
	}
	return errs
}
