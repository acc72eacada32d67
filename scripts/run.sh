#!/usr/bin/env bash
# Installs what is needed, builds Sindri (build/, Release) and runs the main
# job: the broker on its embedded SQLite default (./sindri.db), listening on
# 127.0.0.1:8080, with its console at http://127.0.0.1:8080/ui/. The first
# start writes the admin PAK to ./admin.pak.
# Settings: flags after the script's name go to `sindri serve` (e.g.
# --listen 0.0.0.0:8080), or SINDRI_* variables (see docs/settings.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

scripts/setup.sh
# The console, which the broker embeds and serves at /ui/, where Node.js
# can build it; without it the broker serves the API alone.
if scripts/node-ok.sh; then
  (cd ui && npm run --silent build)
else
  echo "run: the broker starts without its console" >&2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target sindri
exec build/bin/sindri serve "$@"
