package extender

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// DefaultTimeout is the timeout of an extender call when Config.HTTPTimeout
// is zero (kube-scheduler's DefaultExtenderTimeout).
const DefaultTimeout = 5 * time.Second

// Config is one entry of a KubeSchedulerConfiguration's extenders list
// (kube-scheduler's config/v1 Extender).
type Config struct {
	// URLPrefix is where the extender listens; a call goes to
	// URLPrefix (without trailing slashes) + "/" + verb.
	URLPrefix string
	// FilterVerb, PreemptVerb, PrioritizeVerb and BindVerb name the calls
	// the extender serves; an empty verb means it does not serve that call.
	FilterVerb     string
	PreemptVerb    string
	PrioritizeVerb string
	BindVerb       string
	// Weight multiplies the extender's scores (which kube-scheduler also
	// multiplies by 10).
	Weight int64
	// EnableHTTPS requires TLS; without a CA in TLSConfig the server's
	// certificate is not verified, as in kube-scheduler.
	EnableHTTPS bool
	// TLSConfig holds the TLS settings; nil means none.
	TLSConfig *TLSConfig
	// HTTPTimeout bounds each call; zero means DefaultTimeout.
	HTTPTimeout time.Duration
	// NodeCacheCapable sends node names instead of whole nodes.
	NodeCacheCapable bool
	// ManagedResources, when not empty, limit the extender to pods that
	// request or limit one of them (in a container or init container).
	ManagedResources []ManagedResource
	// Ignorable lets scheduling go on when a filter, bind or preempt call
	// fails (the extender is skipped).
	Ignorable bool
}

// ManagedResource is an extended resource an extender manages;
// IgnoredByScheduler makes NodeResourcesFit ignore it.
type ManagedResource struct {
	Name               string
	IgnoredByScheduler bool
}

// TLSConfig is ExtenderTLSConfig: the data fields take precedence over the
// file fields.
type TLSConfig struct {
	// Insecure skips verifying the server's certificate (testing only).
	Insecure bool
	// ServerName is the name the certificate must carry (default: the
	// URL's host).
	ServerName string
	// CertFile/CertData and KeyFile/KeyData are a client certificate.
	CertFile string
	KeyFile  string
	CertData []byte
	KeyData  []byte
	// CAFile/CAData are the roots the server's certificate must chain to.
	CAFile string
	CAData []byte
}

// ConfigError is an invalid extender setting: the field (as named in the
// configuration file, e.g. "tlsConfig.caFile"), its value and why.
type ConfigError struct {
	Field  string
	Value  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %q: %s", e.Field, e.Value, e.Reason)
}

// Client is an HTTP scheduler extender as kube-scheduler's HTTPExtender
// (pkg/scheduler/extender.go, alike in v1.36.4 and v1.37.2) calls it:
// framework.Extender, framework.BindingExtender and
// framework.PreemptionExtender over the extender/v1 wire format.
//
// Like kube-scheduler, a client without a node cache returns, for the nodes
// the extender keeps, new NodeInfos built from the nodes in its answer —
// without their pods, so the cycle scores empty nodes
// (kubernetes/kubernetes#141781); WithOwnNodes fixes that. Unlike
// kube-scheduler, it never follows an answer beyond the nodes it sent: a
// node it was not asked about fails the call, in either form.
type Client struct {
	cfg       Config
	managed   map[string]bool
	http      *http.Client
	ownNodes  bool
	maxAnswer int64
}

var (
	_ framework.Extender           = (*Client)(nil)
	_ framework.BindingExtender    = (*Client)(nil)
	_ framework.PreemptionExtender = (*Client)(nil)
)

// Option changes a Client.
type Option func(*Client)

// WithOwnNodes makes a client without a node cache keep the scheduler's own
// NodeInfos for the nodes the extender passes, so they are scored with their
// pods: the behaviour kubernetes/kubernetes#141781 asks for. By default the
// client reproduces kube-scheduler (v1.36.4 and v1.37.2), which scores
// pod-less copies.
func WithOwnNodes() Option { return func(c *Client) { c.ownNodes = true } }

// WithHTTPClient replaces the HTTP client the Config would build (its
// transport, TLS and timeout), e.g. to share connections or to trace calls.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithMaxResponseBytes bounds the size of an answer (0, the default, is no
// bound, as in kube-scheduler); a longer answer fails the call.
func WithMaxResponseBytes(n int64) Option { return func(c *Client) { c.maxAnswer = n } }

