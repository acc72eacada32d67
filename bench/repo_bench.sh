#!/usr/bin/env bash
# Template repositories (`sindri repo`, issue 30): validating and rendering
# a project that opts in to 50 templates from 3 sources, warm and with a
# cold git cache, as whole processes (min / median / max of --runs runs,
# each after one untimed run):
#   repo validate                      warm: the git source's clone cached
#   repo render -o raw > /dev/null     warm
#   repo render -o raw, cold           the cache emptied before each run: the clone included
#   repo render -o raw --update        warm, the git source fetched again
#   git clone / git fetch              of the same bare repository: the floor
#                                      under the cold and --update rows, and
#                                      the ratios to it (no other tool does
#                                      this job here to compare with)
#   repo list, repo validate           examples/repo, the sample project on the
#                                      default repository alone: the small case
#
# bench/gen_repo_project.py writes, deterministically, two filesystem
# sources and the work tree of a git source, which this script commits and
# pushes to a bare repository of its own (`git init --bare`), reached by a
# file:// URL as a trusted `type: git` source. 50 templates (17 + 17 + 16),
# each with a settings schema and one to three Kubernetes manifests in Tera
# with loops and conditionals, some with a files_init file; three publish
# shared settings that the others subscribe to; three files are partial
# overrides (directories without template.json in the first source) of
# templates of later sources, and one template of the second source is
# shadowed by the first's; three templates of the git source carry a
# `#!/bin/sh` `cat` hook (after_project_settings, after_file_resolution,
# before_file_render, which runs once per file).
#
# Before timing, one run of each verb is checked: validate names 50
# templates; render prints the expected number of files, with the partial
# override's text and without the shadowed template's, the project's
# namespace reaching a subscriber and a subscriber's own namespace winning,
# every manifest is YAML with a kind (when python3-yaml is installed), the
# hooks ran as often as expected; the cold and --update renders print the
# same bytes as the warm one; --output-dir writes as many files as render
# prints. Exits 1 if a check or any command fails.
#
# usage: bench/repo_bench.sh [--runs N] [--keep] [--inherit-path]
# It builds nothing: it runs $SINDRI_BIN (default build-release/bin/sindri;
# `ninja -C build-release sindri`), with XDG_CACHE_HOME in a scratch
# directory. --keep keeps that directory and prints its path. PATH is
# Debian's default, /usr/local/bin:/usr/bin:/bin, so that git and what the
# hooks run are the system's and not a version manager's shims (a chain of
# shell scripts each); --inherit-path keeps the caller's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
sindri=${SINDRI_BIN:-$root/build-release/bin/sindri}
runs=10
keep=0
inherit_path=0

usage() {
  sed -n '/^# usage:/,/^# --inherit-path/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --inherit-path) inherit_path=1; shift ;;
    -h|--help) usage ;;
    *) echo "repo_bench.sh: unknown argument $1" >&2; usage ;;
  esac
done
[[ $runs =~ ^[0-9]+$ && $runs -gt 0 ]] || { echo "repo_bench.sh: --runs $runs is not a positive integer" >&2; exit 2; }
[[ $inherit_path -eq 1 ]] || export PATH=/usr/local/bin:/usr/bin:/bin
[[ -x $sindri ]] || { echo "repo_bench.sh: $sindri is not an executable (set SINDRI_BIN)" >&2; exit 1; }
for tool in git python3; do
  command -v "$tool" >/dev/null || { echo "repo_bench.sh: $tool is not installed" >&2; exit 1; }
