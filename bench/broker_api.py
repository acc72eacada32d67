"""The broker's v1 API as the benchmarks' seeding scripts call it (bench/*.sh):
JSON in and out, a PAK per call, and any unexpected status ends the run."""

import json
import urllib.error
import urllib.request


def api_caller(base):
    """call(method, path, pak, body=None, expect=(200, 201)) against `base`."""

    def call(method, path, pak, body=None, expect=(200, 201)):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=data, method=method,
                                         headers={"Authorization": "Bearer " + pak,
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        if status not in expect:
            raise SystemExit(f"seeding: {method} {path} answered {status}: {payload[:500]!r}")
        return json.loads(payload) if payload else None

    return call
