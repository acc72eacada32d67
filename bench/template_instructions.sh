#!/usr/bin/env bash
# Seed 000's criterion in instructions: what 10,000 stored templates cost
# direct deployment-object creation, and what instantiation costs beyond it.
#
#   bench/template_instructions.sh [--creations N] [--templates N] [--warmup N] [--keep]
#   (also bench/template_bench.sh --instructions ...)
#
# The seed wants "performance impact < 5% on deployment object creation
# (compared to manual YAML)". Rendering alone costs more than 5% of a
# creation, so the criterion is read as the template system's cost to
# manual creation: POST /api/v1/stacks/{id}/deployment-objects of the
# three-tier YAML (bench/template_bench.sh's direct scenario), on a
# database whose template tables are empty and on one holding --templates
# templates (default 10,000: the three-tier one and copies of it under
# other names, each with two labels and two annotations, nine in ten
# matching the stack, so that template_targets holds their rows). Within
# 5%, counted in instructions: wall-clock runs on this shared machine
# spread by more than 5%, while callgrind counts the same instructions
# whatever the load.
#
# Each database is seeded by a broker running natively (through the API, 8
# clients in parallel over kept-alive connections), which then stops; a
# broker on the same database then runs under callgrind with instrumentation
# off, takes --warmup creations (default 50) so that its caches fill, and
# is counted (callgrind_control: instrumentation on, zero, the batch, dump)
# over --creations creations (default 2,000), sent one after another. On
# the templates' database the same is done for instantiation of the
# three-tier template (POST .../deployment-objects/from-template), and
# callgrind_annotate's inclusive counts split its extra cost over direct
# creation: rendering (sindri::tera::render), parameter validation
# (schema::apply_defaults + schema::validate), provenance (the insert's
# cost with provenance less its cost without), and the rest (request body,
# template lookup, parameters written as JSON). The inclusive counts are
# read from callgrind's file (template_instructions.py inclusive), since
# callgrind_annotate lists a function once per source file its code came
# from when there is debug information. Direct creation's SHA-256 of the
# YAML is shown apart, with the ratio without it: valgrind's CPU has no SHA
# extensions, so it is counted on code without them.
#
# The count is the whole broker process's, every thread, between the two
# callgrind_control calls. The periodic template-targets pass is put off
# (SINDRI_TEMPLATE_TARGETS_INTERVAL) while the broker is counted: it is not
# part of a creation, and over 10,000 templates it would land in one
# batch's count and not the other's.
#
# It runs $SINDRI_BIN (default build/bin/sindri; build a Release one for
# figures worth quoting) under valgrind --trace-children=yes, and counts the
# process that listens, whether that is `sindri serve` itself or a server
# executable it runs. Needs valgrind (callgrind_control, callgrind_annotate),
# ss, python3 and curl. --keep keeps the logs, databases and callgrind files.
# Exits 1 if anything failed (seeding, a check, any answer but 201), not
# when a figure misses its target: that is for the reader.
set -euo pipefail

bench_name=template_instructions.sh
# shellcheck source=bench/broker_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/broker_common.sh"

creations=2000
templates=10000
warmup=50
keep=0
broker_threads=  # the broker's default

usage() {
  sed -n '5,6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --creations) creations=${2:?}; shift 2 ;;
    --templates) templates=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage ;;
    *) echo "$bench_name: unknown argument $1" >&2; usage ;;
  esac
done
positive_integers "$creations" "$templates" "$warmup"

bench_tools="valgrind callgrind_control callgrind_annotate ss python3 curl"
bench_init template-instructions
# No broker of this script needs the pass: creating or tagging a template
# keeps its targets current.
export SINDRI_TEMPLATE_TARGETS_INTERVAL=86400

corpus=${SINDRI_BENCH_CORPUS:-$root/../shared/corpus/bench}
[[ -d $corpus ]] || { echo "$bench_name: the corpus directory $corpus is missing (set SINDRI_BENCH_CORPUS)" >&2; exit 1; }
corpus=$(cd "$corpus" && pwd)
for file in "$corpus/three-tier.tera" "$corpus/three-tier.json" "$here/three-tier.schema.json"; do
  [[ -f $file ]] || { echo "$bench_name: $file is missing" >&2; exit 1; }
done

client() { python3 "$here/template_instructions.py" "$@"; }

# KEY=VALUE lines on stdin into variables of those names (only the KEYs given).
read_keys() {
  local key value wanted
  while IFS='=' read -r key value; do
    for wanted in "$@"; do
      if [[ $key == "$wanted" ]]; then printf -v "$key" '%s' "$value"; fi
    done
  done
}

