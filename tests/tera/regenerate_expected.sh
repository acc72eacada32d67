#!/bin/sh
# Regenerates expected.out / expected.error for every case under
# tests/tera/cases/ and tests/tera/cases-dir/ from the Tera 1.17.1 reference
# renderer (../shared/tools/tera-ref), with expected.message for a render
# error whose text is stable (tera_message.py), and those messages for the
# shared corpus in shared_corpus_messages/. Never edit expected.* by hand.
#   usage: tests/tera/regenerate_expected.sh [CASE_NAME...]
# tera-ref exit codes: 0 = rendered, 2 = parse error, 3 = render error.
# cases-1.20/ is NOT regenerated: its expectations come from Tera 1.20 sources
# (see each case's `source` file).
set -e
here="$(cd "$(dirname "$0")" && pwd)"
ref="${TERA_REF:-}"
if [ -z "$ref" ]; then
  ref="$("$here/../../../shared/tools/tera-ref/build.sh" | tail -n 1)"
fi
[ -x "$ref" ] || { echo "tera-ref not found: $ref" >&2; exit 1; }

want() { # is case $1 selected?
  [ -z "$SELECTED" ] && return 0
  for s in $SELECTED; do [ "$s" = "$1" ] && return 0; done
  return 1
}
SELECTED="$*"

record() { # $1 = case dir, $2 = exit code, $3 = output file
  rm -f "$1/expected.out" "$1/expected.error" "$1/expected.message"
  case "$2" in
    0) mv "$3" "$1/expected.out" ;;
    2) printf 'parse_error\n' > "$1/expected.error"; rm -f "$3" ;;
    3) printf 'render_error\n' > "$1/expected.error"
       message="$(python3 "$here/tera_message.py" < "$3")"
       [ -n "$message" ] && printf '%s\n' "$message" > "$1/expected.message"
       rm -f "$3" ;;
    *) echo "unexpected exit $2 for $1 (tera-ref crashed?)" >&2; rm -f "$3"; failed=$((failed + 1)) ;;
  esac
}

n=0
failed=0
for d in "$here"/cases/*/; do
  d="${d%/}"; name="$(basename "$d")"
  want "$name" || continue
  tmp="$(mktemp)"
  rc=0; "$ref" "$d/template.tera" "$d/context.json" > "$tmp" 2>/dev/null || rc=$?
  record "$d" "$rc" "$tmp"; n=$((n + 1))
done
for d in "$here"/cases-dir/*/; do
  d="${d%/}"; name="$(basename "$d")"
  want "$name" || continue
  tmp="$(mktemp)"
  main="$(tr -d '\n' < "$d/main")"
  rc=0; "$ref" --dir "$d/templates" "$main" "$d/context.json" > "$tmp" 2>/dev/null || rc=$?
  record "$d" "$rc" "$tmp"; n=$((n + 1))
done
# The shared corpus (../shared/corpus/tera) is not ours to write: the stable
# part of Tera's message for its render errors goes to
# shared_corpus_messages/tera/CASE.message.
shared="$here/../../../shared/corpus/tera"
messages="$here/shared_corpus_messages/tera"
mkdir -p "$messages"
for d in "$shared"/*/; do
  d="${d%/}"; name="$(basename "$d")"
  want "$name" || continue
  rm -f "$messages/$name.message"
  grep -q render_error "$d/expected.error" 2>/dev/null || continue
  message="$("$ref" "$d/template.tera" "$d/context.json" 2>/dev/null | python3 "$here/tera_message.py")" || true
  [ -n "$message" ] && printf '%s\n' "$message" > "$messages/$name.message"
  n=$((n + 1))
done
echo "regenerated $n case(s), $failed failure(s)"
[ "$failed" -eq 0 ]