// New builds the client of cfg, with kube-scheduler's transport: TLS 1.2 or
// later with cfg.TLSConfig (files are read now), the server's certificate
// unverified when EnableHTTPS is set without a CA (as kube-scheduler), and
// HTTPTimeout (default 5s) per call. TLS settings with a URL that is not
// https, and a client certificate without its key (or a key without its
// certificate), are errors: kube-scheduler would silently speak plain HTTP,
// or send no certificate.
func New(cfg Config, opts ...Option) (*Client, error) {
	c := &Client{cfg: cfg, managed: map[string]bool{}}
	for _, r := range cfg.ManagedResources {
		c.managed[r.Name] = true
	}
	for _, o := range opts {
		o(c)
	}
	if c.http != nil {
		return c, nil
	}
	tr, err := transport(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.HTTPTimeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	c.http = &http.Client{Transport: tr, Timeout: timeout}
	return c, nil
}

// transport is kube-scheduler's makeTransport (and client-go's
// TLSConfigFor): the TLS settings, on a transport with client-go's defaults
// (proxy from the environment, 10s TLS handshake, 25 idle connections per
// host).
func transport(cfg Config) (*http.Transport, error) {
	var t TLSConfig
	if cfg.TLSConfig != nil {
		t = *cfg.TLSConfig
	}
	tlsSet := t.Insecure || t.ServerName != "" || t.CertFile != "" || t.KeyFile != "" || t.CAFile != "" ||
		len(t.CertData) > 0 || len(t.KeyData) > 0 || len(t.CAData) > 0
	if cfg.EnableHTTPS || tlsSet {
		u, err := url.Parse(cfg.URLPrefix)
		if err != nil || u.Scheme != "https" {
			why := "enableHTTPS"
			if !cfg.EnableHTTPS {
				why = "tlsConfig"
			}
			return nil, &ConfigError{Field: "urlPrefix", Value: cfg.URLPrefix,
				Reason: why + " is set but the URL is not https:// (kube-scheduler would silently call it over plain HTTP)"}
		}
	}
	hasCA := t.CAFile != "" || len(t.CAData) > 0
	if cfg.EnableHTTPS && !hasCA {
		t.Insecure = true
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 25
	tr.TLSHandshakeTimeout = 10 * time.Second
	certGiven, keyGiven := t.CertFile != "" || len(t.CertData) > 0, t.KeyFile != "" || len(t.KeyData) > 0
	if certGiven != keyGiven { // client-go would silently send no certificate
		field, other := "tlsConfig.certData", "a key (keyFile or keyData)"
		if keyGiven {
			field, other = "tlsConfig.keyData", "a certificate (certFile or certData)"
		}
		return nil, &ConfigError{Field: field, Value: "…", Reason: "a client certificate needs " + other}
	}
	hasCert := certGiven && keyGiven
	if !hasCA && !hasCert && !t.Insecure && t.ServerName == "" {
		return tr, nil
	}
	if hasCA && t.Insecure {
		return nil, &ConfigError{Field: "tlsConfig.insecure", Value: "true", Reason: "specifying a root certificates file with the insecure flag is not allowed"}
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.Insecure, ServerName: t.ServerName}
	read := func(field string, data []byte, file string) ([]byte, error) {
		if len(data) > 0 || file == "" {
			return data, nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, &ConfigError{Field: field, Value: file, Reason: err.Error()}
		}
		return b, nil
	}
	ca, err := read("tlsConfig.caFile", t.CAData, t.CAFile)
	if err != nil {
		return nil, err
	}
	if len(ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, &ConfigError{Field: "tlsConfig.caData", Value: abbreviate(ca), Reason: "unable to load root certificates: unable to parse bytes as PEM block"}
		}
		tc.RootCAs = pool
	}
	if hasCert {
		cert, err := read("tlsConfig.certFile", t.CertData, t.CertFile)
		if err != nil {
			return nil, err
		}
		key, err := read("tlsConfig.keyFile", t.KeyData, t.KeyFile)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, &ConfigError{Field: "tlsConfig.certData", Value: abbreviate(cert), Reason: err.Error()}
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	tr.TLSClientConfig = tc
	return tr, nil
}

func abbreviate(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "…"
	}
	return string(b)
}

// Name returns the URL prefix, as kube-scheduler names an HTTP extender.
func (c *Client) Name() string { return c.cfg.URLPrefix }

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// IsIgnorable reports Config.Ignorable.
func (c *Client) IsIgnorable() bool { return c.cfg.Ignorable }

// IsFilter reports whether a filter verb is set.
func (c *Client) IsFilter() bool { return c.cfg.FilterVerb != "" }

// IsPrioritizer reports whether a prioritize verb is set.
func (c *Client) IsPrioritizer() bool { return c.cfg.PrioritizeVerb != "" }

// IsBinder reports whether a bind verb is set.
func (c *Client) IsBinder() bool { return c.cfg.BindVerb != "" }

// SupportsPreemption reports whether a preempt verb is set.
func (c *Client) SupportsPreemption() bool { return c.cfg.PreemptVerb != "" }

// IsInterested reports whether the extender handles pod: always without
// managed resources, else when a container or init container requests or
// limits one of them.
func (c *Client) IsInterested(pod *framework.PodInfo) bool {
	if len(c.managed) == 0 {
		return true
	}
	for _, cs := range [][]api.Container{pod.Pod.Spec.Containers, pod.Pod.Spec.InitContainers} {
		for i := range cs {
			for name := range cs[i].Resources.Requests {
				if c.managed[string(name)] {
					return true
				}
			}
			for name := range cs[i].Resources.Limits {
				if c.managed[string(name)] {
					return true
				}
			}
		}
	}
	return false
}

// args builds a filter or prioritize call's body.
func (c *Client) args(pod *api.Pod, nodes []*framework.NodeInfo) *Args {
	a := &Args{Pod: pod}
	if c.cfg.NodeCacheCapable {
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name()
		}
		a.NodeNames = &names
		return a
	}
	a.Nodes = &NodeList{Items: make([]api.Node, len(nodes))}
	for i, n := range nodes {
		a.Nodes.Items[i] = *n.Node()
	}
	return a
}

