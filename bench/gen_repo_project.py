#!/usr/bin/env python3
"""Writes the template repositories and the project of bench/repo_bench.sh.

    bench/gen_repo_project.py DIR GIT_URL

Deterministic: the same files every run. Under DIR:
  platform/   a filesystem source, listed first: 17 templates (platform_base
              publishes `namespace`, `image_registry` and `environment`),
              and three directories without template.json that override one
              file each of a template of a later source (`orders`,
              `postgres_primary`, `session_store`)
  services/   a filesystem source: 17 templates (observability publishes
              `metrics_port`), and a full `cost_labels` that platform's
              shadows (first one wins)
  catalog/    the work tree of the git source, which the caller commits and
              pushes to GIT_URL: 16 templates (logging publishes
              `log_level`); three carry a `cat` hook (after_project_settings,
              after_file_resolution, before_file_render)
  project/sindri-templates.yaml   opting in to all 50, with settings
Each template renders one to three Kubernetes manifests under k8s/NAME/,
some a files_init file under config/. Prints KEY=VALUE lines for the checks:
TEMPLATES, FILES (files rendered), RENDER_HOOK_RUNS, OVERRIDE_FILE and
OVERRIDE_MARKER, SHADOW_MARKER (must not show), SUBSCRIBER_FILE (shows the
project's namespace through platform_base), OWN_NAMESPACE_FILE (a subscriber
that sets `namespace` itself).
"""

import json
import os
import stat
import sys

# (name, profile) per source; a profile names the manifests a template renders.
PLATFORM = [
    ("platform_base", "config"), ("namespace_quota", "quota"), ("cluster_rbac", "rbac"),
    ("ingress_gateway", "web"), ("cert_issuer", "config"), ("external_dns", "worker"),
    ("network_defaults", "policy"), ("pod_security", "rbac"), ("priority_classes", "config"),
    ("backup_cronjob", "cron"), ("log_shipper", "daemon"), ("node_exporter", "daemon"),
    ("registry_mirror", "stateful"), ("secrets_sync", "worker"), ("cost_labels", "config"),
    ("dns_cache", "daemon"), ("admission_policy", "api"),
]
SERVICES = [
    ("observability", "api"), ("api_gateway", "web"), ("auth_service", "api"), ("billing", "api"),
    ("cart", "web"), ("catalog", "web"), ("checkout", "api"), ("customers", "api"),
    ("inventory", "worker"), ("notifications", "worker"), ("orders", "api"), ("payments", "api"),
    ("pricing", "worker"), ("recommendations", "web"), ("reviews", "api"), ("search", "stateful"),
    ("shipping", "cron"),
]
CATALOG = [
    ("logging", "daemon"), ("analytics_worker", "worker"), ("email_worker", "worker"),
    ("image_resizer", "web"), ("report_builder", "cron"), ("fraud_detector", "api"),
    ("feature_flags", "config"), ("session_store", "stateful"), ("cache_redis", "stateful"),
    ("queue_rabbitmq", "stateful"), ("postgres_primary", "stateful"), ("kafka_connect", "worker"),
    ("webhooks_dispatcher", "worker"), ("audit_trail", "cron"), ("scheduler", "cron"),
    ("frontend_web", "web"),
]
HOOKS = {"analytics_worker": "after_project_settings", "report_builder": "after_file_resolution",
         "frontend_web": "before_file_render"}
OVERRIDES = {"orders": "deployment.yaml", "postgres_primary": "statefulset.yaml",
             "session_store": "service.yaml"}
OVERRIDE_MARKER = "# overridden by the platform repository"
SHADOW_MARKER = "# shadowed: platform's cost_labels wins"
PUBLISHED = {
    "platform_base": {"namespace": ("string", "shop"), "image_registry": ("string", "registry.local"),
                      "environment": ("enum", "dev")},
    "observability": {"metrics_port": ("integer", 9090)},
    "logging": {"log_level": ("level", "info")},
}
PROFILES = {
    "web": ["deployment", "service", "hpa"], "api": ["deployment", "service", "pdb"],
    "worker": ["deployment", "configmap"], "cron": ["cronjob"], "stateful": ["statefulset", "service", "pdb"],
    "daemon": ["daemonset", "configmap"], "policy": ["networkpolicy"], "rbac": ["rbac"],
    "config": ["configmap"], "quota": ["quota", "networkpolicy"],
}
WORKLOADS = {"deployment", "statefulset", "daemonset", "cronjob"}


