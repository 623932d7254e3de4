package configfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/internal/validation"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/extender"
)

// extenderEntry is Extender (kubescheduler.config.k8s.io/v1): one HTTP
// extender. Only httpTimeout is defaulted: a 0 is printed by Write as 5s,
// the timeout the client uses, because kube-scheduler's NewHTTPExtender
// writes it into the configuration before --write-config-to prints it.
type extenderEntry struct {
	URLPrefix        string            `json:"urlPrefix"`
	FilterVerb       string            `json:"filterVerb,omitempty"`
	PreemptVerb      string            `json:"preemptVerb,omitempty"`
	PrioritizeVerb   string            `json:"prioritizeVerb,omitempty"`
	Weight           int64             `json:"weight,omitempty"`
	BindVerb         string            `json:"bindVerb,omitempty"`
	EnableHTTPS      bool              `json:"enableHTTPS,omitempty"`
	TLSConfig        *extenderTLS      `json:"tlsConfig,omitempty"`
	HTTPTimeout      duration          `json:"httpTimeout,omitempty"`
	NodeCacheCapable bool              `json:"nodeCacheCapable,omitempty"`
	ManagedResources []managedResource `json:"managedResources,omitempty"`
	Ignorable        bool              `json:"ignorable,omitempty"`
}

// extenderTLS is ExtenderTLSConfig; the data fields are base64 in the
// file.
type extenderTLS struct {
	Insecure   bool   `json:"insecure,omitempty"`
	ServerName string `json:"serverName,omitempty"`
	CertFile   string `json:"certFile,omitempty"`
	KeyFile    string `json:"keyFile,omitempty"`
	CAFile     string `json:"caFile,omitempty"`
	CertData   []byte `json:"certData,omitempty"`
	KeyData    []byte `json:"keyData,omitempty"`
	CAData     []byte `json:"caData,omitempty"`
}

// managedResource is ExtenderManagedResource.
type managedResource struct {
	Name               string `json:"name"`
	IgnoredByScheduler bool   `json:"ignoredByScheduler,omitempty"`
}

func (e *extenderEntry) config() extender.Config {
	c := extender.Config{
		URLPrefix: e.URLPrefix, FilterVerb: e.FilterVerb, PreemptVerb: e.PreemptVerb, PrioritizeVerb: e.PrioritizeVerb,
		BindVerb: e.BindVerb, Weight: e.Weight, EnableHTTPS: e.EnableHTTPS, HTTPTimeout: e.HTTPTimeout.Duration,
		NodeCacheCapable: e.NodeCacheCapable, Ignorable: e.Ignorable,
	}
	if t := e.TLSConfig; t != nil {
		c.TLSConfig = &extender.TLSConfig{Insecure: t.Insecure, ServerName: t.ServerName, CertFile: t.CertFile, KeyFile: t.KeyFile,
			CAFile: t.CAFile, CertData: t.CertData, KeyData: t.KeyData, CAData: t.CAData}
	}
	for _, r := range e.ManagedResources {
		c.ManagedResources = append(c.ManagedResources, extender.ManagedResource{Name: r.Name, IgnoredByScheduler: r.IgnoredByScheduler})
	}
	return c
}

func extenderFrom(c extender.Config) extenderEntry {
	e := extenderEntry{
		URLPrefix: c.URLPrefix, FilterVerb: c.FilterVerb, PreemptVerb: c.PreemptVerb, PrioritizeVerb: c.PrioritizeVerb,
		BindVerb: c.BindVerb, Weight: c.Weight, EnableHTTPS: c.EnableHTTPS, HTTPTimeout: duration{c.HTTPTimeout},
		NodeCacheCapable: c.NodeCacheCapable, Ignorable: c.Ignorable,
	}
	if t := c.TLSConfig; t != nil {
		e.TLSConfig = &extenderTLS{Insecure: t.Insecure, ServerName: t.ServerName, CertFile: t.CertFile, KeyFile: t.KeyFile,
			CAFile: t.CAFile, CertData: t.CertData, KeyData: t.KeyData, CAData: t.CAData}
	}
	for _, r := range c.ManagedResources {
		e.ManagedResources = append(e.ManagedResources, managedResource{Name: r.Name, IgnoredByScheduler: r.IgnoredByScheduler})
	}
	return e
}

