#!/usr/bin/python3
"""A Kubernetes API server stand-in for Sindri's tests: the real wire format
over HTTPS on loopback, enough of it for Debian's kubectl and Sindri's agent.

Python 3.11's standard library and python3-yaml (Debian) only. The C++ fixture
tests/kube/server/kube_test_server.hpp makes the certificates with openssl,
starts this on port 0 and reads the port it wrote to --port-file. This file
is the HTTP side; the API itself is in kube_api/ (resource_types, store,
api, field_sets for server-side apply, selectors, errors, documents).

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
  The built-in kinds are the table BUILTIN_TYPES (kube_api/resource_types). A created
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
  in kube_api/field_sets: containers by name, ports by containerPort and
  protocol ...); other lists are atomic (replaced whole and owned as one
  field); maps and lists a removal leaves empty go too. dryRun=All
  validates and answers without storing. POST (create) and PUT (replace) record operation
  Update for the fieldManager (default: the first word of the User-Agent).
  Writes to a built-in kind leave its status as it was (the status
  subresource is how it changes); a write that changes nothing keeps the
  resourceVersion.
- Validation (api-concepts, "Field validation"; Status reason Invalid, 422):
  apiVersion and kind must match the URL, metadata.name must be present and a
  DNS-1123 subdomain (a DNS-1123 label for namespaces), metadata.namespace
  must match the URL's. Wrong body syntax is 400 BadRequest. Every namespace
  carries the label kubernetes.io/metadata.name. POST makes a name from
  metadata.generateName and five random characters.
- Reading (api-concepts, "Retrieving large results sets in chunks"; overview/
  working-with-objects/labels and field-selectors): GET, list per namespace
  and across all namespaces (kind <Kind>List with items; items carry no
  kind/apiVersion for built-in kinds, as the real server's typed lists, and
  do for custom resources), labelSelector with =, ==, !=, in, notin, exists
  and !key, fieldSelector with = == and != on metadata.name,
  metadata.namespace and the fields some kinds add (FIELD_SELECTORS in
  kube_api/selectors: an Event's involvedObject.*, a Pod's status.phase ...),
  limit and continue (remainingItemCount). Accept with as=Table (kubectl get) gets a
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
- GET /api/v1/namespaces/{ns}/pods/{name}/log: text/plain, the lines of the
  pod's annotation sindri-test/log.<container> or sindri-test/log (written
  at its creationTimestamp) and then those POST /_test/logs appended;
  container, tailLines, sinceTime (lines at or after it), timestamps=true
  (each line after its time in RFC3339Nano, as the kubelet writes it) and
  limitBytes (the answer cut after that many bytes).
  follow=true answers chunked: those lines, then each line appended (looked
  for every 20 ms), ending when the pod is deleted.
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
                                  filling uid and creationTimestamp when
                                  absent, with the next resourceVersion; a
                                  kind the server knows and a name are all
                                  it checks
  GET    /_test/objects           everything stored, as a JSON array
  POST   /_test/logs/NS/POD/CONTAINER  appends the body's lines to that
                                  container's log, each stamped now (a
                                  microsecond after the line before at
                                  least); 404 when the pod does not exist
  POST   /_test/reset             back to the start: only the default
                                  namespaces, no requests, no failures
"""

import argparse
import copy
import http.server
import json
import os
import socket
import ssl
import sys
import threading
import time
import traceback
import urllib.parse

# Run from the source tree: no __pycache__ beside the modules.
sys.dont_write_bytecode = True

from kube_api.api import Api, LogFollower  # noqa: E402 - after the line above
from kube_api.documents import VERSION, as_table, openapi_v3  # noqa: E402
from kube_api.errors import ApiError, parse_json_body  # noqa: E402
from kube_api.resource_types import type_by_kind  # noqa: E402
from kube_api.store import Store  # noqa: E402


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
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size_line = self.rfile.readline(100).split(b";")[0].strip()
                try:
                    size = int(size_line, 16)
                except ValueError:
                    self.close_connection = True
                    raise ApiError(400, f"bad chunk size {size_line[:20]!r}")
                if size == 0:
                    self.rfile.readline(100)  # the last chunk's CRLF (no trailers are sent to us)
                    break
                data += self.rfile.read(size)
                self.rfile.readline(100)
            return data.decode("utf-8", errors="replace")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            raise ApiError(400, "Content-Length is not a number")
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

    def follow(self, follower):
        """A followed log, chunked: what there is, then each line appended (looked
        for every 20 ms) until the pod goes or the client hangs up."""
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        text, gone = follower.first_text, False
        try:
            while True:
                if text:
                    data = text.encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                if gone:
                    break
                time.sleep(0.02)
                with self.server.store.lock:
                    text, gone = self.server.api.appended_log(follower)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        server = self.server
        try:
            body = self.read_body()
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
            if isinstance(answer, LogFollower):
                self.follow(answer)
                return
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
                if query.get("follow") in ("true", "1"):
                    return 200, api.follow_pod_log(namespace, name, query), "text/plain"
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
            if path.startswith("/_test/logs/") and method == "POST":
                parts = [urllib.parse.unquote(p) for p in path[len("/_test/logs/"):].split("/")]
                if len(parts) != 3:
                    raise ApiError(404, "POST /_test/logs/NAMESPACE/POD/CONTAINER")
                pod = store.table(type_by_kind("v1", "Pod")).get((parts[0], parts[1]))
                if pod is None:
                    raise ApiError(404, f'pods "{parts[1]}" not found')
                store.append_log(pod["metadata"]["uid"], parts[2], body.splitlines())
                return 200, {"appended": len(body.splitlines())}
            if path == "/_test/reset" and method == "POST":
                store.reset()
                server.requests.clear()
                server.failures.clear()
                return 200, {}
        raise ApiError(404, f"no test control {method} {path}")


PUBLIC_PATHS = {"/version", "/healthz", "/readyz", "/livez"}


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