def subscriptions(index, name, profile):
    """The shared settings a template reads: everyone the namespace, workloads the registry, some the rest."""
    if name == "platform_base":
        return []
    subscribed = ["namespace"]
    if any(kind in WORKLOADS for kind in PROFILES[profile]):
        subscribed.append("image_registry")
        if name in PUBLISHED:
            return subscribed
        if index % 3 == 0:
            subscribed.append("metrics_port")
        if index % 4 == 1:
            subscribed.append("log_level")
    if index % 5 == 2:
        subscribed.append("environment")
    return subscribed


def schema_of(kind):
    return {
        "string": {"type": "string", "minLength": 1},
        "enum": {"type": "string", "enum": ["dev", "staging", "prod"]},
        "integer": {"type": "integer", "minimum": 1, "maximum": 65535},
        "level": {"type": "string", "enum": ["debug", "info", "warn", "error"]},
    }[kind]


def shared_types():
    return {setting: kind for published in PUBLISHED.values() for setting, (kind, _) in published.items()}


def template_schema(name, subscribed):
    properties = {
        "name": {"description": "The objects' name and `app.kubernetes.io/name`", "type": "string",
                 "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63},
        "image": {"description": "The image, under the registry", "type": "string", "minLength": 1},
        "tag": {"description": "The image tag", "type": "string", "minLength": 1},
        "replicas": {"description": "How many pods run", "type": "integer", "minimum": 0},
        "port": {"description": "The port the container listens on", "type": "integer", "minimum": 1,
                 "maximum": 65535},
        "env": {"description": "Environment variables", "type": "object",
                "additionalProperties": {"type": "string"}},
        "extra_ports": {"description": "More named ports", "type": "array", "items": {
            "type": "object", "required": ["name", "port"], "additionalProperties": False,
            "properties": {"name": {"type": "string"}, "port": {"type": "integer", "minimum": 1}}}},
        "resources": {"description": "Requests; limits are twice the memory", "type": "object",
                      "required": ["cpu", "memory_mi"], "additionalProperties": False,
                      "properties": {"cpu": {"type": "string"}, "memory_mi": {"type": "integer", "minimum": 16}}},
        "probes": {"description": "Readiness and liveness probes on /healthz", "type": "boolean"},
        "autoscale": {"description": "HPA bounds", "type": "object", "properties": {
            "min": {"type": "integer", "minimum": 1}, "max": {"type": "integer", "minimum": 1},
            "cpu_percent": {"type": "integer", "minimum": 1, "maximum": 100}}},
        "schedule": {"description": "The CronJob's schedule", "type": "string"},
        "allowed_from": {"description": "Namespaces allowed in", "type": "array", "items": {"type": "string"}},
        "data": {"description": "ConfigMap entries", "type": "object", "additionalProperties": {"type": "string"}},
    }
    types = shared_types()
    for setting in subscribed + list(PUBLISHED.get(name, {})):
        properties[setting] = dict(schema_of(types[setting]), description=f"Shared setting `{setting}`")
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": f"Settings of {name}",
            "type": "object", "required": ["name", "image"], "additionalProperties": False,
            "properties": properties}


def default_settings(index, name):
    dashed = name.replace("_", "-")
    return {
        "name": dashed, "image": dashed, "tag": f"1.{index % 7}.{index % 3}", "replicas": 1 + index % 3,
        "port": 8080 + index % 4, "env": {"service_name": dashed, "http_port": str(8080 + index % 4)},
        "extra_ports": [{"name": "admin", "port": 9000 + index}] if index % 2 else [],
        "resources": {"cpu": f"{100 + 50 * (index % 4)}m", "memory_mi": 128 * (1 + index % 3)},
        "probes": index % 4 != 3, "autoscale": {"min": 2, "max": 4 + index % 6, "cpu_percent": 70},
        "schedule": f"{index % 60} {index % 24} * * *", "allowed_from": ["ingress", "monitoring"],
        "data": {"LOG_FORMAT": "json", "FEATURE_SET": f"set-{index}"},
    }


