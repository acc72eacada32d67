#!/usr/bin/env bash
# Fleet simulation: many agents holding sockets to the broker's agent channel.
#
#   bench/fleet_bench.sh [--agents N] [--poll-interval S] [--backend sqlite|postgres|both]
#                        [--rest S] [--min-via-push N] [--keep]
#
# For each backend, on a fresh database: one broker on SQLite, or two
# brokers sharing a throwaway PostgreSQL with the agents split between them.
# A generator's stack holds one deployment object and no label; N agents
# (default 5,000), each with its own PAK, carry the label fleet=sim. Then
# sindri-bench-fleet simulates them all in one process: each holds a
# WebSocket to /internal/ws/agent and a kept-alive connection on which it
# polls its target state every S seconds (default 10; first polls spread
# over the interval), and polls at once when a frame arrives on its socket.
# With the fleet at rest two changes are made through the first broker:
#   label     the stack gets the label fleet=sim: the matching engine
#             targets every agent and pushes target_changed to each
#   object    a new deployment object in the stack: stack_changed to each
# each timed until every agent has fetched a target state holding it.
# Printed: the broker's resident memory per socket and per agent (socket and
# poll connection), its CPU time at rest (--rest S, default 10) and during
# each change, the simulator's own CPU time and PostgreSQL's (when the server
# is on this machine: ss finds it by its port) beside it, and per change p50,
# p99 and max of the time until each agent fetched it, and how many got it
# by a push or by their regular poll [target: p99 < 2 s].
#
# It builds nothing: it runs $SINDRI_BIN (default build-release/bin/sindri)
# and sindri-bench-fleet beside it, or in $SINDRI_BENCH_TOOLS. PostgreSQL
# runs under scripts/with-postgres.sh unless SINDRI_TEST_POSTGRES_URL names
# a server. The simulator needs two open files per agent, and a broker two
# per agent it serves: http.max_connections is raised to that and 1,000
# more (its default, 10,000, is what 5,000 agents on one broker hold).
# Needs python3 and curl. The brokers, the database and the simulator share this
# machine: the load average is printed beside the figures. Exits 1 if
# anything failed (seeding, a socket never opened, an agent that never
# fetched a change, fewer than --min-via-push agents fetching a change after
# its push), not when a figure misses its target.
set -euo pipefail

bench_name=fleet_bench.sh
bench_tools="python3 curl"
# shellcheck source=bench/broker_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/broker_common.sh"

agents=5000
poll_interval=10
rest=10
min_via_push=0
backend=both
keep=0
broker_threads=  # the broker's default
rows_to=  # internal: the PostgreSQL half, run under with-postgres.sh, appends its rows here

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --agents) agents=${2:?}; shift 2 ;;
    --poll-interval) poll_interval=${2:?}; shift 2 ;;
    --rest) rest=${2:?}; shift 2 ;;
    --min-via-push) min_via_push=${2:?}; shift 2 ;;
    --backend) backend=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --rows-to) rows_to=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "fleet_bench.sh: unknown argument $1" >&2; usage ;;
  esac
done
case $backend in sqlite|postgres|both) ;; *) echo "fleet_bench.sh: --backend sqlite, postgres or both" >&2; exit 2 ;; esac
positive_integers "$agents" "$poll_interval" "$rest"

SINDRI_BIN=${SINDRI_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-release/bin/sindri}
bench_init fleet-bench
fleet_tool=${SINDRI_BENCH_TOOLS:-$(dirname "$sindri")}/sindri-bench-fleet
[[ -x $fleet_tool ]] || { echo "fleet_bench.sh: $fleet_tool is not built; build sindri-bench-fleet" >&2; exit 1; }

hard_limit=$(ulimit -Hn)
[[ $hard_limit == unlimited ]] && hard_limit=1048576
((hard_limit >= 2 * agents + 200)) || {
  echo "fleet_bench.sh: $agents agents need $((2 * agents + 200)) open files; the hard limit is $hard_limit" >&2
  exit 1
}
ulimit -n "$hard_limit"

