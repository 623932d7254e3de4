package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // v1 defaulting in legacyscheme
)

// Files of an export (schedkit's `variedbench export`): the cluster, the
// export's description, each stream's pods (and the nodes its churn
// adds), and the stream's churn events when it has any.
const (
	clusterFile = "cluster.json"
	metaFile    = "meta.json"
)

func streamFile(stream string) string { return stream + ".json" }
func eventsFile(stream string) string { return stream + ".events.json" }

// exportMeta is the export's meta.json.
type exportMeta struct {
	Workload   string   `json:"workload"`
	Nodes      int      `json:"nodes"`
	Seed       uint64   `json:"seed"`
	Order      string   `json:"order"`
	Existing   int      `json:"existing"`
	Streams    []string `json:"streams"`
	StreamPods []int    `json:"stream_pods"`
	// Preempting are the streams whose pods fit only once PostFilter has
	// preempted pods for them.
	Preempting []string `json:"preempting,omitempty"`
}

// Churn event operations (schedkit's side writes the same).
const (
	opAddNode    = "addNode"
	opRemoveNode = "removeNode"
)

// churnEvent changes the cluster before the stream's pod Before is
// scheduled: it adds the stream's churn node Node or removes it.
type churnEvent struct {
	Before int    `json:"before"`
	Op     string `json:"op"`
	Node   string `json:"node"`
}

// cluster is an export read back as v1 objects.
type cluster struct {
	meta       exportMeta
	namespaces []*v1.Namespace
	services   []*v1.Service
	nodes      []*v1.Node
	pods       []*v1.Pod // existing pods, each with spec.nodeName
	incoming   []*v1.Pod
	// churnNodes are the nodes the stream's events add, by name.
	churnNodes map[string]*v1.Node
	events     []churnEvent
	// The storage objects the cluster's and the stream's pods refer to.
	volumes        []*v1.PersistentVolume
	claims         []*v1.PersistentVolumeClaim
	csiNodes       []*storagev1.CSINode
	storageClasses []*storagev1.StorageClass
	// The DRA objects: slices, classes and the resource claims of the
	// cluster and of the stream's pods.
	resourceSlices []*resourcev1.ResourceSlice
	deviceClasses  []*resourcev1.DeviceClass
	resourceClaims []*resourcev1.ResourceClaim
}

// hasStorage reports whether the export has storage or DRA objects, which
// kube-scheduler's plugins read through informers.
func (c *cluster) hasStorage() bool {
	return len(c.volumes)+len(c.claims)+len(c.csiNodes)+len(c.storageClasses)+
		len(c.resourceSlices)+len(c.deviceClasses)+len(c.resourceClaims) > 0
}

// readMeta reads the export's meta.json in dir.
func readMeta(dir string) (exportMeta, error) {
	var m exportMeta
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", metaFile, err)
	}
	if len(m.Streams) != len(m.StreamPods) {
		return m, fmt.Errorf("%s: %d streams, %d stream lengths", metaFile, len(m.Streams), len(m.StreamPods))
	}
	return m, nil
}

// readCluster reads the export in dir and the incoming stream's files.
// Every object gets the API server's v1 defaults (legacyscheme, as
// kube-apiserver defaults objects before the scheduler's informers see
// them).
func readCluster(dir, stream string) (*cluster, error) {
	c := &cluster{churnNodes: map[string]*v1.Node{}}
	var err error
	if c.meta, err = readMeta(dir); err != nil {
		return nil, err
	}
	k := slices.Index(c.meta.Streams, stream)
	if k < 0 {
		return nil, fmt.Errorf("-stream=%q: the export in %s (workload %s) has streams %v", stream, dir, c.meta.Workload, c.meta.Streams)
	}
	if err := readList(filepath.Join(dir, clusterFile), c, false); err != nil {
		return nil, err
	}
	if err := readList(filepath.Join(dir, streamFile(stream)), c, true); err != nil {
		return nil, err
	}
	if len(c.nodes) != c.meta.Nodes || len(c.pods) != c.meta.Existing || len(c.incoming) != c.meta.StreamPods[k] {
		return nil, fmt.Errorf("%s: read %d nodes, %d existing pods, %d incoming pods; meta.json says %d, %d, %d",
			dir, len(c.nodes), len(c.pods), len(c.incoming), c.meta.Nodes, c.meta.Existing, c.meta.StreamPods[k])
	}
	b, err := os.ReadFile(filepath.Join(dir, eventsFile(stream)))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &c.events); err != nil {
		return nil, fmt.Errorf("%s: %w", eventsFile(stream), err)
	}
	for i, e := range c.events {
		if _, ok := c.churnNodes[e.Node]; !ok || (e.Op != opAddNode && e.Op != opRemoveNode) ||
			(i > 0 && e.Before < c.events[i-1].Before) {
			return nil, fmt.Errorf("%s: event %d %+v: want %s or %s of a node of %s, in stream order",
				eventsFile(stream), i, e, opAddNode, opRemoveNode, streamFile(stream))
		}
	}
	return c, nil
}

// appendNew appends a new, empty object to list and returns it.
func appendNew[T any, P interface {
	*T
	runtime.Object
}](list *[]P) runtime.Object {
	o := P(new(T))
	*list = append(*list, o)
	return o
}

// readList reads one List of Namespaces, Services, Nodes, Pods and
// storage objects (PersistentVolumes, PersistentVolumeClaims, CSINodes,
// StorageClasses) into c; with
// incoming set, pods go to c.incoming and nodes to c.churnNodes.
func readList(path string, c *cluster, incoming bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i, raw := range list.Items {
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("%s: items[%d]: %w", path, i, err)
		}
		var obj runtime.Object
		var churn *v1.Node
		switch head.Kind {
		case "Namespace":
			obj = appendNew(&c.namespaces)
		case "Service":
			obj = appendNew(&c.services)
		case "Node":
			n := &v1.Node{}
			if incoming {
				churn = n
			} else {
				c.nodes = append(c.nodes, n)
			}
			obj = n
		case "Pod":
			p := &v1.Pod{}
			if incoming {
				c.incoming = append(c.incoming, p)
			} else {
				c.pods = append(c.pods, p)
			}
			obj = p
		case "PersistentVolume":
			obj = appendNew(&c.volumes)
		case "PersistentVolumeClaim":
			obj = appendNew(&c.claims)
		case "CSINode":
			obj = appendNew(&c.csiNodes)
		case "StorageClass":
			obj = appendNew(&c.storageClasses)
		case "ResourceSlice":
			obj = appendNew(&c.resourceSlices)
		case "DeviceClass":
			obj = appendNew(&c.deviceClasses)
		case "ResourceClaim":
			obj = appendNew(&c.resourceClaims)
		default:
			return fmt.Errorf("%s: items[%d]: kind %q: want Namespace, Service, Node, Pod, PersistentVolume, PersistentVolumeClaim, CSINode, StorageClass, ResourceSlice, DeviceClass or ResourceClaim", path, i, head.Kind)
		}
		if err := json.Unmarshal(raw, obj); err != nil {
			return fmt.Errorf("%s: items[%d] (%s): %w", path, i, head.Kind, err)
		}
		legacyscheme.Scheme.Default(obj)
		if churn != nil {
			c.churnNodes[churn.Name] = churn
		}
	}
	return nil
}
