package cel

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// kubeCost reproduces the cost rules Kubernetes adds to CEL's own for the
// functions of its libraries and of the string extension: the runtime cost
// of a call (CallCost, charged against the 1000000 limit of a selector)
// and its worst-case estimate (EstimateCallCost, which the API server
// compares with the same limit when a selector is created). Rules are
// keyed by function name, as in Kubernetes, whatever the overload.
type kubeCost struct {
	// sizes estimates the sizes of values reached through the device
	// variable; nil at runtime.
	sizes checker.CostEstimator
}

var (
	_                 checker.CostEstimator = (*kubeCost)(nil)
	unitCostFunctions                       = map[string]bool{
		"sign": true, "asInteger": true, "isInteger": true, "asApproximateFloat": true, "isGreaterThan": true,
		"isLessThan": true, "compareTo": true, "add": true, "sub": true, "major": true, "minor": true, "patch": true,
		// Kubernetes' authorizer, URL and IP libraries, which the DRA
		// environment does not declare here but whose rules match by name.
		"serviceAccount": true, "path": true, "group": true, "resource": true, "subresource": true, "namespace": true,
		"name": true, "allowed": true, "reason": true, "error": true, "errored": true,
		"getScheme": true, "getHostname": true, "getHost": true, "getPort": true, "getEscapedPath": true, "getQuery": true,
		"masked": true, "prefixLength": true, "family": true, "isUnspecified": true, "isLoopback": true,
		"isLinkLocalMulticast": true, "isLinkLocalUnicast": true, "isGlobalUnicast": true, "format.named": true,
	}
	listTraversalFunctions = map[string]bool{
		"isSorted": true, "sum": true, "max": true, "min": true, "indexOf": true, "lastIndexOf": true, "includes": true,
	}
)

func actualSize(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		return uint64(s.Size().(types.Int))
	}
	return 1
}

func ceilCost(size uint64, factor float64) uint64 {
	return uint64(math.Ceil(float64(size) * factor))
}

// traversalCost is the cost of visiting every element of v once.
func traversalCost(v ref.Val) uint64 {
	switch vt := v.(type) {
	case types.String:
		return uint64(float64(len(string(vt))) * common.StringTraversalCostFactor)
	case types.Bytes:
		return uint64(float64(len([]byte(vt))) * common.StringTraversalCostFactor)
	case traits.Lister:
		var c uint64
		for it := vt.Iterator(); it.HasNext() == types.True; {
			c += traversalCost(it.Next())
		}
		return c
	case traits.Mapper:
		var c uint64
		for it := vt.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			c += traversalCost(k) + traversalCost(vt.Get(k))
		}
		return c
	}
	return 1
}

// CallCost returns the runtime cost of a call, or nil for CEL's default.
func (k *kubeCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	var c uint64
	switch {
	case function == "check":
		c = 350000
	case unitCostFunctions[function]:
		c = 1
	case listTraversalFunctions[function]:
		if len(args) > 0 {
			c = traversalCost(args[0])
		}
	case function == "url" || function == "lowerAscii" || function == "upperAscii" || function == "substring" ||
		function == "trim" || function == "jsonpatch.escapeKey" || function == "cidr" || function == "isIP" ||
		function == "isCIDR" || function == "quantity" || function == "isQuantity" || function == "semver" || function == "isSemver":
		if len(args) < 1 {
			return nil
		}
		c = ceilCost(actualSize(args[0]), common.StringTraversalCostFactor)
	case function == "replace" || function == "split":
		if len(args) < 1 {
			return nil
		}
		c = uint64(math.Ceil(float64(actualSize(args[0])) * 2 * common.StringTraversalCostFactor))
	case function == "join":
		if len(args) < 1 {
			return nil
		}
		c = uint64(math.Ceil(float64(actualSize(result)) * 2 * common.StringTraversalCostFactor))
	case function == "find" || function == "findAll":
		if len(args) < 2 {
			return nil
		}
		str := uint64(math.Ceil((1.0 + float64(actualSize(args[0]))) * common.StringTraversalCostFactor))
		re := uint64(math.Ceil(float64(actualSize(args[1])) * common.RegexStringLengthCostFactor))
		c = str * re
	case function == "_==_":
		if len(args) != 2 {
			return nil
		}
		switch args[0].(type) {
		case Quantity, *Quantity, Semver, *Semver:
			c = 1
		default:
			return nil
		}
	default:
		return nil
	}
	return &c
}

