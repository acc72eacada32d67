"""Builds one base of deploy/ with `kubectl kustomize` and checks what it makes.

    kustomize_test.py BASE --kubectl KUBECTL --deploy DIR --sindri SINDRI --agent-settings FILE

The output must hold exactly the objects the base is meant to make, each
reference inside it (ConfigMaps with kustomize's hash suffix, the claim, the
ServiceAccount, the ClusterRole, the probes' named ports) must land on an
object or port that is there, every pod must run as the restricted Pod
Security Standard asks, and the settings must be ones the programs read: the
broker's settings file and variables are given to a real `sindri serve`, and
the agent's variables (which must be in the list of its settings,
src/agent/settings.cpp) to a real `sindri agent run` registered on a broker
of the test's own; the probes of each must then answer 200.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml

NAMESPACE = "sindri"

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def build(kubectl, directory):
    run = subprocess.run([kubectl, "kustomize", directory], capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        sys.exit(f"kubectl kustomize {directory} failed (exit {run.returncode}):\n{run.stderr}")
    return [document for document in yaml.safe_load_all(run.stdout) if document]


def by_kind(objects, kind):
    return [item for item in objects if item["kind"] == kind]


def one(objects, kind):
    found = by_kind(objects, kind)
    if len(found) != 1:
        sys.exit(f"expected one {kind}, found {len(found)}")
    return found[0]


def check_objects(objects, expected):
    """expected: (kind, name pattern) pairs; the output must match them one to one."""
    seen = sorted((item["kind"], item["metadata"]["name"]) for item in objects)
    unmatched = list(seen)
    for kind, pattern in expected:
        match = next((entry for entry in unmatched if entry[0] == kind and re.fullmatch(pattern, entry[1])), None)
        if check(match is not None, f"no {kind} named like {pattern!r} in the output ({seen})"):
            unmatched.remove(match)
    check(not unmatched, f"objects the base should not make: {unmatched}")
    for item in objects:
        if item["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            check(item["metadata"].get("namespace") == NAMESPACE,
                  f"{item['kind']} {item['metadata']['name']} is not in namespace {NAMESPACE}")


def check_deployment(objects, deployment):
    """What every Deployment of deploy/ must satisfy; returns its only container."""
    name = deployment["metadata"]["name"]
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    selector = spec["selector"]["matchLabels"]
    check(selector and all(labels.get(key) == value for key, value in selector.items()),
          f"{name}: selector {selector} does not select its pods' labels {labels}")
    containers = pod["containers"]
    if not check(len(containers) == 1, f"{name}: expected one container, found {len(containers)}"):
        return containers[0]
    container = containers[0]
    check(container["image"].startswith("sindri"), f"{name}: image {container['image']} is not the Dockerfile's")

    # The restricted Pod Security Standard, and a root filesystem nothing writes to.
    pod_security = pod.get("securityContext", {})
    security = container.get("securityContext", {})
    check(security.get("runAsNonRoot", pod_security.get("runAsNonRoot")) is True, f"{name}: may run as root")
    check(security.get("runAsUser", pod_security.get("runAsUser", 0)) != 0, f"{name}: runs as user 0")
    check(security.get("allowPrivilegeEscalation") is False, f"{name}: allows privilege escalation")
    check(security.get("capabilities", {}).get("drop") == ["ALL"], f"{name}: does not drop every capability")
    check(security.get("readOnlyRootFilesystem") is True, f"{name}: root filesystem is writable")
    check(pod_security.get("seccompProfile", {}).get("type") == "RuntimeDefault", f"{name}: no RuntimeDefault seccomp")
    requests = container.get("resources", {}).get("requests", {})
    check("cpu" in requests and "memory" in requests, f"{name}: no cpu and memory requests")

    # Probes: /healthz says alive, /readyz ready, each on a port the container names.
    port_names = {port.get("name"): port["containerPort"] for port in container.get("ports", [])}
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = container.get(probe, {}).get("httpGet", {})
        check(get.get("path") == path, f"{name}: {probe} does not GET {path}")
        check(get.get("port") in port_names, f"{name}: {probe} port {get.get('port')} is not a port of the container")

    # Every mount has its volume; every ConfigMap, claim and Secret named is made here or documented.
    volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        check(mount["name"] in volumes, f"{name}: mount {mount['name']} has no volume")
    config_maps = {item["metadata"]["name"] for item in by_kind(objects, "ConfigMap")}
    claims = {item["metadata"]["name"] for item in by_kind(objects, "PersistentVolumeClaim")}
    for volume in volumes.values():
        if "configMap" in volume:
            check(volume["configMap"]["name"] in config_maps, f"{name}: volume {volume['name']} names no ConfigMap made")
        if "persistentVolumeClaim" in volume:
            check(volume["persistentVolumeClaim"]["claimName"] in claims,
                  f"{name}: volume {volume['name']} names no claim made")
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            check(source["configMapRef"]["name"] in config_maps, f"{name}: envFrom names no ConfigMap made")
    return container


def mount_of(deployment, container, path):
    """The volume mounted at the directory holding path, or None."""
    volumes = {volume["name"]: volume for volume in deployment["spec"]["template"]["spec"].get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        if os.path.dirname(path) == mount["mountPath"].rstrip("/"):
            return volumes.get(mount["name"])
    return None


def config_map_data(objects, name):
    return next(item for item in objects if item["kind"] == "ConfigMap" and item["metadata"]["name"] == name)["data"]


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


class Program:
    """A process of this test's own, its output kept in a log that a failing test prints."""

    def __init__(self, name, command, environment, scratch):
        self.name = name
        self.log = open(os.path.join(scratch, name + ".log"), "w+")
        self.process = subprocess.Popen(command, env=environment, stdout=self.log, stderr=subprocess.STDOUT)

    def running(self):
        return self.process.poll() is None

    def wait_until(self, condition, seconds=30):
        """Polls condition every 0.05 s while the program runs; its last answer."""
        deadline = time.monotonic() + seconds
        while not condition() and self.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        return condition()

    def stop(self):
        """SIGTERM, as the kubelet stops a pod: the exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)

    def close(self):
        if self.running():
            self.process.kill()
            self.process.wait()
        if failures:
            self.log.seek(0)
            print(f"{self.name}'s output:\n" + self.log.read())
        self.log.close()


def environment_without_sindri():
    return {key: value for key, value in os.environ.items() if not key.startswith(("SINDRI_", "BROKKR"))}


def start_broker(args, command, environment, scratch, name="broker"):
    """`sindri serve` with command's settings, on loopback; (program, HOST:PORT or None)."""
    address_file = os.path.join(scratch, name + ".address")
    command = command + ["--listen", "127.0.0.1:0", "--address-file", address_file,
                         "--admin-pak-file", os.path.join(scratch, name + ".pak")]
    if "SINDRI_DATABASE_URL" not in environment:
        command += ["--database", "sqlite://" + os.path.join(scratch, name + ".db")]
    broker = Program(name, [args.sindri] + command, environment, scratch)
    if not broker.wait_until(lambda: os.path.exists(address_file)):
        return broker, None
    with open(address_file) as bound:
        return broker, bound.read().strip()


