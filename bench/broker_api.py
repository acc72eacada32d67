"""The broker's v1 API as the benchmarks' seeding scripts call it (bench/*.sh):
JSON in and out, a PAK per call, and any unexpected status ends the run."""

import http.client
import json
import urllib.error
import urllib.parse
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


class KeptAliveCaller:
    """As api_caller's call, over one kept-alive HTTP/1.1 connection: for
    thousands of calls from one thread (urllib opens a connection per call).
    Bodies may be given already encoded (bytes), to send one file many times.
    One instance per thread."""

    def __init__(self, base, timeout=120):
        address = urllib.parse.urlsplit(base)
        self.host, self.port, self.timeout = address.hostname, address.port, timeout
        self.connection = None

    def __call__(self, method, path, pak, body=None, expect=(200, 201)):
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + pak, "Content-Type": "application/json"}
        # A connection the broker closed while idle is opened again, once.
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                status, payload = response.status, response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
        if status not in expect:
            raise SystemExit(f"{method} {path} answered {status}: {payload[:500]!r}")
        return json.loads(payload) if payload else None
