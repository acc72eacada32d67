#!/usr/bin/python3
"""A Kubernetes API server stand-in for Sindri's tests: the real wire format
over HTTPS on loopback, enough of it for Debian's kubectl and Sindri's agent.

Python 3.11's standard library and python3-yaml (Debian) only. The C++ fixture
tests/kube/server/kube_test_server.hpp makes the certificates with openssl,
starts this on port 0 and reads the port it wrote to --port-file.

What it models, and where each behaviour comes from (kubernetes.io):
- Transport and authentication (reference/access-authn-authz/authentication):
  TLS with the fixture's server certificate; a client certificate verified
  against --client-ca, or `Authorization: Bearer <--token>`; anything else is
  401 Unauthorized as a Status, except that a request without credentials
  may GET /version, /healthz, /readyz and /livez, as the anonymous user may
  on a real cluster (reference/access-authn-authz/rbac, "Discovery roles").
  With --allow-anonymous every request passes. GET /version (gitVersion,
  major, minor, platform ...); /healthz, /readyz, /livez answer "ok".
- Discovery (docs/concepts/overview/kubernetes-api, "Discovery API"): the
  unaggregated documents /api (APIVersions), /apis (APIGroupList),
  /api/v1 and /apis/{group}/{version} (APIResourceList: name, singularName,
  namespaced, kind, verbs, shortNames, plus subresources as "pods/log").
  Clients asking for aggregated discovery (Accept ...as=APIGroupDiscoveryList)
  get the unaggregated JSON with Content-Type application/json, which tells
  kubectl and client-go to fall back, as an older server's answer does.
  The built-in kinds are the table BUILTIN_TYPES below. A created
  CustomResourceDefinition's kinds are served, and appear in discovery, only
  --crd-discovery-delay seconds later (its Established condition turns True
  then), as on a real server where the CRD controller needs a moment
  (tasks/extend-kubernetes/custom-resources/custom-resource-definitions).
- Objects (reference/using-api/api-concepts; reference/kubernetes-api/
  common-definitions/object-meta): metadata.uid, resourceVersion from one
  global counter, creationTimestamp, generation (bumped when anything outside
  metadata and status changes), managedFields. Namespaced objects need their
  namespace: 404 NotFound when it does not exist, 403 Forbidden "unable to
  create new content in namespace X because it is being terminated" while it
  terminates (reference/access-authn-authz/admission-controllers,
  NamespaceLifecycle).
- Server-side apply (reference/using-api/server-side-apply): PATCH with
  Content-Type application/apply-patch+yaml (YAML or JSON body); fieldManager
  is required (400); fields are owned per manager and recorded in
  managedFields (operation Apply, fieldsType FieldsV1); applying a value
  another manager owns is a 409 Conflict naming the fields and managers
  unless force=true, which takes the fields over; fields a manager applied
  before and no longer applies are removed unless another manager owns them;
  an absent object is created; a metadata.resourceVersion in the body must
  be the stored one (409 Conflict otherwise). Lists are merged by key where
  the Kubernetes schema marks them x-kubernetes-list-type=map (LIST_MAP_KEYS
  below, e.g. containers by name, ports by containerPort and protocol); other
  lists are atomic (replaced whole and owned as one field); maps and lists a
  removal leaves empty go too. dryRun=All validates and
  answers without storing. POST (create) and PUT (replace) record operation
  Update for the fieldManager (default: the first word of the User-Agent).
  Writes to a built-in kind leave its status as it was (the status
  subresource is how it changes); a write that changes nothing keeps the
  resourceVersion.
- Validation (api-concepts, "Field validation"; Status reason Invalid, 422):
  apiVersion and kind must match the URL, metadata.name must be present and a
  DNS-1123 subdomain (a DNS-1123 label for namespaces), metadata.namespace
  must match the URL's. Wrong body syntax is 400 BadRequest. Every namespace
  carries the label kubernetes.io/metadata.name.
- Reading (api-concepts, "Retrieving large results sets in chunks"; overview/
  working-with-objects/labels and field-selectors): GET, list per namespace
  and across all namespaces (kind <Kind>List with items; items carry no
  kind/apiVersion for built-in kinds, as the real server's typed lists, and
  do for custom resources), labelSelector with =, ==, !=, in, notin, exists
  and !key, fieldSelector with = == and != on metadata.name,
  metadata.namespace and the fields some kinds add (FIELD_SELECTORS: an
  Event's involvedObject.*, a Pod's status.phase ...), limit and continue
  (remainingItemCount). Accept with as=Table (kubectl get) gets a
  meta.k8s.io/v1 Table: Name, Status for namespaces and pods, Age.
- OpenAPI v3 (/openapi/v3 and one document per group version), only each
  kind's PATCH operation with its parameters: from it kubectl learns that
  the server validates fields (fieldValidation) and downloads no schemas.
- Deleting (reference/kubernetes-api/common-parameters, DeleteOptions;
  overview/working-with-objects/owners-dependents): DELETE with a
  DeleteOptions body or a propagationPolicy query; Background and Foreground
  delete dependents (objects whose ownerReferences name the uid) at once,
  Orphan strips the reference. The answer is a Status Success. A namespace
  answers with itself in phase Terminating (deletionTimestamp set) and stays
  so for --namespace-termination-delay seconds; then it and everything in it
  are gone.
- GET /api/v1/namespaces/{ns}/pods/{name}/log: text/plain from the pod's
  annotation sindri-test/log.<container> or sindri-test/log, tailLines.
- Errors are always Status objects (reference/kubernetes-api/common-
  definitions/status): kind Status, apiVersion v1, status Failure, message,
  reason, code, details {name, group, kind, causes}.
- HTTP/1.1 keep-alive, one thread per connection.

Deliberately not modeled: watch (?watch=true is 405, so a client fails at
once instead of misreading a list; `kubectl delete` needs --wait=false);
patch types other than apply (JSON, merge and strategic merge patches are
415, so client-side `kubectl apply` does not work); subresources other than
pods/log (status and scale among them); defaulting (no protocol: TCP, no
replicas: 1), schemas, validation of field values and unknown fields
(fieldValidation is ignored); admission webhooks; RBAC (every authenticated
caller may do everything); finalizers other than a namespace's own;
graceful pod deletion; controllers (no ReplicaSet or Pod from a Deployment,
no Job that completes: tests store status through the test API); aggregated
discovery; OpenAPI v2 and schemas; more than one version of a group (a
CRD's first served version is the one served); Retry-After on 429s.

The server ends when the process that started it does (it polls its parent),
so a test that crashes leaves none behind.

Test control, under /_test/, not authenticated (the fixture reaches it with
the CA only; anything that reaches loopback is a test):
  GET    /_test/requests          every API request seen (all but /_test/),
                                  in order, answered or refused:
                                  [{method, path, query, content_type, body}]
  DELETE /_test/requests          forgets them
  POST   /_test/failures          {method ("*" any), path_prefix, status,
                                  count}: the next count matching API
                                  requests answer status with a Status body;
                                  status 0 drops the connection unanswered.
                                  {method, path_prefix, hold_seconds, count}:
                                  they are answered as usual, hold_seconds
                                  late (a client killed in the middle of a
                                  request, a client's timeout)
  POST   /_test/objects           stores the body verbatim (status included),
                                  filling uid, resourceVersion and
                                  creationTimestamp when absent; no checks
  GET    /_test/objects           everything stored, as a JSON array
  POST   /_test/reset             back to the start: only the default
                                  namespaces, no requests, no failures
"""

