-- The deployment object the broker benchmarks store: a realistic Deployment
-- and Service of about 2 KB. @NAME@ is replaced by a name unique to each
-- object, @HASH@ by 64 hex digits of its own (a Helm-style config checksum),
-- so that objects differ as real ones do and gzip does not get an easy
-- time of a hundred near-copies. bench/broker_bench.sh
-- reads the text between the long brackets too (its seeding is in Python),
-- so that both sides store the same manifest: keep it one long string.
return [[
apiVersion: apps/v1
kind: Deployment
metadata:
  name: @NAME@
  namespace: shop
  labels:
    app.kubernetes.io/name: @NAME@
    app.kubernetes.io/part-of: shop
    app.kubernetes.io/managed-by: sindri
spec:
  replicas: 3
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: @NAME@
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app.kubernetes.io/name: @NAME@
        app.kubernetes.io/part-of: shop
      annotations:
        checksum/config: @HASH@
        prometheus.io/scrape: "true"
        prometheus.io/port: "9090"
    spec:
      serviceAccountName: shop
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
      containers:
        - name: app
          image: registry.example.com/shop/@NAME@:1.27.3
          imagePullPolicy: IfNotPresent
          args: ["--listen=:8080", "--metrics=:9090", "--log-format=json"]
          ports:
            - name: http
              containerPort: 8080
            - name: metrics
              containerPort: 9090
          env:
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: shop-database
                  key: url
            - name: CACHE_TTL_SECONDS
              value: "300"
          resources:
            requests:
              cpu: 250m
              memory: 256Mi
            limits:
              cpu: "1"
              memory: 512Mi
          readinessProbe:
            httpGet:
              path: /healthz/ready
              port: http
            periodSeconds: 5
          livenessProbe:
            httpGet:
              path: /healthz/live
              port: http
            initialDelaySeconds: 10
---
apiVersion: v1
kind: Service
metadata:
  name: @NAME@
  namespace: shop
spec:
  selector:
    app.kubernetes.io/name: @NAME@
  ports:
    - name: http
      port: 80
      targetPort: http
]]
