#!/usr/bin/env bash
# The `default` template repository (templates/default) end to end, as
# issue 30 promises: its templates' tests pass and their READMEs are
# current, the sample project examples/repo validates and renders,
# `kubectl kustomize` builds the rendered directory into every kind the
# project opts in to, the build goes to a stack of a real broker with
# `sindri apply -f -`, and after a sync nothing is left to change. Also: the
# kustomization lists only the YAML and JSON manifests of other templates,
# not their other files, and a directory with its own kustomization once.
#
# kubectl cannot validate the objects further without a cluster (`kubectl
# apply --dry-run=client` still asks a server for discovery and the OpenAPI
# schema), so that step is left out; the broker checks the manifests when
# `sindri apply` stores them.
#
# usage: default_repository_test.sh PATH/TO/sindri   (exit 77: skipped, no kubectl)
# (sindri serve runs from the same binary; the templates are the source
# tree's, whatever SINDRI_DEFAULT_TEMPLATES says.)
set -euo pipefail

if (($# != 1)); then
  echo "usage: $0 PATH/TO/sindri" >&2
  exit 2
fi
step=starting
fail() {
  echo "default_repository_test: FAILED at $step: $*" >&2
  exit 1
}
sindri=$(realpath -e -- "$1" 2>/dev/null) || fail "$1 does not exist"
[[ -x $sindri ]] || fail "$sindri is not an executable"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export SINDRI_DEFAULT_TEMPLATES=$root/templates/default
unset SINDRI_BROKER SINDRI_PAK
if ! command -v kubectl >/dev/null; then
  echo "default_repository_test: skipped: kubectl is not installed" >&2
  exit 77  # CTest's SKIP_RETURN_CODE
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sindri-default-repo.XXXXXX")
broker_pid=
cleanup() {
  local status=$?
  if [[ -n $broker_pid ]]; then
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  if ((status == 0)); then
    rm -rf "$work"
  else
    [[ ! -f $work/broker.log ]] || { echo "--- the broker's log" >&2; cat "$work/broker.log" >&2; }
    echo "default_repository_test: files kept in $work" >&2
  fi
}
trap cleanup EXIT

project=$work/project
cp -R "$root/examples/repo" "$project"

step="sindri repo test"
# The templates' own cases, from the source tree as their author runs them.
(cd "$root" && "$sindri" repo test --repository templates/default) >"$work/test.out" 2>&1 || fail "$(cat "$work/test.out")"

step="sindri repo docs --check"
(cd "$root" && "$sindri" repo docs --check --repository templates/default) >"$work/docs.out" 2>&1 ||
  fail "$(cat "$work/docs.out")"

step="sindri repo validate"
"$sindri" repo validate --project "$project" >"$work/validate.out" 2>&1 || fail "$(cat "$work/validate.out")"

step="sindri repo render"
"$sindri" repo render --project "$project" --output-dir "$work/rendered" >"$work/render.out" 2>&1 ||
  fail "$(cat "$work/render.out")"
[[ -f $work/rendered/kustomization.yaml ]] || fail "no kustomization.yaml among: $(ls "$work/rendered")"

step="kubectl kustomize"
kubectl kustomize "$work/rendered" >"$work/build.yaml" 2>"$work/kustomize.err" || fail "$(cat "$work/kustomize.err")"
for kind in Deployment Service Ingress HorizontalPodAutoscaler PodDisruptionBudget NetworkPolicy ServiceMonitor; do
  grep -qx "kind: $kind" "$work/build.yaml" || fail "no $kind in the build:
$(cat "$work/build.yaml")"
done
# The kustomization's namespace and label reached every object.
objects=$(grep -c '^kind: ' "$work/build.yaml")
((objects == 7)) || fail "7 objects expected, the build holds $objects"
namespaced=$(grep -c '^  namespace: hello$' "$work/build.yaml")
((namespaced == objects)) || fail "$namespaced of $objects objects are in namespace hello"
labelled=$(grep -c '^    app.kubernetes.io/managed-by: sindri$' "$work/build.yaml")
((labelled == objects)) || fail "$labelled of $objects objects carry the kustomization's label"

step="starting the broker"
# The broker writes its address into a FIFO once it listens: reading it
# waits for exactly that, without polling. The FIFO is opened read-write so
# that neither side blocks on opening it.
mkfifo "$work/address"
exec 3<>"$work/address"
(cd "$work" && exec "$sindri" serve --listen 127.0.0.1:0 --database "sqlite://$work/sindri.db" --log-level warn \
  --admin-pak-file "$work/admin.pak" --address-file "$work/address" >"$work/broker.log" 2>&1) &
broker_pid=$!
read -r -t 60 address <&3 || fail "the broker did not write its address within 60 s"
exec 3<&-
export SINDRI_BROKER=http://$address
[[ -s $work/admin.pak ]] || fail "the broker wrote no admin.pak"
admin_pak=$(head -n1 "$work/admin.pak")

step="sindri generator create"
"$sindri" generator create platform --pak "$admin_pak" >"$work/generator.out" 2>&1 || fail "$(cat "$work/generator.out")"
SINDRI_PAK=$(awk '/^PAK/ {print $NF}' "$work/generator.out")
export SINDRI_PAK
[[ -n $SINDRI_PAK ]] || fail "no PAK printed: $(cat "$work/generator.out")"

step="sindri stack create"
"$sindri" stack create hello --description "examples/repo through kubectl kustomize" >"$work/stack.out" 2>&1 ||
  fail "$(cat "$work/stack.out")"

step="sindri apply -f -"
"$sindri" apply hello -f - <"$work/build.yaml" >"$work/apply.out" 2>&1 || fail "$(cat "$work/apply.out")"
grep -q "(sequence 1, 7 resources)" "$work/apply.out" || fail "7 resources expected: $(cat "$work/apply.out")"

step="sindri stack objects"
"$sindri" stack objects hello >"$work/objects.out" 2>&1 || fail "$(cat "$work/objects.out")"
stored=$(($(wc -l <"$work/objects.out") - 1))  # the table's header
((stored == 1)) || fail "one deployment object expected, the stack holds $stored:
$(cat "$work/objects.out")"

step="sindri repo diff before a sync"
set +e
"$sindri" repo diff --project "$project" >"$work/diff-before.out" 2>&1
status=$?
set -e
((status == 1)) || fail "exit 1 expected (files to create), got $status: $(cat "$work/diff-before.out")"

step="sindri repo sync"
"$sindri" repo sync --project "$project" >"$work/sync.out" 2>&1 || fail "$(cat "$work/sync.out")"
"$sindri" repo sync --project "$project" >"$work/sync-again.out" 2>&1 || fail "$(cat "$work/sync-again.out")"
for file in "$work"/rendered/*; do
  cmp -s "$file" "$project/$(basename "$file")" || fail "$(basename "$file") in the project differs from the render"
done

step="sindri repo diff after the sync"
"$sindri" repo diff --project "$project" >"$work/diff-after.out" 2>&1 ||
  fail "exit 0 expected, nothing to change: $(cat "$work/diff-after.out")"

step="the kustomization lists only manifests"
# A template of another source writing a YAML and a JSON manifest, a note
# beside them, and a directory with its own kustomization (listed once, as
# a directory, instead of its files).
mixed=$work/mixed
mkdir -p "$mixed/extra/notes/files/config" "$mixed/extra/notes/files/base" "$mixed/project"
echo '{"name": "Notes", "type": "kubernetes"}' >"$mixed/extra/notes/template.json"
printf 'Read me.\n' >"$mixed/extra/notes/files/NOTES.md"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n' >"$mixed/extra/notes/files/config/notes.yml"
echo '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "notes-json"}}' >"$mixed/extra/notes/files/config/notes.json"
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - secret.yaml\n' \
  >"$mixed/extra/notes/files/base/kustomization.yaml"
printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: notes\n' >"$mixed/extra/notes/files/base/secret.yaml"
cat >"$mixed/project/sindri-templates.yaml" <<'EOF'
sindri_templates:
  version: 2
  template_sources:
    - {type: filesystem, location: ../extra}
    - default
  templates: [deployment, notes]
deployment:
  image: ghcr.io/example/notes:1.0
EOF
"$sindri" repo render --project "$mixed/project" --output-dir "$mixed/rendered" >"$mixed/render.out" 2>&1 ||
  fail "$(cat "$mixed/render.out")"
resources=$(sed -n '/^resources:/,$p' "$mixed/rendered/kustomization.yaml")
expected_resources='resources:
  - "deployment.yaml"
  - "base"
  - "config/notes.json"
  - "config/notes.yml"'
[[ $resources == "$expected_resources" ]] || fail "resources expected:
$expected_resources
got:
$resources"
kubectl kustomize "$mixed/rendered" >"$mixed/build.yaml" 2>"$mixed/kustomize.err" || fail "$(cat "$mixed/kustomize.err")"
# Each object as "KIND NAME", sorted (kubectl orders the keys, so `kind`
# comes before the object's own `metadata.name`).
built=$(awk '/^kind: / {kind = $2} /^  name: / {print kind, $2}' "$mixed/build.yaml" | sort)
expected_built='ConfigMap notes
ConfigMap notes-json
Deployment app
Secret notes'
[[ $built == "$expected_built" ]] || fail "objects expected:
$expected_built
built:
$built"

echo "default_repository_test: passed (7 kinds built by kubectl kustomize, applied to a stack, in sync)"
