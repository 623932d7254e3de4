package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/synth"
)

// Spec is a sweep: the values of each axis and, unless Units lists them,
// their cross product. It is read from YAML or JSON (ReadSpec); the JSON
// field names are the file's.
type Spec struct {
	// Clusters are the initial clusters: generated, a cluster file of
	// examples/simulate's format, or kubectl dumps.
	Clusters []Cluster `json:"clusters"`
	// Workloads are the pods that arrive: generated, or a workload file of
	// examples/simulate's format.
	Workloads []Workload `json:"workloads"`
	// Profiles are the scheduling profiles: built-in comparison profiles
	// (synth.ProfileNames) or a profile of a KubeSchedulerConfiguration
	// file.
	Profiles []Profile `json:"profiles"`
	// KubeVersions are the kube-scheduler releases reproduced ("1.37",
	// "1.36"; default: the newest).
	KubeVersions []string `json:"kubeVersions,omitempty"`
	// Seeds seed each unit's generated cluster and workload and its
	// scheduler's random choices (default: [1]).
	Seeds []uint64 `json:"seeds,omitempty"`
	// UnitSpecs (the file's "units"), when given, are the units to run instead of the cross
	// product of the axes, each naming an axis value by its name.
	UnitSpecs []UnitSpec `json:"units,omitempty"`
	// Reference is the pod shape stranded capacity is measured against
	// (default 1 cpu, 2Gi).
	Reference *Shape `json:"reference,omitempty"`
	// MaxCycles bounds each unit's scheduling cycles (0: replay's
	// default, replay.DefaultCyclesPerPod per pod and at least
	// replay.DefaultMaxCycles); a unit past it fails.
	MaxCycles int `json:"maxCycles,omitempty"`

	// path is where the spec was read; dir resolves relative paths.
	path, dir string
	limits    Limits
}

// Cluster is one value of the cluster axis: exactly one of Generate, File
// and Kubectl.
type Cluster struct {
	// Name names the value in unit names and reports.
	Name     string            `json:"name"`
	Generate *GeneratedCluster `json:"generate,omitempty"`
	// File is a cluster file of examples/simulate's JSON format
	// (replay.ReadCluster).
	File string `json:"file,omitempty"`
	// Kubectl are kubectl dumps (`kubectl get … -o json` or `-o yaml`,
	// gzip-compressed or not) read together as one cluster
	// (kubeload.Load): its nodes, pods on them, namespaces, services,
	// controllers, disruption budgets, NodeMetrics, storage and DRA
	// objects; its pending pods arrive at the start.
	Kubectl []string `json:"kubectl,omitempty"`
}

// GeneratedCluster is a cluster synth.AddCluster builds.
type GeneratedCluster struct {
	// Nodes is the number of nodes.
	Nodes int `json:"nodes"`
	// Shapes are the node shapes (default: synth.DefaultCluster's four).
	Shapes []NodeShape `json:"shapes,omitempty"`
	// Zones is the number of zones (default 3).
	Zones int `json:"zones,omitempty"`
}

// NodeShape is a node shape of a generated cluster.
type NodeShape struct {
	CPU    string `json:"cpu"`
	Memory string `json:"memory"`
	// Pods is the node's pod slots (default 110).
	Pods int `json:"pods,omitempty"`
	// Weight is the shape's share of the nodes (default 1).
	Weight int `json:"weight,omitempty"`
}

// Workload is one value of the workload axis: exactly one of Generate
// and File.
type Workload struct {
	Name     string             `json:"name"`
	Generate *GeneratedWorkload `json:"generate,omitempty"`
	// File is a workload file of examples/simulate's JSON format
	// (replay.ReadArrivals).
	File string `json:"file,omitempty"`
}

// GeneratedWorkload is a workload synth.AddWorkload builds.
type GeneratedWorkload struct {
	// Pods is the number of pods.
	Pods int `json:"pods"`
	// Window is the time over which they arrive, evenly spaced (Go
	// duration syntax; default "100s").
	Window *Duration `json:"window,omitempty"`
	// Shapes are the pod shapes (default: synth.DefaultWorkload's five).
	Shapes []PodShape `json:"shapes,omitempty"`
	// HighPriorityOneIn gives one pod in N, drawn at random, priority
	// synth.HighPriority (default 10; 0: none).
	HighPriorityOneIn *int `json:"highPriorityOneIn,omitempty"`
}

