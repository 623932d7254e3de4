package extender

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// testPKI is a CA with a server certificate (127.0.0.1, extender.test) and
// a client certificate, all PEM.
type testPKI struct {
	caPEM                 []byte
	pool                  *x509.CertPool
	server                tls.Certificate
	clientCert, clientKey []byte
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, tmpl *x509.Certificate) (certPEM, keyPEM []byte) {
		k := key()
		tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = big.NewInt(serial), now.Add(-time.Hour), now.Add(time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	}
	p := &testPKI{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	sc, sk := issue(2, &x509.Certificate{Subject: pkix.Name{CommonName: "extender"}, DNSNames: []string{"extender.test"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if p.server, err = tls.X509KeyPair(sc, sk); err != nil {
		t.Fatal(err)
	}
	p.clientCert, p.clientKey = issue(3, &x509.Certificate{Subject: pkix.Name{CommonName: "kube-scheduler"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return p
}

// okFilter answers every filter call with no node.
var okFilter = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"NodeNames": []}`)) })

func testNodes() []*framework.NodeInfo {
	return framework.MustSnapshot([]*api.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()}, nil).Nodes()
}

func testPod() *framework.PodInfo {
	return framework.MustPodInfo(st.MakePod().Name("p").UID("p").Obj())
}

// TestClientTLS: TLS settings are honoured as kube-scheduler v1.36.4's
// makeTransport and client-go's TLSConfigFor honour them (a CA verifies the
// server, its name is checked, client certificates are sent, TLS 1.2 is the
// floor, enableHTTPS without a CA does not verify), and TLS settings with
// an http:// URL are refused instead of silently ignored.
func TestClientTLS(t *testing.T) {
	p := newTestPKI(t)
	other := newTestPKI(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	caFile, certFile, keyFile := write("ca.pem", p.caPEM), write("client.pem", p.clientCert), write("client-key.pem", p.clientKey)
	start := func(t *testing.T, cfg *tls.Config) string {
		srv := httptest.NewUnstartedServer(okFilter)
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are the point
		srv.TLS = cfg
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv.URL
	}
	serverOnly := func() *tls.Config { return &tls.Config{Certificates: []tls.Certificate{p.server}} }
	mutual := func() *tls.Config {
		return &tls.Config{Certificates: []tls.Certificate{p.server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.pool}
	}
	old := func() *tls.Config {
		return &tls.Config{Certificates: []tls.Certificate{p.server}, MaxVersion: tls.VersionTLS11, MinVersion: tls.VersionTLS10}
	}
	tests := []struct {
		name    string
		server  func() *tls.Config
		cfg     Config
		wantErr string // "" = the call succeeds
	}{
		{name: "CA data verifies the server", server: serverOnly, cfg: Config{TLSConfig: &TLSConfig{CAData: p.caPEM}}},
		{name: "CA file verifies the server", server: serverOnly, cfg: Config{EnableHTTPS: true, TLSConfig: &TLSConfig{CAFile: caFile}}},
		{name: "another CA does not", server: serverOnly, cfg: Config{EnableHTTPS: true, TLSConfig: &TLSConfig{CAData: other.caPEM}}, wantErr: "certificate signed by unknown authority"},
		{name: "no CA: the system roots do not know it", server: serverOnly, cfg: Config{}, wantErr: "certificate signed by unknown authority"},
		{name: "enableHTTPS without a CA skips verification (kube)", server: serverOnly, cfg: Config{EnableHTTPS: true}},
		{name: "insecure skips verification", server: serverOnly, cfg: Config{TLSConfig: &TLSConfig{Insecure: true}}},
		{name: "serverName matching the certificate", server: serverOnly, cfg: Config{TLSConfig: &TLSConfig{CAData: p.caPEM, ServerName: "extender.test"}}},
		{name: "serverName not matching", server: serverOnly, cfg: Config{TLSConfig: &TLSConfig{CAData: p.caPEM, ServerName: "other.test"}}, wantErr: "not other.test"},
		{name: "client certificate required, none given", server: mutual, cfg: Config{TLSConfig: &TLSConfig{CAData: p.caPEM}}, wantErr: "certificate required"},
		{name: "client certificate from data", server: mutual, cfg: Config{TLSConfig: &TLSConfig{CAData: p.caPEM, CertData: p.clientCert, KeyData: p.clientKey}}},
		{name: "client certificate from files", server: mutual, cfg: Config{TLSConfig: &TLSConfig{CAFile: caFile, CertFile: certFile, KeyFile: keyFile}}},
		{name: "TLS 1.1 server refused", server: old, cfg: Config{TLSConfig: &TLSConfig{CAData: p.caPEM}}, wantErr: "protocol version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URLPrefix, cfg.FilterVerb, cfg.NodeCacheCapable = start(t, tc.server()), "filter", true
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _, _, err = c.Filter(testPod(), testNodes())
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("call failed: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestClientConfigErrors: New reports bad TLS settings under their field.
func TestClientConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		field string
		want  string
	}{
		{name: "enableHTTPS over http", cfg: Config{URLPrefix: "http://x", EnableHTTPS: true}, field: "urlPrefix", want: "enableHTTPS is set but the URL is not https://"},
		{name: "tlsConfig over http", cfg: Config{URLPrefix: "http://x", TLSConfig: &TLSConfig{CAData: []byte("x")}}, field: "urlPrefix", want: "tlsConfig is set"},
		{name: "insecure with a CA", cfg: Config{URLPrefix: "https://x", TLSConfig: &TLSConfig{Insecure: true, CAFile: "/ca"}}, field: "tlsConfig.insecure",
			want: "specifying a root certificates file with the insecure flag is not allowed"},
		{name: "CA not PEM", cfg: Config{URLPrefix: "https://x", TLSConfig: &TLSConfig{CAData: []byte("nope")}}, field: "tlsConfig.caData", want: "unable to load root certificates"},
		{name: "CA file missing", cfg: Config{URLPrefix: "https://x", TLSConfig: &TLSConfig{CAFile: "/nonexistent"}}, field: "tlsConfig.caFile", want: "no such file"},
		{name: "certificate and key that are not PEM", cfg: Config{URLPrefix: "https://x", TLSConfig: &TLSConfig{CertData: []byte("a"), KeyData: []byte("b")}}, field: "tlsConfig.certData", want: "tls:"},
		{name: "certificate without its key", cfg: Config{URLPrefix: "https://x", TLSConfig: &TLSConfig{CertFile: "/c.pem"}}, field: "tlsConfig.certData", want: "a client certificate needs a key"},
		{name: "key without its certificate", cfg: Config{URLPrefix: "https://x", TLSConfig: &TLSConfig{KeyData: []byte("k")}}, field: "tlsConfig.keyData", want: "a client certificate needs a certificate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(ce.Reason, tc.want) {
				t.Fatalf("err = %v, want a ConfigError on %s containing %q", err, tc.field, tc.want)
			}
		})
	}
	// An empty tlsConfig with an http URL is no TLS setting: accepted.
	if _, err := New(Config{URLPrefix: "http://x", TLSConfig: &TLSConfig{}}); err != nil {
		t.Fatal(err)
	}
}

// TestClientInterested: without managed resources every pod; with them,
// pods that request or limit one in a container or init container
// (kube-scheduler v1.36.4 HTTPExtender.IsInterested).
func TestClientInterested(t *testing.T) {
	c, err := New(Config{URLPrefix: "http://x", ManagedResources: []ManagedResource{{Name: "example.com/gpu"}, {Name: "example.com/fpga"}}})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := New(Config{URLPrefix: "http://x"})
	gpu := map[string]string{"example.com/gpu": "1"}
	tests := []struct {
		name string
		pod  *api.Pod
		want bool
	}{
		{name: "no resources", pod: st.MakePod().Name("a").Obj()},
		{name: "other resources", pod: st.MakePod().Name("a").Req(map[string]string{"cpu": "1", "example.com/nic": "1"}).Obj()},
		{name: "requests it", pod: st.MakePod().Name("a").Req(gpu).Obj(), want: true},
		{name: "limits it", pod: st.MakePod().Name("a").Lim(nil, map[string]string{"example.com/fpga": "1"}).Obj(), want: true},
		{name: "init container requests it", pod: st.MakePod().Name("a").InitReq(gpu).Obj(), want: true},
		{name: "overhead does not count", pod: st.MakePod().Name("a").Overhead(gpu).Obj()},
	}
	for _, tc := range tests {
		pi := framework.MustPodInfo(tc.pod)
		if got := c.IsInterested(pi); got != tc.want {
			t.Errorf("%s: IsInterested = %v, want %v", tc.name, got, tc.want)
		}
		if !all.IsInterested(pi) {
			t.Errorf("%s: an extender without managed resources is not interested", tc.name)
		}
	}
}

// TestClientWithoutVerbs: a verb that is not set is not called
// (kube-scheduler v1.36.4 HTTPExtender): filter passes every node,
// prioritize scores 0 with weight 0, bind and preempt fail with kube's text.
func TestClientWithoutVerbs(t *testing.T) {
	c, err := New(Config{URLPrefix: "http://127.0.0.1:1", Weight: 5})
	if err != nil {
		t.Fatal(err)
	}
	if c.IsFilter() || c.IsPrioritizer() || c.IsBinder() || c.SupportsPreemption() || c.Name() != "http://127.0.0.1:1" {
		t.Fatalf("verbs reported: %v %v %v %v %q", c.IsFilter(), c.IsPrioritizer(), c.IsBinder(), c.SupportsPreemption(), c.Name())
	}
	nodes := testNodes()
	passed, failed, unres, err := c.Filter(testPod(), nodes)
	if err != nil || len(passed) != 2 || passed[0] != nodes[0] || failed == nil || unres == nil || len(failed)+len(unres) != 0 {
		t.Fatalf("filter without a verb: %v %v %v %v", passed, failed, unres, err)
	}
	scores, w, err := c.Prioritize(testPod(), nodes)
	if err != nil || w != 0 || len(scores) != 2 || scores[1] != (framework.HostPriority{Host: "n2"}) {
		t.Fatalf("prioritize without a verb: %v %d %v", scores, w, err)
	}
	if err := c.Bind(testPod().Pod, "n1"); err == nil || err.Error() != "unexpected empty bindVerb in extender" {
		t.Fatalf("bind without a verb: %v", err)
	}
	if _, err := c.ProcessPreemption(testPod(), nil, nil); err == nil || err.Error() != "preempt verb is not defined for extender http://127.0.0.1:1 but run into ProcessPreemption" {
		t.Fatalf("preempt without a verb: %v", err)
	}
	if c.http.Timeout != DefaultTimeout {
		t.Fatalf("timeout %v, want kube's default %v", c.http.Timeout, DefaultTimeout)
	}
}

// TestClientMaxResponseBytes: an answer beyond the bound fails the call.
func TestClientMaxResponseBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"NodeNames": ["` + strings.Repeat("x", 1<<16) + `"]}`))
	}))
	defer srv.Close()
	c, err := New(Config{URLPrefix: srv.URL, FilterVerb: "filter", NodeCacheCapable: true}, WithMaxResponseBytes(1<<12))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Filter(testPod(), testNodes()); err == nil || !strings.Contains(err.Error(), "answer longer than 4096 bytes") {
		t.Fatalf("err = %v", err)
	}
}

