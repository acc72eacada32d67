"""The kinds the server serves: the built-in table and those CRDs add."""


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