# bench_cleanup stops the broker in broker_pid; these are the brokers the
# second start_broker on PostgreSQL would hide from it if it failed.
first_broker_pid=
second_broker_pid=
# shellcheck disable=SC2317  # called by the trap
fleet_cleanup() {
  local status=$? pid
  for pid in $first_broker_pid $second_broker_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  (exit "$status")
  bench_cleanup
}
trap fleet_cleanup EXIT

# The generator, its stack and first object, the agents and the two
# changes' bodies, through the first broker's API. Writes DIR/agents (id,
# PAK and broker address a line, the agents dealt to the brokers in turn),
# DIR/label.json and DIR/object.json; prints KEY=VALUE lines.
seed() {
  python3 - "$@" <<'PY'
import json, os, sys, threading, uuid
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, os.environ["SINDRI_BENCH_DIR"])
from broker_api import KeptAliveCaller

base, admin_pak, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
brokers = sys.argv[5:]
call = KeptAliveCaller(base)
run = uuid.uuid4().hex[:12]

def config_map(name):
    return {"yaml_content": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"}

generator = call("POST", "/api/v1/generators", admin_pak, {"name": "fleet"})
pak = generator["pak"]
stack = call("POST", "/api/v1/stacks", pak, {"name": "fleet", "generator_id": generator["generator"]["id"]})
# Tokens no earlier answer holds: the simulator looks for them in target states.
label_token, object_token = f"fleet-label-{run}", f"fleet-object-{run}"
call("POST", f"/api/v1/stacks/{stack['id']}/deployment-objects", pak, config_map(label_token))

local = threading.local()
def create_agent(index):
    if not hasattr(local, "call"):
        local.call = KeptAliveCaller(base)
    created = local.call("POST", "/api/v1/agents", admin_pak, {"name": f"sim-{index}", "cluster_name": f"sim-{index}"})
    agent_id = created["agent"]["id"]
    local.call("POST", f"/api/v1/agents/{agent_id}/labels", admin_pak, {"agent_id": agent_id, "label": "fleet=sim"})
    return f"{agent_id} {created['initial_pak']} {brokers[index % len(brokers)]}\n"

with ThreadPoolExecutor(max_workers=4) as pool:
    lines = list(pool.map(create_agent, range(count)))
with open(os.path.join(out, "agents"), "w") as file:
    file.writelines(lines)
with open(os.path.join(out, "label.json"), "w") as file:
    json.dump("fleet=sim", file)
with open(os.path.join(out, "object.json"), "w") as file:
    json.dump(config_map(object_token), file)
print(f"GENERATOR_PAK={pak}\nSTACK_ID={stack['id']}\nLABEL_TOKEN={label_token}\nOBJECT_TOKEN={object_token}")
PY
}