def check_probes(name, container, address):
    for probe in ("livenessProbe", "readinessProbe"):
        path = container[probe]["httpGet"]["path"]
        status = http_status(f"http://{address}{path}")
        check(status == 200, f"{name}: {probe} GET {path} answered {status}")


def settings_file_text(objects, deployment, container):
    """The text of the settings file the broker's --config names, from its ConfigMap (None if none)."""
    command = container.get("args", [])
    if not check("--config" in command[:-1], "broker: no --config settings file"):
        return None
    path = command[command.index("--config") + 1]
    volume = mount_of(deployment, container, path)
    if not check(volume is not None and "configMap" in volume, "broker: --config is not a file of a mounted ConfigMap"):
        return None
    return config_map_data(objects, volume["configMap"]["name"])[os.path.basename(path)]


def broker_settings(objects, deployment, container):
    return yaml.safe_load(settings_file_text(objects, deployment, container) or "") or {}


def run_broker(args, deployment, container, objects, scratch):
    """Starts `sindri serve` as the container would (its arguments, settings file and
    variables), moved to loopback and a scratch directory, and asks its probes."""
    text = settings_file_text(objects, deployment, container)
    if text is None:
        return
    command = list(container["args"])
    settings_file = os.path.join(scratch, "broker.yaml")
    with open(settings_file, "w") as out:
        out.write(text)
    command[command.index("--config") + 1] = settings_file

    # Values for the Secrets deploy/README.md tells the user to create.
    secret_values = {
        ("sindri-broker-database", "url"): "sqlite://" + os.path.join(scratch, "secret.db"),
        ("sindri-broker-webhooks", "encryption_key"): os.urandom(32).hex(),
    }
    environment = environment_without_sindri()
    for variable in container.get("env", []):
        if "value" in variable:
            environment[variable["name"]] = variable["value"]
            continue
        reference = variable["valueFrom"]["secretKeyRef"]
        key = (reference["name"], reference["key"])
        if check(key in secret_values, f"broker: variable {variable['name']} reads an undocumented Secret {key}"):
            environment[variable["name"]] = secret_values[key]

    broker, address = start_broker(args, command, environment, scratch)
    try:
        if check(address is not None, "broker did not start with the base's settings"):
            check_probes("broker", container, address)
            check(broker.stop() == 0, f"broker exited {broker.process.returncode} on SIGTERM")
    finally:
        broker.close()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_agent(args, container, environment, scratch):
    """Registers the agent of agent.env on a broker of the test's own, then starts
    `sindri agent run` with the container's variables, moved to that broker, a
    scratch PAK file, a free health port and a directory sink (no cluster here),
    and asks its probes."""
    broker, address = start_broker(args, ["serve"], environment_without_sindri(), scratch)
    agent = None
    try:
        if not check(address is not None, "agent: the test's broker did not start"):
            return
        with open(os.path.join(scratch, "broker.pak")) as admin:
            admin_pak = admin.read().strip()
        created = subprocess.run(
            [args.sindri, "agent", "create", environment["SINDRI_AGENT_AGENT_NAME"], "--cluster",
             environment["SINDRI_AGENT_CLUSTER_NAME"], "--broker", f"http://{address}", "--pak", admin_pak, "-o", "json"],
            capture_output=True, text=True, env=environment_without_sindri())
        if not check(created.returncode == 0, f"agent: cannot register agent.env's agent: {created.stderr}"):
            return
        pak_file = os.path.join(scratch, "agent.pak")
        with open(pak_file, "w") as out:
            out.write(json.loads(created.stdout)["initial_pak"] + "\n")

        variables = dict(environment)
        port = free_port()
        variables.update({"SINDRI_AGENT_BROKER_URL": f"http://{address}", "SINDRI_AGENT_PAK_FILE": pak_file,
                          "SINDRI_AGENT_HEALTH_PORT": str(port),
                          "SINDRI_AGENT_SINK": "dir:" + os.path.join(scratch, "sink")})
        agent = Program("agent", [args.sindri] + container["args"], {**environment_without_sindri(), **variables},
                        scratch)
        ready = f"http://127.0.0.1:{port}" + container["readinessProbe"]["httpGet"]["path"]
        if check(agent.wait_until(lambda: http_status(ready) == 200), "agent: never ready with the base's settings"):
            check_probes("agent", container, f"127.0.0.1:{port}")
            check(agent.stop() == 0, f"agent exited {agent.process.returncode} on SIGTERM")
    finally:
        if agent is not None:
            agent.close()
        broker.close()


