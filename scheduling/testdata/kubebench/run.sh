#!/bin/sh
# Builds schedkit's side (internal/cmd/variedbench) and kube's side (this
# module: kube-scheduler v1.36.4; KUBE=1.37 builds kube137/, v1.37.2) and
# runs the interleaved comparison; extra arguments go to `kubebench
# compare` (-nodes, -runs, -rows, -workers, -profile, ...): `-rows all
# -workers 1,2` runs every row, the varied workload's and the
# scheduler_perf cases', at 1 and 2 workers. Binaries and data go to $OUT
# (default /tmp/kubebench).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${OUT:-/tmp/kubebench}
mkdir -p "$out"
(cd "$root" && go build -o "$out/variedbench" ./internal/cmd/variedbench)
case "${KUBE:-1.36}" in
1.36) mod=$here ;;
1.37) mod=$here/kube137 ;;
*) echo "run.sh: KUBE=${KUBE}: want 1.36 or 1.37" >&2; exit 2 ;;
esac
(cd "$mod" && go build -o "$out/kubebench-${KUBE:-1.36}" .)
# schedkit's side reproduces the same release as kube's (variedbench run
# -kube-version).
side="$out/variedbench-${KUBE:-1.36}"
printf '#!/bin/sh\nif [ "$1" = run ]; then shift; exec "%s" run -kube-version %s "$@"; fi\nexec "%s" "$@"\n' \
  "$out/variedbench" "${KUBE:-1.36}" "$out/variedbench" > "$side"
chmod +x "$side"
exec "$out/kubebench-${KUBE:-1.36}" compare -schedkit "$side" -data "$out/data" "$@"
