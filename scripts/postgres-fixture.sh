#!/usr/bin/env bash
# A throwaway PostgreSQL 15 for the tests, started and stopped apart:
#   scripts/postgres-fixture.sh start STATE_DIR
#   scripts/postgres-fixture.sh stop STATE_DIR
# start: initdb into a temporary directory, a server on 127.0.0.1 and a free
# port, the database sindri_test; STATE_DIR/urls then holds two lines, the
# URL of sindri_test and that of the server's postgres database (for
# creating and dropping databases). When SINDRI_TEST_POSTGRES_URL is set,
# no server starts and STATE_DIR/urls names that one. A server left by an
# aborted run in STATE_DIR is stopped first.
# stop: stops the server STATE_DIR names and deletes its directory; nothing
# to stop is no error.
# ctest runs start and stop as fixtures around the tests that need them
# (tests/CMakeLists.txt); scripts/with-postgres.sh runs a command between them.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop STATE_DIR" >&2
  exit 2
}
[[ $# -eq 2 ]] || usage
action=$1
state=$2
[[ $action == start || $action == stop ]] || usage

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

# initdb and the server refuse to run as root: run them as the postgres
# system user, in a directory it owns.
as_server_user=()
if [[ $(id -u) -eq 0 ]]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "postgres-fixture.sh: running as root needs the 'postgres' system user (created by the postgresql-15 package)" >&2
    exit 1
  fi
  as_server_user=(runuser -u postgres --)
fi
# Runs a server program from inside the server's directory: the caller's
# working directory may be closed to the postgres user.
server() {
  (cd "$dir" && "${as_server_user[@]}" "$@")
}

stop_server() {
  [[ -f $state/server ]] || return 0
  dir=$(cat "$state/server")
  if [[ -f $dir/data/postmaster.pid ]]; then
    server "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  rm -f "$state/server" "$state/urls"
}

mkdir -p "$state"
stop_server
[[ $action == stop ]] && exit 0

if [[ -n ${SINDRI_TEST_POSTGRES_URL:-} ]]; then
  printf '%s\n%s\n' "$SINDRI_TEST_POSTGRES_URL" "${SINDRI_TEST_POSTGRES_ADMIN_URL:-}" >"$state/urls"
  exit 0
fi

for tool in initdb pg_ctl createdb; do
  if [[ ! -x $PGBIN/$tool ]]; then
    echo "postgres-fixture.sh: $PGBIN/$tool not found; install postgresql-15 (scripts/packages.txt) or set PGBIN" >&2
    exit 1
  fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/sindri-postgres.XXXXXX")
echo "$dir" >"$state/server"
# Whatever fails from here on leaves no server and no directory behind.
trap 'stop_server' ERR
trap 'stop_server; exit 130' INT
trap 'stop_server; exit 143' TERM

mkdir "$dir/socket"
if [[ ${#as_server_user[@]} -gt 0 ]]; then
  chown -R postgres: "$dir"
  if ! server test -w "$dir"; then
    echo "postgres-fixture.sh: the postgres user cannot write to $dir; set TMPDIR to a directory it can reach" >&2
    stop_server
    exit 1
  fi
fi

# --no-sync only skips flushing initdb's own files; the server itself runs
# with fsync on, because the tests check what survives a killed process.
if ! server "$PGBIN/initdb" -D "$dir/data" --auth=trust --username=postgres \
    --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
  echo "postgres-fixture.sh: initdb failed:" >&2
  cat "$dir/initdb.log" >&2
  stop_server
  exit 1
fi
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/socket'
max_connections = 400
fsync = on
CONF

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
  echo "postgres-fixture.sh: the PostgreSQL server did not start; its log:" >&2
  cat "$dir/server.log" >&2 || true
  stop_server
  exit 1
fi

"$PGBIN/createdb" -h 127.0.0.1 -p "$port" -U postgres sindri_test
printf '%s\n%s\n' "postgres://postgres@127.0.0.1:$port/sindri_test" \
  "postgres://postgres@127.0.0.1:$port/postgres" >"$state/urls"