# Seeds a fresh SQLite database in DIR through a native broker, which then
# stops, leaving the database:
#   seed_database DIR TEMPLATES [DIRECT_JSON]
# Writes DIR/seed.env (GENERATOR_PAK, STACK_ID, TEMPLATE_ID) and DIR/rows.env
# (the template system's rows).
seed_database() {
  local dir=$1 count=$2
  shift 2
  mkdir -p "$dir"
  start_broker sqlite "$dir"
  local started=$SECONDS
  client seed "$broker_url" "$admin_pak" "$corpus" "$here/three-tier.schema.json" "$dir" "$count" "$@" \
    >"$dir/seed.env"
  echo "[$(basename "$dir")] seeded $count templates in $((SECONDS - started)) s" >&2
  halt_broker
  client count "$dir/sindri.db" >"$dir/rows.env"
}

# The pid of the process listening at $broker_url: the broker itself, or the
# server it runs.
listening_pid() {
  local port=${broker_url##*:}
  ss -Hltnp "sport = :$port" | { grep -o 'pid=[0-9]*' || true; } | head -n1 | cut -d= -f2
}

# Starts a broker under callgrind, instrumentation off, on the database in
# DIR. Sets counted_pid, the process callgrind_control speaks to.
start_counted_broker() {
  local dir=$1
  broker_launcher=(valgrind --tool=callgrind --trace-children=yes --instr-atstart=no
                   "--callgrind-out-file=$dir/callgrind.%p.out")
  broker_start_seconds=300
  start_broker sqlite "$dir"
  counted_pid=$(listening_pid)
  [[ -n $counted_pid ]] || { echo "$bench_name: no process listens at $broker_url" >&2; return 1; }
  broker_launcher=()
}

# Stops the broker under callgrind, and the server it runs if it runs one
# (which might not pass the signal on), keeping the database.
stop_counted_broker() {
  if [[ $counted_pid != "$broker_pid" ]]; then kill -TERM "$counted_pid" 2>/dev/null || true; fi
  halt_broker
}

# Counts the broker's instructions over COUNT POSTs of BODY to PATH, after
# WARMUP uncounted ones, and prints the callgrind file of the count:
#   count_posts DIR PATH BODY COUNT
count_posts() {
  local dir=$1 path=$2 body=$3 count=$4
  client post "$broker_url" "$GENERATOR_PAK" "$path" "$body" "$warmup"
  local before
  before=$(find "$dir" -maxdepth 1 -name "callgrind.$counted_pid.out.*" | wc -l)
  callgrind_control -i on "$counted_pid" >>"$dir/callgrind_control.log" 2>&1
  callgrind_control -z "$counted_pid" >>"$dir/callgrind_control.log" 2>&1
  client post "$broker_url" "$GENERATOR_PAK" "$path" "$body" "$count"
  callgrind_control -d "$counted_pid" >>"$dir/callgrind_control.log" 2>&1
  callgrind_control -i off "$counted_pid" >>"$dir/callgrind_control.log" 2>&1
  local dump=$dir/callgrind.$counted_pid.out.$((before + 1))
  [[ -s $dump ]] || { echo "$bench_name: callgrind wrote no $dump" >&2; return 1; }
  echo "$dump"
}

# The total instructions of a callgrind file.
total_instructions() { awk '$1 == "totals:" { print $2 }' "$1"; }

# The functions instantiation's extra cost is split by (extended regular
# expressions on demangled names).
render_function='^sindri::tera::render(\[abi:cxx11\])?\('
defaults_function='^sindri::schema::apply_defaults\('
validate_function='^sindri::schema::validate\('
insert_function='^sindri::broker::db::insert_deployment_object\('
# Valgrind's CPU has no SHA extensions: the YAML's checksum is counted on
# code without them, several times the instructions of the native path.
checksum_function='^sindri::sha256_hex(\[abi:cxx11\])?\('

stored_dir=$work/stored
empty_dir=$work/empty
echo "seeding (native broker): $templates templates, then an empty template table" >&2
seed_database "$stored_dir" "$templates"
seed_database "$empty_dir" 0 "$stored_dir/direct.json"

declare -A instructions inclusive
for database in empty stored; do
  dir=$work/$database
  GENERATOR_PAK='' STACK_ID=''
  read_keys GENERATOR_PAK STACK_ID <"$dir/seed.env"
  echo "[$database] broker under callgrind; $warmup + $creations direct creations" >&2
  start_counted_broker "$dir"
  dump=$(count_posts "$dir" "/api/v1/stacks/$STACK_ID/deployment-objects" "$dir/direct.json" "$creations")
  instructions[$database.direct]=$(total_instructions "$dump")
  inclusive[$database.checksum]=$(client inclusive "$dump" "$checksum_function")
  if [[ $database == stored ]]; then
    inclusive[direct.insert]=$(client inclusive "$dump" "$insert_function")
    echo "[$database] $warmup + $creations instantiations" >&2
    dump=$(count_posts "$dir" "/api/v1/stacks/$STACK_ID/deployment-objects/from-template" "$dir/instantiate.json" \
      "$creations")
    instructions[$database.instantiate]=$(total_instructions "$dump")
    {
      read -r "inclusive[render]"
      read -r "inclusive[defaults]"
      read -r "inclusive[validate]"
      read -r "inclusive[instantiate.insert]"
    } < <(client inclusive "$dump" "$render_function" "$defaults_function" "$validate_function" "$insert_function")
  fi
  stop_counted_broker
done
for figure in "${!inclusive[@]}"; do
  if [[ ${inclusive[$figure]} -eq 0 ]]; then
    echo "$bench_name: no instructions counted for $figure: was its function renamed? (see the *_function patterns)" >&2
    exit 1
  fi
done

TEMPLATES='' TEMPLATE_LABELS='' TEMPLATE_ANNOTATIONS='' TEMPLATE_TARGETS=''
read_keys TEMPLATES TEMPLATE_LABELS TEMPLATE_ANNOTATIONS TEMPLATE_TARGETS <"$stored_dir/rows.env"
empty_templates=$(grep '^TEMPLATES=' "$empty_dir/rows.env" | cut -d= -f2)

echo
echo "sindri template system cost in instructions (callgrind): $(machine_line)"
echo "broker: $sindri under valgrind --tool=callgrind; $creations requests counted per scenario, one at a time," \
  "after $warmup uncounted"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average at the end: $(load_average)"
echo "YAML: the three-tier template's rendering ($(wc -c <"$corpus/three-tier.expected.out") bytes)," \
  "the same bytes in every request"
echo
awk -v creations="$creations" -v empty="${instructions[empty.direct]}" -v stored="${instructions[stored.direct]}" \
    -v instantiate="${instructions[stored.instantiate]}" -v render="${inclusive[render]}" \
    -v defaults="${inclusive[defaults]}" -v validate="${inclusive[validate]}" \
    -v insert_direct="${inclusive[direct.insert]}" -v insert_instantiate="${inclusive[instantiate.insert]}" \
    -v empty_checksum="${inclusive[empty.checksum]}" -v stored_checksum="${inclusive[stored.checksum]}" \
    -v empty_templates="$empty_templates" -v templates="$TEMPLATES" -v labels="$TEMPLATE_LABELS" \
    -v annotations="$TEMPLATE_ANNOTATIONS" -v targets="$TEMPLATE_TARGETS" '
  function per(total) { return total / creations }
  BEGIN {
    ratio = stored / empty
    printf "direct creation (POST /stacks/{id}/deployment-objects), instructions per request\n"
    printf "  %-64s %12.0f\n", sprintf("%d templates", empty_templates), per(empty)
    printf "  %-64s %12.0f\n", sprintf("%d templates, %d labels, %d annotations, %d targets", templates, labels,
           annotations, targets), per(stored)
    printf "  %-64s %12.4f  (%+.2f%%; target <= 1.05: %s)\n", "ratio", ratio, (ratio - 1) * 100,
           ratio <= 1.05 ? "met" : "NOT MET"
    printf "  %-64s %12.0f\n", "of which SHA-256 of the YAML, in each (see below)",
           per(stored_checksum)
    unhashed = (stored - stored_checksum) / (empty - empty_checksum)
    printf "  %-64s %12.4f  (%+.2f%%)\n", "ratio without the SHA-256", unhashed, (unhashed - 1) * 100
    extra = per(instantiate) - per(stored)
    provenance = per(insert_instantiate) - per(insert_direct)
    other = extra - per(render) - per(defaults) - per(validate) - provenance
    printf "\ninstantiation (POST .../deployment-objects/from-template) on the %d-template database\n", templates
    printf "  %-64s %12.0f\n", "instantiation, instructions per request", per(instantiate)
    printf "  %-64s %12.0f  (%+.1f%% of direct creation)\n", "extra over direct creation", extra,
           extra / per(stored) * 100
    printf "    %-62s %12.0f\n", "render (sindri::tera::render)", per(render)
    printf "    %-62s %12.0f\n", "validation: defaults (schema::apply_defaults)", per(defaults)
    printf "    %-62s %12.0f\n", "validation: schema check (schema::validate)", per(validate)
    printf "    %-62s %12.0f\n", "provenance (insert_deployment_object, with less without)", provenance
    printf "    %-62s %12.0f\n", "other (request body, template lookup, parameters as JSON)", other
    print ""
    print "Valgrind'"'"'s CPU has no SHA extensions, so the checksum of the YAML (in both scenarios) is counted on"
    print "code without them, several times the instructions of the native path on a CPU that has them."
  }'
if [[ $keep -eq 1 ]]; then echo "logs, databases and callgrind files: $work"; fi