// TestClientPreemptionAnswers: the client follows no answer beyond the
// candidates it sent, and resolves victims on their node by UID.
func TestClientPreemptionAnswers(t *testing.T) {
	var answer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(answer)) }))
	defer srv.Close()
	snap := framework.MustSnapshot([]*api.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()},
		[]*api.Pod{st.MakePod().Name("v1").UID("u1").Node("n1").Obj(), st.MakePod().Name("v2").UID("u2").Node("n2").Obj()})
	victims := map[string]*framework.Victims{"n1": {Pods: []*api.Pod{snap.Nodes()[0].Pods[0].Pod}}}
	c, err := New(Config{URLPrefix: srv.URL, PreemptVerb: "preempt", NodeCacheCapable: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ answer, want string }{
		{`{"NodeNameToMetaVictims": {"n2": {"Pods": [{"UID": "u2"}]}}}`, `extender "` + srv.URL + `" claims preemption victims on node "n2" which was not a candidate`},
		{`{"NodeNameToMetaVictims": {"n1": {"Pods": [{"UID": "u2"}]}}}`, "extender: " + srv.URL + " claims to preempt pod (UID: &{u2}) on node: n1, but the pod is not found on that node"},
		{`{"NodeNameToMetaVictims": {"n1": {"Pods": [{"UID": "u1"}], "NumPDBViolations": 2}}}`, ""},
	} {
		answer = tc.answer
		got, err := c.ProcessPreemption(testPod(), victims, snap)
		if tc.want != "" {
			if err == nil || err.Error() != tc.want {
				t.Fatalf("answer %s: err = %v\nwant %s", tc.answer, err, tc.want)
			}
			continue
		}
		if err != nil || got["n1"] == nil || got["n1"].Pods[0] != victims["n1"].Pods[0] || got["n1"].NumPDBViolations != 2 {
			t.Fatalf("answer %s: %+v %v", tc.answer, got, err)
		}
	}
}