def check_broker(args, objects, on_postgres):
    deployment = one(objects, "Deployment")
    container = check_deployment(objects, deployment)
    check(container.get("args", [])[:1] == ["serve"], f"broker: the container does not run `sindri serve`: {container.get('args')}")
    ports = {port["containerPort"] for port in container.get("ports", [])}
    check(8080 in ports, "broker: container port 8080 missing")

    service = one(objects, "Service")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    check(all(pod_labels.get(key) == value for key, value in service["spec"]["selector"].items()),
          "broker: the Service selects no broker pod")
    service_port = service["spec"]["ports"][0]
    check(service_port["port"] == 8080, "broker: the Service is not on 8080")
    check(service_port["targetPort"] in ("http", 8080) and any(
        port.get("name") == service_port["targetPort"] or port["containerPort"] == service_port["targetPort"]
        for port in container["ports"]), "broker: the Service's targetPort is no port of the container")

    # What the broker writes goes to the data volume, the root filesystem being read-only.
    settings = broker_settings(objects, deployment, container)
    admin_pak_file = settings.get("admin_pak_file", "")
    data = mount_of(deployment, container, admin_pak_file)
    check(data is not None, f"broker: nothing is mounted where the admin PAK is written ({admin_pak_file!r})")
    database_url = settings.get("database", {}).get("url", "")
    replicas = deployment["spec"]["replicas"]
    if on_postgres:
        check(data is not None and "emptyDir" in data, "broker-postgres: the admin PAK's directory is not an emptyDir")
        check(not database_url, "broker-postgres: broker.yaml names a database; the Secret's URL is the one")
        check(replicas >= 2, f"broker-postgres: {replicas} replica(s), the point of PostgreSQL is several")
        env = {variable["name"]: variable for variable in container.get("env", [])}
        for name in ("SINDRI_DATABASE_URL", "SINDRI_WEBHOOKS_ENCRYPTION_KEY"):
            check("secretKeyRef" in env.get(name, {}).get("valueFrom", {}), f"broker-postgres: {name} is not from a Secret")
    else:
        check(data is not None and "persistentVolumeClaim" in data, "broker: the admin PAK's directory is not the claim")
        database = mount_of(deployment, container, database_url.removeprefix("sqlite://"))
        check(database_url.startswith("sqlite://") and database is not None and "persistentVolumeClaim" in database,
              f"broker: the SQLite file {database_url!r} is not on the claim")
        check(replicas == 1 and deployment["spec"]["strategy"]["type"] == "Recreate",
              "broker: SQLite has one writer: one replica, Recreate")
    with tempfile.TemporaryDirectory() as scratch:
        run_broker(args, deployment, container, objects, scratch)


