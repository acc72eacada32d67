#!/usr/bin/env bash
# Installs what is needed, builds and runs every test, with a throwaway
# PostgreSQL 15 for the store and broker tests (ctest's `postgres` fixture,
# scripts/postgres-fixture.sh):
#   1. ui/          the console: type check, build (which the broker embeds),
#                   its unit tests (vitest);
#   2. build/       (RelWithDebInfo): all unit, conformance and CLI tests, then
#                   the console's browser tests (Playwright, Debian's chromium)
#                   against the broker just built;
#   3. build-asan/  (AddressSanitizer + UndefinedBehaviorSanitizer): the same C++
#                   tests but the broker's on PostgreSQL (they run once, in
#                   build/) and the two whose renders take minutes there;
#   4. scripts/fuzz.sh 60: the two libFuzzer targets for a minute each.
# Any failure fails the whole run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JOBS=${JOBS:-2}

# Each stage prints how long it took, and the run its total.
RUN_START=$SECONDS
STAGE=""
STAGE_START=$SECONDS
stage() {
  [[ -n $STAGE ]] && echo "== $STAGE: $((SECONDS - STAGE_START)) s"
  STAGE=$1
  STAGE_START=$SECONDS
  [[ -n $STAGE ]] && echo "== $STAGE"
  return 0
}

stage "setup"
scripts/setup.sh

stage "console: build (ui/)"
scripts/node-ok.sh
(cd ui && npm run --silent build)
stage "console: unit tests"
(cd ui && npx vitest run)

stage "build/ (RelWithDebInfo)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$JOBS"
stage "tests in build/"
ctest --test-dir build --output-on-failure -j "$JOBS"
stage "console: browser tests"
(cd ui && SINDRI_BIN="$ROOT/build/bin/sindri" npx playwright test)

stage "build-asan/ (ASan + UBSan)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSINDRI_SANITIZE=ON -DSINDRI_BENCH=OFF
cmake --build build-asan -j "$JOBS"
stage "tests in build-asan/"
# Run in build/ alone:
# - the broker's HTTP suites on PostgreSQL (Backends/...): they run the
#   broker's code its suites on SQLite run here, but for SQL text; the
#   store's tests and the brokers sharing one PostgreSQL (Databases/...,
#   Brokers.*, BrokerSchema.*) run here on PostgreSQL;
# - the two tests whose point is renders that take a second of CPU (the render
#   pool's isolation, a render without limits): under the sanitizers each such
#   render takes minutes. The pool's own tests run here.
# (A parameterised test's name goes on with "  # GetParam() = ...".)
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" \
    -E '^(Backends/[^ ]*/Postgres(Public)?( |$)|RenderIsolation\.OtherCallersAreAnsweredWhileOneCallersRendersRun$|RenderLimits\.ZeroLiftsTheLimit$)'

stage "fuzzing"
scripts/fuzz.sh 60
stage ""
echo "== all stages: $((SECONDS - RUN_START)) s"