import argparse
import base64
import copy
import datetime
import http.server
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
import traceback
import urllib.parse
import uuid

import yaml


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# Resource types
# ---------------------------------------------------------------------------

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
NAMESPACE_VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"]


class ResourceType:
    def __init__(self, group, version, kind, plural, namespaced, short_names=(), verbs=None,
                 subresources=(), builtin=True):
        self.group = group
        self.version = version
        self.kind = kind
        self.plural = plural
        self.singular = kind.lower()
        self.namespaced = namespaced
        self.short_names = list(short_names)
        self.verbs = list(verbs or ALL_VERBS)
        self.subresources = list(subresources)
        self.builtin = builtin

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    def discovery_entries(self):
        entry = {"name": self.plural, "singularName": self.singular, "namespaced": self.namespaced,
                 "kind": self.kind, "verbs": self.verbs}
        if self.short_names:
            entry["shortNames"] = self.short_names
        entries = [entry]
        for sub in self.subresources:
            entries.append({"name": f"{self.plural}/{sub}", "singularName": "", "namespaced": self.namespaced,
                            "kind": "Pod" if sub == "log" else self.kind, "verbs": ["get"]})
        return entries


BUILTIN_TYPES = [
    ResourceType("", "v1", "Namespace", "namespaces", False, ["ns"], NAMESPACE_VERBS),
    ResourceType("", "v1", "ConfigMap", "configmaps", True, ["cm"]),
    ResourceType("", "v1", "Secret", "secrets", True),
    ResourceType("", "v1", "Service", "services", True, ["svc"], NAMESPACE_VERBS),
    ResourceType("", "v1", "ServiceAccount", "serviceaccounts", True, ["sa"]),
    ResourceType("", "v1", "Pod", "pods", True, ["po"], subresources=["log"]),
    ResourceType("", "v1", "Event", "events", True, ["ev"]),
    ResourceType("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True, ["pvc"]),
    ResourceType("apps", "v1", "Deployment", "deployments", True, ["deploy"]),
    ResourceType("apps", "v1", "ReplicaSet", "replicasets", True, ["rs"]),
    ResourceType("apps", "v1", "StatefulSet", "statefulsets", True, ["sts"]),
    ResourceType("apps", "v1", "DaemonSet", "daemonsets", True, ["ds"]),
    ResourceType("batch", "v1", "Job", "jobs", True),
    ResourceType("batch", "v1", "CronJob", "cronjobs", True, ["cj"]),
    ResourceType("networking.k8s.io", "v1", "Ingress", "ingresses", True, ["ing"]),
    ResourceType("rbac.authorization.k8s.io", "v1", "Role", "roles", True),
    ResourceType("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", True),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False),
    ResourceType("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False,
                 ["crd", "crds"]),
]

# Lists the Kubernetes schema marks x-kubernetes-list-type=map (or the
# equivalent patchMergeKey), by field name, with their keys. A field not
# named here is an atomic list. `ports` is a container's (containerPort)
# or a Service's (port), told apart by the items. Keys absent from an item
# default as the API server defaults them (protocol: TCP).
LIST_MAP_KEYS = {
    "containers": ["name"],
    "initContainers": ["name"],
    "ephemeralContainers": ["name"],
    "env": ["name"],
    "volumes": ["name"],
    "volumeMounts": ["mountPath"],
    "volumeDevices": ["devicePath"],
    "imagePullSecrets": ["name"],
    "hostAliases": ["ip"],
    "resourceClaims": ["name"],
    "topologySpreadConstraints": ["topologyKey", "whenUnsatisfiable"],
    "conditions": ["type"],
    "ownerReferences": ["uid"],
    "versions": ["name"],  # a CustomResourceDefinition's
}
PORT_KEYS = {"containerPort": ["containerPort", "protocol"], "port": ["port", "protocol"]}
KEY_DEFAULTS = {"protocol": "TCP"}
# Lists of scalars that are sets (x-kubernetes-list-type=set): items owned one by one.
LIST_SETS = {"finalizers"}


def list_keys(field_name, items):
    if field_name == "ports":
        for item in items:
            if isinstance(item, dict):
                for marker, keys in PORT_KEYS.items():
                    if marker in item:
                        return keys
        return None
    return LIST_MAP_KEYS.get(field_name)