# The Tera text of each manifest. `subscribed` decides (here, once) which
# shared settings a manifest may read; the settings decide the rest at render.
def metadata_block(subscribed, indent="  "):
    lines = [f"{indent}name: {{{{ name }}}}", f"{indent}namespace: {{{{ namespace }}}}", f"{indent}labels:",
             f"{indent}  app.kubernetes.io/name: {{{{ name }}}}", f"{indent}  app.kubernetes.io/part-of: shop"]
    if "environment" in subscribed:
        lines.append(f"{indent}  environment: {{{{ environment }}}}")
    return "\n".join(lines) + "\n"


def pod_template(subscribed, indent):
    pad = " " * indent
    text = f"""template:
  metadata:
    labels:
      app.kubernetes.io/name: {{{{ name }}}}
"""
    if "metrics_port" in subscribed:
        text += """    annotations:
      prometheus.io/scrape: "true"
      prometheus.io/port: "{{ metrics_port }}"
"""
    text += """  spec:
    serviceAccountName: {{ name }}
    securityContext:
      runAsNonRoot: true
      seccompProfile:
        type: RuntimeDefault
    containers:
      - name: {{ name }}
        image: {{ image_registry }}/{{ image }}:{{ tag }}
        imagePullPolicy: IfNotPresent
        ports:
          - name: http
            containerPort: {{ port }}
{%- for extra in extra_ports %}
          - name: {{ extra.name }}
            containerPort: {{ extra.port }}
{%- endfor %}
        env:
{%- for key, value in env %}
          - name: {{ key | upper }}
            value: "{{ value }}"
{%- endfor %}
"""
    if "log_level" in subscribed:
        text += """          - name: LOG_LEVEL
            value: "{{ log_level }}"
"""
    text += """        resources:
          requests:
            cpu: {{ resources.cpu }}
            memory: {{ resources.memory_mi }}Mi
          limits:
            memory: {{ resources.memory_mi * 2 }}Mi
{%- if probes %}
        readinessProbe:
          httpGet:
            path: /healthz
            port: http
          periodSeconds: 5
        livenessProbe:
          httpGet:
            path: /healthz
            port: http
          initialDelaySeconds: 10
{%- endif %}
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: ["ALL"]
"""
    return "".join(pad + line if line else line for line in text.splitlines(True))


