#!/usr/bin/env bash
# Regenerates the expected resolved templates of every RoleBasedGroup case in
# tests/roles/cases with kubectl's own strategic merge patch (`kubectl patch
# --local`, no cluster needed), never by hand. A case is a directory holding
# rbg.yaml; for each role this writes expected/ROLE.json (a StatefulSet role)
# or expected/ROLE.leader.json and expected/ROLE.worker.json (a
# LeaderWorkerSet role): the role's PodTemplateSpec after KEP-8's merges.
#
# Each merge is done on a v1 PodTemplate whose `template` is the base, so that
# kubectl applies the PodTemplateSpec patch metadata:
#   base   = roleTemplate.template  SMP  {template: templatePatch}   (or role.template)
#   leader = base  SMP  {template: leaderWorkerSet.patchLeaderTemplate}
#   worker = base  SMP  {template: leaderWorkerSet.patchWorkerTemplate}
#
# usage: tests/roles/regenerate.sh [CASE_NAME...]   (needs kubectl and yq)
set -euo pipefail

CASES=$(cd "$(dirname "$0")" && pwd)/cases
for tool in kubectl yq jq; do
  command -v "$tool" >/dev/null || { echo "regenerate: $tool not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# smp BASE_TEMPLATE_JSON PATCH_TEMPLATE_JSON: the merged template, as JSON.
smp() {
  jq -n --argjson t "$1" '{apiVersion: "v1", kind: "PodTemplate", metadata: {name: "role"}, template: $t}' \
    >"$work/original.json"
  kubectl patch --local -f "$work/original.json" --type strategic \
    -p "$(jq -n --argjson p "$2" '{template: $p}')" -o json | jq -S '.template'
}

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  mapfile -t names < <(cd "$CASES" && ls -d */ | tr -d /)
fi

for name in "${names[@]}"; do
  dir=$CASES/$name
  yq -c . "$dir/rbg.yaml" >"$work/rbg.json"
  rm -rf "$dir/expected"
  mkdir "$dir/expected"
  mapfile -t roles < <(jq -r '.spec.roles[].name' "$work/rbg.json")
  for role in "${roles[@]}"; do
    spec=$(jq -c --arg r "$role" '.spec.roles[] | select(.name == $r)' "$work/rbg.json")
    ref=$(jq -r '.templateRef.name // ""' <<<"$spec")
    if [[ -n $ref ]]; then
      template=$(jq -c --arg t "$ref" '.spec.roleTemplates[] | select(.name == $t) | .template' "$work/rbg.json")
      base=$(smp "$template" "$(jq -c '.templatePatch' <<<"$spec")")
    else
      base=$(jq -S '.template' <<<"$spec")
    fi
    if [[ $(jq -r '.workload.kind // "StatefulSet"' <<<"$spec") == LeaderWorkerSet ]]; then
      for part in leader worker; do
        field=patch${part^}Template
        overlay=$(jq -c --arg f "$field" '.leaderWorkerSet[$f] // {}' <<<"$spec")
        smp "$(jq -c . <<<"$base")" "$overlay" >"$dir/expected/$role.$part.json"
      done
    else
      printf '%s\n' "$base" >"$dir/expected/$role.json"
    fi
  done
done
echo "regenerated ${#names[@]} cases with $(kubectl version --client | head -n 1)"
