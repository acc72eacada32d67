#!/usr/bin/env bash
# The whole flow on a real cluster: a broker on SQLite in a scratch directory,
# a generator, a labelled stack and agent made with the client verbs, and
# `sindri agent run` applying to the cluster of SINDRI_E2E_KUBECONFIG. It
# checks, with kubectl, that the objects arrive with the agent's annotations,
# that a new deployment object changes them and prunes what it left out, that
# an object of another agent survives the prune, that changes made while the
# agent is stopped arrive once it starts again, and that deleting the stack
# deletes everything. Without SINDRI_E2E_KUBECONFIG it says it was skipped and
# exits 0: no cluster can be started where the tests run.
#
#   SINDRI_E2E_KUBECONFIG=~/.kube/config scripts/e2e-cluster.sh
#
# Use a disposable cluster (kind, k3s, minikube): the script creates and
# deletes a namespace of its own, sindri-e2e-<random>, and nothing else.
# Settings, all optional:
#   SINDRI_E2E_CONTEXT   kubeconfig context (default: its current one)
#   SINDRI_E2E_BIN       directory holding sindri, sindri-client, sindri-serve (default: build/bin)
#   SINDRI_E2E_TIMEOUT   seconds to wait for each step in the cluster (default: 120)
#   SINDRI_E2E_POLL      seconds between looks at the cluster, and the agent's polling interval (default: 1)
# Needs kubectl and python3 on PATH.
set -euo pipefail

log() { printf 'e2e-cluster: %s\n' "$*"; }
fail() { printf 'e2e-cluster: FAILED: %s\n' "$*" >&2; exit 1; }

if [[ -z "${SINDRI_E2E_KUBECONFIG:-}" ]]; then
  log "skipped: SINDRI_E2E_KUBECONFIG is not set. Point it at the kubeconfig of a disposable cluster" \
      "(kind, k3s, minikube) to run the broker, the agent and the whole flow against that cluster."
  exit 0
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${SINDRI_E2E_BIN:-$repo/build/bin}
timeout=${SINDRI_E2E_TIMEOUT:-120}
poll=${SINDRI_E2E_POLL:-1}
[[ -r "$SINDRI_E2E_KUBECONFIG" ]] || fail "SINDRI_E2E_KUBECONFIG names $SINDRI_E2E_KUBECONFIG, which cannot be read"
[[ -x "$bin/sindri" ]] || fail "no sindri in $bin: build it (scripts/run.sh or cmake --build build) or set SINDRI_E2E_BIN"
command -v kubectl >/dev/null || fail "kubectl is not on PATH"
command -v python3 >/dev/null || fail "python3 is not on PATH"

kube=(kubectl --kubeconfig "$SINDRI_E2E_KUBECONFIG")
agent_kube=(--kubeconfig "$SINDRI_E2E_KUBECONFIG")
if [[ -n "${SINDRI_E2E_CONTEXT:-}" ]]; then
  kube+=(--context "$SINDRI_E2E_CONTEXT")
  agent_kube+=(--kube-context "$SINDRI_E2E_CONTEXT")
fi
"${kube[@]}" version >/dev/null || fail "the cluster of $SINDRI_E2E_KUBECONFIG does not answer kubectl version"

scratch=$(mktemp -d)
namespace=sindri-e2e-$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
broker_pid=""
agent_pid=""

