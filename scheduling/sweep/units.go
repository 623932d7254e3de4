package sweep

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

// Axes are the values of one unit: each axis value by its name, the kube
// version and the seed.
type Axes struct {
	Cluster     string `json:"cluster"`
	Workload    string `json:"workload"`
	Profile     string `json:"profile"`
	KubeVersion string `json:"kubeVersion"`
	Seed        uint64 `json:"seed"`
}

// Unit is one replay of a sweep: a cluster, a workload, a profile, a kube
// version and a seed.
type Unit struct {
	// Index is the unit's place in the spec's stable order: the cross
	// product with clusters outermost and seeds innermost, each axis in
	// the spec's order, or Spec.Units' order.
	Index int `json:"index"`
	// ID is the first 12 hex digits of the SHA-256 of the unit's
	// canonical form: each axis value's content (a generated value's
	// settings with defaults filled in, a file's SHA-256, a built-in
	// profile's name, a configuration file's SHA-256 and scheduler name),
	// the kube version, the seed, the reference shape and the cycle bound.
	// Names and paths do not enter it: the same unit keeps its id when a
	// value is renamed or a file moved, and changes when what it runs
	// changes.
	ID string `json:"id"`
	// Name is cluster/workload/profile/kubeVersion/seed, for people.
	Name string `json:"name"`
	Axes Axes   `json:"axes"`

	// plan is what Run needs to run the unit (nil for units read by
	// ReadUnits).
	plan *plan
}

// plan is a unit's resolved inputs.
type plan struct {
	spec     *Spec
	cluster  *Cluster
	workload *Workload
	profile  *Profile
	version  framework.KubeVersion
	// hashes are the expected SHA-256 of each file the unit reads, by
	// resolved path.
	hashes    map[string]string
	reference resource.Vector
}

// identity is the canonical form a unit id hashes.
type identity struct {
	Cluster     any    `json:"cluster"`
	Workload    any    `json:"workload"`
	Profile     any    `json:"profile"`
	KubeVersion string `json:"kubeVersion"`
	Seed        uint64 `json:"seed"`
	Reference   [2]int64
	MaxCycles   int `json:"maxCycles"`
}