// PodShape is a pod shape of a generated workload.
type PodShape struct {
	Name   string `json:"name"`
	CPU    string `json:"cpu"`
	Memory string `json:"memory"`
	// Weight is the shape's share of the pods (default 1).
	Weight int `json:"weight,omitempty"`
	// MinDuration and MaxDuration bound how long a pod runs once bound,
	// drawn in whole seconds (default: until the end; MaxDuration
	// defaults to MinDuration).
	MinDuration *Duration `json:"minDuration,omitempty"`
	MaxDuration *Duration `json:"maxDuration,omitempty"`
}

// Profile is one value of the profile axis: exactly one of Builtin and
// Config.
type Profile struct {
	// Name defaults to Builtin, or else to SchedulerName.
	Name string `json:"name,omitempty"`
	// Builtin names a comparison profile of synth.Profile.
	Builtin string `json:"builtin,omitempty"`
	// Config is a KubeSchedulerConfiguration file (configfile.Load,
	// as the unit's kube version loads it); SchedulerName picks its
	// profile (needed when it has several). The sweep's pods name the
	// default scheduler: the profile schedules them under that name.
	Config        string `json:"config,omitempty"`
	SchedulerName string `json:"schedulerName,omitempty"`
}

// UnitSpec names one unit of Spec.UnitSpecs: a value of each axis by name,
// a kube version (default: the newest) and a seed (default 1).
type UnitSpec struct {
	Cluster     string  `json:"cluster"`
	Workload    string  `json:"workload"`
	Profile     string  `json:"profile"`
	KubeVersion string  `json:"kubeVersion,omitempty"`
	Seed        *uint64 `json:"seed,omitempty"`
}

// Shape is a pod shape by its requests.
type Shape struct {
	CPU    string `json:"cpu"`
	Memory string `json:"memory"`
}

// Duration is a time.Duration written in Go syntax ("90s", "1h30m").
type Duration time.Duration

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"90s\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Limits bound what a spec may ask for; a zero field takes its default
// (DefaultLimits).
type Limits struct {
	// MaxSpecBytes bounds the spec file (default 1 MiB).
	MaxSpecBytes int64
	// MaxFileBytes bounds each cluster, workload, dump or configuration
	// file a spec names (default 1 GiB).
	MaxFileBytes int64
	// MaxUnits bounds the units (default 10,000).
	MaxUnits int
	// MaxNodes bounds each cluster's nodes (default 100,000).
	MaxNodes int
	// MaxPods bounds each unit's pods, initial and arriving (default
	// 1,000,000).
	MaxPods int
}

// DefaultLimits returns the limits a zero Limits field takes.
func DefaultLimits() Limits {
	return Limits{MaxSpecBytes: 1 << 20, MaxFileBytes: 1 << 30, MaxUnits: 10_000, MaxNodes: 100_000, MaxPods: 1_000_000}
}

// withDefaults fills the zero fields; a negative one is an error.
func (l Limits) withDefaults() (Limits, error) {
	d := DefaultLimits()
	for _, f := range []struct {
		name string
		v    *int64
		def  int64
	}{{"MaxSpecBytes", &l.MaxSpecBytes, d.MaxSpecBytes}, {"MaxFileBytes", &l.MaxFileBytes, d.MaxFileBytes}} {
		if *f.v < 0 {
			return l, fmt.Errorf("sweep: Limits.%s=%d: must not be negative", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"MaxUnits", &l.MaxUnits, d.MaxUnits}, {"MaxNodes", &l.MaxNodes, d.MaxNodes}, {"MaxPods", &l.MaxPods, d.MaxPods}} {
		if *f.v < 0 {
			return l, fmt.Errorf("sweep: Limits.%s=%d: must not be negative", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return l, nil
}

// ReadSpecFile reads the spec at path (ReadSpec); relative paths in it
// are resolved against path's directory.
func ReadSpecFile(path string, limits Limits) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	defer f.Close()
	return ReadSpec(f, path, limits)
}

// ReadSpec reads a spec, YAML or JSON, from r; path names it in errors
// and its directory resolves the relative paths the spec names. Reading
// is strict: an unknown field, a key given twice or a value of the wrong
// type is an error, and so is a spec over limits.MaxSpecBytes. The spec
// is checked as a whole (each value's fields, names unique per axis, the
// units within limits) before it is returned, but the files it names are
// read only by Units.
func ReadSpec(r io.Reader, path string, limits Limits) (*Spec, error) {
	limits, err := limits.withDefaults()
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, limits.MaxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", path, err)
	}
	if int64(len(data)) > limits.MaxSpecBytes {
		return nil, fmt.Errorf("sweep: %s: more than %d bytes (Limits.MaxSpecBytes)", path, limits.MaxSpecBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("sweep: %s: empty spec", path)
	}
	var s Spec
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", path, err)
	}
	s.path, s.dir, s.limits = path, filepath.Dir(path), limits
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", path, err)
	}
	return &s, nil
}

// Path returns p, a path the spec names, resolved against the spec's
// directory.
func (s *Spec) Path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.dir, p)
}

