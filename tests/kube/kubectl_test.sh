#!/bin/sh
# Debian's kubectl against the Kubernetes API test server, which keeps the
# server honest about the wire format. Run by sindri_kube_test_server_launcher
# (KUBECONFIG set, deleted namespaces Terminating for a minute, a CRD's kind
# served half a second after the CRD): discovery, server-side apply, label
# selectors, a field manager conflict and its forced take-over, diff, delete,
# a Terminating namespace, token auth, a CRD's kind arriving late, pod logs.
set -u

if ! command -v kubectl >/dev/null; then
  echo "kubectl_test: FAIL, no kubectl on PATH (scripts/setup.sh installs Debian's kubernetes-client where none is)"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# kubectl caches discovery under the cache dir: one of the test's own.
kubectl() { command kubectl --cache-dir "$work/cache" "$@"; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect_output NAME PATTERN COMMAND...: the command succeeds and its output matches PATTERN (grep -E).
expect_output() {
  name=$1 pattern=$2
  shift 2
  if ! output=$("$@" 2>&1); then fail "$name: exited non-zero: $output"; return; fi
  echo "$output" | grep -Eq "$pattern" || fail "$name: no '$pattern' in: $output"
}

cat >"$work/app.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: shop
  labels: {app: web}
data: {greeting: hello}
YAML
sed 's/replicas: 2/replicas: 3/' "$work/app.yaml" >"$work/app3.yaml"

expect_output "api-resources" 'deployments +deploy +apps/v1 +true +Deployment' kubectl api-resources
expect_output "apply" 'deployment.apps/web serverside-applied' kubectl apply --server-side -f "$work/app.yaml"
expect_output "get -l" 'configmap/web-config' kubectl get -n shop deployments,configmaps -l app=web
expect_output "get -l shows the deployment" 'deployment.apps/web' kubectl get -n shop deployments,configmaps -l app=web
expect_output "get -l notin" 'No resources found' kubectl get -n shop configmaps -l 'app notin (web)'

if output=$(kubectl apply --server-side --field-manager=other -f "$work/app3.yaml" 2>&1); then
  fail "a conflicting apply succeeded: $output"
else
  echo "$output" | grep -q 'conflict with "kubectl": .spec.replicas' || fail "the conflict is not named: $output"
fi

# kubectl diff exits 1 when there are differences.
kubectl diff --server-side --field-manager=other --force-conflicts -f "$work/app3.yaml" >"$work/diff" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "diff exited $status: $(cat "$work/diff")"
grep -q '^+  replicas: 3' "$work/diff" || fail "diff does not show replicas 3: $(cat "$work/diff")"
expect_output "the diff stored nothing" '^2$' kubectl get -n shop deployment web -o 'jsonpath={.spec.replicas}'

expect_output "forced apply" 'deployment.apps/web serverside-applied' \
  kubectl apply --server-side --field-manager=other --force-conflicts -f "$work/app3.yaml"
expect_output "replicas taken over" '^3$' kubectl get -n shop deployment web -o 'jsonpath={.spec.replicas}'
expect_output "managed by other" 'other' kubectl get -n shop deployment web -o 'jsonpath={.metadata.managedFields[*].manager}'

expect_output "token kubeconfig" 'default' kubectl --kubeconfig "$SINDRI_TEST_TOKEN_KUBECONFIG" get namespaces

expect_output "delete" 'deployment.apps "web" deleted' kubectl delete --wait=false -f "$work/app.yaml"
expect_output "get ns" 'shop +Terminating' kubectl get namespaces
if output=$(kubectl get -n shop deployment web 2>&1); then fail "the deployment is still there: $output"; fi
echo "$output" | grep -q 'NotFound' || fail "no NotFound for the deleted deployment: $output"

cat >"$work/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wg]}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
YAML
cat >"$work/widget.yaml" <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec: {size: 3}
YAML
expect_output "apply a CRD" 'widgets.example.com serverside-applied' kubectl apply --server-side -f "$work/crd.yaml"
if output=$(kubectl apply --server-side -f "$work/widget.yaml" 2>&1); then
  fail "a Widget was applied before its kind was served: $output"
else
  echo "$output" | grep -q 'no matches for kind "Widget"' || fail "no 'no matches' for the early Widget: $output"
fi
# Served after the delay: retried every 0.1 s for up to 10 s.
tries=0
until kubectl apply --server-side -f "$work/widget.yaml" >"$work/widget.out" 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -lt 100 ] || { fail "the Widget never applied: $(cat "$work/widget.out")"; break; }
  sleep 0.1
done
expect_output "get the widget by short name" '^3$' kubectl get wg w -o 'jsonpath={.spec.size}'

# Pod logs come from the pod's sindri-test/log annotation.
cat >"$work/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  annotations: {sindri-test/log: "line one\nline two\n"}
spec:
  containers: [{name: main, image: busybox}]
YAML
expect_output "apply a pod" 'pod/p serverside-applied' kubectl apply --server-side -f "$work/pod.yaml"
expect_output "logs --tail" '^line two$' kubectl logs p --tail=1

[ "$failures" -eq 0 ] && echo "kubectl_test: all passed"
exit $((failures > 0))