def item_key(item, keys):
    if not isinstance(item, dict):
        return None
    key = {}
    for name in keys:
        if name in item:
            key[name] = item[name]
        elif name in KEY_DEFAULTS:
            key[name] = KEY_DEFAULTS[name]
        else:
            return None
    return "k:" + json.dumps(key, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class ApiError(Exception):
    REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
               406: "NotAcceptable", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType",
               422: "Invalid", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
               504: "Timeout"}

    def __init__(self, code, message, reason=None, details=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason if reason is not None else self.REASONS.get(code, "")
        self.details = details

    def status(self):
        body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": self.message, "reason": self.reason, "code": self.code}
        if self.details:
            body["details"] = self.details
        return body


def group_resource(rtype):
    return f"{rtype.plural}.{rtype.group}" if rtype.group else rtype.plural


def not_found(rtype, name):
    return ApiError(404, f'{group_resource(rtype)} "{name}" not found',
                    details={"name": name, "group": rtype.group, "kind": rtype.plural})


def invalid(rtype, name, causes):
    text = "; ".join(f"{c['field']}: {c['message']}" for c in causes)
    return ApiError(422, f'{rtype.kind}.{rtype.group} "{name}" is invalid: {text}' if rtype.group
                    else f'{rtype.kind} "{name}" is invalid: {text}',
                    details={"name": name, "group": rtype.group, "kind": rtype.kind,
                             "causes": [{"reason": c.get("reason", "FieldValueInvalid"),
                                         "message": c["message"], "field": c["field"]} for c in causes]})


DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


# ---------------------------------------------------------------------------
# Field sets for server-side apply: a field path is a tuple of FieldsV1 keys
# ("f:spec", "f:containers", 'k:{"name":"web"}', "f:image"); a list item's own
# path stands for its "." entry.
# ---------------------------------------------------------------------------

SERVER_FIELDS = {"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "deletionTimestamp",
                 "selfLink"}


def field_paths(value, prefix=(), top=True):
    paths = set()
    if not isinstance(value, dict):
        return paths
    for name, child in value.items():
        if top and name in ("apiVersion", "kind"):
            continue
        if top and name == "status":
            continue
        if prefix == ("f:metadata",) and name in SERVER_FIELDS | {"name", "namespace"}:
            continue
        path = prefix + ("f:" + name,)
        paths |= value_paths(name, child, path)
    return paths


def value_paths(name, child, path):
    if isinstance(child, dict):
        if not child:
            return {path}
        return field_paths(child, path, top=False)
    if isinstance(child, list):
        if name in LIST_SETS and all(not isinstance(i, (dict, list)) for i in child):
            return {path + ("v:" + json.dumps(i),) for i in child} or {path}
        keys = list_keys(name, child)
        keyed = [item_key(i, keys) for i in child] if keys else []
        if keys and all(keyed) and len(set(keyed)) == len(keyed):
            paths = set()
            for k, item in zip(keyed, child):
                paths.add(path + (k,))
                paths |= field_paths(item, path + (k,), top=False)
            return paths
        return {path}
    return {path}


def lookup(value, path):
    """The value at a field path, or a sentinel when absent."""
    current = value
    for step in path:
        kind, _, text = step.partition(":")
        if kind == "f":
            if not isinstance(current, dict) or text not in current:
                return MISSING
            current = current[text]
            continue
        if not isinstance(current, list):
            return MISSING
        found = MISSING
        for item in current:
            if kind == "k" and item_key(item, list(json.loads(text).keys())) == step:
                found = item
                break
            if kind == "v" and json.dumps(item) == text:
                found = item
                break
        if found is MISSING:
            return MISSING
        current = found
    return current


class _Missing:
    def __repr__(self):
        return "<missing>"


MISSING = _Missing()


def remove_path(value, path):
    parent = lookup(value, path[:-1]) if len(path) > 1 else value
    step = path[-1]
    kind, _, text = step.partition(":")
    if kind == "f" and isinstance(parent, dict):
        parent.pop(text, None)
    elif isinstance(parent, list):
        keys = list(json.loads(text).keys()) if kind == "k" else None
        parent[:] = [i for i in parent
                     if not ((kind == "k" and item_key(i, keys) == step) or (kind == "v" and json.dumps(i) == text))]


def prune_emptied(value, removed, kept):
    """Maps and lists a removal left empty go too, as structured-merge-diff
    drops them, unless someone owns them as they are."""
    for length in range(len(removed) - 1, 0, -1):
        parent = removed[:length]
        container = lookup(value, parent)
        if container in ({}, []) and parent not in kept:
            remove_path(value, parent)
        else:
            return


def path_text(path):
    out = ""
    for step in path:
        kind, _, text = step.partition(":")
        if kind == "f":
            out += "." + text
        elif kind == "k":
            out += "[" + ",".join(f"{k}={json.dumps(v)}" for k, v in json.loads(text).items()) + "]"
        else:
            out += f"[={text}]"
    return out


def fields_v1(paths):
    tree = {}
    for path in sorted(paths):
        node = tree
        for step in path:
            node = node.setdefault(step, {})
        if path and path[-1][0] in "kv" and path[-1][1] == ":":
            node.setdefault(".", {})
    return tree


def paths_from_fields_v1(tree, prefix=()):
    paths = set()
    for step, child in tree.items():
        if step == ".":
            paths.add(prefix)
            continue
        if child and set(child) != {"."}:
            paths |= paths_from_fields_v1(child, prefix + (step,))
        else:
            paths.add(prefix + (step,))
    return paths


def merge(live, applied, field_name=None):
    """The applied configuration merged into the live value: maps by field,
    lists with keys by item, everything else replaced."""
    if isinstance(live, dict) and isinstance(applied, dict):
        out = dict(live)
        for name, child in applied.items():
            out[name] = merge(live.get(name, MISSING), child, name)
        return out
    if isinstance(live, list) and isinstance(applied, list):
        keys = list_keys(field_name, applied + live)
        if keys:
            live_keyed = [item_key(i, keys) for i in live]
            applied_keyed = [item_key(i, keys) for i in applied]
            if all(live_keyed) and all(applied_keyed):
                out = list(live)
                for k, item in zip(applied_keyed, applied):
                    if k in live_keyed:
                        index = live_keyed.index(k)
                        out[index] = merge(live[index], item)
                    else:
                        out.append(item)
                        live_keyed.append(k)
                return out
        if field_name in LIST_SETS:
            return list(live) + [i for i in applied if i not in live]
    return copy.deepcopy(applied)


def changed_paths(old, new):
    """Field paths whose value differs between two objects (an update's fields)."""
    return {path for path in field_paths(new) if old is None or lookup(old, path) != lookup(new, path)}


# ---------------------------------------------------------------------------
# Label and field selectors
# ---------------------------------------------------------------------------

def split_top_level(text):
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


SET_REQUIREMENT = re.compile(r"^([A-Za-z0-9._/-]+)\s+(in|notin)\s*\(([^()]*)\)$")
EQUALITY_REQUIREMENT = re.compile(r"^([A-Za-z0-9._/-]+)\s*(==|!=|=)\s*([A-Za-z0-9._-]*)$")
EXISTS_REQUIREMENT = re.compile(r"^(!?)\s*([A-Za-z0-9._/-]+)$")


def parse_label_selector(text):
    """Requirements as (key, operator, values); ApiError 400 when malformed."""
    requirements = []
    for part in split_top_level(text or ""):
        match = SET_REQUIREMENT.match(part)
        if match:
            values = [v.strip() for v in match.group(3).split(",") if v.strip()]
            requirements.append((match.group(1), match.group(2), values))
            continue
        match = EQUALITY_REQUIREMENT.match(part)
        if match:
            operator = "!=" if match.group(2) == "!=" else "="
            requirements.append((match.group(1), operator, [match.group(3)]))
            continue
        match = EXISTS_REQUIREMENT.match(part)
        if match:
            requirements.append((match.group(2), "!" if match.group(1) else "exists", []))
            continue
        raise ApiError(400, f'unable to parse requirement: found \'{part}\', expected: in, notin, =, ==, !=, gt, lt',
                       reason="BadRequest")
    return requirements


def labels_match(requirements, labels):
    for key, operator, values in requirements:
        present = key in labels
        if operator == "=" and (not present or labels[key] != values[0]):
            return False
        if operator == "!=" and present and labels[key] == values[0]:
            return False
        if operator == "in" and (not present or labels[key] not in values):
            return False
        if operator == "notin" and present and labels[key] in values:
            return False
        if operator == "exists" and not present:
            return False
        if operator == "!" and present:
            return False
    return True


# Field selectors every kind has, and those some kinds add (their
# GetAttrs/field label conversion functions in the API server).
FIELD_SELECTORS = {
    "": ["metadata.name", "metadata.namespace"],
    "Pod": ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
            "status.phase", "status.podIP", "status.nominatedNodeName"],
    "Event": ["involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
              "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
              "reportingComponent", "source", "type"],
    "Namespace": ["status.phase"],
    "Secret": ["type"],
    "Job": ["status.successful"],
}


def parse_field_selector(text, kind):
    known = FIELD_SELECTORS[""] + FIELD_SELECTORS.get(kind, [])
    requirements = []
    for part in split_top_level(text or ""):
        match = re.match(r"^([A-Za-z.]+)\s*(==|!=|=)\s*(.*)$", part)
        if not match:
            raise ApiError(400, f"invalid selector: '{text}'; can't understand '{part}'")
        field = match.group(1)
        if field not in known:
            raise ApiError(400, f'field label not supported: {field}')
        requirements.append((field.split("."), match.group(2) != "!=", match.group(3)))
    return requirements


def field_text(obj, steps):
    current = obj
    for step in steps:
        current = current.get(step) if isinstance(current, dict) else None
    return "" if current is None else str(current)


def fields_match(requirements, obj):
    return all((field_text(obj, steps) == value) == equal for steps, equal, value in requirements)


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------

