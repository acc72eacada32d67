#!/usr/bin/env bash
# Webhook benchmarks: `sindri serve` writing and delivering webhook events, on SQLite and PostgreSQL.
#
#   bench/webhook_bench.sh [--duration S] [--connections N] [--backend sqlite|postgres|both]
#                          [--broker-threads N] [--deliveries N] [--keep]
#
# Scenarios, on a fresh database per backend:
#   fanout-N     POST /api/v1/stacks/{id}/deployment-objects under wrk (as
#                broker_bench.sh's create-object) with N = 0, 1 and 10
#                subscriptions to deployment.created: each object writes its
#                event's N deliveries in its own transaction. Objects per
#                second, and deliveries written per second (objects x N).
#                The delivery pass does not run meanwhile (a day's
#                interval); the deliveries of the newest subscription are
#                counted against the objects created.
#   deliver-B    --deliveries (10,000) pending deliveries of 10 subscriptions
#                to a local receiver (nginx answering 200 to any POST and
#                logging each X-Brokkr-Delivery-Id), written by a broker whose
#                pass does not run; then a broker on the same database with
#                the pass every 0.01 s and batches of B = 50 and 200, timed
#                from its start until every delivery is `success` through
#                GET /webhooks/{id}/deliveries. Deliveries per second, the
#                broker's CPU time per delivery, and a check that the
#                receiver logged each delivery id exactly once.
# There is no peer to set beside these: Brokkr's broker (Rust) cannot run
# here.
#
# It builds nothing: it runs $SINDRI_BIN (default build/bin/sindri).
# PostgreSQL runs under scripts/with-postgres.sh unless
# SINDRI_TEST_POSTGRES_URL names a server. wrk, python3, curl and nginx
# must be installed. The broker, wrk, the receiver and the database share
# this machine, so the load average is printed beside every figure.
# Exits 1 if anything failed (seeding, a request answered with an error, a
# delivery missing or sent twice).
set -euo pipefail

bench_name=webhook_bench.sh
# shellcheck source=bench/broker_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/broker_common.sh"

duration=10
connections=32
backend=both
broker_threads=
deliveries=10000
keep=0
profile=0
rows_to=  # internal: the PostgreSQL half, run under with-postgres.sh, appends its rows here
bench_tools="wrk python3 curl nginx"

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --duration) duration=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --backend) backend=${2:?}; shift 2 ;;
    --broker-threads) broker_threads=${2:?}; shift 2 ;;
    --deliveries) deliveries=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --rows-to) rows_to=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "webhook_bench.sh: unknown argument $1" >&2; usage ;;
  esac
done
case $backend in sqlite|postgres|both) ;; *) echo "webhook_bench.sh: --backend sqlite, postgres or both" >&2; exit 2 ;; esac
positive_integers "$duration" "$connections" "$deliveries" ${broker_threads:+"$broker_threads"}
subscriptions=10
((deliveries % subscriptions == 0)) || { echo "webhook_bench.sh: --deliveries must be a multiple of 10" >&2; exit 2; }

bench_init webhook-bench

# A broker whose delivery pass never runs while the bench writes.
idle_delivery=(--webhooks-delivery-interval 86400)

# curl as the admin; prints the answer.
admin_call() {
  local method=$1 path=$2 body=${3:-}
  curl -sS --fail -X "$method" -H "Authorization: Bearer $admin_pak" -H 'Content-Type: application/json' \
    ${body:+--data "$body"} "$broker_url$path"
}

# A subscription to deployment.created delivering to URL; prints its id.
subscribe() {
  admin_call POST /api/v1/webhooks "{\"name\":\"bench\",\"url\":\"$1\",\"event_types\":[\"deployment.created\"]}" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}

# Whether the subscription holds exactly COUNT deliveries with STATUS
# (empty: any status): the COUNT-th exists and no later one.
holds_deliveries() {
  local subscription=$1 count=$2 status=${3:-} path
  path="/api/v1/webhooks/$subscription/deliveries?limit=1${status:+&status=$status}"
  [[ $(admin_call GET "$path&offset=$((count - 1))") != "[]" && $(admin_call GET "$path&offset=$count") == "[]" ]]
}

# A generator and its stack; prints GENERATOR_PAK=... and STACK=... lines.
seed_stack() {
  python3 - "$broker_url" "$admin_pak" <<'PY'
import os, sys
sys.path.insert(0, os.environ["SINDRI_BENCH_DIR"])
from broker_api import api_caller

base, admin_pak = sys.argv[1:3]
call = api_caller(base)
generator = call("POST", "/api/v1/generators", admin_pak, {"name": "bench"})
stack = call("POST", "/api/v1/stacks", generator["pak"], {"name": "webhooks", "generator_id": generator["generator"]["id"]})
print(f"GENERATOR_PAK={generator['pak']}\nSTACK={stack['id']}")
PY
}

