#!/usr/bin/env bash
# Template instantiation benchmark: `sindri serve` under wrk, on SQLite and PostgreSQL.
#
#   bench/template_bench.sh [--duration S] [--connections N] [--backend sqlite|postgres|both]
#                           [--warmup S] [--broker-threads N] [--keep] [--perf]
#   bench/template_bench.sh --instructions [--creations N] [--templates N] [--warmup N] [--keep]
#
# On a fresh database per backend a generator creates a stack and the
# three-tier template of ../shared/corpus/bench (three-tier.tera, with
# bench/three-tier.schema.json as its parameter schema and a label the stack
# carries), then two scenarios run on the same broker, one after the other:
#   instantiate    POST /api/v1/stacks/{id}/deployment-objects/from-template
#                  with {template_id, parameters: three-tier.json}: schema
#                  defaults and validation, label matching, rendering, the
#                  manifest check, the object and its provenance row
#                  [>= 5,000 req/s on SQLite, >= 2,000 on PostgreSQL, p99 <= 15 ms]
#   direct         POST /api/v1/stacks/{id}/deployment-objects with the same
#                  rendered YAML (the dry run's POST /templates/{id}/render),
#                  i.e. creating the same YAML directly
# and the cost of instantiation is set beside that of direct creation: the
# broker's CPU time per request and req/s. Every request sends the same body, so every object of a
# scenario is the same YAML. Before the timed runs the seeding checks that
# the dry run, the first instantiation's yaml_content and the corpus's
# three-tier.expected.out are the same bytes, and that the object's
# provenance names the template version and the parameters; a --warmup run
# of instantiation (default 2 s) lets the broker's caches fill first.
#
# It builds nothing: it runs $SINDRI_BIN (default build/bin/sindri; build a
# Release one for figures worth quoting). PostgreSQL runs under
# scripts/with-postgres.sh unless SINDRI_TEST_POSTGRES_URL names a server.
# wrk, python3 and curl must be installed. The broker, wrk and the database
# share this machine, so the load average is printed beside every figure;
# the CPU figures are the broker process's own (not PostgreSQL's).
# --keep keeps the logs and wrk's output; --perf (implies --keep) also
# records the broker with perf (cpu-clock, DWARF call graphs) during each
# timed run, for `perf report -i FILE --children`.
# Exits 1 if anything failed (seeding, a check, any answer outside 2xx),
# not when a figure misses its target: that is for the reader.
#
# --instructions (first, followed by its own options) runs
# bench/template_instructions.sh instead: seed 000's criterion, "performance
# impact < 5% on deployment object creation (compared to manual YAML)", read
# as the template system's cost to direct creation (10,000 stored templates
# against none) and counted in instructions under callgrind, with
# instantiation's extra cost split into render, validation and provenance.
set -euo pipefail

if [[ ${1:-} == --instructions ]]; then
  shift
  exec bash "$(dirname "${BASH_SOURCE[0]}")/template_instructions.sh" "$@"
fi

bench_name=template_bench.sh
# shellcheck source=bench/broker_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/broker_common.sh"

duration=20
connections=32
backend=both
warmup=2
broker_threads=
keep=0
profile=0
rows_to=  # internal: the PostgreSQL half, run under with-postgres.sh, appends its rows here

usage() {
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --duration) duration=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --backend) backend=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --broker-threads) broker_threads=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --perf) profile=1; keep=1; shift ;;
    --rows-to) rows_to=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "template_bench.sh: unknown argument $1" >&2; usage ;;
  esac
done
case $backend in sqlite|postgres|both) ;; *) echo "template_bench.sh: --backend sqlite, postgres or both" >&2; exit 2 ;; esac
positive_integers "$duration" "$connections" ${broker_threads:+"$broker_threads"}
[[ $warmup =~ ^[0-9]+$ ]] || { echo "template_bench.sh: --warmup $warmup is not a number of seconds" >&2; exit 2; }
if [[ $profile -eq 1 ]] && ! command -v perf >/dev/null; then
  echo "template_bench.sh: --perf needs perf (linux-perf)" >&2
  exit 1
fi

bench_init template-bench
# One generator sends every request, under the default render settings: past
# its render.per_identity_limit it uses the render threads no other caller
# waits for (all but one), as an operator's broker would give it.

corpus=${SINDRI_BENCH_CORPUS:-$root/../shared/corpus/bench}
[[ -d $corpus ]] || { echo "template_bench.sh: the corpus directory $corpus is missing (set SINDRI_BENCH_CORPUS)" >&2; exit 1; }
corpus=$(cd "$corpus" && pwd)
for file in "$corpus/three-tier.tera" "$corpus/three-tier.json" "$here/three-tier.schema.json"; do
  [[ -f $file ]] || { echo "template_bench.sh: $file is missing" >&2; exit 1; }
done

# The generator, its stack and template, through the API; the request
# bodies of both scenarios into DIR (instantiate.json, direct.json) and the
# checks of the seeding. Prints KEY=VALUE lines.
seed() {
  python3 - "$@" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["SINDRI_BENCH_DIR"])