DEFAULT_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"]


class Store:
    def __init__(self, crd_discovery_delay, namespace_termination_delay):
        self.lock = threading.RLock()
        self.crd_discovery_delay = crd_discovery_delay
        self.namespace_termination_delay = namespace_termination_delay
        self.reset()

    def reset(self):
        with self.lock:
            self.resource_version = 0
            self.objects = {}  # (group, plural) -> {(namespace, name): object}
            self.custom_types = {}  # crd name -> CustomType
            self.terminating = {}  # namespace -> monotonic time it goes
            for name in DEFAULT_NAMESPACES:
                self.store(type_by_kind("v1", "Namespace"), self.new_object(name_label(
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
                     "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})))

    def next_resource_version(self):
        self.resource_version += 1
        return str(self.resource_version)

    def new_object(self, obj):
        metadata = obj.setdefault("metadata", {})
        metadata.setdefault("uid", str(uuid.uuid4()))
        metadata.setdefault("creationTimestamp", now_rfc3339())
        metadata["resourceVersion"] = self.next_resource_version()
        return obj

    def store(self, rtype, obj):
        key = (obj["metadata"].get("namespace", "") if rtype.namespaced else "", obj["metadata"]["name"])
        self.objects.setdefault((rtype.group, rtype.plural), {})[key] = obj

    def table(self, rtype):
        return self.objects.setdefault((rtype.group, rtype.plural), {})

    # Time passes: CRDs become established, terminating namespaces go.
    def advance(self):
        with self.lock:
            now = time.monotonic()
            for crd_name, custom in self.custom_types.items():
                crd = self.table(CRD_TYPE).get(("", crd_name))
                if crd is not None and now >= custom.available_at and not custom.established:
                    crd["status"] = {"conditions": [
                        {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                         "lastTransitionTime": now_rfc3339(), "message": "no conflicts found"},
                        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                         "lastTransitionTime": now_rfc3339(), "message": "the initial names have been accepted"}],
                        "acceptedNames": crd.get("spec", {}).get("names", {}),
                        "storedVersions": [custom.rtype.version]}
                    custom.established = True
                    crd["metadata"]["resourceVersion"] = self.next_resource_version()
            for namespace, gone_at in list(self.terminating.items()):
                if now >= gone_at:
                    del self.terminating[namespace]
                    for table in self.objects.values():
                        for key in [k for k in table if k[0] == namespace]:
                            del table[key]
                    self.table(NAMESPACE_TYPE).pop(("", namespace), None)

    def served_types(self):
        now = time.monotonic()
        custom = [c.rtype for c in self.custom_types.values() if now >= c.available_at]
        return BUILTIN_TYPES + custom

    def find_type(self, group, version, plural):
        for rtype in self.served_types():
            if rtype.group == group and rtype.version == version and rtype.plural == plural:
                return rtype
        return None

    def namespace_state(self, namespace):
        ns = self.table(NAMESPACE_TYPE).get(("", namespace))
        if ns is None:
            return None
        return ns.get("status", {}).get("phase", "Active")

    def all_objects(self):
        with self.lock:
            return [obj for table in self.objects.values() for obj in table.values()]


def name_label(namespace):
    """The label every namespace carries, set by the API server since 1.21
    (reference/labels-annotations-taints, kubernetes.io/metadata.name)."""
    metadata = namespace["metadata"]
    if not isinstance(metadata.get("labels"), dict):
        metadata["labels"] = {}
    metadata["labels"]["kubernetes.io/metadata.name"] = metadata["name"]
    return namespace


def type_by_kind(api_version, kind):
    for rtype in BUILTIN_TYPES:
        if rtype.api_version == api_version and rtype.kind == kind:
            return rtype
    return None


NAMESPACE_TYPE = type_by_kind("v1", "Namespace")
CRD_TYPE = type_by_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition")


class CustomType:
    """A CRD's kind: served from available_at on, Established once it is."""

    def __init__(self, rtype, available_at):
        self.rtype = rtype
        self.available_at = available_at
        self.established = False


def custom_type_of(crd):
    spec = crd.get("spec", {})
    names = spec.get("names", {})
    versions = [v for v in spec.get("versions", []) if v.get("served", True)]
    if not spec.get("group") or not names.get("kind") or not names.get("plural") or not versions:
        return None
    rtype = ResourceType(spec["group"], versions[0].get("name", "v1"), names["kind"], names["plural"],
                         spec.get("scope", "Namespaced") == "Namespaced", names.get("shortNames", []),
                         builtin=False)
    rtype.singular = names.get("singular", names["kind"].lower())
    return rtype


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------

class Api:
    def __init__(self, store, port_holder):
        self.store = store
        self.port_holder = port_holder

    # -- discovery --------------------------------------------------------
    def discovery(self, path):
        types = self.store.served_types()
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{self.port_holder[0]}"}]}
        if path == "/apis":
            groups = []
            for rtype in types:
                if rtype.group and all(g["name"] != rtype.group for g in groups):
                    gv = {"groupVersion": rtype.api_version, "version": rtype.version}
                    groups.append({"name": rtype.group, "versions": [gv], "preferredVersion": gv})
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        parts = path.strip("/").split("/")
        if parts[0] == "api" and len(parts) == 2:
            group, version = "", parts[1]
        elif parts[0] == "apis" and len(parts) == 3:
            group, version = parts[1], parts[2]
        elif parts[0] == "apis" and len(parts) == 2:
            listed = [r for r in types if r.group == parts[1]]
            if not listed:
                raise ApiError(404, "the server could not find the requested resource")
            gv = {"groupVersion": listed[0].api_version, "version": listed[0].version}
            return {"kind": "APIGroup", "apiVersion": "v1", "name": parts[1], "versions": [gv],
                    "preferredVersion": gv}
        else:
            return None
        listed = [r for r in types if r.group == group and r.version == version]
        if not listed:
            raise ApiError(404, "the server could not find the requested resource")
        resources = [entry for r in listed for entry in r.discovery_entries()]
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": f"{group}/{version}" if group else version, "resources": resources}

    # -- routing ----------------------------------------------------------
    def route(self, path):
        """(rtype, namespace, name, subresource) for a resource path, or None."""
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        if parts[0] == "api" and len(parts) >= 3:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) >= 4:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return None
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces" and rest[2] != "":
            # /namespaces/{ns}/{plural}... is namespaced; /namespaces/{name}[/status] is a Namespace.
            if len(rest) >= 3 and self.store.find_type(group, version, rest[2]) is not None:
                namespace, rest = rest[1], rest[2:]
        plural = rest[0]
        rtype = self.store.find_type(group, version, plural)
        if rtype is None:
            raise ApiError(404, "the server could not find the requested resource")
        name = rest[1] if len(rest) >= 2 else None
        sub = rest[2] if len(rest) >= 3 else None
        if len(rest) > 3 or (sub is not None and sub not in rtype.subresources):
            raise ApiError(404, "the server could not find the requested resource")
        if namespace is not None and not rtype.namespaced:
            raise ApiError(404, "the server could not find the requested resource")
        return rtype, namespace, name, sub

    # -- reading ----------------------------------------------------------
    def get(self, rtype, namespace, name):
        obj = self.store.table(rtype).get((namespace or "", name))
        if obj is None:
            raise not_found(rtype, name)
        return self.answer(rtype, obj)

    def answer(self, rtype, obj):
        out = copy.deepcopy(obj)
        out["apiVersion"] = rtype.api_version
        out["kind"] = rtype.kind
        return out

    def list(self, rtype, namespace, query):
        labels = parse_label_selector(query.get("labelSelector", ""))
        fields = parse_field_selector(query.get("fieldSelector", ""), rtype.kind)
        items = []
        for (ns, name), obj in sorted(self.store.table(rtype).items()):
            if namespace is not None and ns != namespace:
                continue
            metadata = obj.get("metadata", {})
            if not labels_match(labels, metadata.get("labels") or {}) or not fields_match(fields, obj):
                continue
            item = self.answer(rtype, obj)
            if rtype.builtin:
                item.pop("apiVersion", None)
                item.pop("kind", None)
            items.append(((ns, name), item))
        start = None
        if query.get("continue"):
            try:
                token = json.loads(base64.b64decode(query["continue"]).decode())
                start = tuple(token["after"])
            except (ValueError, KeyError, TypeError):
                raise ApiError(400, "continue key is not valid: incorrect encoded start resourceVersion")
            items = [entry for entry in items if entry[0] > start]
        metadata = {"resourceVersion": str(self.store.resource_version)}
        limit = int_parameter(query, "limit")
        if limit > 0 and len(items) > limit:
            rest = len(items) - limit
            items = items[:limit]
            token = {"after": list(items[-1][0]), "rv": self.store.resource_version}
            metadata["continue"] = base64.b64encode(json.dumps(token).encode()).decode()
            metadata["remainingItemCount"] = rest
        return {"kind": rtype.kind + "List", "apiVersion": rtype.api_version, "metadata": metadata,
                "items": [item for _, item in items]}

    def pod_log(self, namespace, name, query):
        pod = self.store.table(type_by_kind("v1", "Pod")).get((namespace, name))
        if pod is None:
            raise ApiError(404, f'pods "{name}" not found', details={"name": name, "kind": "pods"})
        annotations = pod.get("metadata", {}).get("annotations") or {}
        container = query.get("container", "")
        text = annotations.get(f"sindri-test/log.{container}", annotations.get("sindri-test/log", ""))
        if "tailLines" in query:
            lines = text.splitlines(keepends=True)
            tail = int_parameter(query, "tailLines")
            text = "".join(lines[-tail:]) if tail > 0 else ""
        return text

    # -- writing ----------------------------------------------------------
    def check_body(self, rtype, namespace, name, obj, creating):
        if not isinstance(obj, dict):
            raise ApiError(400, "the body of the request was in an unknown format - accepted media types "
                                "include: application/json, application/yaml")
        metadata = obj.get("metadata")
        if metadata is None:
            metadata = obj["metadata"] = {}
        if not isinstance(metadata, dict):
            raise ApiError(400, "metadata: expected an object")
        shown_name = metadata.get("name") or name or ""
        if obj.get("apiVersion") != rtype.api_version or obj.get("kind") != rtype.kind:
            raise ApiError(400, f"the API version in the data ({obj.get('apiVersion')}) does not match the "
                                f"expected API version ({rtype.api_version})"
                           if obj.get("apiVersion") != rtype.api_version else
                           f"the kind in the data ({obj.get('kind')}) does not match the expected kind "
                           f"({rtype.kind})")
        if name is not None and metadata.get("name") not in (None, name):
            raise ApiError(400, "the name of the object "
                                f"({metadata.get('name')}) does not match the name on the URL ({name})")
        if name is not None:
            metadata.setdefault("name", name)
        if rtype.namespaced:
            if metadata.get("namespace") not in (None, "", namespace):
                raise ApiError(400, "the namespace of the provided object does not match the namespace sent on "
                                    "the request")
            metadata["namespace"] = namespace
        elif "namespace" in metadata:
            metadata.pop("namespace")
        causes = []
        object_name = metadata.get("name")
        pattern = DNS_LABEL if rtype.kind == "Namespace" else DNS_SUBDOMAIN
        if not object_name:
            causes.append({"field": "metadata.name", "message": "Required value: name or generateName is required",
                           "reason": "FieldValueRequired"})
        elif not isinstance(object_name, str) or not pattern.match(object_name) or len(object_name) > 253:
            causes.append({"field": "metadata.name",
                           "message": f'Invalid value: "{object_name}": a lowercase RFC 1123 '
                                      f'{"label" if rtype.kind == "Namespace" else "subdomain"} must consist of '
                                      "lower case alphanumeric characters, '-' or '.'"})
        for field in ("labels", "annotations"):
            entries = metadata.get(field)
            if entries is not None and (not isinstance(entries, dict)
                                        or not all(isinstance(v, str) for v in entries.values())):
                causes.append({"field": f"metadata.{field}", "message": "Invalid value: values must be strings"})
        if causes:
            raise invalid(rtype, shown_name, causes)
        if creating and rtype.namespaced:
            self.check_namespace_open(namespace)

    def check_namespace_open(self, namespace):
        state = self.store.namespace_state(namespace)
        if state is None:
            raise ApiError(404, f'namespaces "{namespace}" not found',
                           details={"name": namespace, "kind": "namespaces"})
        if state == "Terminating":
            raise ApiError(403, f"unable to create new content in namespace {namespace} because it is being "
                                "terminated", details={"name": namespace, "kind": "namespaces", "causes": [
                                    {"reason": "NamespaceTerminating", "message": f"namespace {namespace} is "
                                     "terminating", "field": "metadata.namespace"}]})

    def finish_write(self, rtype, old, new, manager_entries, dry_run):
        metadata = new["metadata"]
        if old is None:
            metadata["uid"] = str(uuid.uuid4())
            metadata["creationTimestamp"] = now_rfc3339()
            metadata["generation"] = 1
        else:
            for field in ("uid", "creationTimestamp", "generation", "deletionTimestamp"):
                if field in old["metadata"]:
                    metadata[field] = old["metadata"][field]
                else:
                    metadata.pop(field, None)
            if spec_of(old) != spec_of(new):
                metadata["generation"] = old["metadata"].get("generation", 1) + 1
        # Writes to the object itself leave a built-in kind's status alone
        # (its status subresource, not modeled, is how controllers set it).
        if rtype.builtin:
            new.pop("status", None)
            if old is not None and "status" in old:
                new["status"] = copy.deepcopy(old["status"])
        if rtype.kind == "Namespace":
            name_label(new)
            if old is None:
                new.setdefault("spec", {"finalizers": ["kubernetes"]})
                new["status"] = {"phase": "Active"}
        metadata["managedFields"] = [entry for entry in manager_entries if entry["fieldsV1"]]
        if not metadata["managedFields"]:
            del metadata["managedFields"]
        if dry_run:
            metadata["resourceVersion"] = old["metadata"]["resourceVersion"] if old else ""
            return self.answer(rtype, new)
        if old is not None and without_write_stamps(old) == without_write_stamps(new):
            return self.answer(rtype, old)  # a write that changes nothing is no new version
        metadata["resourceVersion"] = self.store.next_resource_version()
        if rtype.kind == "CustomResourceDefinition":
            self.register_crd(new)
        self.store.store(rtype, new)
        return self.answer(rtype, new)

    @staticmethod
    def modified(rtype, name):
        return ApiError(409, f'Operation cannot be fulfilled on {group_resource(rtype)} "{name}": the object has been '
                             "modified; please apply your changes to the latest version and try again",
                        details={"name": name, "group": rtype.group, "kind": rtype.plural})

    def register_crd(self, crd):
        custom = custom_type_of(crd)
        if custom is None:
            return
        existing = self.store.custom_types.get(crd["metadata"]["name"])
        if existing is not None:
            existing.rtype = custom
        else:
            self.store.custom_types[crd["metadata"]["name"]] = CustomType(
                custom, time.monotonic() + self.store.crd_discovery_delay)

    def managers_of(self, obj):
        entries = []
        for entry in (obj or {}).get("metadata", {}).get("managedFields") or []:
            entries.append(dict(entry, _paths=paths_from_fields_v1(entry.get("fieldsV1", {}))))
        return entries

    def encode_managers(self, entries):
        out = []
        for entry in entries:
            clean = {k: v for k, v in entry.items() if k != "_paths"}
            clean["fieldsV1"] = fields_v1(entry["_paths"])
            out.append(clean)
        return out

    def apply(self, rtype, namespace, name, body_text, query):
        manager = query.get("fieldManager", "")
        if not manager:
            raise ApiError(400, "PATCH /apply requests require fieldManager to be specified")
        force = query.get("force", "false") == "true"
        try:
            applied = yaml.safe_load(body_text) if body_text.strip() else None
        except yaml.YAMLError as error:
            raise ApiError(400, f"error decoding patch: {error}".replace("\n", " "))
        self.check_body(rtype, namespace, name, applied, creating=False)
        old = self.store.table(rtype).get((namespace or "", name))
        if old is None and rtype.namespaced:
            self.check_namespace_open(namespace)
        wanted = applied["metadata"].get("resourceVersion")
        if wanted and (old is None or wanted != old["metadata"]["resourceVersion"]):
            raise self.modified(rtype, name)
        live = copy.deepcopy(old) if old else {}
        applied_paths = field_paths(applied)
        entries = self.managers_of(old)
        conflicts = []
        for entry in entries:
            if entry.get("manager") == manager and entry.get("operation") == "Apply":
                continue
            for path in sorted(applied_paths & entry["_paths"]):
                # A list item's own entry is shared by everyone applying into it.
                if path[-1].startswith("f:") and lookup(live, path) != lookup(applied, path):
                    conflicts.append((entry, path))
        if conflicts and not force:
            count = len(conflicts)
            causes, lines = [], []
            for entry, path in conflicts:
                text = f'conflict with "{entry["manager"]}"'
                if entry.get("operation") == "Update":
                    text += f' using {entry.get("apiVersion", rtype.api_version)}'
                lines.append(f"{text}: {path_text(path)}")
                causes.append({"reason": "FieldManagerConflict", "message": text, "field": path_text(path)})
            message = f"Apply failed with {count} conflict{'s' if count > 1 else ''}: " + (
                lines[0] if count == 1 else "\n- " + "\n- ".join(lines))
            raise ApiError(409, message, details={"name": name, "group": rtype.group, "kind": rtype.plural,
                                                  "causes": causes})
        for entry, path in conflicts:
            entry["_paths"].discard(path)
        mine = next((e for e in entries if e.get("manager") == manager and e.get("operation") == "Apply"), None)
        others = set()
        for entry in entries:
            if entry is not mine:
                others |= entry["_paths"]
        if mine is not None:
            kept = applied_paths | others
            # Outermost first: a list item goes whole while its key is still there to find it by.
            for path in sorted(mine["_paths"] - kept, key=len):
                remove_path(live, path)
                prune_emptied(live, path, kept)
        merged = merge(live, applied) if live else copy.deepcopy(applied)
        if mine is None:
            mine = {"manager": manager, "operation": "Apply"}
            entries.append(mine)
        mine.update({"apiVersion": rtype.api_version, "time": now_rfc3339(), "fieldsType": "FieldsV1",
                     "_paths": applied_paths})
        return self.finish_write(rtype, old, merged, self.encode_managers(entries),
                                 query.get("dryRun") == "All")

    def create_or_replace(self, rtype, namespace, name, body, query, user_agent, replacing):
        self.check_body(rtype, namespace, name, body, creating=not replacing)
        object_name = body["metadata"]["name"]
        old = self.store.table(rtype).get((namespace or "", object_name))
        if replacing and old is None:
            raise not_found(rtype, object_name)
        if not replacing and old is not None:
            raise ApiError(409, f'{group_resource(rtype)} "{object_name}" already exists', reason="AlreadyExists",
                           details={"name": object_name, "group": rtype.group, "kind": rtype.plural})
        if replacing:
            wanted = body["metadata"].get("resourceVersion")
            if wanted and wanted != old["metadata"]["resourceVersion"]:
                raise self.modified(rtype, object_name)
        manager = query.get("fieldManager") or (user_agent.split("/")[0] if user_agent else "unknown")
        new = copy.deepcopy(body)
        for field in SERVER_FIELDS:
            new["metadata"].pop(field, None)
        changed = changed_paths(old, new)
        entries = self.managers_of(old)
        for entry in entries:
            entry["_paths"] -= changed
        mine = next((e for e in entries if e.get("manager") == manager and e.get("operation") == "Update"), None)
        if mine is None:
            mine = {"manager": manager, "operation": "Update", "_paths": set()}
            entries.append(mine)
        mine.update({"apiVersion": rtype.api_version, "time": now_rfc3339(), "fieldsType": "FieldsV1"})
        mine["_paths"] |= changed
        return self.finish_write(rtype, old, new, self.encode_managers(entries), query.get("dryRun") == "All")

    def delete(self, rtype, namespace, name, query, body_text):
        options = {}
        if body_text.strip():
            try:
                options = json.loads(body_text)
            except ValueError:
                raise ApiError(400, "the body of the request was in an unknown format: DeleteOptions expected")
            if not isinstance(options, dict):
                raise ApiError(400, "DeleteOptions: expected an object")
        policy = options.get("propagationPolicy") or query.get("propagationPolicy") or "Background"
        if policy not in ("Background", "Foreground", "Orphan"):
            raise ApiError(422, f'DeleteOptions.propagationPolicy: Unsupported value: "{policy}": supported values: '
                                '"Foreground", "Background", "Orphan"')
        dry_run = query.get("dryRun") == "All" or options.get("dryRun") == ["All"]
        key = (namespace or "", name)
        obj = self.store.table(rtype).get(key)
        if obj is None:
            raise not_found(rtype, name)
        if rtype.kind == "Namespace":
            if dry_run:
                return self.answer(rtype, obj)
            if obj["status"].get("phase") != "Terminating":
                obj["status"] = {"phase": "Terminating"}
                obj["metadata"]["deletionTimestamp"] = now_rfc3339()
                obj["metadata"]["resourceVersion"] = self.store.next_resource_version()
                self.store.terminating[name] = time.monotonic() + self.store.namespace_termination_delay
            return self.answer(rtype, obj)
        if not dry_run:
            del self.store.table(rtype)[key]
            self.collect_dependents(obj["metadata"]["uid"], policy)
            if rtype.kind == "CustomResourceDefinition":
                custom = self.store.custom_types.pop(name, None)
                if custom is not None:
                    self.store.objects.pop((custom.rtype.group, custom.rtype.plural), None)
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": name, "group": rtype.group, "kind": rtype.plural,
                            "uid": obj["metadata"]["uid"]}}

    def collect_dependents(self, uid, policy):
        for table in self.store.objects.values():
            for key, dependent in list(table.items()):
                references = dependent.get("metadata", {}).get("ownerReferences") or []
                if not any(ref.get("uid") == uid for ref in references):
                    continue
                if policy == "Orphan":
                    dependent["metadata"]["ownerReferences"] = [r for r in references if r.get("uid") != uid]
                    dependent["metadata"]["resourceVersion"] = self.store.next_resource_version()
                else:
                    del table[key]
                    self.collect_dependents(dependent["metadata"]["uid"], policy)

    def put_verbatim(self, obj):
        if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict) or not obj["metadata"].get("name"):
            raise ApiError(400, "an object with metadata.name is needed")
        rtype = None
        for candidate in BUILTIN_TYPES + [c.rtype for c in self.store.custom_types.values()]:
            if candidate.api_version == obj.get("apiVersion") and candidate.kind == obj.get("kind"):
                rtype = candidate
                break
        if rtype is None:
            raise ApiError(400, f"no kind {obj.get('kind')} in {obj.get('apiVersion')}")
        if rtype.namespaced and not obj["metadata"].get("namespace"):
            raise ApiError(400, f"{rtype.kind} is namespaced: metadata.namespace is needed")
        self.store.new_object(obj)
        if rtype.kind == "CustomResourceDefinition":
            self.register_crd(obj)
        self.store.store(rtype, obj)
        return self.answer(rtype, obj)