// Filter calls the filter verb (without one, every node passes). The
// extender's Error fails the call with that message. The nodes that pass
// come back as the NodeInfos sent when the extender answers by name, and as
// pod-less NodeInfos of the returned node objects when it answers with nodes
// (unless WithOwnNodes); an answer in the other form than the call, with
// neither list, passes no node and gives no reason (kube-scheduler
// v1.36.4 and v1.37.2). A node that was not sent fails the call.
func (c *Client) Filter(pod *framework.PodInfo, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, map[string]string, map[string]string, error) {
	if c.cfg.FilterVerb == "" {
		return nodes, map[string]string{}, map[string]string{}, nil
	}
	var res FilterResult
	if err := c.send(c.cfg.FilterVerb, c.args(pod.Pod, nodes), &res); err != nil {
		return nil, nil, nil, err
	}
	if res.Error != "" {
		return nil, nil, nil, errors.New(res.Error)
	}
	sent := make(map[string]*framework.NodeInfo, len(nodes))
	for _, n := range nodes {
		sent[n.Name()] = n
	}
	var out []*framework.NodeInfo
	switch {
	case c.cfg.NodeCacheCapable && res.NodeNames != nil:
		out = make([]*framework.NodeInfo, len(*res.NodeNames))
		for i, name := range *res.NodeNames {
			n, ok := sent[name]
			if !ok {
				return nil, nil, nil, c.unasked(name)
			}
			out[i] = n
		}
	case res.Nodes != nil:
		out = make([]*framework.NodeInfo, len(res.Nodes.Items))
		for i := range res.Nodes.Items {
			node := &res.Nodes.Items[i]
			own, ok := sent[node.Name]
			if !ok {
				return nil, nil, nil, c.unasked(node.Name)
			}
			if c.ownNodes {
				out[i] = own
				continue
			}
			ni, err := framework.NewNodeInfo(node)
			if err != nil {
				return nil, nil, nil, err
			}
			ni.ImageSizes = nil // kube's copy has no image states either
			out[i] = ni
		}
	}
	return out, res.FailedNodes, res.FailedAndUnresolvableNodes, nil
}

func (c *Client) unasked(node string) error {
	return fmt.Errorf("extender %q claims a filtered node %q which is not found in the input node list", c.cfg.URLPrefix, node)
}

// Prioritize calls the prioritize verb and returns the scores with
// Config.Weight (without a verb: every node 0, weight 0).
func (c *Client) Prioritize(pod *framework.PodInfo, nodes []*framework.NodeInfo) ([]framework.HostPriority, int64, error) {
	if c.cfg.PrioritizeVerb == "" {
		out := make([]framework.HostPriority, len(nodes))
		for i, n := range nodes {
			out[i].Host = n.Name()
		}
		return out, 0, nil
	}
	var res HostPriorityList
	if err := c.send(c.cfg.PrioritizeVerb, c.args(pod.Pod, nodes), &res); err != nil {
		return nil, 0, err
	}
	return res, c.cfg.Weight, nil
}

