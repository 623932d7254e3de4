package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The tests run only with SCHEDKIT_E2E=1: they build kube-apiserver and
// etcd from the Go module proxy on first use (buildtools.sh, cached outside
// the repository) and start them on loopback.
const envE2E = "SCHEDKIT_E2E"

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binaries builds (or finds cached) kube-apiserver and etcd.
func binaries(t *testing.T) string {
	t.Helper()
	if os.Getenv(envE2E) != "1" {
		t.Skip("set " + envE2E + "=1 to run the tests against a real kube-apiserver (see kube/README.md)")
	}
	binOnce.Do(func() {
		start := time.Now()
		out, err := exec.Command("sh", "buildtools.sh").Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				err = fmt.Errorf("%w\n%s", err, ee.Stderr)
			}
			binErr = fmt.Errorf("building kube-apiserver and etcd: %w", err)
			return
		}
		binDir = strings.TrimSpace(string(out))
		if d := time.Since(start); d > time.Second {
			fmt.Fprintf(os.Stderr, "e2e: kube-apiserver and etcd built in %s into %s\n", d.Round(time.Second), binDir)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// apiServer is a kube-apiserver with its etcd on loopback, for one test.
type apiServer struct {
	URL string
	// CertDir holds the serving certificate kube-apiserver made for
	// itself (apiserver.crt: the certificate and its CA).
	CertDir    string
	Token      string
	Kubeconfig string
	Config     *rest.Config
	Client     kubernetes.Interface
}

// startAPIServer starts etcd and kube-apiserver in a temporary directory,
// with a self-made service-account key and a static admin token; both stop
// when the test ends.
func startAPIServer(t *testing.T) *apiServer {
	t.Helper()
	bin := binaries(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var exited []chan error
	t.Cleanup(func() {
		cancel()
		for i := len(exited) - 1; i >= 0; i-- {
			<-exited[i]
		}
	})
	logFile := func(name string) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	start := func(name string, args ...string) {
		cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
		lf := logFile(name + ".log")
		cmd.Stdout, cmd.Stderr = lf, lf
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", name, err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		exited = append(exited, done)
	}
	etcdPort, peerPort, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	start("etcd", "--data-dir", filepath.Join(dir, "etcd"), "--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", peerPort),
		"--unsafe-no-fsync", "--log-level", "warn")

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("schedkit-e2e-%d", time.Now().UnixNano())
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(token+`,admin,admin,"system:masters"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start("kube-apiserver", "--etcd-servers", etcdURL, "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(apiPort), "--cert-dir", filepath.Join(dir, "certs"),
		"--service-account-key-file", keyFile, "--service-account-signing-key-file", keyFile,
		"--service-account-issuer", "https://kubernetes.default.svc", "--token-auth-file", tokenFile,
		"--authorization-mode", "RBAC", "--service-cluster-ip-range", "10.0.0.0/24",
		"--disable-admission-plugins", "ServiceAccount", "--allow-privileged=true", "--endpoint-reconciler-type", "none")

	url := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	cfg := &rest.Config{Host: url, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 200, Burst: 400}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 2 * time.Second}
	deadline := time.Now().Add(90 * time.Second)
	for {
		req, _ := http.NewRequest("GET", url+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		stopped := ""
		for i, name := range []string{"etcd", "kube-apiserver"} {
			select {
			case werr := <-exited[i]:
				exited[i] <- werr
				stopped = fmt.Sprintf("%s exited (%v)", name, werr)
			default:
			}
		}
		if stopped != "" || time.Now().After(deadline) {
			if stopped == "" {
				stopped = fmt.Sprintf("not ready after 90 s (%v)", err)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver.log"))
			t.Fatalf("kube-apiserver: %s; its log ends:\n%s", stopped, tail(string(log), 3000))
		}
		time.Sleep(200 * time.Millisecond)
	}
	kc := filepath.Join(dir, "kubeconfig")
	kcText := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: %q}}]
contexts: [{name: e2e, context: {cluster: e2e, user: admin}}]
current-context: e2e
`, url, token)
	if err := os.WriteFile(kc, []byte(kcText), 0o600); err != nil {
		t.Fatal(err)
	}
	return &apiServer{URL: url, CertDir: filepath.Join(dir, "certs"), Token: token, Kubeconfig: kc, Config: cfg, Client: client}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
