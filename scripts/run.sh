#!/usr/bin/env bash
# Installs what is needed, builds Sindri (build/, Release) and runs the main
# job: for now, rendering the shipped example template.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target sindri
build/bin/sindri render examples/hello/deployment.yaml.tera --context examples/hello/values.json
