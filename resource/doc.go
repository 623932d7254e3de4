// Package resource holds resource quantities and resource names as
// Kubernetes writes them, in two forms: List, a map used at the API edge
// (objects, configuration, JSON), and Vector, a dense form with fixed slots
// for the well-known resources and a small sorted slice for extended ones,
// used on hot paths where a map lookup per node would dominate.
//
// Quantity reproduces Kubernetes' resource.Quantity: the same syntax
// ("500m", "4Gi", "1.5", "2e3"), the same exactness, the same rounding in
// Value and MilliValue, and the same canonical String form.
package resource