// hashFile returns the SHA-256 of the file at path, at most max bytes.
func hashFile(path string, max int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, max+1))
	if err != nil {
		return "", err
	}
	if n > max {
		return "", fmt.Errorf("%s: more than %d bytes (Limits.MaxFileBytes)", path, max)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Units returns the spec's units in their stable order, each with its
// id. It reads every file the spec names once, for its hash, and loads
// every configuration file as each kube version of the spec, so a bad
// file fails here rather than in the middle of a run. Two units with the
// same id (the same values under two names) are an error.
func (s *Spec) Units() ([]Unit, error) {
	hashes := map[string]string{}
	hash := func(field, p string) (string, error) {
		path := s.Path(p)
		if h, ok := hashes[path]; ok {
			return h, nil
		}
		h, err := hashFile(path, s.limits.MaxFileBytes)
		if err != nil {
			return "", fmt.Errorf("sweep: %s: %s: %w", s.path, field, err)
		}
		hashes[path] = h
		return h, nil
	}
	versions := s.KubeVersions
	if len(versions) == 0 {
		versions = []string{framework.DefaultKubeVersion.String()}
	}
	// keys are each value's canonical form, by name.
	clusters, workloads, profiles := map[string]any{}, map[string]any{}, map[string]any{}
	for i, c := range s.Clusters {
		field := fmt.Sprintf("clusters[%d] (%s)", i, c.Name)
		switch {
		case c.Generate != nil:
			clusters[c.Name] = map[string]any{"generate": c.Generate.config()}
		case c.File != "":
			h, err := hash(field+".file", c.File)
			if err != nil {
				return nil, err
			}
			clusters[c.Name] = map[string]any{"file": h}
		default:
			var hs []string
			for j, p := range c.Kubectl {
				h, err := hash(fmt.Sprintf("%s.kubectl[%d]", field, j), p)
				if err != nil {
					return nil, err
				}
				hs = append(hs, h)
			}
			clusters[c.Name] = map[string]any{"kubectl": hs}
		}
	}
	for i, w := range s.Workloads {
		if w.Generate != nil {
			workloads[w.Name] = map[string]any{"generate": w.Generate.config()}
			continue
		}
		h, err := hash(fmt.Sprintf("workloads[%d] (%s).file", i, w.Name), w.File)
		if err != nil {
			return nil, err
		}
		workloads[w.Name] = map[string]any{"file": h}
	}
	for i, p := range s.Profiles {
		if p.Builtin != "" {
			profiles[p.Name] = map[string]any{"builtin": p.Builtin}
			continue
		}
		h, err := hash(fmt.Sprintf("profiles[%d] (%s).config", i, p.Name), p.Config)
		if err != nil {
			return nil, err
		}
		profiles[p.Name] = map[string]any{"config": h, "schedulerName": p.SchedulerName}
	}
	ref := resource.Vector{MilliCPU: 1000, Memory: 2 << 30}
	if s.Reference != nil {
		ref, _ = s.Reference.vector() // checked by ReadSpec
	}
	refs := s.UnitSpecs
	if len(refs) == 0 {
		for _, c := range s.Clusters {
			for _, w := range s.Workloads {
				for _, p := range s.Profiles {
					for _, v := range versions {
						seeds := s.Seeds
						if len(seeds) == 0 {
							seeds = []uint64{1}
						}
						for _, seed := range seeds {
							refs = append(refs, UnitSpec{Cluster: c.Name, Workload: w.Name, Profile: p.Name, KubeVersion: v, Seed: &seed})
						}
					}
				}
			}
		}
	}
	units := make([]Unit, 0, len(refs))
	ids := map[string]int{}
	// loaded are the configuration profiles loaded, by name and release.
	loaded := map[[2]string]bool{}
	for i, r := range refs {
		u, err := s.unit(i, r, clusters, workloads, profiles, hashes, ref)
		if err != nil {
			return nil, fmt.Errorf("sweep: %s: units[%d]: %w", s.path, i, err)
		}
		if p := u.plan.profile; p.Config != "" && !loaded[[2]string{p.Name, u.Axes.KubeVersion}] {
			data, err := readFile(s.Path(p.Config), s.limits.MaxFileBytes, hashes[s.Path(p.Config)])
			if err != nil {
				return nil, fmt.Errorf("sweep: %s: profile %s: %w", s.path, p.Name, err)
			}
			if _, _, _, err := loadProfile(data, p, u.plan.version); err != nil {
				return nil, fmt.Errorf("sweep: %s: profile %s as kube %s: %w", s.path, p.Name, u.Axes.KubeVersion, err)
			}
			loaded[[2]string{p.Name, u.Axes.KubeVersion}] = true
		}
		if j, dup := ids[u.ID]; dup {
			return nil, fmt.Errorf("sweep: %s: units %d (%s) and %d (%s) are the same unit %s: the same values under other names", s.path, j, units[j].Name, i, u.Name, u.ID)
		}
		ids[u.ID] = i
		units = append(units, u)
	}
	return units, nil
}

// unit resolves r, the i-th unit.
func (s *Spec) unit(i int, r UnitSpec, clusters, workloads, profiles map[string]any, hashes map[string]string, ref resource.Vector) (Unit, error) {
	p := &plan{spec: s, reference: ref, hashes: hashes}
	find := func(axis, name string, n int, at func(int) string) (int, error) {
		var names []string
		for j := range n {
			if at(j) == name {
				return j, nil
			}
			names = append(names, at(j))
		}
		return 0, fmt.Errorf("%s=%q: no such %s (have: %s)", axis, name, axis, strings.Join(names, ", "))
	}
	j, err := find("cluster", r.Cluster, len(s.Clusters), func(j int) string { return s.Clusters[j].Name })
	if err != nil {
		return Unit{}, err
	}
	p.cluster = &s.Clusters[j]
	if j, err = find("workload", r.Workload, len(s.Workloads), func(j int) string { return s.Workloads[j].Name }); err != nil {
		return Unit{}, err
	}
	p.workload = &s.Workloads[j]
	if j, err = find("profile", r.Profile, len(s.Profiles), func(j int) string { return s.Profiles[j].Name }); err != nil {
		return Unit{}, err
	}
	p.profile = &s.Profiles[j]
	v := framework.DefaultKubeVersion
	if r.KubeVersion != "" {
		if v, err = framework.ParseKubeVersion(r.KubeVersion); err != nil {
			return Unit{}, fmt.Errorf("kubeVersion=%q: %w", r.KubeVersion, err)
		}
	}
	p.version = v
	seed := uint64(1)
	if r.Seed != nil {
		seed = *r.Seed
	}
	axes := Axes{Cluster: r.Cluster, Workload: r.Workload, Profile: r.Profile, KubeVersion: v.String(), Seed: seed}
	b, err := json.Marshal(identity{
		Cluster: clusters[r.Cluster], Workload: workloads[r.Workload], Profile: profiles[r.Profile],
		KubeVersion: axes.KubeVersion, Seed: seed, Reference: [2]int64{ref.MilliCPU, ref.Memory}, MaxCycles: s.MaxCycles,
	})
	if err != nil {
		return Unit{}, err
	}
	sum := sha256.Sum256(b)
	return Unit{
		Index: i, ID: hex.EncodeToString(sum[:6]), Axes: axes, plan: p,
		Name: fmt.Sprintf("%s/%s/%s/%s/%d", axes.Cluster, axes.Workload, axes.Profile, axes.KubeVersion, seed),
	}, nil
}

// loadProfile loads a config profile, the configuration file's data, as
// release v: its registry, profile
// and scheduler options. A configuration with extenders is an error: a
// unit runs on its own, with no server to call.
func loadProfile(data []byte, p *Profile, v framework.KubeVersion) (*framework.Registry, framework.Profile, *configfile.Configuration, error) {
	cfg, err := configfile.Load(data, configfile.WithKubeVersion(v))
	if err != nil {
		return nil, framework.Profile{}, nil, err
	}
	if len(cfg.Extenders) > 0 {
		return nil, framework.Profile{}, nil, errors.New("extenders: a sweep unit runs on its own and calls no extender")
	}
	name := p.SchedulerName
	if name == "" {
		if len(cfg.Profiles) != 1 {
			var names []string
			for _, q := range cfg.Profiles {
				names = append(names, q.SchedulerName)
			}
			return nil, framework.Profile{}, nil, fmt.Errorf("%d profiles (%s): name one with schedulerName", len(cfg.Profiles), strings.Join(names, ", "))
		}
		name = cfg.Profiles[0].SchedulerName
	}
	prof, err := cfg.ProfileAs(name, defaultSchedulerName)
	if err != nil {
		return nil, framework.Profile{}, nil, err
	}
	return cfg.Registry(), prof, cfg, nil
}

// readFile reads the file at path, at most max bytes; when want is not
// empty, the file's SHA-256 must be want (the file has not changed since
// Units hashed it).
func readFile(path string, max int64, want string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes (Limits.MaxFileBytes)", path, max)
	}
	if want != "" {
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("%s: changed since the units were made (%s, was %s)", path, got, want)
		}
	}
	return data, nil
}

// WriteUnits writes units as JSON lines, one unit a line: to keep a
// spec's units where its files are not (ReadUnits).
func WriteUnits(w io.Writer, units []Unit) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range units {
		if err := enc.Encode(&units[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadUnits reads units WriteUnits wrote (strictly: an unknown field is
// an error). They carry their ids, names and axes, enough for Merge and
// for comparing with a spec's Units, but not what Run needs.
func ReadUnits(r io.Reader, name string) ([]Unit, error) {
	var out []Unit
	err := eachLine(r, name, func(line []byte, where string) error {
		var u Unit
		if err := strictJSON(line, &u); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if u.Index != len(out) {
			return fmt.Errorf("%s: unit %s: index %d, want %d", where, u.ID, u.Index, len(out))
		}
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return out, nil
}

// SameUnits checks that got and want are the same units in the same
// order (ids, names and axes), naming the first difference.
func SameUnits(got, want []Unit) error {
	if len(got) != len(want) {
		return fmt.Errorf("sweep: %d units, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Name != w.Name || g.Axes != w.Axes || g.Index != w.Index {
			return fmt.Errorf("sweep: unit %d is %s (%s), want %s (%s)", i, g.ID, g.Name, w.ID, w.Name)
		}
	}
	return nil
}
