"""The API's operations on the store: discovery, reading, writing
(server-side apply, create, replace), deleting, and the test controls'
verbatim store."""

import base64
import copy
import datetime
import json
import random
import re
import time
import urllib.parse
import uuid

import yaml

from kube_api.errors import ApiError, group_resource, int_parameter, invalid, not_found
from kube_api.field_sets import (SERVER_FIELDS, changed_paths, field_paths, fields_v1, lookup, merge, path_text,
                                 paths_from_fields_v1, prune_emptied, remove_path)
from kube_api.resource_types import BUILTIN_TYPES, CustomType, custom_type_of, type_by_kind
from kube_api.selectors import fields_match, labels_match, parse_field_selector, parse_label_selector
from kube_api.store import name_label, now_rfc3339


# What the API server appends to a generateName (no vowels, no look-alikes).
GENERATED_NAME_LETTERS = "bcdfghjklmnpqrstvwxz2456789"

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


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
        metadata = pod.get("metadata", {})
        annotations = metadata.get("annotations") or {}
        container = query.get("container", "")
        text = annotations.get(f"sindri-test/log.{container}", annotations.get("sindri-test/log", ""))
        # The annotation's lines were written when the pod was made; appended ones when appended.
        created = micros_of(metadata.get("creationTimestamp", "")) or 0
        lines = [(created, line) for line in text.splitlines(keepends=True)]
        appended = self.store.pod_logs.get((metadata.get("uid"), container), [])
        lines += [(micros, line + "\n") for micros, line in appended]
        if "sinceTime" in query:
            since = micros_of(query["sinceTime"])
            if since is None:
                raise ApiError(400, f"parsing time \"{query['sinceTime']}\" as RFC 3339: invalid")
            lines = [entry for entry in lines if entry[0] >= since]
        if "tailLines" in query:
            tail = int_parameter(query, "tailLines")
            lines = lines[-tail:] if tail > 0 else []
        text = log_text(lines, query.get("timestamps") in ("true", "1"))
        if int_parameter(query, "limitBytes") > 0:
            text = text.encode()[:int_parameter(query, "limitBytes")].decode(errors="ignore")
        return text

    def follow_pod_log(self, namespace, name, query):
        """follow=true: the log as pod_log answers it, then what a follower needs
        to send the lines appended after it."""
        text = self.pod_log(namespace, name, query)
        pod = self.store.table(type_by_kind("v1", "Pod"))[(namespace, name)]
        uid = pod["metadata"].get("uid")
        container = query.get("container", "")
        return LogFollower(namespace, name, uid, container, query.get("timestamps") in ("true", "1"), text,
                           len(self.store.pod_logs.get((uid, container), [])))

    def appended_log(self, follower):
        """The lines appended since the follower's last, and whether its pod is gone (or made again)."""
        pod = self.store.table(type_by_kind("v1", "Pod")).get((follower.namespace, follower.name))
        lines = self.store.pod_logs.get((follower.uid, follower.container), [])[follower.delivered:]
        follower.delivered += len(lines)
        gone = pod is None or pod["metadata"].get("uid") != follower.uid
        return log_text([(micros, line + "\n") for micros, line in lines], follower.stamped), gone

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
        metadata = body.get("metadata")
        if not replacing and isinstance(metadata, dict) and not metadata.get("name") \
                and isinstance(metadata.get("generateName"), str):
            metadata["name"] = metadata["generateName"] + "".join(
                random.choice(GENERATED_NAME_LETTERS) for _ in range(5))
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


def spec_of(obj):
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


def micros_of(text):
    """Microseconds since the epoch of an RFC 3339 timestamp, None if it is not one."""
    try:
        stamp = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    if stamp.tzinfo is None:
        return None
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (stamp - epoch) // datetime.timedelta(microseconds=1)


def rfc3339_nano(micros):
    """Go's RFC3339Nano, as the kubelet stamps log lines: trailing zeros of the fraction left out."""
    seconds, fraction = divmod(micros, 1_000_000)
    whole = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    nanos = f"{fraction * 1000:09d}".rstrip("0")
    return f"{whole}.{nanos}Z" if nanos else f"{whole}Z"


class LogFollower:
    """A log followed (follow=true): its first answer, and how many appended lines it has had."""

    def __init__(self, namespace, name, uid, container, stamped, first_text, delivered):
        self.namespace = namespace
        self.name = name
        self.uid = uid
        self.container = container
        self.stamped = stamped
        self.first_text = first_text
        self.delivered = delivered


def log_text(lines, stamped):
    """[(microseconds, line)] as a log answer, each line after its time in RFC3339Nano when stamped."""
    if stamped:
        return "".join(f"{rfc3339_nano(micros)} {line}" + ("" if line.endswith("\n") else "\n")
                       for micros, line in lines)
    return "".join(line for _, line in lines)
