# Sindri's image: the broker (`sindri serve`), the agent (`sindri agent run`)
# and the client verbs, for the manifests in deploy/. Build it yourself
# (nothing here runs a Docker daemon):
#   docker build -t sindri:latest .
# tests/deploy/ checks that the runtime stage installs exactly the packages
# owning the libraries the programs link.

FROM node:20-bookworm-slim AS console
# The console (ui/), which the broker embeds and serves at /ui/: npm packages
# exactly as ui/package-lock.json pins them.
WORKDIR /ui
COPY ui/package.json ui/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY ui ./
RUN npm run build

FROM debian:bookworm AS build
# Build packages from scripts/packages.txt: those a Release build of the
# programs needs, without the tests, benchmarks and fuzzing.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      nlohmann-json3-dev libssl-dev libcli11-dev libicu-dev libpcre2-dev librust-deunicode-dev \
      libfyaml-dev libboost-dev zlib1g-dev libsqlite3-dev libpq-dev libtomlplusplus-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY api api
COPY src src
COPY --from=console /ui/dist ui/dist
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSINDRI_TESTS=OFF -DSINDRI_BENCH=OFF \
 && cmake --build /build --target sindri sindri-client sindri-serve

FROM debian:bookworm-slim
# The packages owning the libraries the programs link, and two more:
# ca-certificates, to trust an https:// broker or API server signed by a
# public CA, and tzdata, whose /usr/share/zoneinfo Tera's date filter reads
# for time zones.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates tzdata \
      libc6 libgcc-s1 libstdc++6 libssl3 zlib1g libicu72 libpcre2-8-0 libfyaml0 libsqlite3-0 libpq5 \
 && rm -rf /var/lib/apt/lists/*
# The user deploy/ runs as (runAsUser 10001); its home holds the SQLite file
# and admin PAK of a plain `docker run`.
RUN groupadd --system --gid 10001 sindri \
 && useradd --system --uid 10001 --gid sindri --home-dir /var/lib/sindri --create-home --shell /usr/sbin/nologin sindri
# One directory: `sindri` runs the other two, found beside it, for their verbs.
COPY --from=build /build/bin/sindri /build/bin/sindri-client /build/bin/sindri-serve /usr/local/bin/
# The `default` template repository of `sindri repo`, where the programs
# look for it: share/sindri/templates/default beside their bin/.
COPY templates/default /usr/local/share/sindri/templates/default
USER 10001:10001
WORKDIR /var/lib/sindri
# 8080: the broker's API; 8081: the agent's health and metrics.
EXPOSE 8080 8081
ENTRYPOINT ["sindri"]
CMD ["serve", "--listen", "0.0.0.0:8080"]