# One backend: its brokers on a fresh database, the seeding, the simulation.
# Appends the simulator's lines to $2, each after the backend's name.
bench_backend() {
  local backend=$1 rows=$2
  local dir=$work/$backend brokers=1 database_pid=
  [[ $backend == sqlite ]] || brokers=2
  local per_broker=$(((agents + brokers - 1) / brokers))
  broker_flags=(--http-max-connections $((2 * per_broker + 1000)))
  mkdir -p "$dir/broker1"
  # Both brokers on one schema of their own, in case the server is shared.
  [[ $backend == sqlite ]] || broker_schema=fleet_$$_$RANDOM
  start_broker "$backend" "$dir/broker1"
  first_broker_pid=$broker_pid
  local url=$broker_url addresses=("$(head -n1 "$dir/broker1/address")") pids=(--broker-pid "$broker_pid")
  if ((brokers == 2)); then
    # The second broker takes the database the first made, and its keys.
    mkdir -p "$dir/broker2"
    cp -p "$dir/broker1/admin.pak" "$dir/broker1/webhook.key" "$dir/broker2/"
    start_broker "$backend" "$dir/broker2"
    second_broker_pid=$broker_pid
    broker_pid=$first_broker_pid
    addresses+=("$(head -n1 "$dir/broker2/address")")
    pids+=(--broker-pid "$second_broker_pid")
    broker_schema=
    # The server's CPU time counts too, when it is on this machine.
    local port
    port=$(sed -nE 's#^postgres(ql)?://[^/]*@?(127\.0\.0\.1|localhost):([0-9]+)/.*#\3#p' <<<"$SINDRI_TEST_POSTGRES_URL")
    if [[ -n $port ]]; then
      database_pid=$(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2 || true)
      [[ -z $database_pid ]] || pids+=(--database-pid "$database_pid")
    fi
  fi

  echo "[$backend] seeding: $agents agents labelled fleet=sim, a stack with one object and no label" >&2
  local GENERATOR_PAK='' STACK_ID='' LABEL_TOKEN='' OBJECT_TOKEN='' key value
  while IFS='=' read -r key value; do
    case $key in
      GENERATOR_PAK) GENERATOR_PAK=$value ;; STACK_ID) STACK_ID=$value ;;
      LABEL_TOKEN) LABEL_TOKEN=$value ;; OBJECT_TOKEN) OBJECT_TOKEN=$value ;;
    esac
  done < <(seed "$url" "$admin_pak" "$agents" "$dir" "${addresses[@]}")
  [[ -n $OBJECT_TOKEN ]] || { echo "fleet_bench.sh: seeding failed" >&2; return 1; }

  echo "[$backend] simulating $agents agents on $brokers broker(s), polling every ${poll_interval}s" >&2
  local load_before load_after status=0
  load_before=$(load_average)
  "$fleet_tool" "$dir/agents" "${pids[@]}" --poll-interval "$poll_interval" --rest "$rest" \
    --min-via-push "$min_via_push" \
    --change-pak "$GENERATOR_PAK" \
    --change label POST "$url/api/v1/stacks/$STACK_ID/labels" "$dir/label.json" "$LABEL_TOKEN" \
    --change object POST "$url/api/v1/stacks/$STACK_ID/deployment-objects" "$dir/object.json" "$OBJECT_TOKEN" \
    >"$dir/fleet.out" 2>"$dir/fleet.err" || status=$?
  load_after=$(load_average)
  cat "$dir/fleet.err" >&2
  # Kept with the logs: how often each broker read the database's counters, and more.
  local n address
  for n in "${!addresses[@]}"; do
    address=${addresses[$n]}
    curl -sS -H "Authorization: Bearer $admin_pak" "http://$address/metrics" >"$dir/broker$((n + 1))/metrics.txt" || true
    echo "[$backend] broker$((n + 1)): $(grep -E '^sindri_db_counter_reads_total' "$dir/broker$((n + 1))/metrics.txt" || true)" >&2
  done
  {
    sed "s/^/$backend /" "$dir/fleet.out"
    echo "$backend machine brokers=$brokers measured=broker${database_pid:+,database}" \
      "load_before=${load_before// /,} load_after=${load_after// /,}"
  } >>"$rows"
  local log
  for log in "$dir"/broker*/broker.log; do
    if [[ -s $log ]]; then
      echo "[$backend] $log (last lines):" >&2
      tail -n 5 "$log" >&2
    fi
  done
  if ((status != 0)); then
    echo "fleet_bench.sh: the simulation failed on $backend (exit $status), see $dir" >&2
    keep=1
    return 1
  fi
  if [[ -n $second_broker_pid ]]; then
    kill -TERM "$second_broker_pid"
    wait "$second_broker_pid" || true
    second_broker_pid=
  fi
  halt_broker
  first_broker_pid=
}

if [[ -n $rows_to ]]; then
  bench_backend "$backend" "$rows_to"
  exit 0
fi

rows=$work/rows
: >"$rows"
backends=(sqlite postgres)
[[ $backend == both ]] || backends=("$backend")
for one in "${backends[@]}"; do
  if [[ $one == postgres && -z ${SINDRI_TEST_POSTGRES_URL:-} ]]; then
    args=(--backend postgres --agents "$agents" --poll-interval "$poll_interval" --rest "$rest"
          --min-via-push "$min_via_push" --rows-to "$rows")
    [[ $keep -eq 0 ]] || args+=(--keep)
    SINDRI_BIN=$sindri SINDRI_BENCH_TOOLS=$(dirname "$fleet_tool") \
      "$root/scripts/with-postgres.sh" bash "$0" "${args[@]}"
  else
    bench_backend "$one" "$rows"
  fi
done

echo "fleet simulation: $agents agents, polling every ${poll_interval}s; $(machine_line)"
python3 "$here/fleet_table.py" "$rows" "$rest"
