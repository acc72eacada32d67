#!/usr/bin/env bash
# Installs every Debian package Sindri needs (listed in scripts/packages.txt),
# then the console's npm packages (ui/package-lock.json) with npm ci. Skips
# apt when all of them are installed, and npm when ui/node_modules matches
# the lockfile, so it is cheap to call before every build.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
mapfile -t PACKAGES < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$ROOT/scripts/packages.txt" | grep -v '^$')

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$pkg")
done
# Any kubectl serves (packages.txt says why); Debian's only where there is none.
command -v kubectl >/dev/null || missing+=(kubernetes-client)
# Any Node.js serves; Debian's only where there is none.
command -v node >/dev/null || missing+=(nodejs npm)

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages, kubectl and node already installed"
else
  echo "setup: installing ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to run apt-get" >&2; exit 1; }
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The console's npm packages, where the Node.js can build it; the broker
# builds and runs without it (its /ui/ then says the console was not built).
if ! "$ROOT/scripts/node-ok.sh"; then
  echo "setup: skipping the console's npm packages" >&2
  exit 0
fi

# npm writes node_modules/.package-lock.json at each install: newer than the
# lockfile means nothing changed since.
UI="$ROOT/ui"
if [[ $UI/node_modules/.package-lock.json -nt $UI/package-lock.json ]]; then
  echo "setup: ui/node_modules matches ui/package-lock.json"
else
  echo "setup: npm ci in ui/"
  (cd "$UI" && npm ci --no-audit --no-fund)
fi
