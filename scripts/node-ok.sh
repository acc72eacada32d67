#!/usr/bin/env bash
# Exits 0 when the Node.js on PATH can build the console (ui/): Vite 8,
# vitest and jsdom need 20.19 or newer. Otherwise says why on stderr, and
# what to install (Debian 12's own nodejs is 18), and exits 1.
node_version=$(node --version 2>/dev/null || echo none)
if [[ $node_version =~ ^v([0-9]+)\.([0-9]+) ]] &&
   (( BASH_REMATCH[1] > 20 || (BASH_REMATCH[1] == 20 && BASH_REMATCH[2] >= 19) )); then
  exit 0
fi
echo "the console (ui/) needs Node.js 20.19 or newer; node is $node_version:" \
     "install a newer one (NodeSource's nodejs 20 or 22 packages, or Debian 13's)" >&2
exit 1
