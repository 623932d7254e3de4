package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // v1 defaulting in legacyscheme
)

// Files of an export (schedkit's `variedbench export`).
const (
	clusterFile = "cluster.json"
	metaFile    = "meta.json"
)

// exportMeta is the export's meta.json.
type exportMeta struct {
	Nodes    int    `json:"nodes"`
	Seed     uint64 `json:"seed"`
	Pods     int    `json:"pods"`
	Order    string `json:"order"`
	Existing int    `json:"existing"`
}

// cluster is an export read back as v1 objects.
type cluster struct {
	meta       exportMeta
	namespaces []*v1.Namespace
	nodes      []*v1.Node
	pods       []*v1.Pod // existing pods, each with spec.nodeName
	incoming   []*v1.Pod
}

// readCluster reads the export in dir and the incoming stream's file.
// Every object gets the API server's v1 defaults (legacyscheme, as
// kube-apiserver defaults objects before the scheduler's informers see
// them).
func readCluster(dir, stream string) (*cluster, error) {
	c := &cluster{}
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &c.meta); err != nil {
		return nil, fmt.Errorf("%s: %w", metaFile, err)
	}
	if err := readList(filepath.Join(dir, clusterFile), c, false); err != nil {
		return nil, err
	}
	if err := readList(filepath.Join(dir, stream+".json"), c, true); err != nil {
		return nil, err
	}
	if len(c.nodes) != c.meta.Nodes || len(c.pods) != c.meta.Existing || len(c.incoming) != c.meta.Pods {
		return nil, fmt.Errorf("%s: read %d nodes, %d existing pods, %d incoming pods; meta.json says %d, %d, %d",
			dir, len(c.nodes), len(c.pods), len(c.incoming), c.meta.Nodes, c.meta.Existing, c.meta.Pods)
	}
	return c, nil
}

// readList reads one List of Namespaces, Nodes and Pods into c; pods go
// to c.incoming when incoming is set.
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
		switch head.Kind {
		case "Namespace":
			ns := &v1.Namespace{}
			c.namespaces, obj = append(c.namespaces, ns), ns
		case "Node":
			n := &v1.Node{}
			c.nodes, obj = append(c.nodes, n), n
		case "Pod":
			p := &v1.Pod{}
			if incoming {
				c.incoming = append(c.incoming, p)
			} else {
				c.pods = append(c.pods, p)
			}
			obj = p
		default:
			return fmt.Errorf("%s: items[%d]: kind %q: want Namespace, Node or Pod", path, i, head.Kind)
		}
		if err := json.Unmarshal(raw, obj); err != nil {
			return fmt.Errorf("%s: items[%d] (%s): %w", path, i, head.Kind, err)
		}
		legacyscheme.Scheme.Default(obj)
	}
	return nil
}