// RewriteFiles replaces every file path the spec names (clusters' file
// and kubectl, workloads' file, profiles' config), as written, by what f
// returns for it: to move a spec and its files elsewhere. Unit ids do not
// change, as they hash the files' contents, not their paths.
func (s *Spec) RewriteFiles(f func(path string) (string, error)) error {
	rw := func(p *string) error {
		if *p == "" {
			return nil
		}
		v, err := f(*p)
		if err != nil {
			return err
		}
		*p = v
		return nil
	}
	for i := range s.Clusters {
		c := &s.Clusters[i]
		if err := rw(&c.File); err != nil {
			return err
		}
		for j := range c.Kubectl {
			if err := rw(&c.Kubectl[j]); err != nil {
				return err
			}
		}
	}
	for i := range s.Workloads {
		if err := rw(&s.Workloads[i].File); err != nil {
			return err
		}
	}
	for i := range s.Profiles {
		if err := rw(&s.Profiles[i].Config); err != nil {
			return err
		}
	}
	return nil
}

// Limits returns the limits the spec was read with, defaults filled in.
func (s *Spec) Limits() Limits { return s.limits }

// namePattern is what an axis value's name may be.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]{0,62})$`)

func checkName(field, name string, seen map[string]bool) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%s.name=%q: want 1–63 letters, digits, '.', '_' or '-', starting with a letter or digit", field, name)
	}
	if seen[name] {
		return fmt.Errorf("%s.name=%q: given twice", field, name)
	}
	seen[name] = true
	return nil
}

// one checks that exactly one of the fields named is set.
func one(field string, names []string, set ...bool) error {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%s: give exactly one of %q (%d given)", field, names, n)
	}
	return nil
}

// check validates the spec as read and fills the defaults of its
// generated values.
func (s *Spec) check() error {
	if len(s.Clusters) == 0 || len(s.Workloads) == 0 || len(s.Profiles) == 0 {
		return errors.New("clusters, workloads and profiles: each needs at least one value")
	}
	seen := map[string]bool{}
	for i := range s.Clusters {
		c := &s.Clusters[i]
		field := fmt.Sprintf("clusters[%d]", i)
		if err := checkName(field, c.Name, seen); err != nil {
			return err
		}
		field += " (" + c.Name + ")"
		if err := one(field, []string{"generate", "file", "kubectl"}, c.Generate != nil, c.File != "", len(c.Kubectl) > 0); err != nil {
			return err
		}
		if c.Generate != nil {
			if err := c.Generate.check(field+".generate", s.limits); err != nil {
				return err
			}
		}
		for j, p := range c.Kubectl {
			if p == "" {
				return fmt.Errorf("%s.kubectl[%d]: empty path", field, j)
			}
		}
	}
	seen = map[string]bool{}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		field := fmt.Sprintf("workloads[%d]", i)
		if err := checkName(field, w.Name, seen); err != nil {
			return err
		}
		field += " (" + w.Name + ")"
		if err := one(field, []string{"generate", "file"}, w.Generate != nil, w.File != ""); err != nil {
			return err
		}
		if w.Generate != nil {
			if err := w.Generate.check(field+".generate", s.limits); err != nil {
				return err
			}
		}
	}
	seen = map[string]bool{}
	for i := range s.Profiles {
		p := &s.Profiles[i]
		field := fmt.Sprintf("profiles[%d]", i)
		if err := one(field, []string{"builtin", "config"}, p.Builtin != "", p.Config != ""); err != nil {
			return err
		}
		if p.Builtin != "" && p.SchedulerName != "" {
			return fmt.Errorf("%s: schedulerName=%q: only a config profile has one", field, p.SchedulerName)
		}
		if p.Name == "" {
			p.Name = p.Builtin + p.SchedulerName
		}
		if err := checkName(field, p.Name, seen); err != nil {
			return err
		}
		if p.Builtin != "" {
			// Only the name is checked here: Units builds each profile.
			if _, _, err := synth.Profile(p.Builtin, framework.DefaultKubeVersion); err != nil {
				return fmt.Errorf("%s.builtin: %w", field, err)
			}
		}
	}
	for i, v := range s.KubeVersions {
		if _, err := framework.ParseKubeVersion(v); err != nil {
			return fmt.Errorf("kubeVersions[%d]=%q: %w", i, v, err)
		}
	}
	if s.Reference != nil {
		if _, err := s.Reference.vector(); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
	}
	if s.MaxCycles < 0 {
		return fmt.Errorf("maxCycles=%d: must not be negative", s.MaxCycles)
	}
	n := len(s.UnitSpecs)
	if n == 0 {
		n = len(s.Clusters) * len(s.Workloads) * len(s.Profiles) * max(1, len(s.KubeVersions)) * max(1, len(s.Seeds))
	}
	if n > s.limits.MaxUnits {
		return fmt.Errorf("%d units: more than Limits.MaxUnits=%d", n, s.limits.MaxUnits)
	}
	return nil
}

