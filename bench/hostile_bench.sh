#!/usr/bin/env bash
# The broker under the two attacks of issue 27, each beside the same callers unattacked.
#
#   bench/hostile_bench.sh [--duration S] [--connections N] [--open-rate N] [--renderers N]
#                          [--broker-flag FLAG]... [--keep]
#
# One `sindri serve` on SQLite with its default caps, and on it: a tenant
# generator with a stack and one deployment object, an agent targeting it,
# and a heavy generator with a legal but heavy template (a string doubled
# 20 times, then `replace` over it 20 times: within the render budget).
#   connections  N connections (default 20,000) from sindri-bench-flood
#                processes without credentials, half sending a request line
#                and nothing more, half trickling a header a byte a second,
#                each closed one opened again (at most --open-rate a second
#                in all, default 2,000). Meanwhile a prober asks /healthz on a
#                new connection every 20 ms, as a kubelet does, and the agent
#                polls its target state over one kept-alive connection every
#                20 ms [/healthz p99 < 100 ms]
#   renders      --renderers threads (default 8) of the heavy generator
#                render its template (POST /templates/{id}/render) back to
#                back; meanwhile the tenant lists its stacks over a
#                kept-alive connection every 20 ms and the prober asks
#                /healthz [other tenant p99 < 50 ms, /healthz p99 < 100 ms]
# Each caller runs --duration seconds (default 10) unattacked, then as long
# under the attack. Printed: p50 and p99 of each caller both ways, requests
# without an answer, the heavy renders' statuses, and the connections the
# broker refused by reason (sindri_http_connections_refused_total).
#
# It builds nothing: it runs $SINDRI_BIN (default build/bin/sindri) and
# sindri-bench-flood and sindri-bench-requests beside it, or in
# $SINDRI_BENCH_TOOLS (build the targets; Release for figures worth
# quoting). Needs python3 and curl. A flood process holds at most 10,000
# connections, fewer when the hard limit on open files is lower. Exits 1 if
# a caller's request went unanswered, or a render got a 5xx other than 503
# or a 429 or 503 without Retry-After; not when a figure misses its
# target: that is for the reader.
set -euo pipefail

bench_name=hostile_bench.sh
bench_tools="python3 curl"
# shellcheck source=bench/broker_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/broker_common.sh"

duration=10
connections=20000
open_rate=2000
renderers=8
keep=0
broker_threads=  # the broker's default
extra_flags=()

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --duration) duration=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --open-rate) open_rate=${2:?}; shift 2 ;;
    --renderers) renderers=${2:?}; shift 2 ;;
    --broker-flag) extra_flags+=("${2:?}"); shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage ;;
    *) echo "hostile_bench.sh: unknown argument $1" >&2; usage ;;
  esac
done
positive_integers "$duration" "$connections" "$open_rate" "$renderers"

