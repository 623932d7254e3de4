package configfile

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/scheduling/extender"
)

// TestConfigExtenderErrors: the extenders section is decoded strictly and
// validated with kube-scheduler v1.36.4's validateExtenders texts and field
// paths (pkg/scheduler/apis/config/validation/validation.go); building the
// clients reports TLS problems under the field that holds them.
func TestConfigExtenderErrors(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{name: "prioritize without weight", in: "extenders:\n- urlPrefix: http://x\n  prioritizeVerb: p\n",
			want: []string{"extenders[0].weight: 0: must have a positive weight applied to it"}},
		{name: "negative weight", in: "extenders:\n- urlPrefix: http://x\n  prioritizeVerb: p\n  weight: -2\n",
			want: []string{"extenders[0].weight: -2: must have a positive weight applied to it"}},
		{name: "managed resource not a qualified name", in: "extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: foo bar\n",
			want: []string{`extenders[0].managedResources[0].name: "foo bar": name part must consist of alphanumeric characters`}},
		{name: "managed resource not extended", in: "extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: cpu\n",
			want: []string{`extenders[0].managedResources[0].name: "cpu": is an invalid extended resource name`}},
		{name: "managed resource in kubernetes.io", in: "extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: kubernetes.io/gpu\n",
			want: []string{`extenders[0].managedResources[0].name: "kubernetes.io/gpu": is an invalid extended resource name`}},
		{name: "managed resource twice across extenders", in: "extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: example.com/gpu\n- urlPrefix: http://y\n  managedResources:\n  - name: example.com/gpu\n",
			want: []string{`extenders[1].managedResources[0].name: "example.com/gpu": duplicate extender managed resource name`}},
		{name: "two binders", in: "extenders:\n- urlPrefix: http://x\n  bindVerb: b\n- urlPrefix: http://y\n  bindVerb: b\n",
			want: []string{`extenders: "found 2 extenders implementing bind": only one extender can implement bind`}},
		{name: "every validation error at once", in: "extenders:\n- urlPrefix: http://x\n  prioritizeVerb: p\n  bindVerb: b\n- urlPrefix: http://y\n  bindVerb: b\n  managedResources:\n  - name: cpu\n",
			want: []string{"extenders[0].weight: 0", `extenders[1].managedResources[0].name: "cpu"`, `"found 2 extenders implementing bind"`}},
		{name: "unknown field", in: "extenders:\n- urlprefix: http://x\n",
			want: []string{`extenders[0].urlprefix: unknown field "urlprefix" (known fields: bindVerb, enableHTTPS, filterVerb, httpTimeout, ignorable, managedResources, nodeCacheCapable, preemptVerb, prioritizeVerb, tlsConfig, urlPrefix, weight)`}},
		{name: "unknown tls field", in: "extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    ca: x\n",
			want: []string{`extenders[0].tlsConfig.ca: unknown field "ca"`}},
		{name: "timeout without unit", in: "extenders:\n- urlPrefix: http://x\n  httpTimeout: \"5\"\n",
			want: []string{`extenders[0].httpTimeout: "5": not a valid duration`}},
		{name: "timeout as a number", in: "extenders:\n- urlPrefix: http://x\n  httpTimeout: 5\n",
			want: []string{`extenders[0].httpTimeout: 5: must be a duration string such as "15s"`}},
		{name: "weight of the wrong type", in: "extenders:\n- urlPrefix: http://x\n  weight: heavy\n",
			want: []string{`extenders[0].weight: "heavy": must be an integer`}},
		{name: "caData not base64", in: "extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    caData: '%%%'\n",
			want: []string{`extenders[0].tlsConfig.caData: "%%%": must be a base64-encoded string`}},
		{name: "caData not PEM", in: "extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    caData: " + b64("not a certificate") + "\n",
			want: []string{`extenders[0].tlsConfig.caData: "not a certificate": unable to load root certificates: unable to parse bytes as PEM block`}},
		{name: "caFile missing", in: "extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    caFile: /nonexistent/ca.pem\n",
			want: []string{`extenders[0].tlsConfig.caFile: "/nonexistent/ca.pem": open /nonexistent/ca.pem: no such file or directory`}},
		{name: "insecure with a CA", in: "extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    insecure: true\n    caData: " + b64("x") + "\n",
			want: []string{`extenders[0].tlsConfig.insecure: "true": specifying a root certificates file with the insecure flag is not allowed`}},
		{name: "enableHTTPS over http", in: "extenders:\n- urlPrefix: http://x\n  enableHTTPS: true\n",
			want: []string{`extenders[0].urlPrefix: "http://x": enableHTTPS is set but the URL is not https://`}},
		{name: "tlsConfig over http", in: "extenders:\n- urlPrefix: http://x\n  tlsConfig:\n    serverName: x\n",
			want: []string{`extenders[0].urlPrefix: "http://x": tlsConfig is set but the URL is not https://`}},
		{name: "ignoredByScheduler without NodeResourcesFit args", in: "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    multiPoint:\n      disabled:\n      - name: NodeResourcesFit\nextenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: example.com/gpu\n    ignoredByScheduler: true\n",
			want: []string{`profiles[1].pluginConfig: can't find NodeResourcesFitArgs in plugin config`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(cfgHead + tc.in))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain:\n%s", err, w)
				}
			}
		})
	}
}