// Bind calls the bind verb for pod and node; the extender's Error fails it.
func (c *Client) Bind(pod *api.Pod, node string) error {
	if c.cfg.BindVerb == "" {
		return errors.New("unexpected empty bindVerb in extender")
	}
	var res BindingResult
	if err := c.send(c.cfg.BindVerb, &BindingArgs{PodName: pod.Name, PodNamespace: pod.Namespace, PodUID: pod.UID, Node: node}, &res); err != nil {
		return err
	}
	if res.Error != "" {
		return errors.New(res.Error)
	}
	return nil
}

// ProcessPreemption calls the preempt verb with the candidates' victims
// (whole pods, or UIDs with a node cache) and returns the candidates the
// extender keeps with the victims it names, looked up by UID on their node
// in snap. A victim not on its node, or a node that was not a candidate,
// fails the call.
func (c *Client) ProcessPreemption(pod *framework.PodInfo, victims map[string]*framework.Victims, snap *framework.Snapshot) (map[string]*framework.Victims, error) {
	if c.cfg.PreemptVerb == "" {
		return nil, fmt.Errorf("preempt verb is not defined for extender %v but run into ProcessPreemption", c.cfg.URLPrefix)
	}
	args := &PreemptionArgs{Pod: pod.Pod}
	if c.cfg.NodeCacheCapable {
		args.NodeNameToMetaVictims = make(map[string]*MetaVictims, len(victims))
		for node, v := range victims {
			mv := &MetaVictims{Pods: make([]*MetaPod, 0, len(v.Pods)), NumPDBViolations: v.NumPDBViolations}
			for _, p := range v.Pods {
				mv.Pods = append(mv.Pods, &MetaPod{UID: p.UID})
			}
			args.NodeNameToMetaVictims[node] = mv
		}
	} else {
		args.NodeNameToVictims = victims
	}
	var res PreemptionResult
	if err := c.send(c.cfg.PreemptVerb, args, &res); err != nil {
		return nil, err
	}
	out := make(map[string]*framework.Victims, len(res.NodeNameToMetaVictims))
	for node, mv := range res.NodeNameToMetaVictims {
		if _, ok := victims[node]; !ok {
			return nil, fmt.Errorf("extender %q claims preemption victims on node %q which was not a candidate", c.cfg.URLPrefix, node)
		}
		ni, ok := snap.Get(node)
		if !ok {
			return nil, fmt.Errorf("nodeinfo not found for node name %q", node)
		}
		if mv == nil {
			out[node] = nil
			continue
		}
		v := &framework.Victims{Pods: []*api.Pod{}, NumPDBViolations: mv.NumPDBViolations}
		for _, mp := range mv.Pods {
			p := podByUID(ni, mp)
			if p == nil {
				return nil, fmt.Errorf("extender: %v claims to preempt pod (UID: %v) on node: %v, but the pod is not found on that node", c.cfg.URLPrefix, mp, node)
			}
			v.Pods = append(v.Pods, p)
		}
		out[node] = v
	}
	return out, nil
}

func podByUID(ni *framework.NodeInfo, mp *MetaPod) *api.Pod {
	if mp == nil {
		return nil
	}
	for _, pi := range ni.Pods {
		if pi.Pod.UID == mp.UID {
			return pi.Pod
		}
	}
	return nil
}

// send POSTs args as JSON to the verb's URL and decodes a 200 answer into
// res; another status is kube-scheduler's "failed <verb> with extender at
// URL <url>, code <code>".
func (c *Client) send(verb string, args, res any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	u := strings.TrimRight(c.cfg.URLPrefix, "/") + "/" + verb
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // let the connection be reused
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("failed %v with extender at URL %v, code %v", verb, u, resp.StatusCode)
	}
	dec := json.NewDecoder(resp.Body)
	var cr *countingReader
	if c.maxAnswer > 0 {
		cr = &countingReader{r: io.LimitReader(resp.Body, c.maxAnswer+1)}
		dec = json.NewDecoder(cr)
	}
	if err := dec.Decode(res); err != nil {
		if cr != nil && cr.n > c.maxAnswer {
			return fmt.Errorf("extender %q: %s answer longer than %d bytes", c.cfg.URLPrefix, verb, c.maxAnswer)
		}
		return err
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
