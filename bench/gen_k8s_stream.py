#!/usr/bin/env python3
"""Writes a multi-document Kubernetes YAML stream of about SIZE bytes to PATH
(default 10 MB): Deployments, Services, ConfigMaps with block scalars,
StatefulSets with volume claim templates, anchors and aliases, and quoted
strings that YAML 1.1 would otherwise read as bools or numbers.

usage: gen_k8s_stream.py PATH [SIZE_BYTES]
"""
import sys

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{i}
  namespace: shop-{ns}
  labels: &labels{i}
    app.kubernetes.io/name: web-{i}
    app.kubernetes.io/part-of: shop
    tier: frontend
  annotations:
    deployment.kubernetes.io/revision: "{i}"
spec:
  replicas: {replicas}
  selector:
    matchLabels: *labels{i}
  strategy:
    type: RollingUpdate
    rollingUpdate: {{maxSurge: 25%, maxUnavailable: 0}}
  template:
    metadata:
      labels: *labels{i}
    spec:
      securityContext:
        runAsNonRoot: true
        fsGroup: 2000
      containers:
        - name: web
          image: "registry.example.com/team/web:1.{i}.0"
          imagePullPolicy: IfNotPresent
          args: ["--port", "8080", "--verbose", "yes"]
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
          env:
            - name: FEATURE_FLAG
              value: "on"
            - name: FILE_MODE
              value: "0755"
            - name: RATIO
              value: "1e3"
          resources:
            limits: {{cpu: 500m, memory: 512Mi}}
            requests: {{cpu: 250m, memory: 256Mi}}
          readinessProbe:
            httpGet: {{path: /healthz, port: http}}
            initialDelaySeconds: 5
            periodSeconds: 10
          volumeMounts:
            - name: config
              mountPath: /etc/web
              readOnly: true
      volumes:
        - name: config
          configMap:
            name: web-config-{i}
            defaultMode: 0644
"""

SERVICE = """apiVersion: v1
kind: Service
metadata:
  name: web-{i}
  namespace: shop-{ns}
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: web-{i}
  ports:
    - name: http
      port: 80
      targetPort: http
"""

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config-{i}
  namespace: shop-{ns}
data:
  enabled: "true"
  created: 2024-05-0{day}T10:00:00Z
  nginx.conf: |
    server {{
      listen 8080;
      server_name shop-{i}.example.com;
      location / {{
        proxy_pass http://backend-{i}:9090;
        proxy_set_header Host $host;
      }}
    }}
  motd: >
    Welcome to shop {i}, caf\u00e9 edition.
    This text is folded.
"""

STATEFULSET = """apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db-{i}
  namespace: shop-{ns}
spec:
  serviceName: db-{i}
  replicas: 1
  selector:
    matchLabels: {{app: db-{i}}}
  template:
    metadata:
      labels: {{app: db-{i}}}
    spec:
      containers:
        - name: postgres
          image: postgres:16.2
          env:
            - {{name: PGDATA, value: /var/lib/postgresql/data/pgdata}}
            - {{name: POSTGRES_DB, value: shop}}
          ports: [{{containerPort: 5432, name: pg}}]
  volumeClaimTemplates:
    - metadata: {{name: data}}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {{requests: {{storage: 50Gi}}}}
"""


def main():
    path = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 10 * 1024 * 1024
    written = 0
    i = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < size:
            for template in (DEPLOYMENT, SERVICE, CONFIGMAP, STATEFULSET):
                doc = "---\n" + template.format(i=i, ns=i % 7, replicas=1 + i % 5, day=1 + i % 9)
                out.write(doc)
                written += len(doc.encode("utf-8"))
            i += 1


if __name__ == "__main__":
    main()
