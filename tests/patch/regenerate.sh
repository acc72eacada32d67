#!/usr/bin/env bash
# Regenerates the expected output of every case in tests/patch/cases with
# kubectl itself (`kubectl patch --local`, no cluster needed): expected.yaml
# when kubectl succeeds, expected.error (kubectl's message) when it fails.
# A case is a directory holding original.yaml, patch.yaml (YAML or JSON; kubectl's
# -p reads both) and type (strategic, merge or json).
#
# usage: tests/patch/regenerate.sh [CASE_NAME...]
set -euo pipefail

CASES=$(cd "$(dirname "$0")" && pwd)/cases
command -v kubectl >/dev/null || { echo "regenerate: kubectl not found" >&2; exit 1; }

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  mapfile -t names < <(cd "$CASES" && ls -d */ | tr -d /)
fi

for name in "${names[@]}"; do
  dir=$CASES/$name
  type=$(tr -d '[:space:]' <"$dir/type")
  rm -f "$dir/expected.yaml" "$dir/expected.error"
  if kubectl patch --local -f "$dir/original.yaml" --type "$type" -p "$(cat "$dir/patch.yaml")" -o yaml \
      >"$dir/expected.yaml" 2>"$dir/stderr.tmp"; then
    rm -f "$dir/stderr.tmp"
  else
    rm -f "$dir/expected.yaml"
    mv "$dir/stderr.tmp" "$dir/expected.error"
  fi
done
echo "regenerated ${#names[@]} cases with $(kubectl version --client | head -n 1)"