// vector is the shape's requests.
func (r Shape) vector() (resource.Vector, error) {
	cpu, err := resource.ParseQuantity(r.CPU)
	if err != nil {
		return resource.Vector{}, fmt.Errorf("cpu=%q: %w", r.CPU, err)
	}
	mem, err := resource.ParseQuantity(r.Memory)
	if err != nil {
		return resource.Vector{}, fmt.Errorf("memory=%q: %w", r.Memory, err)
	}
	if cpu.Sign() < 0 || mem.Sign() < 0 || cpu.Sign()+mem.Sign() == 0 {
		return resource.Vector{}, fmt.Errorf("cpu=%q, memory=%q: must not be negative, and not both zero", r.CPU, r.Memory)
	}
	return resource.Vector{MilliCPU: cpu.MilliValue(), Memory: mem.Value()}, nil
}

// config is the synth configuration of g, defaults filled in.
func (g *GeneratedCluster) config() synth.ClusterConfig {
	c := synth.DefaultCluster(g.Nodes)
	if len(g.Shapes) > 0 {
		c.Shapes = make([]synth.NodeShape, len(g.Shapes))
		for i, s := range g.Shapes {
			c.Shapes[i] = synth.NodeShape{CPU: s.CPU, Memory: s.Memory, Pods: s.Pods, Weight: s.Weight}
			if s.Weight == 0 {
				c.Shapes[i].Weight = 1
			}
		}
	}
	if g.Zones != 0 {
		c.Zones = g.Zones
	}
	return c
}

func (g *GeneratedCluster) check(field string, l Limits) error {
	if g.Nodes > l.MaxNodes {
		return fmt.Errorf("%s.nodes=%d: more than Limits.MaxNodes=%d", field, g.Nodes, l.MaxNodes)
	}
	if err := g.config().Validate(); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

// config is the synth configuration of g, defaults filled in.
func (g *GeneratedWorkload) config() synth.WorkloadConfig {
	c := synth.DefaultWorkload(g.Pods)
	if g.Window != nil {
		c.Window = time.Duration(*g.Window)
	}
	if g.HighPriorityOneIn != nil {
		c.HighPriorityOneIn = *g.HighPriorityOneIn
	}
	if len(g.Shapes) > 0 {
		c.Shapes = make([]synth.PodShape, len(g.Shapes))
		for i, s := range g.Shapes {
			p := synth.PodShape{Name: s.Name, CPU: s.CPU, Memory: s.Memory, Weight: s.Weight}
			if s.Weight == 0 {
				p.Weight = 1
			}
			if s.MinDuration != nil {
				p.MinDuration = time.Duration(*s.MinDuration)
			}
			p.MaxDuration = p.MinDuration
			if s.MaxDuration != nil {
				p.MaxDuration = time.Duration(*s.MaxDuration)
			}
			c.Shapes[i] = p
		}
	}
	return c
}

func (g *GeneratedWorkload) check(field string, l Limits) error {
	if g.Pods > l.MaxPods {
		return fmt.Errorf("%s.pods=%d: more than Limits.MaxPods=%d", field, g.Pods, l.MaxPods)
	}
	if err := g.config().Validate(); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}
