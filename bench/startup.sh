#!/usr/bin/env bash
# Whole-process start-up of the `sindri` programs, with `perf stat -r RUNS`
# (task-clock and elapsed time, mean of RUNS runs), beside a C++ hello world
# built here for scale, and the libraries each program maps:
#   hello world (g++ -O2, libstdc++)
#   sindri --version
#   sindri render examples/hello/deployment.yaml.tera -f examples/hello/values.json   [target <= 2 ms]
#   sindri patch  (the three-tier backend overlay of bench/patch)
#   sindri-client --version, sindri-serve --version  (the programs the client verbs and serve run)
#
# usage: bench/startup.sh   env: RUNS (30), BUILD_DIR (build-release, built here as Release), SHARED_DIR (../shared)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-release}
RUNS=${RUNS:-30}
command -v perf >/dev/null || { echo "startup: perf not found (Debian: linux-perf)" >&2; exit 1; }

echo "== building sindri (Release, $BUILD)" >&2
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target sindri >&2
SINDRI=$BUILD/bin/sindri

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '#include <iostream>\nint main() { std::cout << "hello\\n"; }\n' >"$TMP/hello.cpp"
g++ -O2 -o "$TMP/hello" "$TMP/hello.cpp"
# The three-tier backend Deployment, as bench/patch_vs_kubectl.sh takes it.
awk -v RS='---\n' '/kind: Deployment/ && /name: shop-front-backend/ { printf "%s", $0 }' \
  "${SHARED_DIR:-$ROOT/../shared}/corpus/bench/three-tier.expected.out" >"$TMP/backend.yaml"

# Mean task-clock and elapsed milliseconds of RUNS runs of the command, from
# one perf run.
measure() {
  local label=$1
  shift
  { perf stat -r "$RUNS" -e task-clock "$@" >/dev/null; } 2>&1 |
    awk -v label="$label" '/task-clock/ {cpu = $1} /seconds time elapsed/ {elapsed = $1 * 1000}
      END {printf "%-52s %8.2f ms CPU %8.2f ms elapsed\n", label, cpu, elapsed}'
}

cd "$ROOT"
echo "== $RUNS runs each, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
measure "C++ hello world (scale)" "$TMP/hello"
measure "sindri --version" "$SINDRI" --version
measure "sindri render examples/hello (target <= 2 ms)" "$SINDRI" render examples/hello/deployment.yaml.tera \
  -f examples/hello/values.json
measure "sindri patch (the backend overlay of bench/patch)" "$SINDRI" patch -f "$TMP/backend.yaml" \
  -p "$ROOT/bench/patch/backend-patch.yaml"
measure "sindri-client --version" "$BUILD/bin/sindri-client" --version
measure "sindri-serve --version" "$BUILD/bin/sindri-serve" --version
echo "== libraries mapped"
for program in sindri sindri-client sindri-serve; do
  printf '%-14s %s\n' "$program" "$(ldd "$BUILD/bin/$program" | awk '$1 !~ /vdso|ld-linux/ {print $1}' | wc -l) libraries"
done
