#!/usr/bin/env bash
# Renders the seed's three-tier application with Tera (shared/tools/tera-ref,
# Tera 1.17 from Debian's crates) and with Sindri (build/bin/sindri-bench-render)
# side by side, in one run:
#   1. both outputs must equal three-tier.expected.out byte for byte;
#   2. for the cached (compile once) and uncached (parse + render every time,
#      as Brokkr does) modes, runs each renderer ROUNDS times, interleaved,
#      with N chosen so that one run takes about TARGET_SECS seconds;
#   3. prints the median per-render time of each and the speedup against the
#      targets of issue 2 (cached >= 5x, parse+render >= 20x).
#
# usage: bench/render_vs_tera.sh [--strict]
#   --strict      exit 1 when a target is not met (otherwise only the output
#                 check and failures to run make it fail)
# env:   ROUNDS (5), TARGET_SECS (1), BUILD_DIR (build), SHARED_DIR (../shared)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED_DIR:-$ROOT/../shared}
BUILD=${BUILD_DIR:-$ROOT/build}
ROUNDS=${ROUNDS:-5}
TARGET_SECS=${TARGET_SECS:-1}
STRICT=0
if [[ ${1:-} == --strict ]]; then STRICT=1; fi

CASE=$SHARED/corpus/bench/three-tier
for f in "$CASE.tera" "$CASE.json" "$CASE.expected.out"; do
  [[ -f $f ]] || { echo "render_vs_tera: missing $f" >&2; exit 1; }
done

echo "== building sindri-bench-render (Release, $BUILD)" >&2
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target sindri-bench-render >&2
SINDRI=$BUILD/bin/sindri-bench-render

echo "== building tera-ref" >&2
if ! TERA=$("$SHARED/tools/tera-ref/build.sh" | tail -n 1) || [[ ! -x $TERA ]]; then
  echo "render_vs_tera: could not build tera-ref" \
       "(needs: apt-get install -y cargo librust-tera-dev librust-serde-json-dev)" >&2
  exit 1
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# --- 1. Both must render the expected bytes. -------------------------------
status=0
for who in tera sindri; do
  bin=$TERA; [[ $who == sindri ]] && bin=$SINDRI
  if ! "$bin" "$CASE.tera" "$CASE.json" >"$TMP/$who.out" 2>"$TMP/$who.err"; then
    echo "render_vs_tera: FAIL: $who exited non-zero:" >&2
    cat "$TMP/$who.out" "$TMP/$who.err" >&2
    status=1
  elif ! cmp -s "$TMP/$who.out" "$CASE.expected.out"; then
    echo "render_vs_tera: FAIL: $who's output differs from three-tier.expected.out:" >&2
    diff -u "$CASE.expected.out" "$TMP/$who.out" | head -n 40 >&2 || true
    status=1
  else
    echo "output check: $who matches three-tier.expected.out ($(wc -c <"$TMP/$who.out") bytes)" >&2
  fi
done
if [[ $status -ne 0 ]]; then
  echo "render_vs_tera: FAIL: outputs differ from the expected output; no timing done" >&2
  exit 1
fi

# --- 2. Timing. ---------------------------------------------------------------
# per_render_us of one run: BIN N [--cached]
per_render_us() {
  local bin=$1 n=$2 flag=${3:-} err
  err=$("$bin" "$CASE.tera" "$CASE.json" "$n" $flag 2>&1 >/dev/null) || {
    echo "render_vs_tera: FAIL: $bin $n $flag: $err" >&2
    return 1
  }
  local us
  us=$(sed -n 's/.*per_render_us=\([0-9.]*\).*/\1/p' <<<"$err")
  [[ -n $us ]] || { echo "render_vs_tera: FAIL: no per_render_us in: $err" >&2; return 1; }
  echo "$us"
}

# N so that one run takes about TARGET_SECS, from a short calibration run.
iterations_for() {
  local bin=$1 flag=${2:-} cal=50 us
  us=$(per_render_us "$bin" "$cal" "$flag")
  awk -v us="$us" -v secs="$TARGET_SECS" 'BEGIN {
    n = (us > 0) ? int(secs * 1e6 / us) : 1000000;
    if (n < 20) n = 20; if (n > 5000000) n = 5000000; print n }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

declare -A RESULT_TERA RESULT_SINDRI
for mode in cached uncached; do
  flag=""; [[ $mode == cached ]] && flag="--cached"
  nt=$(iterations_for "$TERA" "$flag")
  ns=$(iterations_for "$SINDRI" "$flag")
  : >"$TMP/$mode.tera"; : >"$TMP/$mode.sindri"
  for ((r = 1; r <= ROUNDS; r++)); do
    t=$(per_render_us "$TERA" "$nt" "$flag")
    s=$(per_render_us "$SINDRI" "$ns" "$flag")
    echo "$t" >>"$TMP/$mode.tera"; echo "$s" >>"$TMP/$mode.sindri"
    printf '%-9s round %d/%d: tera %10.2f us (N=%d)  sindri %10.2f us (N=%d)\n' \
      "$mode" "$r" "$ROUNDS" "$t" "$nt" "$s" "$ns" >&2
  done
  RESULT_TERA[$mode]=$(median <"$TMP/$mode.tera")
  RESULT_SINDRI[$mode]=$(median <"$TMP/$mode.sindri")
done

# --- 3. The table. ------------------------------------------------------------
below=0
echo
echo "three-tier.tera ($(wc -c <"$CASE.expected.out") bytes out), median of $ROUNDS rounds, per render:"
printf '%-14s %16s %18s %10s %8s %7s\n' mode "tera us" "sindri us" speedup target result
for mode in cached uncached; do
  target=5; label=cached
  [[ $mode == uncached ]] && { target=20; label=parse+render; }
  t=${RESULT_TERA[$mode]}; s=${RESULT_SINDRI[$mode]}
  line=$(awk -v t="$t" -v s="$s" -v target="$target" -v label="$label" 'BEGIN {
    ratio = (s > 0) ? t / s : 0; res = (ratio >= target) ? "PASS" : "BELOW";
    printf "%-14s %16.2f %18.2f %9.1fx %7s %7s", label, t, s, ratio, ">=" target "x", res }')
  echo "$line"
  [[ $line == *BELOW ]] && below=1
done
if [[ $below -eq 1 && $STRICT -eq 1 ]]; then
  echo "render_vs_tera: a target was not met" >&2
  exit 1
fi