bench_init hostile-bench
flood_pids=()
# The floods stop with the script, whatever ends it; then bench_cleanup
# (which reads the exit status) stops the broker.
# shellcheck disable=SC2317  # called by the trap
hostile_cleanup() {
  local status=$?
  if ((${#flood_pids[@]} > 0)); then kill -TERM "${flood_pids[@]}" 2>/dev/null || true; fi
  (exit "$status")
  bench_cleanup
}
trap hostile_cleanup EXIT
bin_dir=${SINDRI_BENCH_TOOLS:-$(dirname "$sindri")}
flood=$bin_dir/sindri-bench-flood
requests=$bin_dir/sindri-bench-requests
for tool in "$flood" "$requests"; do
  [[ -x $tool ]] || { echo "hostile_bench.sh: $tool is not built; build its target" >&2; exit 1; }
done

# Every flood process and the broker need their connections' descriptors.
hard_limit=$(ulimit -Hn)
[[ $hard_limit == unlimited ]] && hard_limit=1048576
per_flood=$((hard_limit - 100 < 10000 ? hard_limit - 100 : 10000))
((per_flood >= 100)) || { echo "hostile_bench.sh: the hard limit on open files ($hard_limit) is too low" >&2; exit 1; }
ulimit -n "$hard_limit"
floods=$(((connections + per_flood - 1) / per_flood))

# The callers, the heavy template and its render's body, through the API.
# Prints KEY=VALUE lines.
seed() {
  python3 - "$@" <<'PY'
import json, os, sys, time
sys.path.insert(0, os.environ["SINDRI_BENCH_DIR"])
from broker_api import api_caller

base, admin_pak, out = sys.argv[1:4]
call = api_caller(base)

tenant = call("POST", "/api/v1/generators", admin_pak, {"name": "tenant"})
stack = call("POST", "/api/v1/stacks", tenant["pak"], {"name": "web", "generator_id": tenant["generator"]["id"]})
call("POST", f"/api/v1/stacks/{stack['id']}/deployment-objects", tenant["pak"],
     {"yaml_content": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n"})
agent = call("POST", "/api/v1/agents", admin_pak, {"name": "agent", "cluster_name": "prod"})
call("POST", f"/api/v1/agents/{agent['agent']['id']}/targets", admin_pak, {"stack_id": stack["id"]})

heavy = call("POST", "/api/v1/generators", admin_pak, {"name": "heavy"})
content = ("{% set_global s = 'x' %}{% for i in range(end=20) %}{% set_global s = s ~ s %}{% endfor %}"
           "{% for i in range(end=20) %}{% set_global s = s | replace(from='x', to='x') %}{% endfor %}"
           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: heavy\ndata:\n  length: \"{{ s | length }}\"\n")
template = call("POST", "/api/v1/templates", heavy["pak"],
                {"name": "heavy", "template_content": content, "parameters_schema": "{}"})
with open(os.path.join(out, "render.json"), "w") as file:
    json.dump({"parameters": {}}, file)
start = time.monotonic()
rendered = call("POST", f"/api/v1/templates/{template['id']}/render", heavy["pak"], {"parameters": {}})
if "1048576" not in rendered["yaml_content"]:
    raise SystemExit(f"seeding: the heavy template rendered {rendered!r:.300}")
print(f"RENDER_MS={(time.monotonic() - start) * 1000:.0f}")
print(f"TENANT_PAK={tenant['pak']}\nAGENT_PAK={agent['initial_pak']}\nAGENT_ID={agent['agent']['id']}")
print(f"HEAVY_PAK={heavy['pak']}\nTEMPLATE_ID={template['id']}")
PY
}

# The broker's refused connections by reason, as "reason=count" lines.
refusals() {
  curl -sS --max-time 30 -H "Authorization: Bearer $admin_pak" "$broker_url/metrics" |
    sed -n 's/^sindri_http_connections_refused_total{reason="\([a-z_]*\)"} \([0-9.e+]*\)$/\1=\2/p'
}
open_connections() {
  curl -sS --max-time 30 -H "Authorization: Bearer $admin_pak" "$broker_url/metrics" |
    awk '$1 == "sindri_http_open_connections" { print $2 }'
}

# One timed caller into $work/PHASE.NAME:
#   caller PHASE NAME METHOD PATH [sindri-bench-requests flags]...
caller() {
  local phase=$1 name=$2 method=$3 path=$4
  shift 4
  "$requests" "$name" "$broker_url" "$method" "$path" "$duration" "$@" \
    >"$work/$phase.$name" 2>"$work/$phase.$name.err" &
  caller_pids+=($!)
}
# Waits for the callers started so far.
wait_callers() {
  wait "${caller_pids[@]}"
  caller_pids=()
}
caller_pids=()

connection_callers() {
  caller "$1" healthz GET /healthz --new-connection --interval 0.02
  caller "$1" agent GET "/api/v1/agents/$AGENT_ID/target-state" --pak "$AGENT_PAK" --interval 0.02
}
render_callers() {
  caller "$1" tenant GET /api/v1/stacks --pak "$TENANT_PAK" --interval 0.02
  caller "$1" healthz GET /healthz --new-connection --interval 0.02
}

mkdir -p "$work/broker"
broker_flags=("${extra_flags[@]}")
start_broker sqlite "$work/broker"
echo "seeding: a tenant and its agent, a heavy generator and its template" >&2
RENDER_MS='' TENANT_PAK='' AGENT_PAK='' AGENT_ID='' HEAVY_PAK='' TEMPLATE_ID=''
while IFS='=' read -r key value; do
  case $key in
    RENDER_MS) RENDER_MS=$value ;; TENANT_PAK) TENANT_PAK=$value ;; AGENT_PAK) AGENT_PAK=$value ;;
    AGENT_ID) AGENT_ID=$value ;; HEAVY_PAK) HEAVY_PAK=$value ;; TEMPLATE_ID) TEMPLATE_ID=$value ;;
  esac
done < <(seed "$broker_url" "$admin_pak" "$work")
[[ -n $TEMPLATE_ID ]] || { echo "hostile_bench.sh: seeding failed" >&2; exit 1; }
load_start=$(load_average)

echo "connections: unattacked, ${duration}s" >&2
connection_callers connections-unattacked
wait_callers
refusals >"$work/refusals.before"
echo "connections: $connections held by $floods flood processes" >&2
for ((i = 0; i < floods; i++)); do
  share=$(((connections - i * per_flood) < per_flood ? connections - i * per_flood : per_flood))
  "$flood" "${broker_url##*:}" "$share" $((duration + 180)) --open-rate $((open_rate / floods)) \
    --source-addresses "$((2 + i % 3 * 64)):64" --ready-file "$work/flood.$i.ready" >"$work/flood.$i" 2>&1 &
  flood_pids+=($!)