done
# EPOCHREALTIME: microseconds without a process per reading.
((BASH_VERSINFO[0] >= 5)) || { echo "repo_bench.sh: needs bash 5" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/repo-bench.XXXXXX")
cleanup() {
  if [[ $keep -eq 1 ]]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "repo_bench.sh: $*" >&2
  exit 1
}

# The sources and the project.
bare=$work/catalog.git
git_url=file://$bare
declare -A expect
while IFS='=' read -r key value; do expect[$key]=$value; done \
  < <(python3 "$here/gen_repo_project.py" "$work" "$git_url")
[[ -n ${expect[FILES]:-} ]] || fail "gen_repo_project.py wrote nothing"
git_quiet() {
  GIT_AUTHOR_NAME=repo-bench GIT_AUTHOR_EMAIL=repo-bench@localhost GIT_COMMITTER_NAME=repo-bench \
    GIT_COMMITTER_EMAIL=repo-bench@localhost GIT_CONFIG_GLOBAL=/dev/null git "$@"
}
git_quiet init --quiet --bare --initial-branch=main "$bare"
git_quiet -C "$work/catalog" init --quiet --initial-branch=main
git_quiet -C "$work/catalog" add --all
git_quiet -C "$work/catalog" commit --quiet --message "50-template benchmark: the git source"
git_quiet -C "$work/catalog" push --quiet "$git_url" main

project=$work/project
export XDG_CACHE_HOME=$work/cache
export GIT_CONFIG_GLOBAL=/dev/null  # the user's git settings stay out of both sindri's git and the floor's
unset REPO_BENCH_HOOK_LOG
repo() { "$sindri" repo "$@" --project "$project"; }

# The small case: examples/repo, the sample project on the default
# repository alone.
small=$root/examples/repo
[[ -f $small/sindri-templates.yaml ]] || fail "$small/sindri-templates.yaml is missing"

# The checks, on one untimed run of each verb.
lines_in() { if [[ -f $1 ]]; then wc -l <"$1"; else echo 0; fi; }
echo "== checking the results ($sindri)" >&2
validate_out=$(REPO_BENCH_HOOK_LOG=$work/hooks-validate.log repo validate) || fail "repo validate failed"
[[ $validate_out == "${expect[TEMPLATES]} templates valid:"* ]] ||
  fail "repo validate printed \`${validate_out:0:200}\`, not ${expect[TEMPLATES]} templates valid"
validate_hooks=$(lines_in "$work/hooks-validate.log")

REPO_BENCH_HOOK_LOG=$work/hooks-render.log repo render -o raw >"$work/render-warm.txt" || fail "repo render failed"
files=$(grep -c '^# File: ' "$work/render-warm.txt" || true)
[[ $files == "${expect[FILES]}" ]] || fail "repo render printed $files files, not ${expect[FILES]}"
render_hooks=$(lines_in "$work/hooks-render.log")
[[ $render_hooks == "${expect[RENDER_HOOK_RUNS]}" ]] ||
  fail "the hooks ran $render_hooks times during a render, not ${expect[RENDER_HOOK_RUNS]}"

# The text of one rendered file, from the raw stream.
rendered_file() {
  awk -v want="$1" '/^# File: / { inside = ($3 == want); next } inside' "$work/render-warm.txt"
}
grep -qxF "${expect[OVERRIDE_MARKER]}" <(rendered_file "${expect[OVERRIDE_FILE]}") ||
  fail "${expect[OVERRIDE_FILE]} does not hold the partial override's text"
if grep -qF "${expect[SHADOW_MARKER]}" "$work/render-warm.txt"; then
  fail "the shadowed cost_labels of the second source was rendered (first one wins)"
fi
grep -qx '  namespace: shop-prod' <(rendered_file "${expect[SUBSCRIBER_FILE]}") ||
  fail "${expect[SUBSCRIBER_FILE]} lacks the project's namespace, published by platform_base"
grep -qx '  namespace: shop-batch' <(rendered_file "${expect[OWN_NAMESPACE_FILE]}") ||
  fail "${expect[OWN_NAMESPACE_FILE]} lacks the namespace its template's own settings set"

repo render --output-dir "$work/out" >/dev/null || fail "repo render --output-dir failed"
written=$(find "$work/out" -type f | wc -l)
[[ $written == "$files" ]] || fail "repo render --output-dir wrote $written files, not $files"
bytes=$(find "$work/out" -type f -printf '%s\n' | awk '{ sum += $1 } END { print sum }')
yaml_check=$(python3 - "$work/out" <<'PY'
import pathlib, sys
try:
    import yaml
except ImportError:
    print("not checked (python3-yaml is not installed)")
    sys.exit(0)
documents = 0
for path in sorted(pathlib.Path(sys.argv[1], "k8s").rglob("*.yaml")):
    for document in yaml.safe_load_all(path.read_text()):
        if not isinstance(document, dict) or "kind" not in document or "apiVersion" not in document:
            sys.exit(f"{path}: a document without apiVersion and kind")
        documents += 1
print(f"{documents} Kubernetes documents, all YAML with apiVersion and kind")
PY
) || fail "a rendered manifest is not a Kubernetes document"

rm -rf "$XDG_CACHE_HOME/sindri"
repo render -o raw >"$work/render-cold.txt" || fail "repo render with a cold git cache failed"
cmp -s "$work/render-warm.txt" "$work/render-cold.txt" || fail "the cold render differs from the warm one"
repo render -o raw --update >"$work/render-update.txt" || fail "repo render --update failed"
cmp -s "$work/render-warm.txt" "$work/render-update.txt" || fail "the --update render differs from the warm one"

"$sindri" repo list --project "$small" >"$work/small-list.txt" || fail "repo list on $small failed"
small_available=$(($(wc -l <"$work/small-list.txt") - 1))
small_out=$("$sindri" repo validate --project "$small") || fail "repo validate on $small failed"
[[ $small_out =~ ^([0-9]+)\ templates\ valid: ]] || fail "repo validate on $small printed \`$small_out\`"
small_applied=${BASH_REMATCH[1]}

git_quiet clone --quiet "$git_url" "$work/fetched" || fail "git clone $git_url failed"

# Timing: one untimed run, then $runs timed ones; PREPARE (a function name
# or :) runs untimed before each. Appends "LABEL<TAB>elapsed ms<TAB>CPU ms"
# rows to $times: CPU is user + system of the command and every process it
# waited for (git, hooks), from bash's `times` (no process of its own).
times=$work/times.tsv
: >"$times"
# Sets the variable named $1 to the children's "USER SYSTEM"; not in a
# $(...), whose subshell has no children of its own.
children_cpu() {
  times >"$work/cpu.txt"
  local user system
  { read -r _ _; read -r user system; } <"$work/cpu.txt"
  printf -v "$1" '%s %s' "$user" "$system"
}
timed() {
  local label=$1 prepare=$2
  shift 2
  local run start end cpu_before cpu_after
  for ((run = 0; run <= runs; run++)); do
    "$prepare"
    children_cpu cpu_before
    start=$EPOCHREALTIME
    "$@" >/dev/null 2>"$work/stderr.txt" || { cat "$work/stderr.txt" >&2; fail "$label: \`$*\` failed"; }
    end=$EPOCHREALTIME
    children_cpu cpu_after
    if ((run > 0)); then
      awk -v label="$label" -v a="$start" -v b="$end" -v before="$cpu_before" -v after="$cpu_after" '
        # bash prints times as 0m0.012s
        function ms(text,   minutes) { minutes = text; sub(/m.*/, "", minutes); sub(/^[0-9]+m/, "", text); sub(/s$/, "", text); return (minutes * 60 + text) * 1000 }
        function total(pair,   parts) { split(pair, parts, " "); return ms(parts[1]) + ms(parts[2]) }
        BEGIN { printf "%s\t%.3f\t%.3f\n", label, (b - a) * 1000, total(after) - total(before) }' >>"$times"
    fi
  done
}
empty_cache() { rm -rf "$XDG_CACHE_HOME/sindri"; }
fresh_clone_target() { rm -rf "$work/cloned"; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== timing, $runs runs each" >&2
repo render -o raw >/dev/null  # the cache filled again for the warm rows
timed "repo validate (warm)" : repo validate
timed "repo render -o raw (warm)" : repo render -o raw
timed "repo render -o raw, cold git cache" empty_cache repo render -o raw
timed "repo render -o raw --update" : repo render -o raw --update
timed "floor: git clone file://" fresh_clone_target git clone --quiet "$git_url" "$work/cloned"
timed "floor: git fetch" : git -C "$work/fetched" fetch --quiet origin
timed "small: repo list (examples/repo)" : "$sindri" repo list --project "$small"
timed "small: repo validate (examples/repo)" : "$sindri" repo validate --project "$small"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "sindri repo benchmark: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "sindri: $sindri; $(command -v git) $(git --version | cut -d' ' -f3)"
echo "$runs runs each after one untimed; PATH=$PATH"
echo "project: ${expect[TEMPLATES]} templates from 3 sources (filesystem 17 + 3 partial overrides, filesystem 17 + 1 shadowed, git 16)"
echo "rendered: $files files, $bytes bytes; $yaml_check"
echo "hooks run: $render_hooks per render, $validate_hooks per validate (3 templates with a \`cat\` hook)"
echo "small case: examples/repo, $small_applied of the default repository's $small_available templates applied"
echo "load average at start: $load_start; at end: $load_end"
echo
awk -F'\t' '
  {
    count[$1]++; value[$1, count[$1]] = $2; cpu_value[$1, count[$1]] = $3
    if (!($1 in seen)) { seen[$1] = 1; order[++labels] = $1 }
  }
  # The median of the label'"'"'s values in column `of` (elapsed or cpu); sets low and high.
  function median(label, of,   n, i, j, sorted, swap) {
    n = count[label]
    for (i = 1; i <= n; i++) sorted[i] = of == "cpu" ? cpu_value[label, i] : value[label, i]
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) { swap = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = swap }
    low = sorted[1]; high = sorted[n]
    return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
  }
  END {
    printf "%-44s %9s %9s %9s %11s\n", "scenario (ms)", "min", "median", "max", "median CPU"
    for (l = 1; l <= labels; l++) {
      label = order[l]
      cpu[label] = median(label, "cpu")
      m[label] = median(label, "elapsed")
      printf "%-44s %9.2f %9.2f %9.2f %11.2f\n", label, low, m[label], high, cpu[label]
    }
    cold = "repo render -o raw, cold git cache"; warm = "repo render -o raw (warm)"
    update = "repo render -o raw --update"; clone = "floor: git clone file://"; fetch = "floor: git fetch"
    print ""
    printf "cold render / git clone: %.2fx elapsed, %.2fx CPU (the cold cache adds %.2f ms to a warm render; a clone takes %.2f ms)\n",
           m[cold] / m[clone], cpu[cold] / cpu[clone], m[cold] - m[warm], m[clone]
    printf "render --update / git fetch: %.2fx elapsed, %.2fx CPU (the fetch adds %.2f ms to a warm render; git fetch takes %.2f ms)\n",
           m[update] / m[fetch], cpu[update] / cpu[fetch], m[update] - m[warm], m[fetch]
    print "CPU: user + system of the process and every process it waited for (git, hooks), median of the runs"
  }
' "$times"