from broker_api import api_caller

base, admin_pak, corpus, schema_file, out = sys.argv[1:6]
content = open(os.path.join(corpus, "three-tier.tera")).read()
parameters = json.load(open(os.path.join(corpus, "three-tier.json")))
schema_text = open(schema_file).read()

call = api_caller(base)

generator = call("POST", "/api/v1/generators", admin_pak, {"name": "template-bench"})
generator_id, pak = generator["generator"]["id"], generator["pak"]
stack = call("POST", "/api/v1/stacks", pak, {"name": "three-tier", "generator_id": generator_id})
call("POST", f"/api/v1/stacks/{stack['id']}/labels", pak, "tier=three")
template = call("POST", "/api/v1/templates", pak, {
    "name": "three-tier", "description": "PostgreSQL, backend and frontend in one deployment object",
    "template_content": content, "parameters_schema": schema_text})
if template.get("version") != 1 or template.get("generator_id") != generator_id:
    raise SystemExit(f"seeding: the new template is {template!r:.300}")
# A label, so that every instantiation matches the template against the stack.
call("POST", f"/api/v1/templates/{template['id']}/labels", pak, {"label": "tier=three"})

# Invalid parameters must be refused, or the schema is not being checked.
bad = dict(parameters, namespace="Not A Namespace")
call("POST", f"/api/v1/templates/{template['id']}/render", pak,
     {"parameters": bad, "stack_id": stack["id"]}, expect=(400,))

rendered = call("POST", f"/api/v1/templates/{template['id']}/render", pak,
                {"parameters": parameters, "stack_id": stack["id"]})["yaml_content"]
instantiate = {"template_id": template["id"], "parameters": parameters}
direct = {"yaml_content": rendered}
first = call("POST", f"/api/v1/stacks/{stack['id']}/deployment-objects/from-template", pak, instantiate)
if first["yaml_content"] != rendered:
    raise SystemExit("seeding: the instantiated object's yaml_content differs from the dry run's")
expected_file = os.path.join(corpus, "three-tier.expected.out")
if os.path.exists(expected_file) and open(expected_file).read() != rendered:
    raise SystemExit(f"seeding: the broker's rendering differs from {expected_file}")
provenance = call("GET", f"/api/v1/deployment-objects/{first['id']}/provenance", pak)
if (provenance.get("template_id"), provenance.get("template_version"), provenance.get("parameters")) != \
        (template["id"], 1, parameters):
    raise SystemExit(f"seeding: the provenance is {provenance!r:.500}")
call("POST", f"/api/v1/stacks/{stack['id']}/deployment-objects", pak, direct)

with open(os.path.join(out, "instantiate.json"), "w") as file:
    json.dump(instantiate, file, separators=(",", ":"))
with open(os.path.join(out, "direct.json"), "w") as file:
    json.dump(direct, file, separators=(",", ":"))
print(f"GENERATOR_PAK={pak}\nSTACK_ID={stack['id']}\nTEMPLATE_ID={template['id']}")
print(f"YAML_BYTES={len(rendered.encode())}\nDOCUMENTS={rendered.count(chr(10) + '---' + chr(10)) + 1}")
PY
}

# One backend: a fresh database, the seeding, the warm-up, both timed runs.
# Appends rows to $2.
bench_backend() {
  local backend=$1 rows=$2
  local dir=$work/$backend
  mkdir -p "$dir"
  start_broker "$backend" "$dir"
  local url=$broker_url

  echo "[$backend] seeding: generator, stack, three-tier template; checking the dry run and provenance" >&2
  local GENERATOR_PAK='' STACK_ID='' TEMPLATE_ID='' YAML_BYTES='' DOCUMENTS='' key value
  while IFS='=' read -r key value; do
    case $key in
      GENERATOR_PAK) GENERATOR_PAK=$value ;; STACK_ID) STACK_ID=$value ;; TEMPLATE_ID) TEMPLATE_ID=$value ;;
      YAML_BYTES) YAML_BYTES=$value ;; DOCUMENTS) DOCUMENTS=$value ;;
    esac
  done < <(seed "$url" "$admin_pak" "$corpus" "$here/three-tier.schema.json" "$dir")
  [[ -n $DOCUMENTS ]] || { echo "template_bench.sh: seeding failed" >&2; return 1; }
  echo "[$backend] template $TEMPLATE_ID renders $YAML_BYTES bytes, $DOCUMENTS documents;" \
    "request bodies: $(wc -c <"$dir/instantiate.json") bytes (instantiate), $(wc -c <"$dir/direct.json") bytes (direct)" >&2

  local from_template=$url/api/v1/stacks/$STACK_ID/deployment-objects/from-template
  local direct=$url/api/v1/stacks/$STACK_ID/deployment-objects
  export SINDRI_BENCH_PAK=$GENERATOR_PAK
  if [[ $warmup -gt 0 ]]; then
    echo "[$backend] warm-up: instantiate for ${warmup}s" >&2
    local warm_rows
    warm_rows=$(duration=$warmup profile=0 SINDRI_BENCH_BODY_FILE=$dir/instantiate.json \
      run_wrk warmup "$backend" post_json.lua "$from_template" "$dir/wrk-warmup.log")
    # A failure shows at once, not after the timed runs.
    printf '%s\n' "$warm_rows" >>"$dir/warmup.tsv"
    if has_errors "$dir/warmup.tsv"; then
      echo "template_bench.sh: the warm-up had failed requests, see $dir/wrk-warmup.log" >&2
      return 1
    fi
  fi

  echo "[$backend] instantiate: wrk -t2 -c$connections -d${duration}s" >&2
  SINDRI_BENCH_BODY_FILE=$dir/instantiate.json \
    run_wrk instantiate "$backend" post_json.lua "$from_template" "$dir/wrk-instantiate.log" >>"$rows"
  echo "[$backend] direct: wrk -t2 -c$connections -d${duration}s" >&2
  SINDRI_BENCH_BODY_FILE=$dir/direct.json \
    run_wrk direct "$backend" post_json.lua "$direct" "$dir/wrk-direct.log" >>"$rows"

  stop_broker
}

