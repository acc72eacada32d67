"""Label and field selectors of list requests."""

import re

from kube_api.errors import ApiError


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
