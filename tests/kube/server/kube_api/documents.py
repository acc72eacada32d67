"""Answers that are not objects: the version, OpenAPI for kubectl, Tables."""

import datetime

from kube_api.errors import ApiError


VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.0-sindri-test", "gitCommit": "0" * 40,
           "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23",
           "compiler": "gc", "platform": "linux/amd64"}


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
