#!/bin/sh
# buildtools.sh builds kube-apiserver (k8s.io/kubernetes) and etcd
# (go.etcd.io/etcd/server/v3) from the Go module proxy with `go build`, into
# a cache directory outside the repository keyed by version, and prints that
# directory. A second run with the binaries present does nothing.
#
#   KUBE_VERSION  (default v1.37.2)  k8s.io/kubernetes version
#   ETCD_VERSION  (default v3.7.0)   the etcd version that kube release pins
#   SCHEDKIT_E2E_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/schedkit-e2e)
set -eu
KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.0}
STAGING_VERSION=v0.${KUBE_VERSION#v1.}
CACHE=${SCHEDKIT_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedkit-e2e}
OUT=$CACHE/kube-$KUBE_VERSION-etcd-$ETCD_VERSION
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ]; then
	echo "$OUT"
	exit 0
fi
mkdir -p "$OUT/src"
cd "$OUT/src"
{
	echo "module schedkit.invalid/e2etools"
	echo
	echo "go 1.26"
	echo
	echo "require ("
	echo "	k8s.io/kubernetes $KUBE_VERSION"
	echo "	go.etcd.io/etcd/server/v3 $ETCD_VERSION"
	echo ")"
	echo
	echo "replace ("
	for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go \
		cloud-provider cluster-bootstrap code-generator component-base component-helpers \
		controller-manager cri-api cri-client cri-streaming csi-translation-lib \
		dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator \
		kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics \
		mount-utils pod-security-admission sample-apiserver streaming sample-cli-plugin \
		sample-controller; do
		echo "	k8s.io/$m => k8s.io/$m $STAGING_VERSION"
	done
	echo ")"
} >go.mod
cat >tools.go <<'EOT'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
EOT
go mod tidy >&2
LDF="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION"
go build -trimpath -ldflags "$LDF" -o "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
go build -trimpath -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
mv "$OUT/etcd.tmp" "$OUT/etcd"
echo "$OUT"