// EstimateSize delegates to the device size estimator.
func (k *kubeCost) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	if k.sizes != nil {
		return k.sizes.EstimateSize(element)
	}
	return nil
}

func (k *kubeCost) sizeEstimate(t checker.AstNode) checker.SizeEstimate {
	if sz := t.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := k.EstimateSize(t); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// itemsNode stands for the elements of a list in size estimates.
type itemsNode struct {
	path []string
	t    *types.Type
}

func (i *itemsNode) Path() []string                      { return i.path }
func (i *itemsNode) Type() *types.Type                   { return i.t }
func (i *itemsNode) Expr() ast.Expr                      { return nil }
func (i *itemsNode) ComputedSize() *checker.SizeEstimate { return nil }

func listElementNode(list checker.AstNode) checker.AstNode {
	params := list.Type().Parameters()
	if len(params) == 0 {
		return nil
	}
	if p := list.Path(); p != nil {
		path := make([]string, len(p)+1)
		copy(path, p)
		path[len(p)] = "@items"
		return &itemsNode{path: path, t: params[0]}
	}
	return &itemsNode{t: params[0]}
}

// EstimateCallCost returns the worst-case cost of a call, or nil for CEL's
// default estimate.
func (k *kubeCost) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	one := checker.CostEstimate{Min: 1, Max: 1}
	switch {
	case function == "check":
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 350000, Max: 350000}}
	case unitCostFunctions[function]:
		return &checker.CallEstimate{CostEstimate: one}
	case listTraversalFunctions[function]:
		if target == nil {
			return nil
		}
		el := one
		if elNode := listElementNode(*target); elNode != nil {
			if kind := elNode.Type().Kind(); kind == types.StringKind || kind == types.BytesKind {
				el = el.Add(k.sizeEstimate(elNode).MultiplyByCostFactor(common.StringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: k.sizeEstimate(*target).MultiplyByCost(el)}
		}
		if function == "includes" {
			return &checker.CallEstimate{CostEstimate: k.sizeEstimate(*target).MultiplyByCost(el)}
		}
		return &checker.CallEstimate{CostEstimate: k.sizeEstimate(*target).MultiplyByCostFactor(common.StringTraversalCostFactor)}
	case function == "url" || function == "jsonpatch.escapeKey":
		if len(args) != 1 {
			return nil
		}
		sz := k.sizeEstimate(args[0])
		return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
	case function == "lowerAscii" || function == "upperAscii" || function == "substring" || function == "trim":
		if target == nil {
			return nil
		}
		sz := k.sizeEstimate(*target)
		return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
	case function == "replace":
		if target == nil || len(args) < 2 {
			return nil
		}
		return k.estimateReplace(*target, args)
	case function == "split":
		if target == nil {
			return nil
		}
		sz := k.sizeEstimate(*target)
		mx := sz.Max
		if len(args) > 1 {
			if v := args[1].Expr().AsLiteral(); v != nil {
				if i, ok := v.Value().(int64); ok {
					mx = uint64(i)
				}
			}
		}
		return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor), ResultSize: &checker.SizeEstimate{Min: 0, Max: mx}}
	case function == "join":
		if target == nil {
			return nil
		}
		var sz checker.SizeEstimate
		listSize := k.sizeEstimate(*target)
		if elNode := listElementNode(*target); elNode != nil {
			sz = listSize.Multiply(k.sizeEstimate(elNode))
		}
		if len(args) > 0 {
			sep := k.sizeEstimate(args[0])
			var minSep, maxSep uint64
			if listSize.Min > 0 {
				minSep = listSize.Min - 1
			}
			if listSize.Max > 0 {
				maxSep = listSize.Max - 1
			}
			sz = sz.Add(sep.Multiply(checker.SizeEstimate{Min: minSep, Max: maxSep}))
		}
		return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
	case function == "find" || function == "findAll":
		if target == nil || len(args) < 1 {
			return nil
		}
		sz := k.sizeEstimate(*target)
		str := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(common.StringTraversalCostFactor)
		re := k.sizeEstimate(args[0]).MultiplyByCostFactor(common.RegexStringLengthCostFactor)
		return &checker.CallEstimate{CostEstimate: str.Multiply(re), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
	case function == "cidr" || function == "isIP" || function == "isCIDR" || function == "quantity" ||
		function == "isQuantity" || function == "semver" || function == "isSemver":
		if len(args) < 1 {
			return nil
		}
		return &checker.CallEstimate{CostEstimate: k.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
	case function == "_==_":
		if len(args) != 2 {
			return nil
		}
		lhs, rhs := args[0].Type(), args[1].Type()
		if lhs.Equal(rhs) == types.True && lhs.Kind() == types.StructKind && (lhs == QuantityType || lhs == SemverType) {
			return &checker.CallEstimate{CostEstimate: one}
		}
	}
	return nil
}

