#!/usr/bin/env bash
# Sindri against the Python libraries users would otherwise reach for, side
# by side in one run, printed as ratios:
#   validate  the three-tier parameters (shared/corpus/bench/three-tier.json)
#             against tests/schema/three-tier.schema.json: every violation
#             collected, formats checked; python3-jsonschema's Draft7Validator
#             with its FORMAT_CHECKER vs sindri::schema::validate.
#             Target: >= 20x.
#   yaml      a generated 10 MB multi-document Kubernetes stream
#             (bench/gen_k8s_stream.py): python3-yaml's C loader
#             (yaml.load_all(..., Loader=yaml.CSafeLoader)) vs
#             sindri::parse_yaml_stream. Target: >= 2x.
# Each side times only the work in-process (no start-up, no file reading)
# and reports its best of N runs.
#
# usage: bench/params_vs_python.sh [--strict]
#   --strict      exit 1 when a target is not met
# env:   BUILD_DIR (build), SHARED_DIR (../shared), PYTHON (/usr/bin/python3:
#        Debian's interpreter, with python3-jsonschema and python3-yaml),
#        VALIDATE_RUNS (2000), YAML_RUNS (3), YAML_MB (10)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED_DIR:-$ROOT/../shared}
BUILD=${BUILD_DIR:-$ROOT/build}
PYTHON=${PYTHON:-/usr/bin/python3}
VALIDATE_RUNS=${VALIDATE_RUNS:-2000}
YAML_RUNS=${YAML_RUNS:-3}
YAML_MB=${YAML_MB:-10}
STRICT=0
if [[ ${1:-} == --strict ]]; then STRICT=1; fi

SCHEMA=$ROOT/tests/schema/three-tier.schema.json
INSTANCE=$SHARED/corpus/bench/three-tier.json
for f in "$SCHEMA" "$INSTANCE"; do
  [[ -f $f ]] || { echo "params_vs_python: missing $f" >&2; exit 1; }
done
if ! "$PYTHON" -c 'import jsonschema, yaml; yaml.CSafeLoader' 2>/dev/null; then
  echo "params_vs_python: $PYTHON lacks jsonschema or yaml's C loader" \
       "(apt-get install -y python3-jsonschema python3-yaml)" >&2
  exit 1
fi

echo "== building sindri-bench-params (Release, $BUILD)" >&2
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target sindri-bench-params >&2
SINDRI=$BUILD/bin/sindri-bench-params

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
STREAM=$TMP/k8s-stream.yaml
"$PYTHON" "$ROOT/bench/gen_k8s_stream.py" "$STREAM" $((YAML_MB * 1024 * 1024))
echo "== stream: $(wc -c <"$STREAM") bytes" >&2

python_validate() {
  "$PYTHON" - "$SCHEMA" "$INSTANCE" "$VALIDATE_RUNS" <<'PY'
import json, sys, time
import jsonschema
schema = json.load(open(sys.argv[1]))
instance = json.load(open(sys.argv[2]))
runs = int(sys.argv[3])
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = list(validator.iter_errors(instance))
if errors:
    sys.exit("python: the instance does not validate: %s" % errors[0].message)
best = float("inf")
for _ in range(runs):
    start = time.perf_counter()
    list(validator.iter_errors(instance))
    best = min(best, time.perf_counter() - start)
print("%.9f" % best)
PY
}

python_yaml() {
  "$PYTHON" - "$STREAM" "$YAML_RUNS" <<'PY'
import sys, time
import yaml
text = open(sys.argv[1], encoding="utf-8").read()
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    docs = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    best = min(best, time.perf_counter() - start)
print("python: %d documents" % len(docs), file=sys.stderr)
print("%.9f" % best)
PY
}

# name, peer, peer seconds, sindri seconds, target ratio
rows=()
measure() {
  local name=$1 peer=$2 target=$3 peer_s ours_s
  shift 3
  peer_s=$("python_$name")
  ours_s=$("$SINDRI" "$@")
  rows+=("$name|$peer|$peer_s|$ours_s|$target")
}
measure validate "python3-jsonschema $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("jsonschema"))')" 20 \
  validate "$SCHEMA" "$INSTANCE" "$VALIDATE_RUNS"
measure yaml "python3-yaml $("$PYTHON" -c 'import yaml; print(yaml.__version__)') CSafeLoader" 2 \
  yaml "$STREAM" "$YAML_RUNS"

status=0
printf '%-9s %-32s %14s %14s %9s %7s  %s\n' bench peer "peer" "sindri" ratio target result
for row in "${rows[@]}"; do
  IFS='|' read -r name peer peer_s ours_s target <<<"$row"
  read -r ratio verdict < <(awk -v p="$peer_s" -v o="$ours_s" -v t="$target" \
    'BEGIN { r = p / o; printf "%.1f %s\n", r, (r >= t ? "PASS" : "BELOW") }')
  [[ $verdict == PASS ]] || status=1
  fmt_time() { awk -v s="$1" 'BEGIN { if (s < 1e-3) printf "%.1f us", s * 1e6; else if (s < 1) printf "%.2f ms", s * 1e3; else printf "%.3f s", s }'; }
  printf '%-9s %-32s %14s %14s %8sx %6sx  %s\n' "$name" "$peer" "$(fmt_time "$peer_s")" "$(fmt_time "$ours_s")" \
    "$ratio" "$target" "$verdict"
done
if [[ $STRICT == 1 ]]; then exit $status; fi