// validateExtenders is kube-scheduler's validateExtenders
// (apis/config/validation): a prioritizing extender needs a positive weight;
// managed resources must be extended resource names, unique across all
// extenders; at most one extender binds.
func validateExtenders(exts []extenderEntry, errs *errorList) {
	binders := 0
	seen := map[string]bool{}
	for i, e := range exts {
		path := index("extenders", i)
		if e.PrioritizeVerb != "" && e.Weight <= 0 {
			errs.invalid(join(path, "weight"), e.Weight, "must have a positive weight applied to it")
		}
		if e.BindVerb != "" {
			binders++
		}
		for j, r := range e.ManagedResources {
			rp := index(join(path, "managedResources"), j) + ".name"
			if msgs := validation.IsQualifiedName(r.Name); len(msgs) > 0 {
				for _, m := range msgs {
					errs.invalid(rp, r.Name, m)
				}
			} else if !resource.Name(r.Name).IsExtended() {
				errs.invalid(rp, r.Name, "is an invalid extended resource name")
			}
			if seen[r.Name] {
				errs.invalid(rp, r.Name, "duplicate extender managed resource name")
			}
			seen[r.Name] = true
		}
	}
	if binders > 1 {
		errs.invalid("extenders", fmt.Sprintf("found %d extenders implementing bind", binders), "only one extender can implement bind")
	}
}

// buildExtenders is kube-scheduler's buildExtenders
// (pkg/scheduler/scheduler.go): it builds each extender's client (reading
// its TLS files), orders the ignorable ones last, and makes every
// profile's NodeResourcesFit ignore the resources marked
// ignoredByScheduler (replacing its ignoredResources; a profile without
// NodeResourcesFit args is an error, as in kube).
func (l *loader) buildExtenders(exts []extenderEntry, states []*profileState, profiles []profile) ([]*extender.Client, error) {
	var out, ignorable []*extender.Client
	var ignored []string
	for i := range exts {
		// kube's NewHTTPExtender writes the default timeout into the
		// configuration itself, so --write-config-to prints it; the
		// client is built from the defaulted entry, as it is built again
		// from the printed configuration.
		if exts[i].HTTPTimeout.Duration == 0 {
			exts[i].HTTPTimeout.Duration = extender.DefaultTimeout
		}
		c, err := extender.New(exts[i].config(), l.extOpts...)
		if err != nil {
			var ce *extender.ConfigError
			if errors.As(err, &ce) {
				return nil, &fieldError{path: join(index("extenders", i), ce.Field), msg: fmt.Sprintf("%q: %s", ce.Value, ce.Reason)}
			}
			return nil, &fieldError{path: index("extenders", i), msg: err.Error()}
		}
		if c.IsIgnorable() {
			ignorable = append(ignorable, c)
		} else {
			out = append(out, c)
		}
		for _, r := range exts[i].ManagedResources {
			if r.IgnoredByScheduler {
				ignored = append(ignored, r.Name)
			}
		}
	}
	out = append(out, ignorable...)
	if len(ignored) == 0 {
		return out, nil
	}
	for i, st := range states {
		a := st.byName[config.NodeResourcesFitName]
		if a == nil {
			return nil, &fieldError{path: join(st.path, "pluginConfig"), msg: fmt.Sprintf("can't find NodeResourcesFitArgs in plugin config (extenders mark %q ignoredByScheduler)", ignored)}
		}
		args, ok := a.value.(noderesources.NodeResourcesFitArgs)
		if !ok {
			return nil, &fieldError{path: join(st.path, "pluginConfig"), msg: fmt.Sprintf("want args to be of type NodeResourcesFitArgs, got %T", a.value)}
		}
		args.IgnoredResources = slices.Clone(ignored)
		a.value = args
		// kube validates NodeResourcesFit's args in its constructor, after
		// the replacement: the replaced list's problems no longer count.
		a.verr = rebase(join(a.path, "args"), args.Validate())
		var wire map[string]any
		if err := json.Unmarshal(a.wire, &wire); err != nil {
			return nil, err
		}
		wire["ignoredResources"] = ignored
		b, err := json.Marshal(wire)
		if err != nil {
			return nil, err
		}
		a.wire = b
		for j := range profiles[i].PluginConfig {
			if pc := &profiles[i].PluginConfig[j]; pc.Name == config.NodeResourcesFitName {
				pc.Args = b
			}
		}
	}
	return out, nil
}

// WithExtenderOptions applies opts to the client of every extender the
// configuration names, e.g. extender.WithOwnNodes() to score the
// scheduler's own NodeInfos (kubernetes/kubernetes#141781 fixed).
func WithExtenderOptions(opts ...extender.Option) Option {
	return func(l *loader) { l.extOpts = append(l.extOpts, opts...) }
}

// ExtenderConfigYAML returns a minimal KubeSchedulerConfiguration (v1)
// naming the extenders, for a kube-scheduler's --config; Load reads it
// back.
func ExtenderConfigYAML(exts ...extender.Config) ([]byte, error) {
	doc := struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Extenders  []extenderEntry `json:"extenders"`
	}{APIVersion: versionV1, Kind: configKind}
	for _, e := range exts {
		doc.Extenders = append(doc.Extenders, extenderFrom(e))
	}
	j, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}
