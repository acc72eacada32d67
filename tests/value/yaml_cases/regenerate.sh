#!/bin/sh
# Regenerates the expected values of the YAML resolution cases with kubectl,
# the authority on what a Kubernetes manifest means. For each CASE.yaml it
# writes CASE.json (what kubectl reads it as) or, when kubectl rejects it,
# CASE.error (kubectl's message). kubectl 1.32 needs no cluster with --local.
# Usage: tests/value/yaml_cases/regenerate.sh
set -eu
cd "$(dirname "$0")"
kubectl version --client | head -n 1 > kubectl-version.txt
for case in *.yaml; do
  name=${case%.yaml}
  rm -f "$name.json" "$name.error"
  if kubectl patch --local -f "$case" --type merge -p '{}' -o json > "$name.json" 2> "$name.stderr"; then
    rm -f "$name.stderr"
  else
    rm -f "$name.json"
    mv "$name.stderr" "$name.error"
  fi
done