def manifest(kind, subscribed):
    if kind == "deployment":
        return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  replicas: {{ replicas }}\n  revisionHistoryLimit: 5\n  selector:\n    matchLabels:\n"
                "      app.kubernetes.io/name: {{ name }}\n  strategy:\n    type: RollingUpdate\n"
                "    rollingUpdate:\n      maxUnavailable: 0\n      maxSurge: 1\n" + pod_template(subscribed, 2))
    if kind == "statefulset":
        return ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  serviceName: {{ name }}\n  replicas: {{ replicas }}\n  selector:\n    matchLabels:\n"
                "      app.kubernetes.io/name: {{ name }}\n" + pod_template(subscribed, 2) +
                "  volumeClaimTemplates:\n    - metadata:\n        name: data\n      spec:\n"
                "        accessModes: [ReadWriteOnce]\n        resources:\n          requests:\n"
                "            storage: {{ resources.memory_mi * 8 }}Mi\n")
    if kind == "daemonset":
        return ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: {{ name }}\n" +
                pod_template(subscribed, 2) +
                "  updateStrategy:\n    type: RollingUpdate\n")
    if kind == "cronjob":
        return ("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  schedule: \"{{ schedule }}\"\n  concurrencyPolicy: Forbid\n  jobTemplate:\n"
                "    spec:\n      backoffLimit: 2\n      template:\n        metadata:\n          labels:\n"
                "            app.kubernetes.io/name: {{ name }}\n        spec:\n          restartPolicy: OnFailure\n"
                "          containers:\n            - name: {{ name }}\n"
                "              image: {{ image_registry }}/{{ image }}:{{ tag }}\n              env:\n"
                "{%- for key, value in env %}\n                - name: {{ key | upper }}\n"
                "                  value: \"{{ value }}\"\n{%- endfor %}\n"
                + ("                - name: LOG_LEVEL\n                  value: \"{{ log_level }}\"\n"
                   if "log_level" in subscribed else "") +
                "              resources:\n                requests:\n                  cpu: {{ resources.cpu }}\n"
                "                  memory: {{ resources.memory_mi }}Mi\n")
    if kind == "service":
        return ("apiVersion: v1\nkind: Service\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  type: ClusterIP\n  selector:\n    app.kubernetes.io/name: {{ name }}\n  ports:\n"
                "    - name: http\n      port: 80\n      targetPort: http\n"
                "{%- for extra in extra_ports %}\n    - name: {{ extra.name }}\n      port: {{ extra.port }}\n"
                "      targetPort: {{ extra.name }}\n{%- endfor %}\n")
    if kind == "hpa":
        return ("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n" +
                metadata_block(subscribed) +
                "spec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: {{ name }}\n"
                "  minReplicas: {{ autoscale.min }}\n  maxReplicas: {{ autoscale.max }}\n  metrics:\n"
                "    - type: Resource\n      resource:\n        name: cpu\n        target:\n"
                "          type: Utilization\n          averageUtilization: {{ autoscale.cpu_percent }}\n")
    if kind == "pdb":
        return ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n{%- if replicas > 1 %}\n  minAvailable: {{ replicas - 1 }}\n{%- else %}\n"
                "  maxUnavailable: 1\n{%- endif %}\n  selector:\n    matchLabels:\n"
                "      app.kubernetes.io/name: {{ name }}\n")
    if kind == "configmap":
        return ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}-config\n"
                "  namespace: {{ namespace }}\ndata:\n{%- for key, value in data %}\n  {{ key }}: \"{{ value }}\"\n"
                "{%- endfor %}\n  PORT: \"{{ port }}\"\n")
    if kind == "networkpolicy":
        return ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: {{ name }}\n"
                "  policyTypes: [Ingress]\n  ingress:\n    - from:\n{%- for source in allowed_from %}\n"
                "        - namespaceSelector:\n            matchLabels:\n"
                "              kubernetes.io/metadata.name: {{ source }}\n{%- endfor %}\n"
                "      ports:\n        - port: {{ port }}\n")
    if kind == "rbac":
        return ("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n" + metadata_block(subscribed) +
                "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n" +
                metadata_block(subscribed) +
                "rules:\n{%- for resource in ['configmaps', 'secrets', 'pods'] %}\n"
                "  - apiGroups: [\"\"]\n    resources: [\"{{ resource }}\"]\n"
                "    verbs: [\"get\", \"list\"{% if resource != 'secrets' %}, \"watch\"{% endif %}]\n"
                "{%- endfor %}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n" +
                metadata_block(subscribed) +
                "subjects:\n  - kind: ServiceAccount\n    name: {{ name }}\n    namespace: {{ namespace }}\n"
                "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: {{ name }}\n")
    if kind == "quota":
        return ("apiVersion: v1\nkind: ResourceQuota\nmetadata:\n" + metadata_block(subscribed) +
                "spec:\n  hard:\n    requests.cpu: \"{{ replicas * 4 }}\"\n"
                "    requests.memory: {{ resources.memory_mi * 32 }}Mi\n    pods: \"{{ replicas * 50 }}\"\n")
    raise ValueError(kind)


