#!/usr/bin/env bash
# Runs CMD... against a throwaway PostgreSQL cluster (docs/postgres.md, "Tests"): initdb in a
# temporary directory, a server on an ephemeral loopback port, PGHOST/PGPORT/PGUSER/PGDATABASE
# exported to CMD, the server stopped and the directory removed on exit, whatever CMD does.
# With PGHOST already set, CMD runs against that server instead. DATASTORE_PG_SERVER_OPTIONS adds
# server settings after the tests' own (make run passes "-c fsync=on": its commits are durable).
set -euo pipefail

if [ -n "${PGHOST:-}" ]; then exec "$@"; fi

bindir="$(pg_config --bindir)"
for tool in initdb pg_ctl; do
  if [ ! -x "$bindir/$tool" ]; then
    echo "with-cluster: $bindir/$tool is missing (install postgresql)" >&2
    exit 1
  fi
done

dir="$(mktemp -d /tmp/datastore-pg.XXXXXX)"
chmod 755 "$dir"
# initdb refuses to run as root: the server runs as postgres when we are root.
as_owner=()
if [ "$(id -u)" = "0" ]; then
  chown postgres "$dir"
  as_owner=(runuser -u postgres --)
fi

stop() {
  # From inside the directory: a working directory under a root-only home makes the tools warn.
  (cd "$dir" && "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast -s stop >/dev/null 2>&1 || true)
  rm -rf "$dir"
}
trap stop EXIT
trap "exit 143" INT TERM

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(
  cd "$dir"
  "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U dsk --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s start \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=off -c max_connections=300 ${DATASTORE_PG_SERVER_OPTIONS:-}" \
    || { cat "$dir/server.log" >&2; exit 1; }
)

export PGHOST=127.0.0.1 PGPORT="$port" PGUSER=dsk PGDATABASE=postgres
# The failure tests make clusters of their own (which they stop and restart) with these tools.
export DATASTORE_PG_BINDIR="$bindir"
echo "with-cluster: PostgreSQL on 127.0.0.1:$port (data in $dir/data)" >&2
"$@"
