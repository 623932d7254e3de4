#!/bin/sh
# e2e.sh checks the kube module: vet, staticcheck, its unit tests (with the
# race detector), then the end-to-end tests against a real kube-apiserver
# and etcd, which e2e/buildtools.sh builds from the Go module proxy once
# and caches outside the repository (${XDG_CACHE_HOME:-$HOME/.cache}/schedkit-e2e,
# or $SCHEDKIT_E2E_CACHE). Extra arguments go to the e2e `go test` (e.g.
# -run TestPreemption -v).
set -eu
cd "$(dirname "$0")"
STATICCHECK_VERSION=v0.8.2

echo "== kube: go vet"
go vet ./...
echo "== kube: staticcheck $STATICCHECK_VERSION"
go run "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" ./...
echo "== kube: unit tests, with the race detector (the feed, the scheduler and the what-if questions run concurrently)"
go test -race -count=1 ./...
echo "== kube: building kube-apiserver and etcd (cached)"
start=$(date +%s)
dir=$(sh e2e/buildtools.sh)
echo "   $dir ($(($(date +%s) - start)) s)"
echo "== kube: e2e tests against kube-apiserver"
SCHEDKIT_E2E=1 go test -count=1 -timeout 30m ./e2e/ "$@"
echo "kube e2e passed"
