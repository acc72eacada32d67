"""The objects, their resourceVersions, the CRDs' kinds and namespaces
being terminated, all under one lock."""

import datetime
import threading
import time
import uuid

from kube_api.resource_types import BUILTIN_TYPES, CRD_TYPE, NAMESPACE_TYPE, type_by_kind


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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
            self.pod_logs = {}  # (pod uid, container) -> [(microseconds since the epoch, line)]
            self.last_log_micros = 0
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

    def append_log(self, uid, container, lines):
        """Lines a container writes now, each stamped a microsecond after the last
        at least, so that their timestamps order them."""
        with self.lock:
            log = self.pod_logs.setdefault((uid, container), [])
            for line in lines:
                self.last_log_micros = max(time.time_ns() // 1000, self.last_log_micros + 1)
                log.append((self.last_log_micros, line))

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
