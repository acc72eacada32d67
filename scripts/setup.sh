#!/usr/bin/env bash
# Installs every Debian package Sindri needs (listed in scripts/packages.txt).
# Skips apt entirely when all of them are already installed, so it is cheap
# to call before every build.
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

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages and kubectl already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to run apt-get" >&2; exit 1; }
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