def write(path, text, executable=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write(text)
    if executable:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def write_template(source_dir, index, name, profile, marker=""):
    """Writes one template; returns how many files it renders."""
    directory = os.path.join(source_dir, name)
    subscribed = subscriptions(index, name, profile)
    metadata = {
        "name": name.replace("_", " ").title(),
        "description": f"{name.replace('_', ' ')}: {', '.join(PROFILES[profile])}",
        "type": "kubernetes",
        "tags": ["kubernetes", profile],
        "default_settings": default_settings(index, name),
    }
    if name in PUBLISHED:
        metadata["shared_settings"] = {setting: default for setting, (_, default) in PUBLISHED[name].items()}
    if subscribed:
        metadata["setting_subscriptions"] = subscribed
    write(os.path.join(directory, "template.json"), json.dumps(metadata, indent=2) + "\n")
    write(os.path.join(directory, "template_schema.json"),
          json.dumps(template_schema(name, subscribed), indent=2) + "\n")
    files = 0
    for kind in PROFILES[profile]:
        write(os.path.join(directory, "files/k8s", name, f"{kind}.yaml.tera"), marker + manifest(kind, subscribed))
        files += 1
    if index % 4 == 0:
        write(os.path.join(directory, "files_init/config", f"{name}.env.tera"),
              "# Local overrides for {{ name }}: written once, then yours\n"
              "{%- for key, value in env %}\n{{ key | upper }}={{ value }}\n{%- endfor %}\n")
        files += 1
    if name in HOOKS:
        # Counts its runs when REPO_BENCH_HOOK_LOG is set (the check run), then echoes the state.
        write(os.path.join(directory, "hooks", HOOKS[name]),
              "#!/bin/sh\n[ -z \"$REPO_BENCH_HOOK_LOG\" ] || echo " + name + " >>\"$REPO_BENCH_HOOK_LOG\"\nexec cat\n",
              executable=True)
    return files


def project_file(git_url, names):
    lines = ["# bench/repo_bench.sh: 50 templates from two filesystem sources and a git one",
             "sindri_templates:", "  version: 2", "  template_sources:",
             "    - type: filesystem", "      location: ../platform",
             "    - type: filesystem", "      location: ../services",
             "    - type: git", f"      location: {git_url}", "      ref: main", "      trusted: true",
             "  templates:"]
    lines += [f"    - {name}" for name in names]
    settings = {"platform_base": {"namespace": "shop-prod", "image_registry": "registry.example.com/shop",
                                  "environment": "prod"},
                "observability": {"metrics_port": 9102}, "logging": {"log_level": "warn"},
                "scheduler": {"namespace": "shop-batch"}}
    for index, name in enumerate(names):
        if index % 2 == 0:
            settings.setdefault(name, {}).update({
                "replicas": 2 + index % 4, "tag": f"2.{index}.0",
                "env": {"service_name": name.replace("_", "-"), "region": "eu-west-1",
                        "tracing_sample_rate": f"0.{index % 10}"}})
    for name, values in settings.items():
        lines.append(f"{name}:")
        for key, value in values.items():
            if isinstance(value, dict):
                lines.append(f"  {key}:")
                lines += [f"    {k}: {json.dumps(v)}" for k, v in value.items()]
            else:
                lines.append(f"  {key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen_repo_project.py DIR GIT_URL")
    out, git_url = sys.argv[1:]
    files = {}
    index = 0
    for source, templates in (("platform", PLATFORM), ("services", SERVICES), ("catalog", CATALOG)):
        for name, profile in templates:
            files[name] = write_template(os.path.join(out, source), index, name, profile)
            index += 1
    write_template(os.path.join(out, "services"), 99, "cost_labels", "config", SHADOW_MARKER + "\n")
    override_file = ""
    for name, file in OVERRIDES.items():
        index = [n for n, _ in PLATFORM + SERVICES + CATALOG].index(name)
        profile = dict(SERVICES + CATALOG)[name]
        subscribed = subscriptions(index, name, profile)
        kind = file.removesuffix(".yaml")
        write(os.path.join(out, "platform", name, "files/k8s", name, file + ".tera"),
              OVERRIDE_MARKER + "\n" + manifest(kind, subscribed))
        override_file = override_file or f"k8s/{name}/{file}"
    names = [name for name, _ in PLATFORM + SERVICES + CATALOG]
    write(os.path.join(out, "project", "sindri-templates.yaml"), project_file(git_url, names))
    hook_runs = sum(files[name] if point == "before_file_render" else 1 for name, point in HOOKS.items())
    print(f"TEMPLATES={len(names)}")
    print(f"FILES={sum(files.values())}")
    print(f"RENDER_HOOK_RUNS={hook_runs}")
    print(f"OVERRIDE_FILE={override_file}")
    print(f"OVERRIDE_MARKER={OVERRIDE_MARKER}")
    print(f"SHADOW_MARKER={SHADOW_MARKER}")
    print("SUBSCRIBER_FILE=k8s/orders/service.yaml")
    print("OWN_NAMESPACE_FILE=k8s/scheduler/cronjob.yaml")


if __name__ == "__main__":
    main()
