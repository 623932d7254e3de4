package allocator

import (
	"context"
	"errors"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/cel"
	"github.com/schedkit/schedkit/resource"
)

// ErrFailedAllocationOnNode is wrapped by the errors of Allocate that
// concern only the node at hand (Kubernetes' structured.ErrFailedAllocationOnNode):
// the scheduler reports the node as unschedulable with the error's text
// instead of failing the whole attempt. It has no text of its own.
var ErrFailedAllocationOnNode = errors.New("")

// DeviceID names one device: its driver, pool and name within the pool.
type DeviceID struct{ Driver, Pool, Device string }

// String returns "driver/pool/device", as Kubernetes prints device IDs in
// its error messages.
func (d DeviceID) String() string { return d.Driver + "/" + d.Pool + "/" + d.Device }

// SharedDeviceID names one share of a device that allows multiple
// allocations: the device and the share ID of one allocation of it.
type SharedDeviceID struct {
	DeviceID
	ShareID string
}

// Features are the optional behaviours of the allocator, one per feature
// Kubernetes' DynamicResources plugin passes to its allocator (the names
// are the feature gates'). DeviceBindingAndStatus is on when both
// DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are.
type Features struct {
	AdminAccess             bool // DRAAdminAccess
	CompatibilityGroups     bool // DRADeviceCompatibilityGroups
	ConsumableCapacity      bool // DRAConsumableCapacity
	DerivedAttributes       bool // DRADerivedAttributes
	DeviceBindingAndStatus  bool // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus
	DeviceTaints            bool // DRADeviceTaints
	FractionalCapacityRange bool // DRAFractionalCapacityRange
	ListTypeAttributes      bool // DRAListTypeAttributes
	OptionalNodeOperations  bool // DRAOptionalNodeOperations
	PartitionableDevices    bool // DRAPartitionableDevices
	PrioritizedList         bool // DRAPrioritizedList
}

// DefaultFeatures returns the features kube-scheduler v enables with its
// default feature gates. v1.36 and v1.37 enable the same set:
// AdminAccess, ConsumableCapacity, DeviceBindingAndStatus, DeviceTaints,
// PartitionableDevices and PrioritizedList. (DRAFractionalCapacityRange is
// beta in v1.37 but on by default only with --min-compatibility-version
// 1.37, not with the default of one release back.)
func DefaultFeatures(v framework.KubeVersion) Features {
	_ = v
	return Features{
		AdminAccess:            true,
		ConsumableCapacity:     true,
		DeviceBindingAndStatus: true,
		DeviceTaints:           true,
		PartitionableDevices:   true,
		PrioritizedList:        true,
	}
}

// AllocatedState is what is allocated already, by claims other than the
// ones being allocated: whole devices, shares of devices that allow
// multiple allocations, and the capacity those shares consume per device.
// The allocator only reads it.
type AllocatedState struct {
	// Devices are the devices allocated without admin access and not as a
	// share (no share ID).
	Devices map[DeviceID]struct{}
	// SharedDevices are the shares of devices allocated with a share ID.
	SharedDevices map[SharedDeviceID]struct{}
	// ConsumedCapacity is, per shared device, the sum of the capacity its
	// shares consume.
	ConsumedCapacity map[DeviceID]map[api.QualifiedName]resource.Quantity
}

// ClassLister looks up DeviceClasses by name.
type ClassLister interface {
	DeviceClass(name string) (*api.DeviceClass, bool)
}

// Allocator allocates devices to claims on one node at a time. It holds
// the cluster's ResourceSlices and allocated devices as they were when it
// was built. It is safe for concurrent use.
type Allocator struct {
	features Features
	state    AllocatedState
	classes  ClassLister
	slices   []*api.ResourceSlice
	cache    *cel.Cache
}

// New returns an allocator over the cluster's ResourceSlices, its
// DeviceClasses and what is allocated already, evaluating CEL selectors
// through cache (which must not be nil). Kubernetes' NewAllocator for the
// features given.
func New(f Features, state AllocatedState, classes ClassLister, slices []*api.ResourceSlice, cache *cel.Cache) (*Allocator, error) {
	return &Allocator{features: f, state: state, classes: classes, slices: slices, cache: cache}, nil
}

// Allocate chooses devices for claims (none of them allocated yet) on
// node. It returns one result per claim, in the order of claims; nil
// results and a nil error when the claims cannot all be allocated on this
// node; and an error, with Kubernetes' text, for a failure Kubernetes
// reports as one (a CEL runtime error, a missing class, a request asking
// for all devices of a pool that is being updated, a cancelled ctx, ...).
// Errors that wrap ErrFailedAllocationOnNode concern this node only.
// Results have no AllocationTimestamp. A device shared through
// allowMultipleAllocations gets a share ID derived from the claim and the
// device (Kubernetes draws a random UID), so that the same inputs give the
// same results.
func (a *Allocator) Allocate(ctx context.Context, node *api.Node, claims []*api.ResourceClaim) ([]api.AllocationResult, error) {
	return nil, nil
}
