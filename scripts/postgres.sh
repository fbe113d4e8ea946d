#!/usr/bin/env bash
# The optional PostgreSQL 15 arm, on loopback only: scripts/postgres.sh up|down|status
#
#   up      create the cluster if needed (initdb), start it, create database `fenec`;
#           already up -> says so, exit 0
#   down    stop it (fast shutdown); already down -> says so, exit 0
#   status  exit 0 if up, 1 if down
#
# up and status print the connection string. Exit 3 means PostgreSQL is not
# installed here, so the arm is skipped; exit 2 is a usage error.
#
# Environment: FENEC_PG_DIR (cluster dir, default /tmp/fenec-pg), FENEC_PG_PORT
# (default 54329), FENEC_PG_BIN (default /usr/lib/postgresql/15/bin),
# FENEC_PG_SOCKET_DIR (the unix socket's folder, default the cluster dir; set
# but empty: no unix socket, TCP on 127.0.0.1 only).
#
# The cluster is a benchmark arm, not a production database: trust auth, but
# only on 127.0.0.1 and a unix socket inside the cluster dir, and fsync stays on
# so its commits are as durable as the engine's it is compared with.
set -euo pipefail

PG_BIN=${FENEC_PG_BIN:-/usr/lib/postgresql/15/bin}
# Absolute: the server's commands run from / (as_pg).
PG_DIR=$(realpath -m "${FENEC_PG_DIR:-/tmp/fenec-pg}")
PG_PORT=${FENEC_PG_PORT:-54329}
PG_LOG=$PG_DIR/server.log
CONN="host=127.0.0.1 port=$PG_PORT user=postgres dbname=fenec"

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
  echo "postgres: $*" >&2
  exit 1
}

# PostgreSQL refuses to run as root: as root, every server-side command runs as
# the `postgres` system user; as anyone else, as that user (who then owns the cluster).
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

is_up() {
  [ -f "$PG_DIR/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" status -D "$PG_DIR" >/dev/null 2>&1
}

psql_admin() {
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres \
    -d postgres "$@"
}

init_cluster() {
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || die "no 'postgres' system user (postgresql-15 package incomplete?)"
  fi
  mkdir -p "$PG_DIR"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$PG_DIR"; fi
  chmod 700 "$PG_DIR"
  echo "postgres: initdb $PG_DIR" >&2
  # initdb wants an empty folder, so its chatter is kept outside it and shown only on failure.
  local log
  log=$(mktemp)
  if ! as_pg "$PG_BIN/initdb" -D "$PG_DIR" -U postgres --auth=trust --encoding=UTF8 --locale=C \
    >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    die "initdb failed"
  fi
  rm -f "$log"
  # Our settings live in their own file, rewritten on every `up`, so a changed
  # FENEC_PG_PORT takes effect without touching initdb's postgresql.conf again.
  echo "include_if_exists = 'fenec.conf'" | as_pg tee -a "$PG_DIR/postgresql.conf" >/dev/null
  as_pg tee "$PG_DIR/pg_hba.conf" >/dev/null <<'EOF'
# fenec: trust, but only over the cluster's own unix socket and loopback.
local   all   all                 trust
host    all   all   127.0.0.1/32  trust
EOF
}

write_settings() {
  as_pg tee "$PG_DIR/fenec.conf" >/dev/null <<EOF
# Written by scripts/postgres.sh on every 'up'.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '${FENEC_PG_SOCKET_DIR-$PG_DIR}'
fsync = on
synchronous_commit = on
full_page_writes = on
EOF
}

# As root the server runs as `postgres`, who must pass every folder above
# the cluster's: one inside root's home (0700 on Debian) cannot work, and
# initdb's own error says only "Permission denied".
check_reachable() {
  [ "$(id -u)" -eq 0 ] || return 0
  id postgres >/dev/null 2>&1 || die "no 'postgres' system user (postgresql-15 package incomplete?)"
  local up
  up=$(dirname "$PG_DIR")
  while [ ! -d "$up" ]; do up=$(dirname "$up"); done
  if ! (cd / && runuser -u postgres -- test -x "$up"); then
    die "the postgres user cannot reach $PG_DIR (a folder above it is closed to it, as root's home is): set FENEC_PG_DIR to a folder it can reach, e.g. /var/tmp/fenec-pg"
  fi
}

cmd_up() {
  check_reachable
  if is_up; then
    echo "postgres: already up ($PG_DIR)"
  else
    [ -f "$PG_DIR/PG_VERSION" ] || {
      # initdb needs an empty folder: refuse to wipe something that is not ours.
      if [ -d "$PG_DIR" ] && [ -n "$(ls -A "$PG_DIR")" ]; then
        die "$PG_DIR exists, is not empty and holds no cluster; remove it or set FENEC_PG_DIR"
      fi
      init_cluster
    }
    write_settings
    as_pg "$PG_BIN/pg_ctl" start -w -t 60 -D "$PG_DIR" -l "$PG_LOG" >/dev/null || {
      tail -n 20 "$PG_LOG" >&2 || true
      die "start failed (port $PG_PORT in use? log: $PG_LOG)"
    }
    echo "postgres: up ($PG_DIR, port $PG_PORT)"
  fi
  if [ "$(psql_admin -tA -c "select count(*) from pg_database where datname = 'fenec'")" != "1" ]; then
    psql_admin -c "create database fenec" || die "create database fenec failed"
  fi
  echo "$CONN"
}

cmd_down() {
  if ! is_up; then
    echo "postgres: not running ($PG_DIR)"
    return 0
  fi
  as_pg "$PG_BIN/pg_ctl" stop -w -m fast -D "$PG_DIR" >/dev/null || die "stop failed (log: $PG_LOG)"
  echo "postgres: down ($PG_DIR)"
}

cmd_status() {
  if is_up; then
    echo "postgres: up ($PG_DIR, port $PG_PORT)"
    echo "$CONN"
    return 0
  fi
  if [ -f "$PG_DIR/PG_VERSION" ]; then
    echo "postgres: down (cluster at $PG_DIR; 'scripts/postgres.sh up' starts it)"
  else
    echo "postgres: down (no cluster at $PG_DIR; 'scripts/postgres.sh up' creates it)"
  fi
  return 1
}

case "${1:-}" in
  -h|--help|help) usage; exit 0 ;;
  up|down|status) ;;
  "") echo "error: missing command (up, down or status); see --help" >&2; exit 2 ;;
  *) echo "error: unknown command '$1' (expected up, down or status); see --help" >&2; exit 2 ;;
esac
if [ $# -gt 1 ]; then
  echo "error: unexpected argument '$2'; see --help" >&2
  exit 2
fi
if [ ! -x "$PG_BIN/pg_ctl" ] || [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/postgres" ]; then
  echo "postgres: not installed: skipped"
  exit 3
fi
case "$1" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
esac