def without_write_stamps(obj):
    """An object without what every write changes (resourceVersion, managedFields times)."""
    out = copy.deepcopy(obj)
    out["metadata"].pop("resourceVersion", None)
    for entry in out["metadata"].get("managedFields") or []:
        entry.pop("time", None)
    return out


def int_parameter(query, name):
    try:
        return int(query.get(name) or 0)
    except ValueError:
        raise ApiError(400, f"{name}: Invalid value: \"{query[name]}\": must be an integer")


def spec_of(obj):
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


# ---------------------------------------------------------------------------
# OpenAPI v3, only as much as kubectl reads to learn that PATCH takes
# fieldValidation (then it leaves validation to the server instead of
# downloading every schema): the index and, per group version, each
# resource's PATCH operation with its group-version-kind and parameters.
# ---------------------------------------------------------------------------

def openapi_v3(types, path):
    by_group_version = {}
    for rtype in types:
        prefix = f"apis/{rtype.group}/{rtype.version}" if rtype.group else f"api/{rtype.version}"
        by_group_version.setdefault(prefix, []).append(rtype)
    if path.rstrip("/") == "/openapi/v3":
        return {"paths": {prefix: {"serverRelativeURL": f"/openapi/v3/{prefix}"} for prefix in by_group_version}}
    prefix = path[len("/openapi/v3/"):].strip("/")
    if prefix not in by_group_version:
        raise ApiError(404, "the server could not find the requested resource")
    paths = {}
    for rtype in by_group_version[prefix]:
        scope = "/namespaces/{namespace}" if rtype.namespaced else ""
        gvk = [{"group": rtype.group, "version": rtype.version, "kind": rtype.kind}]
        parameters = [{"name": name, "in": "query", "schema": {"type": "string"}}
                      for name in ("dryRun", "fieldManager", "fieldValidation", "force")]
        paths[f"/{prefix}{scope}/{rtype.plural}/{{name}}"] = {"patch": {
            "operationId": f"patch{rtype.kind}", "parameters": parameters,
            "x-kubernetes-action": "patch", "x-kubernetes-group-version-kind": gvk[0],
            "responses": {"200": {"description": "OK"}}}}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": VERSION["gitVersion"]},
            "paths": paths, "components": {"schemas": {}}}


