#!/usr/bin/env bash
# Runs scripts/e2e-cluster.sh, meant for a real cluster, against the
# Kubernetes API test server (tests/kube/server) on loopback, so that the
# script's every step, its kubectl calls and the flow it checks stay true
# where no cluster can run.
#   e2e_against_test_server.sh PYTHON3 SERVER_PY BIN_DIR
set -euo pipefail
python=$1
server_py=$2
bin=$3
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$scratch/key.pem" -out "$scratch/cert.pem" -days 1 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
"$python" "$server_py" --port-file "$scratch/port" --cert "$scratch/cert.pem" --key "$scratch/key.pem" \
  --token e2e-token --namespace-termination-delay 0.2 >"$scratch/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do [[ -s "$scratch/port" ]] && break; sleep 0.1; done
[[ -s "$scratch/port" ]] || { cat "$scratch/server.log"; echo "the test server did not start" >&2; exit 1; }

cat >"$scratch/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:$(cat "$scratch/port")
    certificate-authority: $scratch/cert.pem
users:
- name: test
  user:
    token: e2e-token
contexts:
- name: test
  context: {cluster: test, user: test}
current-context: test
KUBECONFIG

SINDRI_E2E_KUBECONFIG=$scratch/kubeconfig SINDRI_E2E_BIN=$bin SINDRI_E2E_POLL=0.1 SINDRI_E2E_TIMEOUT=30 \
  "$repo/scripts/e2e-cluster.sh"
