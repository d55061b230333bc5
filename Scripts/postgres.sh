#!/usr/bin/env bash
# A throwaway PostgreSQL for the proxy's tests: Debian's `postgresql` (installed when missing),
# `initdb` into a temporary folder and `pg_ctl` on a free 127.0.0.1 port, as the `postgres` user
# when this runs as root.
#
#   Scripts/postgres.sh start    start it (or find it running); prints its URL on stdout
#   Scripts/postgres.sh url      prints the URL of the running server
#   Scripts/postgres.sh pause    stops the server but keeps its data and port (outage tests)
#   Scripts/postgres.sh resume   starts a paused server again on the same port
#   Scripts/postgres.sh stop     stops it and deletes its folder
#
# The folder is $DEX_POSTGRES_DIR (default ${TMPDIR:-/tmp}/dexkit-postgres). The URL is
# postgres://dexkit:PASSWORD@127.0.0.1:PORT/dexkit with a random password made at `start`;
# everything else this prints goes to stderr and never shows the password.
set -euo pipefail

DIR="${DEX_POSTGRES_DIR:-${TMPDIR:-/tmp}/dexkit-postgres}"
DATA="$DIR/data"

say() { echo "postgres.sh: $*" >&2; }

bin_dir() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -z "$found" || ! -x "$found/initdb" ]]; then
    say "installing the distribution's postgresql"
    # shellcheck source=Scripts/packages.sh
    source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"
    dexkit_install_group postgres >&2
    found="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  echo "$found"
}

# Runs a command as the `postgres` user when root (initdb and pg_ctl refuse root), else as is.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

url() { cat "$DIR/url"; }

server_start() {
  local bin port
  bin="$(bin_dir)"
  port="$(cat "$DIR/port")"
  (
    # The server must not inherit the caller's descriptors: a test runner that waits for this
    # script (Foundation's Process watches a socket) would otherwise wait for the server too.
    for fd in /proc/self/fd/*; do
      fd="${fd##*/}"
      if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    as_owner "$bin/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $DIR -c fsync=off" start >/dev/null
  )
}

is_running() {
  [[ -f "$DATA/postmaster.pid" ]] && as_owner "$(bin_dir)/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

start() {
  if [[ -f "$DIR/url" ]]; then
    is_running || server_start
    url
    return
  fi
  local bin port password
  bin="$(bin_dir)"
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  port="$(free_port)"
  password="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  echo "$port" >"$DIR/port"
  umask 077
  printf '%s\n' "$password" >"$DIR/password"
  [[ "$(id -u)" == 0 ]] && chown -R postgres "$DIR"
  as_owner "$bin/initdb" -D "$DATA" -U dexkit --auth=scram-sha-256 --pwfile="$DIR/password" \
    -E UTF8 --no-instructions >"$DIR/initdb.log" 2>&1 || {
    say "initdb failed; see $DIR/initdb.log"
    exit 1
  }
  server_start
  PGPASSWORD="$password" "$bin/psql" -h 127.0.0.1 -p "$port" -U dexkit -d postgres -q \
    -c "CREATE DATABASE dexkit" >&2
  printf 'postgres://dexkit:%s@127.0.0.1:%s/dexkit\n' "$password" "$port" >"$DIR/url"
  say "PostgreSQL is running on 127.0.0.1:$port (folder $DIR)"
  url
}

pause() {
  is_running || return 0
  as_owner "$(bin_dir)/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
}

resume() {
  [[ -f "$DIR/url" ]] || {
    say "no server in $DIR; run start first"
    exit 1
  }
  is_running || server_start
}

stop() {
  [[ -d "$DIR" ]] || return 0
  pause || true
  rm -rf "$DIR"
  say "stopped and removed $DIR"
}

case "${1:-}" in
  start) start ;;
  url) url ;;
  pause) pause ;;
  resume) resume ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|url|pause|resume|stop" >&2
    exit 64
    ;;
esac