# COUNT deployment objects in STACK, from four kept-alive connections.
create_objects() {
  python3 - "$broker_url" "$1" "$2" "$3" <<'PY'
import concurrent.futures, os, sys
sys.path.insert(0, os.environ["SINDRI_BENCH_DIR"])
from broker_api import KeptAliveCaller

base, pak, stack, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def create(worker):
    call = KeptAliveCaller(base)
    for i in range(worker, count, 4):
        call("POST", f"/api/v1/stacks/{stack}/deployment-objects", pak,
             {"yaml_content": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hook-{i}\n"})
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    list(pool.map(create, range(4)))
PY
}

# nginx answering 200 to every request and logging its delivery id, on a
# free port, two workers. Sets receiver_url and receiver_log.
start_receiver() {
  local dir=$work/receiver port
  mkdir -p "$dir/temp"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local as_root=
  [[ $(id -u) -ne 0 ]] || as_root='user root;'
  receiver_log=$dir/deliveries.log
  cat >"$dir/nginx.conf" <<NGINX
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log;
$as_root
events { worker_connections 4096; }
http {
  log_format delivery '\$http_x_brokkr_delivery_id';
  access_log $receiver_log delivery;
  client_body_temp_path $dir/temp/body;
  proxy_temp_path $dir/temp/proxy;
  fastcgi_temp_path $dir/temp/fastcgi;
  uwsgi_temp_path $dir/temp/uwsgi;
  scgi_temp_path $dir/temp/scgi;
  server { listen 127.0.0.1:$port; location / { return 200 '{"received":true}'; } }
}
NGINX
  nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
  peer_pid=$!
  receiver_url=http://127.0.0.1:$port
  local waited=0
  until curl -sS --fail -o /dev/null -X POST "$receiver_url/ready" 2>/dev/null; do
    kill -0 "$peer_pid" 2>/dev/null || { echo "$bench_name: nginx exited:" >&2; cat "$dir/error.log" >&2; return 1; }
    ((waited++ < 100)) || { echo "$bench_name: nginx did not answer within 10 s" >&2; return 1; }
    sleep 0.1
  done
}

# fanout-0, -1, -10 on one broker: subscriptions are added between runs.
bench_fanout() {
  local backend=$1 rows=$2
  local dir=$work/$backend/fanout
  mkdir -p "$dir"
  broker_schema='' broker_flags=("${idle_delivery[@]}")
  start_broker "$backend" "$dir"
  local GENERATOR_PAK='' STACK='' key value
  while IFS='=' read -r key value; do
    case $key in GENERATOR_PAK) GENERATOR_PAK=$value ;; STACK) STACK=$value ;; esac
  done < <(seed_stack)
  [[ -n $STACK ]] || { echo "$bench_name: seeding failed" >&2; return 1; }
  local count=0 newest='' wanted before after
  for wanted in 0 1 10; do
    while ((count < wanted)); do
      # Nothing listens on the discard port; nothing is sent anyway.
      newest=$(subscribe "http://127.0.0.1:9/hook/$count")
      count=$((count + 1))
    done
    before=$(stored_objects "$broker_url" "$GENERATOR_PAK" "$STACK")
    echo "[$backend] fanout-$wanted: wrk -t2 -c$connections -d${duration}s" >&2
    SINDRI_BENCH_PAK=$GENERATOR_PAK SINDRI_BENCH_STACK=$STACK SINDRI_BENCH_RUN=fanout$wanted \
      run_wrk "fanout-$wanted" "$backend" create_objects.lua "$broker_url" "$dir/wrk-fanout-$wanted.log" >>"$rows"
    after=$(stored_objects "$broker_url" "$GENERATOR_PAK" "$STACK")
    # Both probes' events are the newest subscription's too.
    if [[ -n $newest ]] && ! holds_deliveries "$newest" $((after - before + 1)); then
      echo "$bench_name: [$backend] fanout-$wanted: the newest subscription does not hold one delivery per object" >&2
      return 1
    fi
  done
  stop_broker
}