run_backends "$here/template_bench.sh" --warmup "$warmup"

# The table: per backend, instantiation and direct creation side by side,
# then the cost of instantiation relative to direct creation.
echo
echo "sindri template instantiation benchmark: $(machine_line)"
echo "broker: $sindri${broker_threads:+ --threads $broker_threads}; load: wrk -t2 -c$connections -d${duration}s on the same machine"
echo "template: $corpus/three-tier.tera ($(grep -c "^kind:" "$corpus/three-tier.expected.out") objects, $(wc -c <"$corpus/three-tier.expected.out") bytes rendered); schema: bench/three-tier.schema.json"
echo "load average at start: $load_start; at end: $load_end"
echo
awk -F'\t' '
  BEGIN {
    printf "%-9s %-12s %9s %8s %8s %8s %8s %7s %-22s %-8s %s\n", "backend", "scenario", "req/s", "p50 ms",
           "p95 ms", "p99 ms", "CPU us", "errors", "target", "met", "load avg (1/5/15) at start"
  }
  function row(backend, scenario,   target, verdict, i) {
    i = backend SUBSEP scenario
    if (!(i in rps)) return
    if (scenario == "instantiate") {
      target = backend == "sqlite" ? ">=5000/s p99<=15ms" : ">=2000/s p99<=15ms"
      verdict = (rps[i] >= (backend == "sqlite" ? 5000 : 2000) && p99[i] <= 15) ? "met" : "NOT MET"
    } else {
      target = "(reference)"
      verdict = ""
    }
    if (errors[i] > 0) verdict = "ERRORS"
    printf "%-9s %-12s %9d %8.2f %8.2f %8.2f %8d %7d %-22s %-8s %s\n", backend, scenario, rps[i], p50[i],
           p95[i], p99[i], cpu[i], errors[i], target, verdict, load[i]
    if (errors[i] > 0) printf "  %d of %d requests failed (see the wrk logs)\n", errors[i], requests[i]
  }
  {
    i = $2 SUBSEP $1
    rps[i] = $3; p50[i] = $4; p95[i] = $5; p99[i] = $6; errors[i] = $7; load[i] = $8; requests[i] = $9; cpu[i] = $11
    if (!($2 in seen)) { seen[$2] = 1; order[++backends] = $2 }
  }
  END {
    for (b = 1; b <= backends; b++) {
      backend = order[b]
      row(backend, "instantiate")
      row(backend, "direct")
      inst = backend SUBSEP "instantiate"; direct = backend SUBSEP "direct"
      if ((inst in rps) && (direct in rps) && cpu[direct] > 0 && rps[inst] > 0) {
        cpu_ratio = cpu[inst] / cpu[direct]
        rps_ratio = rps[direct] / rps[inst]
        printf "%-9s %-12s %8.2fx %8s %8s %8s %7.2fx %7s %-22s\n", backend, "inst/direct", 1 / rps_ratio,
               "", "", "", cpu_ratio, "", "(extra cost)"
        printf "  instantiation costs %+.1f%% broker CPU per request and %+.1f%% req/s against direct creation\n",
               (cpu_ratio - 1) * 100, (1 / rps_ratio - 1) * 100
      }
    }
    print ""
    print "CPU us: the broker process'"'"'s CPU time per request (user + system; a PostgreSQL server'"'"'s is not in it)"
    print "inst/direct: req/s and CPU per request of instantiation over those of direct creation of the same YAML;"
    print "  rendering alone costs more than 5% of a creation, so seed 000'"'"'s 5% is the template system'"'"'s cost"
    print "  to direct creation, counted in instructions: bench/template_bench.sh --instructions"
  }
' "$rows"
failed=0
if has_errors "$rows"; then failed=1 keep=1; fi
if [[ $keep -eq 1 ]]; then echo "logs and wrk output: $work"; fi
exit "$failed"
