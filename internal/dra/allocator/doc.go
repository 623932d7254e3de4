// Package allocator chooses devices for Dynamic Resource Allocation claims
// exactly as Kubernetes v1.37's structured allocator does
// (k8s.io/dynamic-resource-allocation v0.37.2 structured package, which
// with the v1.37 default feature gates runs its "incubating" variant): for
// the same claims, ResourceSlices, DeviceClasses and already allocated
// devices it picks the same devices on a node, or fails in the same cases
// with the same error texts.
//
// The search is Kubernetes' first-fit backtracking: claims in the order
// given, each claim's requests in order (a firstAvailable request tries its
// subrequests in order and keeps the first that leads to a full solution),
// and for each device wanted the candidates in pool order (pools sorted by
// driver and pool name, pools whose devices have binding conditions last),
// slice order (by name) and device order within the slice. Within one
// request a later device is never taken before an earlier one, so each set
// of devices is tried once. The first complete solution wins.
//
// A pool is used only at its newest generation and only when all its
// slices are known; an incomplete pool makes "All" requests fail, an
// invalid pool (duplicate device names, unknown counter sets) is skipped
// and reported only when nothing else fits. Devices are matched by their
// class's and the request's CEL selectors, node reachability (nodeName,
// nodeSelector, allNodes, perDeviceNodeSelection), taints (the slice's,
// and with DeviceTaintRules the rules' the caller applied beforehand) and
// tolerations,
// claim constraints (matchAttribute, distinctAttribute), shared counters
// (partitionable devices) and consumable capacity (devices that allow
// multiple allocations, each with its own share ID).
//
// Features.Release selects v1.36's allocator (k8s.io/dynamic-resource-allocation
// v0.36.4, also "incubating" with v1.36's default gates), which differs
// in a few error texts and edge cases; see Features.
//
// An Allocator is built once per scheduling cycle from the cluster's state
// and used for every node; Allocate is safe for concurrent use and never
// modifies its inputs. What does not depend on the allocated devices
// (selector results per device, the pools each node reaches) lives in a
// Slices index that the allocators of successive cycles can share.
//
// Deliberate differences from Kubernetes:
//   - Objects are read with the API server's defaults applied where a
//     field is unset (allocation mode ExactCount, count 1, toleration
//     operator Equal), as Kubernetes' scheduler only sees defaulted
//     objects; results carry the defaulted tolerations.
//   - A share of a device that allows multiple allocations gets a share ID
//     derived from the claim and the device instead of a random UID, so
//     that the same inputs give the same results.
//   - A node selector that does not parse is an error with schedkit's
//     description of the fault, not component-helpers' text.
package allocator
