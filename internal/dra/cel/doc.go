// Package cel evaluates Dynamic Resource Allocation device selectors as
// Kubernetes v1.37 does (k8s.io/dynamic-resource-allocation v0.37.2 cel
// package, on k8s.io/apiserver v0.37.2's CEL base environment), with
// github.com/google/cel-go v0.29.2, the CEL implementation Kubernetes
// uses. It depends on no other part of schedkit than resource.
//
// A selector sees one variable, device, of type kubernetes.DRADevice:
//
//	device.driver                        string
//	device.allowMultipleAllocations      bool
//	device.attributes["domain"].id       the attribute's value (int, bool,
//	                                     string, semver, or a list of them)
//	device.capacity["domain"].id         kubernetes.Quantity
//
// An attribute or capacity named without a domain is in the driver's
// domain. Looking up a domain the device does not have gives an empty map,
// so device.attributes["other.domain"].x fails with "no such key: x".
//
// The environment has CEL's standard library and Kubernetes' libraries
// that a selector can use: optional types, cross-type numeric comparisons,
// the strings extension (version 2), sets, two-variable comprehensions,
// the lists extension (version 3), cel.bind, Kubernetes' quantity library
// (quantity, isQuantity, sign, isGreaterThan, isLessThan, compareTo,
// asApproximateFloat, asInteger, isInteger, add, sub), semver library
// (version 1: semver and isSemver with the normalizing flag, major, minor,
// patch, comparisons), lists library (isSorted, sum, min, max, indexOf,
// lastIndexOf, includes) and regex library (find, findAll). Kubernetes'
// URL, IP, CIDR, format and authorizer libraries are not declared: a
// selector that uses them fails to compile with "undeclared reference".
//
// Costs follow Kubernetes: the runtime limit of 1000000 per evaluation
// ("operation cancelled: actual cost limit exceeded"), Kubernetes' per-call
// costs for its library functions, and the worst-case estimate the API
// server checks when a selector is created (Program.CheckCost).
//
// Quantities keep the two internal forms of Kubernetes' resource.Quantity
// (a scaled int64 or an arbitrary-precision decimal) because isInteger,
// asInteger and asApproximateFloat answer by form: quantity("1000m") is
// not an integer and quantity("1.5Gi").isInteger() is false, as in
// Kubernetes. Device capacities are taken in the form the scheduler
// receives them from the API server: parsed from their canonical string.
// Deliberate difference: a quantity with a decimal exponent beyond ±10000
// ("1e20000") is a parse error; Kubernetes truncates the exponent to 32
// bits.
package cel