cleanup() {
  local status=$?
  if [[ -n "$agent_pid" ]]; then
    kill -TERM "$agent_pid" 2>/dev/null || true
    wait "$agent_pid" 2>/dev/null || true
  fi
  if [[ -n "$broker_pid" ]]; then
    kill -TERM "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  "${kube[@]}" delete namespace "$namespace" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  if [[ $status -ne 0 ]]; then
    log "logs kept in $scratch (broker.log, agent.log)"
  else
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT

stop_agent() {
  if [[ -n "$agent_pid" ]]; then
    kill -TERM "$agent_pid" 2>/dev/null || true
    local status=0
    wait "$agent_pid" || status=$?
    agent_pid=""
    [[ $status -eq 0 ]] || fail "the agent exited $status on SIGTERM (expected 0; $scratch/agent.log)"
  fi
}

# Polls a command (its output, trimmed) until it prints the expected text.
wait_for() {
  local what=$1 expected=$2
  shift 2
  local deadline=$((SECONDS + timeout)) got=""
  while ((SECONDS < deadline)); do
    got=$("$@" 2>/dev/null || true)
    [[ "$got" == "$expected" ]] && { log "ok: $what"; return 0; }
    [[ -z "$agent_pid" ]] || kill -0 "$agent_pid" 2>/dev/null || fail "the agent stopped ($scratch/agent.log)"
    sleep "$poll"
  done
  fail "$what: expected '$expected', got '$got' after ${timeout}s"
}

# An API call to the broker as the admin: api METHOD PATH [JSON BODY]; prints the answer.
api() {
  python3 - "$broker_url/api/v1$2" "$1" "${3:-}" "$(cat "$scratch/admin.pak")" <<'EOF'
import sys, urllib.request
url, method, body, pak = sys.argv[1:]
request = urllib.request.Request(url, method=method, data=body.encode() if body else None,
                                 headers={"Authorization": "Bearer " + pak, "Content-Type": "application/json"})
print(urllib.request.urlopen(request).read().decode())
EOF
}

# A field of the JSON on standard input, by a dotted path: json_field agent.id
json_field() {
  python3 -c 'import functools, json, sys; print(functools.reduce(lambda v, k: v[k], sys.argv[1].split("."), json.load(sys.stdin)))' "$1"
}

configmap_value() { "${kube[@]}" -n "$namespace" get configmap "$1" -o 'jsonpath={.data.value}'; }
configmap_exists() { "${kube[@]}" -n "$namespace" get configmap "$1" -o name --ignore-not-found; }
namespace_phase() { "${kube[@]}" get namespace "$namespace" -o 'jsonpath={.status.phase}' --ignore-not-found; }
# The agent posted an event of status SUCCESS.
deploy_succeeded() {
  api GET "/agents/$agent_id/events" |
    python3 -c 'import json, sys; print("yes" if any(e["status"] == "SUCCESS" for e in json.load(sys.stdin)) else "no")'
}
# Gone, or on its way (Terminating): either way the agent deleted it.
namespace_deleted() {
  local phase
  phase=$(namespace_phase)
  [[ -z "$phase" || "$phase" == Terminating ]] && echo yes
}
configmap_annotation() {
  "${kube[@]}" -n "$namespace" get configmap "$1" -o "jsonpath={.metadata.annotations.${2//./\\.}}"
}

# Writes the stack's manifests: the namespace, ConfigMap kept with VALUE, and
# ConfigMap dropped unless the second argument is "without-dropped".
manifests() {
  cat <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $namespace
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kept
  namespace: $namespace
data:
  value: "$1"
EOF
  [[ "${2:-}" == without-dropped ]] && return 0
  cat <<EOF
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dropped
  namespace: $namespace
data:
  value: "$1"
EOF
}

start_agent() {
  "$bin/sindri" agent run --broker-url "$broker_url" --agent-name e2e-agent --cluster-name e2e \
    --pak-file "$scratch/agent.pak" "${agent_kube[@]}" --polling-interval "$poll" --health-port "$health_port" \
    >>"$scratch/agent.log" 2>&1 &
  agent_pid=$!
}

log "cluster: $("${kube[@]}" config current-context 2>/dev/null || echo '?'), namespace $namespace, scratch $scratch"

# The broker, on loopback and SQLite.
"$bin/sindri" serve --listen 127.0.0.1:0 --address-file "$scratch/address" --database "sqlite://$scratch/sindri.db" \
  --admin-pak-file "$scratch/admin.pak" >"$scratch/broker.log" 2>&1 &
broker_pid=$!
for _ in $(seq 100); do [[ -s "$scratch/address" ]] && break; sleep 0.1; done
[[ -s "$scratch/address" ]] || fail "the broker did not start ($scratch/broker.log)"
broker_url="http://$(cat "$scratch/address")"
log "broker at $broker_url"

# A generator (no verb makes one), its stack, and an agent targeting it.
generator=$(api POST /generators '{"name": "e2e"}')
generator_id=$(json_field generator.id <<<"$generator")
export SINDRI_BROKER=$broker_url
SINDRI_PAK=$(json_field pak <<<"$generator")
export SINDRI_PAK
"$bin/sindri" stack create e2e --label e2e >/dev/null
stack_id=$("$bin/sindri" stack get e2e -o json | json_field id)
agent=$("$bin/sindri" agent create e2e-agent --cluster e2e --label e2e --generator-id "$generator_id" \
  --pak "$(cat "$scratch/admin.pak")" -o json)
agent_id=$(json_field agent.id <<<"$agent")
printf '%s' "$(json_field initial_pak <<<"$agent")" >"$scratch/agent.pak"
health_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# 1. The first deployment object arrives, annotated.
manifests 1 | "$bin/sindri" apply e2e -f - >/dev/null
start_agent
wait_for "kept applied" 1 configmap_value kept
wait_for "dropped applied" 1 configmap_value dropped
wait_for "stack annotation" "$stack_id" configmap_annotation kept k8s.brokkr.io/stack
wait_for "owner annotation" "$agent_id" configmap_annotation kept brokkr.io/owner-id
wait_for "a SUCCESS event on the broker" yes deploy_succeeded

# 2. An object of another agent in the same stack, which no prune may touch.
"${kube[@]}" create -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: foreign
  namespace: $namespace
  annotations:
    k8s.brokkr.io/stack: "$stack_id"
    k8s.brokkr.io/deployment-checksum: old
    brokkr.io/owner-id: 00000000-0000-4000-8000-000000000000
data:
  value: foreign
EOF

# 3. A new deployment object changes kept and prunes dropped.
manifests 2 without-dropped | "$bin/sindri" apply e2e -f - >/dev/null
wait_for "kept changed" 2 configmap_value kept
wait_for "dropped pruned" "" configmap_exists dropped
wait_for "another agent's object kept" configmap/foreign configmap_exists foreign

# 4. A change made while the agent is stopped arrives when it starts again.
stop_agent
manifests 3 without-dropped | "$bin/sindri" apply e2e -f - >/dev/null
start_agent
wait_for "kept changed after a restart" 3 configmap_value kept

# 5. Deleting the stack deletes what the agent applied, the namespace with it.
"$bin/sindri" stack delete e2e >/dev/null
wait_for "namespace deleted" yes namespace_deleted
stop_agent
log "passed"
