"""Failures as the API server answers them: Status objects."""

import json


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


def int_parameter(query, name):
    try:
        return int(query.get(name) or 0)
    except ValueError:
        raise ApiError(400, f"{name}: Invalid value: \"{query[name]}\": must be an integer")


def parse_json_body(body):
    try:
        parsed = json.loads(body) if body.strip() else None
    except ValueError as error:
        raise ApiError(400, f"the body of the request could not be decoded as JSON: {error}")
    if not isinstance(parsed, dict):
        raise ApiError(400, "the body of the request must be a JSON object")
    return parsed