# ---------------------------------------------------------------------------
# Tables for kubectl get
# ---------------------------------------------------------------------------

def age(timestamp):
    try:
        then = datetime.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        return "<unknown>"
    seconds = int((datetime.datetime.now(datetime.timezone.utc) - then).total_seconds())
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h"


def as_table(rtype, answer):
    items = answer["items"] if answer.get("kind", "").endswith("List") else [answer]
    columns = [{"name": "Name", "type": "string", "format": "name", "description": "Name", "priority": 0}]
    with_status = rtype.kind in ("Namespace", "Pod")
    if with_status:
        columns.append({"name": "Status", "type": "string", "format": "", "description": "Phase", "priority": 0})
    columns.append({"name": "Age", "type": "string", "format": "", "description": "Age", "priority": 0})
    rows = []
    for item in items:
        metadata = item.get("metadata", {})
        cells = [metadata.get("name", "")]
        if with_status:
            cells.append(item.get("status", {}).get("phase", ""))
        cells.append(age(metadata.get("creationTimestamp")))
        rows.append({"cells": cells, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                                "metadata": metadata}})
    metadata = {"resourceVersion": answer.get("metadata", {}).get("resourceVersion", "")}
    if answer.get("metadata", {}).get("continue"):
        metadata["continue"] = answer["metadata"]["continue"]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata, "columnDefinitions": columns,
            "rows": rows}


