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

# Vite 8, vitest and jsdom need Node.js 20.19 or newer. Debian 12's nodejs is
# 18: where it is the one installed, say so rather than fail inside npm.
node_version=$(node --version 2>/dev/null || echo none)
if ! [[ $node_version =~ ^v([0-9]+)\.([0-9]+) ]] ||
   (( BASH_REMATCH[1] < 20 || (BASH_REMATCH[1] == 20 && BASH_REMATCH[2] < 19) )); then
  echo "setup: the console (ui/) needs Node.js 20.19 or newer; node is $node_version." >&2
  echo "setup: install a newer one (NodeSource's nodejs 20 or 22 packages, or Debian 13's) and run again" >&2
  exit 1
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
