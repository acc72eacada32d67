"""Server-side apply's field sets, on plain JSON values: which fields an
applied configuration sets, as FieldsV1 paths; merging it into the live
object; removing the fields a manager gave up."""

import copy
import json


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