func (k *kubeCost) estimateReplace(target checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	sz := k.sizeEstimate(target)
	toReplace := k.sizeEstimate(args[0])
	with := k.sizeEstimate(args[1])
	var count, retained checker.SizeEstimate
	switch {
	case toReplace.Min == 0:
		if sz.Max < math.MaxUint64 {
			count.Max = sz.Max + 1
		} else {
			count.Max = sz.Max
		}
		retained.Max = sz.Max
	case with.Max <= toReplace.Min:
		count.Max = 0
		retained.Max = sz.Max
	default:
		count.Max = uint64(math.Ceil(float64(sz.Max) / float64(toReplace.Min)))
	}
	switch {
	case toReplace.Max == 0:
		if sz.Min < math.MaxUint64 {
			count.Min = sz.Min + 1
		} else {
			count.Min = sz.Min
		}
		retained.Min = sz.Min
	case toReplace.Max <= with.Min:
		count.Min = 0
		retained.Min = sz.Min
	default:
		count.Min = uint64(math.Ceil(float64(sz.Min) / float64(toReplace.Max)))
	}
	size := count.Multiply(with).Add(retained)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor), ResultSize: &size}
}

// declNode describes the maximum sizes of the values reachable through the
// device variable, as Kubernetes declares them: string lengths, map sizes
// and attribute value lengths.
type declNode struct {
	maxElements uint64
	fields      map[string]*declNode
	key, elem   *declNode
}

// deviceSizes estimates sizes along a path from the device variable, the
// way the DRA environment's size estimator walks its type declarations:
// "@items" and "@values" go to a map's or list's element type, "@keys" to
// its key type, a field name to a declared field, and a field selected on
// an attribute map to the attribute type.
type deviceSizes struct {
	device    *declNode
	attribute *declNode
}

func (s *deviceSizes) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 || path[0] != deviceVar {
		return nil
	}
	cur := s.device
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			if cur.elem == nil {
				return nil
			}
			cur = cur.elem
		case "@keys":
			if cur.key == nil {
				return nil
			}
			cur = cur.key
		default:
			f, ok := cur.fields[name]
			if !ok {
				if cur.elem != nil && cur.elem == s.attribute {
					cur = s.attribute
					continue
				}
				return nil
			}
			cur = f
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: cur.maxElements}
}

func (s *deviceSizes) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}