// TestConfigExtenders: every field reaches the client; ignorable extenders
// come last; odd values kube accepts (an empty urlPrefix, a weight without
// prioritizeVerb) are accepted; v1beta3 files have the section too.
func TestConfigExtenders(t *testing.T) {
	in := cfgHead + `extenders:
- urlPrefix: http://ignorable
  filterVerb: filter
  ignorable: true
- urlPrefix: https://gpu.example.com/scheduler/
  filterVerb: filter
  preemptVerb: preempt
  prioritizeVerb: prioritize
  bindVerb: bind
  weight: 5
  enableHTTPS: true
  tlsConfig:
    serverName: gpu
    insecure: true
  httpTimeout: 750ms
  nodeCacheCapable: true
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  - name: example.com/fpga
- urlPrefix: ""
  weight: -3
`
	c, err := Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []extender.Config
	for _, e := range c.Extenders {
		got = append(got, e.Config())
	}
	want := []extender.Config{
		{URLPrefix: "https://gpu.example.com/scheduler/", FilterVerb: "filter", PreemptVerb: "preempt", PrioritizeVerb: "prioritize",
			BindVerb: "bind", Weight: 5, EnableHTTPS: true, TLSConfig: &extender.TLSConfig{ServerName: "gpu", Insecure: true},
			HTTPTimeout: 750 * time.Millisecond, NodeCacheCapable: true,
			ManagedResources: []extender.ManagedResource{{Name: "example.com/gpu", IgnoredByScheduler: true}, {Name: "example.com/fpga"}}},
		// The default timeout is written into the configuration, as
		// kube's NewHTTPExtender writes it, so that the clients equal
		// those of the printed configuration.
		{URLPrefix: "", Weight: -3, HTTPTimeout: extender.DefaultTimeout},
		{URLPrefix: "http://ignorable", FilterVerb: "filter", Ignorable: true, HTTPTimeout: extender.DefaultTimeout},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("extenders (-want +got):\n%s", d)
	}
	v1b3 := strings.Replace(in, "/v1\n", "/v1beta3\n", 1)
	if _, err := Load([]byte(v1b3)); err != nil {
		t.Fatalf("v1beta3: %v", err)
	}
}

// TestConfigExtenderIgnoredResources: resources an extender marks
// ignoredByScheduler replace NodeResourcesFit's ignoredResources in every
// profile (kube-scheduler v1.36.4 buildExtenders), the written
// configuration shows them (as --write-config-to prints the completed
// profiles), with the default httpTimeout of 5s that kube-scheduler's
// NewHTTPExtender writes into the configuration, and loads back to the
// same configuration. The replaced list is
// not validated (kube validates the args in NodeResourcesFit's
// constructor, after the replacement).
func TestConfigExtenderIgnoredResources(t *testing.T) {
	in := cfgHead + `profiles:
- schedulerName: a
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/other, "not a name!"]
- schedulerName: b
extenders:
- urlPrefix: http://x
  filterVerb: filter
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  - name: example.com/fpga
- urlPrefix: http://y
  managedResources:
  - name: example.com/nic
    ignoredByScheduler: true
`
	c, err := Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Profiles {
		a, ok := p.Args[config.NodeResourcesFitName].(noderesources.NodeResourcesFitArgs)
		if !ok {
			t.Fatalf("profile %s: NodeResourcesFit args %T", p.SchedulerName, p.Args[config.NodeResourcesFitName])
		}
		if d := cmp.Diff([]string{"example.com/gpu", "example.com/nic"}, a.IgnoredResources); d != "" {
			t.Errorf("profile %s: ignoredResources (-want +got):\n%s", p.SchedulerName, d)
		}
	}
	out := cfgWriteString(t, c)
	for _, s := range []string{"  urlPrefix: http://x", "httpTimeout: 5s", "ignoredByScheduler: true", "- example.com/gpu\n      - example.com/nic"} {
		if !strings.Contains(out, s) {
			t.Errorf("written configuration lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "example.com/other") {
		t.Errorf("written configuration keeps the replaced ignoredResources:\n%s", out)
	}
	c2, err := Load([]byte(out))
	if err != nil {
		t.Fatalf("reloading:\n%s\n%v", out, err)
	}
	if d := cmp.Diff(c.Profiles, c2.Profiles); d != "" {
		t.Errorf("reloaded profiles differ (-first +second):\n%s", d)
	}
	if out2 := cfgWriteString(t, c2); out2 != out {
		t.Errorf("second print differs:\n%s\n---\n%s", out, out2)
	}
}

// TestExtenderConfigYAML: the snippet for a kube-scheduler loads back to the
// same extenders.
func TestExtenderConfigYAML(t *testing.T) {
	want := []extender.Config{
		{URLPrefix: "http://127.0.0.1:8888", FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: true, HTTPTimeout: 2 * time.Second},
		{URLPrefix: "https://b", BindVerb: "bind", TLSConfig: &extender.TLSConfig{CAData: []byte("-----BEGIN CERTIFICATE-----")}, Ignorable: true,
			ManagedResources: []extender.ManagedResource{{Name: "example.com/gpu", IgnoredByScheduler: true}}},
	}
	y, err := ExtenderConfigYAML(want...)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := decodeFile(y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	var got []extender.Config
	for _, e := range f.Extenders {
		got = append(got, e.config())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("extenders (-want +got):\n%s\n%s", d, y)
	}
	if !strings.Contains(string(y), "httpTimeout: 2s") || !strings.Contains(string(y), "kind: KubeSchedulerConfiguration") {
		t.Errorf("snippet:\n%s", y)
	}
}
