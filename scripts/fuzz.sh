#!/usr/bin/env bash
# Fuzzes the Tera parser and renderer, then the YAML reader (against the
# manifest check's outline of it), with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer for a bounded time each.
#
# usage: scripts/fuzz.sh [SECONDS]     (default 60, for each target)
# Builds build-fuzz/ with clang (-DSINDRI_FUZZ=ON -DSINDRI_SANITIZE=ON),
# writes a seed corpus from ../shared/corpus/tera*/ (template, a NUL byte,
# then the context JSON) into build-fuzz/seeds/; the YAML target starts from
# tests/value/yaml_cases. What the fuzzers find is kept in fuzz/corpus-work/
# and fuzz/corpus-work-yaml/ (not committed). Exits non-zero on any crash,
# leak, timeout or out-of-memory. Reproduce a finding with
#   build-fuzz/bin/fuzz_template build-fuzz/artifacts/crash-...
#   build-fuzz/bin/fuzz_yaml_outline build-fuzz/artifacts/crash-...
set -euo pipefail

SECONDS_TO_RUN=${1:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED_DIR:-$ROOT/../shared}
BUILD=$ROOT/build-fuzz
cd "$ROOT"

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/setup.sh installs it)" >&2; exit 1; }

echo "== configuring and building $BUILD (clang, ASan + UBSan + libFuzzer)"
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSINDRI_FUZZ=ON -DSINDRI_SANITIZE=ON -DSINDRI_TESTS=OFF -DSINDRI_BENCH=OFF >/dev/null
cmake --build "$BUILD" --target fuzz_template fuzz_yaml_outline

# The seed corpus, generated from the shared conformance corpus.
SEEDS=$BUILD/seeds
rm -rf "$SEEDS"
mkdir -p "$SEEDS" "$ROOT/fuzz/corpus-work" "$ROOT/fuzz/corpus-work-yaml" "$BUILD/artifacts"
[[ -d $SHARED/corpus/tera ]] || echo "fuzz.sh: warning: no $SHARED/corpus/tera; seeding from examples/ only" >&2
n=0
for dir in "$SHARED"/corpus/tera/*/; do
  [[ -f $dir/template.tera ]] || continue
  {
    cat "$dir/template.tera"
    if [[ -f $dir/context.json ]]; then printf '\0'; cat "$dir/context.json"; fi
  } >"$SEEDS/$(basename "$dir")"
  n=$((n + 1))
done
for file in "$SHARED"/corpus/tera-dir/*/templates/* "$SHARED"/corpus/bench/*.tera "$ROOT"/examples/*/*.tera; do
  [[ -f $file ]] || continue
  cp "$file" "$SEEDS/$(echo "${file#"$SHARED"/}" | tr '/' '_')"
  n=$((n + 1))
done
echo "== $n seeds in $SEEDS; fuzz_template for $SECONDS_TO_RUN s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Runs one target for the time given: fuzz TARGET MAX_LEN DICT CORPUS SEEDS.
# libFuzzer exits non-zero on a crash, a leak, a timeout or running out of memory.
fuzz() {
  "$BUILD/bin/$1" \
    -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 -max_len="$2" \
    -dict="$3" -artifact_prefix="$BUILD/artifacts/" \
    -print_final_stats=1 \
    "$4" "$5"
}
fuzz fuzz_template 65536 "$ROOT/fuzz/tera.dict" "$ROOT/fuzz/corpus-work" "$SEEDS"
echo "== fuzz_yaml_outline for $SECONDS_TO_RUN s"
fuzz fuzz_yaml_outline 4096 "$ROOT/fuzz/yaml.dict" "$ROOT/fuzz/corpus-work-yaml" "$ROOT/tests/value/yaml_cases"
echo "== fuzzing: no crash, leak or timeout in $SECONDS_TO_RUN s of each target"
