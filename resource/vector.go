package resource

import "sort"

// Scalar is one extended (scalar) resource amount in a Vector.
type Scalar struct {
	Name  Name
	Value int64
}

// Vector is the dense form of a resource list, for hot paths. Well-known
// resources have fixed slots; scalar resources (extended, huge pages,
// prefixed-native such as kubernetes.io/batch-cpu) live in a short slice
// sorted by name, so a lookup is a short linear scan with no map and no
// allocation. Units follow kube-scheduler's framework.Resource: cpu in
// milli-cores, everything else in Value() units (bytes, counts).
//
// The zero Vector is empty and ready to use. A Vector holds its Scalars by
// slice: use Clone before mutating a copy that must stay independent.
type Vector struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	// Pods is the pod-count slot; for a node's allocatable it is the number
	// of pods the node accepts (kube's AllowedPodNumber).
	Pods    int64
	Scalars []Scalar
}

// VectorFrom converts a List into a Vector: cpu by MilliValue, other
// resources by Value (rounded up). Names that are neither well-known nor
// scalar are ignored, as kube-scheduler ignores them.
func VectorFrom(l List) Vector {
	var v Vector
	for n, q := range l {
		switch n {
		case CPU:
			v.MilliCPU = q.MilliValue()
		case Memory:
			v.Memory = q.Value()
		case EphemeralStorage:
			v.EphemeralStorage = q.Value()
		case Pods:
			v.Pods = q.Value()
		default:
			if n.IsScalar() {
				v.setScalar(n, q.Value())
			}
		}
	}
	return v
}

// Get returns the amount of n in Vector units (0 when absent).
func (v *Vector) Get(n Name) int64 {
	switch n {
	case CPU:
		return v.MilliCPU
	case Memory:
		return v.Memory
	case EphemeralStorage:
		return v.EphemeralStorage
	case Pods:
		return v.Pods
	}
	for i := range v.Scalars {
		if v.Scalars[i].Name == n {
			return v.Scalars[i].Value
		}
	}
	return 0
}

// Scalar returns the amount of the scalar resource n (0 when absent): Get
// for a name that is none of the well-known resources, which it does not
// look for.
func (v *Vector) Scalar(n Name) int64 {
	for i := range v.Scalars {
		if v.Scalars[i].Name == n {
			return v.Scalars[i].Value
		}
	}
	return 0
}

// Set stores val for n.
func (v *Vector) Set(n Name, val int64) {
	switch n {
	case CPU:
		v.MilliCPU = val
	case Memory:
		v.Memory = val
	case EphemeralStorage:
		v.EphemeralStorage = val
	case Pods:
		v.Pods = val
	default:
		v.setScalar(n, val)
	}
}

// AddTo adds delta to the amount of n.
func (v *Vector) AddTo(n Name, delta int64) { v.Set(n, v.Get(n)+delta) }

func (v *Vector) setScalar(n Name, val int64) {
	i := sort.Search(len(v.Scalars), func(i int) bool { return v.Scalars[i].Name >= n })
	if i < len(v.Scalars) && v.Scalars[i].Name == n {
		v.Scalars[i].Value = val
		return
	}
	v.Scalars = append(v.Scalars, Scalar{})
	copy(v.Scalars[i+1:], v.Scalars[i:])
	v.Scalars[i] = Scalar{Name: n, Value: val}
}

// Add adds o to v per resource.
func (v *Vector) Add(o Vector) {
	v.MilliCPU += o.MilliCPU
	v.Memory += o.Memory
	v.EphemeralStorage += o.EphemeralStorage
	v.Pods += o.Pods
	for _, s := range o.Scalars {
		v.AddTo(s.Name, s.Value)
	}
}

// Sub subtracts o from v per resource. Scalar entries that reach zero are
// kept, as kube-scheduler keeps them; Equal treats them as absent.
func (v *Vector) Sub(o Vector) {
	v.MilliCPU -= o.MilliCPU
	v.Memory -= o.Memory
	v.EphemeralStorage -= o.EphemeralStorage
	v.Pods -= o.Pods
	for _, s := range o.Scalars {
		v.AddTo(s.Name, -s.Value)
	}
}

// SetMax raises every resource of v to at least its amount in o.
func (v *Vector) SetMax(o Vector) {
	v.MilliCPU = max(v.MilliCPU, o.MilliCPU)
	v.Memory = max(v.Memory, o.Memory)
	v.EphemeralStorage = max(v.EphemeralStorage, o.EphemeralStorage)
	v.Pods = max(v.Pods, o.Pods)
	for _, s := range o.Scalars {
		if s.Value > v.Get(s.Name) {
			v.setScalar(s.Name, s.Value)
		}
	}
}

// Clone returns a copy of v that shares nothing with it.
func (v Vector) Clone() Vector {
	if v.Scalars != nil {
		v.Scalars = append([]Scalar(nil), v.Scalars...)
	}
	return v
}

// IsZero reports whether every amount in v is zero.
func (v *Vector) IsZero() bool {
	if v.MilliCPU != 0 || v.Memory != 0 || v.EphemeralStorage != 0 || v.Pods != 0 {
		return false
	}
	for _, s := range v.Scalars {
		if s.Value != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether v and o hold the same amounts; a scalar entry with
// value zero equals an absent one.
func (v Vector) Equal(o Vector) bool {
	if v.MilliCPU != o.MilliCPU || v.Memory != o.Memory || v.EphemeralStorage != o.EphemeralStorage || v.Pods != o.Pods {
		return false
	}
	for _, s := range v.Scalars {
		if o.Get(s.Name) != s.Value {
			return false
		}
	}
	for _, s := range o.Scalars {
		if v.Get(s.Name) != s.Value {
			return false
		}
	}
	return true
}

// List converts v back into a List (cpu as a milli quantity, memory and
// ephemeral storage as BinarySI, others as DecimalSI). Zero amounts are
// omitted.
func (v Vector) List() List {
	l := List{}
	if v.MilliCPU != 0 {
		l[CPU] = NewMilliQuantity(v.MilliCPU, DecimalSI)
	}
	if v.Memory != 0 {
		l[Memory] = NewQuantity(v.Memory, BinarySI)
	}
	if v.EphemeralStorage != 0 {
		l[EphemeralStorage] = NewQuantity(v.EphemeralStorage, BinarySI)
	}
	if v.Pods != 0 {
		l[Pods] = NewQuantity(v.Pods, DecimalSI)
	}
	for _, s := range v.Scalars {
		if s.Value != 0 {
			l[s.Name] = NewQuantity(s.Value, DecimalSI)
		}
	}
	return l
}