# ---------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------

class DropConnection(Exception):
    pass


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "sindri-kube-test-server"
    # Headers and body leave in one write when the request is handled:
    # separate small writes meet the client's delayed ACK (40 ms a request).
    wbufsize = 64 * 1024

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        if self.server.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode("utf-8", errors="replace") if length > 0 else ""

    def send(self, code, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else (
            body.encode() if isinstance(body, str) else json.dumps(body).encode())
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        body = self.read_body()
        server = self.server
        try:
            if url.path.startswith("/_test/"):
                self.send(*self.test_control(method, url.path, body))
                return
            with server.store.lock:
                server.requests.append({"method": method, "path": url.path, "query": url.query,
                                        "content_type": self.headers.get("Content-Type", ""), "body": body})
                failure = self.take_failure(method, url.path)
            if failure is not None and failure["hold_seconds"] > 0:
                time.sleep(failure["hold_seconds"])
            elif failure is not None and failure["status"] == 0:
                raise DropConnection()
            elif failure is not None:
                raise ApiError(failure["status"], f"injected failure: {failure['status']} for {method} {url.path}")
            self.authenticate(method, url.path)
            code, answer, content_type = self.dispatch(method, url.path, query, body)
            self.send(code, answer, content_type)
        except ApiError as error:
            self.send(error.code, error.status())
        except DropConnection:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        except Exception as error:  # noqa: BLE001 - a bug here must answer, not hang the client
            traceback.print_exc()
            self.send(500, ApiError(500, f"test server error: {error!r}").status())

    def take_failure(self, method, path):
        for failure in self.server.failures:
            if failure["count"] > 0 and failure["method"] in ("*", method) and path.startswith(failure["path_prefix"]):
                failure["count"] -= 1
                return failure
        return None

    def authenticate(self, method, path):
        server = self.server
        if server.allow_anonymous or self.connection.getpeercert():
            return
        authorization = self.headers.get("Authorization", "")
        if server.token and authorization == f"Bearer {server.token}":
            return
        # No credentials at all is the anonymous user, whom the default
        # system:public-info-viewer role lets read these; a wrong token is a 401.
        if not authorization and method == "GET" and path in PUBLIC_PATHS:
            return
        raise ApiError(401, "Unauthorized")

    def dispatch(self, method, path, query, body):
        store = self.server.store
        api = self.server.api
        store.advance()
        if path in ("/healthz", "/readyz", "/livez") and method == "GET":
            return 200, "ok", "text/plain; charset=utf-8"
        if path == "/version" and method == "GET":
            return 200, VERSION, "application/json"
        if path.startswith("/openapi/v3") and method == "GET":
            return 200, openapi_v3(store.served_types(), path), "application/json"
        with store.lock:
            if method == "GET":
                document = api.discovery(path.rstrip("/") or "/")
                if document is not None:
                    return 200, document, "application/json"
            route = api.route(path)
            if route is None:
                raise ApiError(404, "the server could not find the requested resource")
            rtype, namespace, name, sub = route
            if rtype.namespaced and namespace is None and method != "GET":
                raise ApiError(404, "the server could not find the requested resource")
            if sub == "log":
                if method != "GET":
                    raise ApiError(405, "the server does not allow this method on the requested resource")
                return 200, api.pod_log(namespace, name, query), "text/plain"
            if query.get("watch") in ("true", "1"):
                raise ApiError(405, "watch is not modeled by the test server")
            wants_table = "as=Table" in self.headers.get("Accept", "")
            if method == "GET":
                answer = api.get(rtype, namespace, name) if name else api.list(rtype, namespace, query)
                return 200, as_table(rtype, answer) if wants_table else answer, "application/json"
            if method == "DELETE" and name:
                answer = api.delete(rtype, namespace, name, query, body)
                return 200, answer, "application/json"
            if method == "PATCH" and name:
                content_type = self.headers.get("Content-Type", "").split(";")[0].strip()
                if content_type != "application/apply-patch+yaml":
                    raise ApiError(415, f"the body of the request was in an unknown format - accepted media types "
                                        f"include: application/apply-patch+yaml (got {content_type or 'none'})")
                existed = (namespace or "", name) in store.table(rtype)
                answer = api.apply(rtype, namespace, name, body, query)
                return (200 if existed else 201), answer, "application/json"
            if method in ("POST", "PUT"):
                if (method == "POST") == (name is not None):
                    raise ApiError(405, "the server does not allow this method on the requested resource")
                parsed = parse_json_body(body)
                answer = api.create_or_replace(rtype, namespace, name, parsed, query,
                                               self.headers.get("User-Agent", ""), method == "PUT")
                return (201 if method == "POST" else 200), answer, "application/json"
            raise ApiError(405, "the server does not allow this method on the requested resource")

    def test_control(self, method, path, body):
        server = self.server
        store = server.store
        store.advance()
        with store.lock:
            if path == "/_test/requests" and method == "GET":
                return 200, copy.deepcopy(server.requests)  # answered after the lock is let go
            if path == "/_test/requests" and method == "DELETE":
                server.requests.clear()
                return 200, {}
            if path == "/_test/failures" and method == "POST":
                spec = parse_json_body(body)
                try:
                    server.failures.append({"method": str(spec.get("method", "*")).upper(),
                                            "path_prefix": str(spec.get("path_prefix", "/")),
                                            "status": int(spec.get("status", 0)),
                                            "hold_seconds": float(spec.get("hold_seconds", 0)),
                                            "count": int(spec.get("count", 1))})
                except (ValueError, TypeError):
                    raise ApiError(400, "status, hold_seconds and count must be numbers")
                return 200, {}
            if path == "/_test/objects" and method == "POST":
                return 201, server.api.put_verbatim(parse_json_body(body))
            if path == "/_test/objects" and method == "GET":
                return 200, copy.deepcopy(store.all_objects())
            if path == "/_test/reset" and method == "POST":
                store.reset()
                server.requests.clear()
                server.failures.clear()
                return 200, {}
        raise ApiError(404, f"no test control {method} {path}")


def parse_json_body(body):
    try:
        parsed = json.loads(body) if body.strip() else None
    except ValueError as error:
        raise ApiError(400, f"the body of the request could not be decoded as JSON: {error}")
    if not isinstance(parsed, dict):
        raise ApiError(400, "the body of the request must be a JSON object")
    return parsed


PUBLIC_PATHS = {"/version", "/healthz", "/readyz", "/livez"}

VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.0-sindri-test", "gitCommit": "0" * 40,
           "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23",
           "compiler": "gc", "platform": "linux/amd64"}


class TlsServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    # Many connections at once from clients that keep theirs open.
    request_queue_size = 128

    def __init__(self, address, context, api_store, options):
        super().__init__(address, Handler)
        self.context = context
        self.store = api_store
        self.port_holder = [self.server_address[1]]
        self.api = Api(api_store, self.port_holder)
        self.requests = []
        self.failures = []
        self.token = options.token
        self.allow_anonymous = options.allow_anonymous
        self.verbose = options.verbose

    # The handshake happens in the connection's own thread, so a client that
    # stalls in it holds up nobody else.
    def finish_request(self, request, client_address):
        try:
            request.settimeout(30)
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            secure = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as error:
            if self.verbose:
                sys.stderr.write(f"TLS handshake with {client_address} failed: {error}\n")
            return
        try:
            self.RequestHandlerClass(secure, client_address, self)
        finally:
            try:
                secure.close()
            except OSError:
                pass


def exit_with_parent(interval):
    """Ends this process once the one that started it is gone (a test that
    crashed never stops its server), polling: PR_SET_PDEATHSIG would fire
    when the starting thread ends, which may be long before the test does."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", help="the chosen port is written here (then renamed in place)")
    parser.add_argument("--cert", required=True, help="the server's certificate (PEM)")
    parser.add_argument("--key", required=True, help="the server's private key (PEM)")
    parser.add_argument("--client-ca", help="the CA that client certificates must chain to")
    parser.add_argument("--token", default="", help="the bearer token accepted besides client certificates")
    parser.add_argument("--allow-anonymous", action="store_true", help="no authentication at all")
    parser.add_argument("--crd-discovery-delay", type=float, default=0.0,
                        help="seconds after its creation a CRD's kind is served")
    parser.add_argument("--namespace-termination-delay", type=float, default=0.0,
                        help="seconds a deleted namespace stays Terminating")
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args()
    exit_with_parent(0.2)

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.cert, options.key)
    if options.client_ca:
        context.load_verify_locations(options.client_ca)
        context.verify_mode = ssl.CERT_OPTIONAL
    context.set_alpn_protocols(["http/1.1"])

    store = Store(options.crd_discovery_delay, options.namespace_termination_delay)
    server = TlsServer(("127.0.0.1", options.port), context, store, options)
    port = server.server_address[1]
    if options.port_file:
        partial = options.port_file + ".partial"
        with open(partial, "w") as out:
            out.write(f"{port}\n")
        os.replace(partial, options.port_file)
    print(f"listening on https://127.0.0.1:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
