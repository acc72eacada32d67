#!/usr/bin/env bash
# Strategic merge patch of a container/env/volume overlay (bench/patch/
# backend-patch.yaml) onto the three-tier backend Deployment, in one run:
#   1. `sindri patch` and `kubectl patch --local` must agree (compared as data);
#   2. in process: sindri-bench-patch's SMP operations per second;
#   3. as whole processes: RUNS invocations of each, interleaved, on the same
#      files; prints the mean per process and kubectl/sindri (target >= 10x).
#
# usage: bench/patch_vs_kubectl.sh [--strict]   (--strict: exit 1 below target)
# env:   RUNS (20), N (200000 in-process ops), BUILD_DIR (build), SHARED_DIR (../shared)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED_DIR:-$ROOT/../shared}
BUILD=${BUILD_DIR:-$ROOT/build}
RUNS=${RUNS:-20}
N=${N:-200000}
STRICT=0
if [[ ${1:-} == --strict ]]; then STRICT=1; fi
command -v kubectl >/dev/null || { echo "patch_vs_kubectl: kubectl not found" >&2; exit 1; }

echo "== building sindri and sindri-bench-patch (Release, $BUILD)" >&2
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target sindri sindri-bench-patch >&2

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The backend Deployment: the document of three-tier.expected.out that names
# it, with its numeric label `tier-count: 2` quoted, since kubectl rejects a
# label that is not a string.
awk -v RS='---\n' '/kind: Deployment/ && /name: shop-front-backend/ { printf "%s", $0 }' \
  "$SHARED/corpus/bench/three-tier.expected.out" | sed 's/tier-count: 2$/tier-count: "2"/' >"$TMP/backend.yaml"
ORIGINAL=$TMP/backend.yaml
PATCH=$ROOT/bench/patch/backend-patch.yaml
SINDRI=$BUILD/bin/sindri

# --- 1. Same result. ---------------------------------------------------------
"$SINDRI" patch -f "$ORIGINAL" -p "$PATCH" -o json >"$TMP/sindri.json"
kubectl patch --local -f "$ORIGINAL" -p "$(cat "$PATCH")" -o json >"$TMP/kubectl.json"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
  "$TMP/sindri.json" "$TMP/kubectl.json" || {
  echo "patch_vs_kubectl: FAIL: sindri and kubectl disagree" >&2
  diff <(python3 -m json.tool --sort-keys "$TMP/kubectl.json") <(python3 -m json.tool --sort-keys "$TMP/sindri.json") >&2 || true
  exit 1
}
echo "output check: sindri patch equals kubectl patch --local" >&2

# --- 2. In process. ----------------------------------------------------------
inproc=$("$BUILD/bin/sindri-bench-patch" "$ORIGINAL" "$PATCH" "$N" 2>&1 >/dev/null)

# --- 3. Whole processes, interleaved. ----------------------------------------
# The clock is bash's own $EPOCHREALTIME (microseconds): reading it with
# `date` would fork a process inside every timed interval and add the same
# milliseconds to both tools, which understates the ratio.
total_sindri=0
total_kubectl=0
patch_text=$(cat "$PATCH")
for ((r = 0; r < RUNS; r++)); do
  t0=${EPOCHREALTIME//[!0-9]/}
  "$SINDRI" patch -f "$ORIGINAL" -p "$PATCH" >/dev/null
  t1=${EPOCHREALTIME//[!0-9]/}
  kubectl patch --local -f "$ORIGINAL" -p "$patch_text" -o yaml >/dev/null
  t2=${EPOCHREALTIME//[!0-9]/}
  total_sindri=$((total_sindri + t1 - t0))
  total_kubectl=$((total_kubectl + t2 - t1))
done

echo
echo "SMP of bench/patch/backend-patch.yaml onto the three-tier backend Deployment"
echo "in process (sindri-bench-patch): $inproc"
awk -v s="$total_sindri" -v k="$total_kubectl" -v runs="$RUNS" -v strict="$STRICT" 'BEGIN {
  sm = s / runs / 1e3; km = k / runs / 1e3; ratio = (sm > 0) ? km / sm : 0
  printf "%-32s %12s\n", "whole process, mean of " runs, "ms"
  printf "%-32s %12.2f\n", "kubectl patch --local", km
  printf "%-32s %12.2f\n", "sindri patch", sm
  printf "%-32s %11.1fx  (target >= 10x: %s)\n", "kubectl / sindri", ratio, (ratio >= 10) ? "PASS" : "BELOW"
  if (strict && ratio < 10) exit 1
}'