# deliver-B: pending deliveries written by one broker, delivered by the next.
bench_delivery() {
  local backend=$1 rows=$2 batch=$3
  local dir=$work/$backend/deliver-$batch
  mkdir -p "$dir"
  broker_schema=bench_$$_$RANDOM broker_flags=("${idle_delivery[@]}")
  start_broker "$backend" "$dir"
  local ids=() i
  for ((i = 0; i < subscriptions; i++)); do ids+=("$(subscribe "$receiver_url/hook/$i")"); done
  local GENERATOR_PAK='' STACK='' key value
  while IFS='=' read -r key value; do
    case $key in GENERATOR_PAK) GENERATOR_PAK=$value ;; STACK) STACK=$value ;; esac
  done < <(seed_stack)
  local per_subscription=$((deliveries / subscriptions))
  echo "[$backend] deliver-$batch: writing $deliveries pending deliveries" >&2
  create_objects "$GENERATOR_PAK" "$STACK" "$per_subscription"
  holds_deliveries "${ids[0]}" "$per_subscription" pending ||
    { echo "$bench_name: [$backend] the deliveries are not all pending" >&2; return 1; }
  halt_broker

  : >"$receiver_log"
  echo "[$backend] deliver-$batch: a broker with the pass every 0.01 s, batches of $batch" >&2
  broker_flags=(--webhooks-delivery-interval 0.01 --webhooks-delivery-batch-size "$batch")
  local load started ended ticks
  load=$(load_average)
  started=$(date +%s.%N)
  start_broker "$backend" "$dir"
  local waited=0
  until [[ $(wc -l <"$receiver_log") -ge $deliveries ]]; do
    ((waited++ < 6000)) || { echo "$bench_name: [$backend] deliveries missing after 120 s" >&2; return 1; }
    sleep 0.02
  done
  for i in "${ids[@]}"; do
    until holds_deliveries "$i" "$per_subscription" success; do
      ((waited++ < 6000)) || { echo "$bench_name: [$backend] deliveries not success after 120 s" >&2; return 1; }
      sleep 0.02
    done
  done
  ended=$(date +%s.%N)
  ticks=$(cpu_ticks "$broker_pid")  # a new process: all of it went to start-up and delivery
  sleep 0.2  # a stray second send would show by now
  local received duplicates
  received=$(wc -l <"$receiver_log")
  duplicates=$(sort "$receiver_log" | uniq -d | wc -l)
  # Field 7 counts failures, as in run_wrk's rows (has_errors reads it).
  printf 'deliver-%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$batch" "$backend" "$started" "$ended" "$received" \
    "$ticks" $((duplicates + (received != deliveries))) "$load" >>"$rows"
  stop_broker
}

bench_backend() {
  local backend=$1 rows=$2
  bench_fanout "$backend" "$rows"
  start_receiver
  bench_delivery "$backend" "$rows" 50
  bench_delivery "$backend" "$rows" 200
  kill "$peer_pid"
  wait "$peer_pid" || true
  peer_pid=
}

run_backends "$here/webhook_bench.sh" --deliveries "$deliveries"

echo
echo "sindri webhook benchmark: $(machine_line)"
echo "broker: $sindri${broker_threads:+ --threads $broker_threads}; load: wrk -t2 -c$connections -d${duration}s on the same machine"
echo "load average at start: $load_start; at end: $load_end"
echo "no peer: Brokkr's broker (Rust) cannot run on this machine"
echo
awk -F'\t' -v deliveries="$deliveries" -v tick="$(getconf CLK_TCK)" '
  BEGIN {
    printf "%-12s %-9s %10s %13s %8s %8s %7s %s\n", "scenario", "backend", "objects/s", "deliveries/s",
           "p99 ms", "CPU us", "errors", "load avg (1/5/15) at start"
  }
  $1 ~ /^fanout-/ {
    n = substr($1, 8)
    printf "%-12s %-9s %10d %13d %8.2f %8d %7d %s\n", $1, $2, $3, $3 * n, $6, $11, $7, $8
    if ($7 > 0) failed = 1
  }
  $1 ~ /^deliver-/ {
    printf "%-12s %-9s %10s %13d %8s %8d %7d %s\n", $1, $2, "-", $5 / ($4 - $3), "-", $6 / tick * 1e6 / $5, $7, $8
    if ($7 > 0) {
      printf "  the receiver logged %d requests for %d deliveries, some ids more than once or missing\n", $5, deliveries
      failed = 1
    }
  }
  END {
    print "fanout: objects created per second with N subscriptions matching, and the deliveries that writes"
    print "deliver: pending to success per second, from the broker'"'"'s start; CPU us: the broker'"'"'s per delivery"
    exit failed
  }
' "$rows" || { keep=1; echo "logs: $work"; exit 1; }
if [[ $keep -eq 1 ]]; then echo "logs and wrk output: $work"; fi
