# Shell functions shared by the broker benchmarks (bench/broker_bench.sh,
# bench/template_bench.sh): sourced, never run. The sourcing script sets
#   bench_name    its own name, for messages
#   duration      wrk's -d in seconds
#   connections   wrk's -c
#   profile       1 to record the broker with perf during each timed run
#   keep          1 to keep the work directory whatever happens
#   backend       sqlite, postgres or both
#   broker_threads  the broker's --threads, or empty for its default
#   rows_to       set in the PostgreSQL half (see run_backends)
#   bench_tools   the commands it needs (default: wrk python3 curl)
# defines bench_backend BACKEND ROWS_FILE, and then calls bench_init, which checks the tools, sets sindri, wrk_dir
# and work (a fresh temporary directory) and installs the exit trap that
# stops wrk, perf and the broker and removes the work directory (kept when
# the run failed or keep=1).

# shellcheck shell=bash disable=SC2034,SC2154

bench_init() {
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(dirname "$here")
  wrk_dir=$here/broker_wrk
  export SINDRI_WRK_DIR=$wrk_dir  # the Lua scripts load their neighbours from here
  export SINDRI_BENCH_DIR=$here   # the seeding scripts import broker_api.py from here
  export PYTHONDONTWRITEBYTECODE=1  # and leave no __pycache__ in the source tree

  sindri=${SINDRI_BIN:-$root/build/bin/sindri}
  if [[ ! -x $sindri ]]; then
    echo "$bench_name: $sindri is not built; build the sindri target or set SINDRI_BIN" >&2
    exit 1
  fi
  local tool
  for tool in ${bench_tools:-wrk python3 curl}; do
    command -v "$tool" >/dev/null || { echo "$bench_name: $tool is not installed" >&2; exit 1; }
  done

  broker_pid=
  broker_launcher=()  # a command the broker runs under, valgrind say
  broker_start_seconds=30
  broker_flags=()  # more `sindri serve` flags
  broker_schema=  # empty: each start on PostgreSQL takes a new schema
  peer_pid=  # a peer server the bench started, nginx say
  measured_pids=  # whose CPU time run_wrk charges per request; empty: the broker
  wrk_pid=
  perf_pid=
  work=
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  work=$(mktemp -d "${TMPDIR:-/tmp}/sindri-$1.XXXXXX")
}

bench_cleanup() {
  local status=$?
  if [[ -n $wrk_pid ]]; then kill "$wrk_pid" 2>/dev/null || true; fi
  if [[ -n $perf_pid ]]; then kill -INT "$perf_pid" 2>/dev/null || true; fi
  if [[ -n $peer_pid ]]; then
    kill "$peer_pid" 2>/dev/null || true
    wait "$peer_pid" 2>/dev/null || true
  fi
  if [[ -n $broker_pid ]]; then
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  if [[ -n $work && $keep -eq 0 ]]; then
    # A failed run keeps its logs.
    if [[ $status -eq 0 ]]; then rm -rf "$work"; else echo "$bench_name: logs kept in $work" >&2; fi
  fi
}

