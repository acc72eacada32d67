#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL 15:
#   scripts/with-postgres.sh CMD [ARGS...]
# initdb into a temporary directory, start a server on 127.0.0.1 and a free
# port, create the database sindri_test, export
#   SINDRI_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/sindri_test
#   SINDRI_TEST_POSTGRES_ADMIN_URL=postgres://postgres@127.0.0.1:PORT/postgres
# run CMD, then stop the server and delete the directory, whatever happened.
# Exits with CMD's exit code. When SINDRI_TEST_POSTGRES_URL is already set,
# CMD runs against that server instead.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi
if [[ -n ${SINDRI_TEST_POSTGRES_URL:-} ]]; then
  exec "$@"
fi

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
for tool in initdb pg_ctl createdb; do
  if [[ ! -x $PGBIN/$tool ]]; then
    echo "with-postgres.sh: $PGBIN/$tool not found; install postgresql-15 (scripts/packages.txt) or set PGBIN" >&2
    exit 1
  fi
done

# initdb and the server refuse to run as root: run them as the postgres
# system user, in a directory it owns.
as_server_user=()
if [[ $(id -u) -eq 0 ]]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "with-postgres.sh: running as root needs the 'postgres' system user (created by the postgresql-15 package)" >&2
    exit 1
  fi
  as_server_user=(runuser -u postgres --)
fi
# Runs a server program from inside the temporary directory: the caller's
# working directory may be closed to the postgres user.
server() {
  (cd "$dir" && "${as_server_user[@]}" "$@")
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/sindri-postgres.XXXXXX")
cleanup() {
  if [[ -f $dir/data/postmaster.pid ]]; then
    server "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$dir/socket"
if [[ ${#as_server_user[@]} -gt 0 ]]; then
  chown -R postgres: "$dir"
  if ! server test -w "$dir"; then
    echo "with-postgres.sh: the postgres user cannot write to $dir; set TMPDIR to a directory it can reach" >&2
    exit 1
  fi
fi

# --no-sync only skips flushing initdb's own files; the server itself runs
# with fsync on, because the tests check what survives a killed process.
if ! server "$PGBIN/initdb" -D "$dir/data" --auth=trust --username=postgres \
    --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
  echo "with-postgres.sh: initdb failed:" >&2
  cat "$dir/initdb.log" >&2
  exit 1
fi
cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/socket'
max_connections = 400
fsync = on
EOF

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    echo $((20000 + RANDOM % 40000))
  fi
}

# Another process may take the port between choosing and binding: try a few.
port=
for _ in 1 2 3 4 5; do
  candidate=$(free_port)
  if server "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "-p $candidate" \
      -w -t 60 start >/dev/null 2>&1; then
    port=$candidate
    break
  fi
done
if [[ -z $port ]]; then
  echo "with-postgres.sh: the PostgreSQL server did not start; its log:" >&2
  cat "$dir/server.log" >&2 || true
  exit 1
fi

"$PGBIN/createdb" -h 127.0.0.1 -p "$port" -U postgres sindri_test

export SINDRI_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/sindri_test"
export SINDRI_TEST_POSTGRES_ADMIN_URL="postgres://postgres@127.0.0.1:$port/postgres"

status=0
"$@" || status=$?
exit "$status"