done
waited=0
for ((i = 0; i < floods; i++)); do
  until [[ -s $work/flood.$i.ready ]]; do
    ((waited++ < 1200)) || { echo "hostile_bench.sh: the flood did not open its connections in 120 s" >&2; exit 1; }
    sleep 0.1
  done
done
echo "connections: attacked, ${duration}s" >&2
connection_callers connections-attacked
sleep $((duration / 2))
held=$(open_connections)
wait_callers
kill -TERM "${flood_pids[@]}"
wait "${flood_pids[@]}"
flood_pids=()
refusals >"$work/refusals.after"

echo "renders: unattacked, ${duration}s" >&2
render_callers renders-unattacked
wait_callers
echo "renders: $renderers renderers of one generator" >&2
"$requests" renders "$broker_url" POST "/api/v1/templates/$TEMPLATE_ID/render" $((duration + 2)) \
  --pak "$HEAVY_PAK" --body-file "$work/render.json" --concurrency "$renderers" --timeout 60 \
  >"$work/renders" 2>"$work/renders.err" &
renders_pid=$!
sleep 1
render_callers renders-attacked
wait_callers
wait "$renders_pid"
load_end=$(load_average)
halt_broker

# key=value of a caller's line: figure FILE KEY
figure() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }
failed=0
echo
echo "sindri hostile-load benchmark: $(machine_line)"
echo "broker: $sindri, SQLite, default caps${extra_flags[*]:+ and ${extra_flags[*]}}; a heavy render alone: $RENDER_MS ms"
echo "load average at start: $load_start; at end: $load_end"
echo
printf '%-12s %-34s %21s %21s %10s  %s\n' attack caller "unattacked p50/p99 ms" "attacked p50/p99 ms" unanswered \
  "target (attacked)"
# A caller's row; TARGET_MS, when given, is the most its attacked p99 may be:
#   row ATTACK NAME LABEL [TARGET_MS]
row() {
  local attack=$1 name=$2 label=$3 target_ms=${4:-} before=$work/$1-unattacked.$2 after=$work/$1-attacked.$2
  local unanswered verdict=
  unanswered=$(($(figure "$before" failures) + $(figure "$after" failures)))
  ((unanswered == 0)) || failed=1
  if [[ -n $target_ms ]]; then
    verdict="p99 < $target_ms ms: $(awk -v p99="$(figure "$after" p99_ms)" -v most="$target_ms" \
      'BEGIN { print (p99 < most ? "met" : "NOT MET") }')"
  fi
  printf '%-12s %-34s %10s/%-10s %10s/%-10s %10s  %s\n' "$attack" "$label" \
    "$(figure "$before" p50_ms)" "$(figure "$before" p99_ms)" "$(figure "$after" p50_ms)" "$(figure "$after" p99_ms)" \
    "$unanswered" "$verdict"
}
row connections healthz "/healthz, a new connection each" 100
row connections agent "agent's target state, kept alive"
row renders tenant "other tenant's GET /stacks" 50
row renders healthz "/healthz, a new connection each" 100
echo
echo "requests per caller (unattacked / attacked):"
for file in "$work"/*-unattacked.*; do
  [[ $file == *.err ]] && continue
  name=${file##*/}
  echo "  ${name/-unattacked/}: $(figure "$file" requests) / $(figure "${file/unattacked/attacked}" requests)"
done
echo "heavy renders: $(cut -d' ' -f2- "$work/renders")"
if grep -qE 'status_5(0[0-2]|0[4-9]|[1-9][0-9])=' "$work/renders"; then failed=1; fi
turned_away=$(($(figure "$work/renders" status_429) + $(figure "$work/renders" status_503) + 0))
if (($(figure "$work/renders" retry_after) < turned_away)); then
  echo "  some of the $turned_away renders answered 429 or 503 had no Retry-After"
  failed=1
fi
flood_outputs=()
for ((i = 0; i < floods; i++)); do
  flood_outputs+=("$work/flood.$i")
  echo "flood process $i: $(cut -d' ' -f2- "$work/flood.$i")"
done
awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] += kv[2]; if (kv[1] == "seconds") n++ } }
     END { printf "flood: %d connections opened in all, %.0f a second\n", f["opened"], f["opened"] / (f["seconds"] / n) }' \
  "${flood_outputs[@]}"
echo "broker connections open mid-attack: $held"
echo "connections refused during the flood:"
join -t= -a2 <(sort "$work/refusals.before") <(sort "$work/refusals.after") |
  awk -F= '{ printf "  %s: %d\n", $1, (NF == 3 ? $3 - $2 : $2) }'
for file in "$work"/*.err; do
  [[ -s $file ]] && { echo "${file##*/}:"; sed 's/^/  /' "$file"; }
done
[[ $failed -eq 0 ]] || keep=1
[[ $keep -eq 0 ]] || echo "logs: $work"
exit "$failed"
