#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL 15:
#   scripts/with-postgres.sh CMD [ARGS...]
# starts one with scripts/postgres-fixture.sh (initdb into a temporary
# directory, a server on 127.0.0.1 and a free port, the database
# sindri_test), exports
#   SINDRI_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/sindri_test
#   SINDRI_TEST_POSTGRES_ADMIN_URL=postgres://postgres@127.0.0.1:PORT/postgres
# runs CMD, then stops the server and deletes its directory, whatever
# happened. Exits with CMD's exit code. When SINDRI_TEST_POSTGRES_URL is
# already set, CMD runs against that server instead.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi
if [[ -n ${SINDRI_TEST_POSTGRES_URL:-} ]]; then
  exec "$@"
fi

fixture="$(dirname "${BASH_SOURCE[0]}")/postgres-fixture.sh"
state=$(mktemp -d "${TMPDIR:-/tmp}/sindri-postgres-state.XXXXXX")
cleanup() {
  "$fixture" stop "$state" || true
  rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$fixture" start "$state"
{
  read -r SINDRI_TEST_POSTGRES_URL
  read -r SINDRI_TEST_POSTGRES_ADMIN_URL
} <"$state/urls"
export SINDRI_TEST_POSTGRES_URL SINDRI_TEST_POSTGRES_ADMIN_URL

status=0
"$@" || status=$?
exit "$status"