# Checks that every argument is a positive integer (exit 2 otherwise).
positive_integers() {
  local number
  for number in "$@"; do
    [[ $number =~ ^[0-9]+$ && $number -gt 0 ]] || { echo "$bench_name: $number is not a positive integer" >&2; exit 2; }
  done
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }
# CPU time processes have used, in clock ticks (user + system), summed.
cpu_ticks() {
  local pid stats=()
  (($# > 0)) || { echo "$bench_name: no process to measure" >&2; return 1; }
  for pid in "$@"; do stats+=("/proc/$pid/stat"); done
  awk '{ sum += $14 + $15 } END { print sum }' "${stats[@]}"
}
# Resident memory of a process in kB (VmRSS; VmHWM is the peak).
memory_kb() { awk -v field="$2:" '$1 == field { print $2 }' "/proc/$1/status"; }

# Starts `sindri serve` for BACKEND (sqlite: a database file in DIR;
# postgres: a schema of its own on $SINDRI_TEST_POSTGRES_URL, in case that is
# a shared server, or $broker_schema when set, to start again on the data of
# a broker before) on a free port, with --threads $broker_threads when set
# and the flags in the array broker_flags, its files in DIR, under the
# command in the array broker_launcher when it is set:
#   start_broker BACKEND DIR
# and waits until it listens (broker_start_seconds at most). Sets broker_pid,
# broker_dir, broker_url and admin_pak.
start_broker() {
  local backend=$1 dir=$2
  local database=() threads=()
  if [[ $backend == sqlite ]]; then
    database=(--database "sqlite://$dir/sindri.db")
  else
    database=(--database "$SINDRI_TEST_POSTGRES_URL" --database-schema "${broker_schema:-bench_$$_$RANDOM}")
  fi
  [[ -z $broker_threads ]] || threads=(--threads "$broker_threads")
  echo "[$backend] starting the broker" >&2
  rm -f "$dir/address"  # a previous broker's, on the same database
  "${broker_launcher[@]}" "$sindri" serve --listen 127.0.0.1:0 "${database[@]}" "${threads[@]}" --log-level warn \
    --admin-pak-file "$dir/admin.pak" --address-file "$dir/address" "${broker_flags[@]}" >"$dir/broker.log" 2>&1 &
  broker_pid=$!
  broker_dir=$dir
  local waited=0
  until [[ -s $dir/address ]]; do
    kill -0 "$broker_pid" 2>/dev/null || { echo "$bench_name: the broker exited:" >&2; cat "$dir/broker.log" >&2; return 1; }
    ((waited++ < broker_start_seconds * 10)) || {
      echo "$bench_name: the broker did not listen within $broker_start_seconds s" >&2
      return 1
    }
    sleep 0.1
  done
  broker_url="http://$(head -n1 "$dir/address")"
  admin_pak=$(head -n1 "$dir/admin.pak")
}

# Stops the broker started by start_broker, failing unless it stops
# cleanly; its files stay.
halt_broker() {
  kill -TERM "$broker_pid"
  wait "$broker_pid" || { echo "$bench_name: the broker did not stop cleanly" >&2; broker_pid=; return 1; }
  broker_pid=
}

# Stops the broker as halt_broker does and removes its SQLite database: the
# logs are kept, not the data.
stop_broker() {
  halt_broker
  rm -f "$broker_dir"/sindri.db*
}

# Deployment objects stored so far in a stack: the sequence id of one more
# (sequence ids count every insert; the benchmarks delete nothing):
#   stored_objects URL PAK STACK
stored_objects() {
  local url=$1 pak=$2 stack=$3
  curl -sS --fail -X POST -H "Authorization: Bearer $pak" -H 'Content-Type: application/json' \
    --data '{"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n"}' \
    "$url/api/v1/stacks/$stack/deployment-objects" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["sequence_id"])'
}

# Runs wrk with one of the broker_wrk scripts and prints a result row:
#   scenario backend req/s p50_ms p95_ms p99_ms errors load requests MiB/s cpu_us
# where cpu_us is the broker's CPU time per request (a database server's
# own CPU time is not in it), or that of $measured_pids when set. errors
# counts every failed request: socket errors and timeouts, plus the answers >= 400 wrk counts itself, or, for a
# script that calls report.lua's count_non_2xx(), every answer outside 2xx.
# With profile=1 perf records the broker meanwhile, into LOG's name with
# .perf.data for .log.
run_wrk() {
  local scenario=$1 backend=$2 script=$3 url=$4 log=$5
  local load ticks_before ticks_after measured
  read -r -a measured <<<"${measured_pids:-$broker_pid}"
  load=$(load_average)
  ticks_before=$(cpu_ticks "${measured[@]}")
  if [[ $profile -eq 1 ]]; then
    perf record -e cpu-clock -F 499 --call-graph dwarf,8192 -p "$(IFS=,; echo "${measured[*]}")" -o "${log%.log}.perf.data" >"${log%.log}.perf.log" 2>&1 &
    perf_pid=$!
  fi
  wrk -t2 -c"$connections" -d"${duration}s" --latency -s "$wrk_dir/$script" "$url" >"$log" 2>&1 || {
    echo "$bench_name: wrk failed, see $log:" >&2
    cat "$log" >&2
    return 1
  }
  ticks_after=$(cpu_ticks "${measured[@]}")
  if [[ -n $perf_pid ]]; then
    kill -INT "$perf_pid"
    wait "$perf_pid" || true
    perf_pid=
  fi
  local summary
  summary=$(grep '^SINDRI_WRK ' "$log") || { echo "$bench_name: no summary in $log" >&2; return 1; }
  # key=value pairs into one row of figures.
  awk -v scenario="$scenario" -v backend="$backend" -v load="$load" \
      -v cpu_seconds="$((ticks_after - ticks_before))/$(getconf CLK_TCK)" '{
      for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      answers = ("non_2xx" in f) ? f["non_2xx"] : f["status_errors"]
      errors = answers + f["connect_errors"] + f["read_errors"] + f["write_errors"] + f["timeouts"]
      seconds = f["duration_us"] / 1e6
      split(cpu_seconds, cpu, "/")
      printf "%s\t%s\t%.0f\t%.2f\t%.2f\t%.2f\t%d\t%s\t%d\t%.0f\t%.0f\n", scenario, backend,
             f["requests"] / seconds, f["p50_us"] / 1000, f["p95_us"] / 1000,
             f["p99_us"] / 1000, errors, load, f["requests"], f["bytes"] / seconds / 1048576,
             cpu[1] / cpu[2] * 1e6 / f["requests"]
    }' <<<"$summary"
}

