package sweepjob

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
)

// ServiceAccountDir is where the kubelet mounts a pod's service account
// token, CA and namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InClusterConfig is the configuration a pod uses to reach its API
// server, as client-go's rest.InClusterConfig makes it: the server from
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the service
// account's token (re-read as it rotates) and CA from dir (in a pod,
// ServiceAccountDir). getenv reads the environment.
func InClusterConfig(dir string, getenv func(string) string) (*rest.Config, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("sweepjob: not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (give -kubeconfig outside one)")
	}
	token := filepath.Join(dir, "token")
	if _, err := os.Stat(token); err != nil {
		return nil, fmt.Errorf("sweepjob: service account token: %w", err)
	}
	ca := filepath.Join(dir, "ca.crt")
	if _, err := os.Stat(ca); err != nil {
		return nil, fmt.Errorf("sweepjob: service account CA: %w", err)
	}
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: ca},
	}, nil
}

// Namespace is the pod's namespace: POD_NAMESPACE, or else the service
// account's namespace file in dir.
func Namespace(dir string, getenv func(string) string) (string, error) {
	if ns := getenv("POD_NAMESPACE"); ns != "" {
		return ns, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "namespace"))
	if err != nil {
		return "", fmt.Errorf("sweepjob: namespace: POD_NAMESPACE is not set and %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