def agent_variables(settings_source):
    with open(settings_source) as source:
        return set(re.findall(r'"(SINDRI_AGENT_[A-Z_]+)"', source.read()))


def check_agent(args, objects):
    deployment = one(objects, "Deployment")
    container = check_deployment(objects, deployment)
    pod = deployment["spec"]["template"]["spec"]
    check(container.get("args") == ["agent", "run"], f"agent: the container does not run `sindri agent run`: {container.get('args')}")
    check(deployment["spec"]["replicas"] == 1, "agent: two agents of one registration would fight")

    # Its identity and what it may do.
    account = one(objects, "ServiceAccount")
    role = one(objects, "ClusterRole")
    binding = one(objects, "ClusterRoleBinding")
    check(pod.get("serviceAccountName") == account["metadata"]["name"], "agent: the pod does not use the ServiceAccount")
    check(pod.get("automountServiceAccountToken", True), "agent: no token mounted for in-cluster configuration")
    check(binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                 "name": role["metadata"]["name"]}, "agent: the binding does not name the ClusterRole")
    check({"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": NAMESPACE} in binding["subjects"],
          "agent: the binding's subject is not the ServiceAccount")
    granted = [rule for rule in role["rules"] if "*" in rule.get("apiGroups", []) and "*" in rule.get("resources", [])]
    verbs = {verb for rule in granted for verb in rule["verbs"]}
    check("*" in verbs or {"get", "list", "create", "patch", "delete"} <= verbs,
          f"agent: the ClusterRole does not let it apply, list and delete every kind ({role['rules']})")

    # Its settings: the variables the program reads, the PAK from a mounted Secret, the health port probed.
    environment = {}
    for source in container.get("envFrom", []):
        environment.update(config_map_data(objects, source["configMapRef"]["name"]))
    for variable in container.get("env", []):
        environment[variable["name"]] = variable.get("value")
    known = agent_variables(args.agent_settings)
    check(known, f"agent: no SINDRI_AGENT_* variable found in {args.agent_settings}")
    for name in environment:
        check(name in known, f"agent: {name} is no setting of `sindri agent run` ({args.agent_settings})")
    for name in ("SINDRI_AGENT_BROKER_URL", "SINDRI_AGENT_AGENT_NAME", "SINDRI_AGENT_CLUSTER_NAME", "SINDRI_AGENT_PAK_FILE"):
        check(environment.get(name), f"agent: {name} is not set")
    check("SINDRI_AGENT_PAK" not in environment and "SINDRI_PAK" not in environment,
          "agent: a PAK in plain text; it belongs in the Secret")
    pak_volume = mount_of(deployment, container, environment.get("SINDRI_AGENT_PAK_FILE") or "")
    check(pak_volume is not None and "secret" in pak_volume, "agent: SINDRI_AGENT_PAK_FILE is not in a mounted Secret")
    health_port = next((port["containerPort"] for port in container.get("ports", []) if port.get("name") == "health"), None)
    check(health_port == 8081 and environment.get("SINDRI_AGENT_HEALTH_PORT") == str(health_port),
          f"agent: the health port probed ({health_port}) is not 8081 and SINDRI_AGENT_HEALTH_PORT")
    if all(environment.get(name) for name in ("SINDRI_AGENT_AGENT_NAME", "SINDRI_AGENT_CLUSTER_NAME")):
        with tempfile.TemporaryDirectory() as scratch:
            run_agent(args, container, environment, scratch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base", choices=["broker", "broker-postgres", "agent"])
    parser.add_argument("--kubectl", required=True)
    parser.add_argument("--deploy", required=True)
    parser.add_argument("--sindri", required=True)
    parser.add_argument("--agent-settings", required=True)
    args = parser.parse_args()

    objects = build(args.kubectl, os.path.join(args.deploy, args.base))
    if args.base == "agent":
        check_objects(objects, [("ServiceAccount", "sindri-agent"), ("ClusterRole", "sindri-agent"),
                                ("ClusterRoleBinding", "sindri-agent"), ("ConfigMap", "sindri-agent-[a-z0-9]{10}"),
                                ("Deployment", "sindri-agent")])
        check_agent(args, objects)
    else:
        on_postgres = args.base == "broker-postgres"
        expected = [("ConfigMap", "sindri-broker"), ("Service", "sindri-broker"), ("Deployment", "sindri-broker")]
        if not on_postgres:
            expected.append(("PersistentVolumeClaim", "sindri-broker"))
        check_objects(objects, expected)
        check_broker(args, objects, on_postgres)

    for failure in failures:
        print("FAIL: " + failure)
    print(f"deploy/{args.base}: {len(objects)} objects, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