# Whether a file of run_wrk rows holds a row with failed requests (rows
# whose first field is "memory" are not wrk rows).
has_errors() { awk -F'\t' '$1 != "memory" && $7 > 0 { found = 1 } END { exit !found }' "$1"; }

# Runs bench_backend for each backend --backend names, appending rows to
# $work/rows.tsv, and records the load average before and after. Without a
# PostgreSQL server to hand the PostgreSQL half runs as a second instance of
# the script under scripts/with-postgres.sh, given `--rows-to` and the
# script's own arguments that follow SCRIPT here. In that second instance,
# run_backends does that half and exits.
run_backends() {
  local script=$1
  shift
  if [[ -n $rows_to ]]; then
    bench_backend "$backend" "$rows_to"
    # Failed requests keep the logs whatever --keep says.
    if has_errors "$rows_to"; then keep=1; fi
    if [[ $keep -eq 1 ]]; then echo "$backend logs and wrk output: $work" >&2; fi
    exit 0
  fi
  rows=$work/rows.tsv
  : >"$rows"
  load_start=$(load_average)
  local backends=(sqlite postgres) one args
  [[ $backend == both ]] || backends=("$backend")
  for one in "${backends[@]}"; do
    if [[ $one == postgres && -z ${SINDRI_TEST_POSTGRES_URL:-} ]]; then
      args=(--backend postgres --duration "$duration" --connections "$connections" "$@" --rows-to "$rows")
      [[ -z $broker_threads ]] || args+=(--broker-threads "$broker_threads")
      [[ $keep -eq 0 ]] || args+=(--keep)
      [[ $profile -eq 0 ]] || args+=(--perf)
      "$root/scripts/with-postgres.sh" bash "$script" "${args[@]}"
    else
      bench_backend "$one" "$rows"
    fi
  done
  load_end=$(load_average)
}

# A line naming the machine, for the head of a report.
machine_line() {
  echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
}
