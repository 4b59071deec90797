#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the PostgresGraph tests.
#
#   pg_cluster.sh start   STATE_DIR   initdb into a fresh temp dir, start the server, write
#                                     STATE_DIR/dsn (a libpq connection string)
#   pg_cluster.sh stop    STATE_DIR   stop the server and delete its temp dir; also stops the
#                                     clusters of any STATE_DIR/private.* state dirs
#   pg_cluster.sh kill    STATE_DIR   pg_ctl stop -m immediate (a crash, for fault tests)
#   pg_cluster.sh restart STATE_DIR   start the stopped or killed server again, same socket
#   pg_cluster.sh bounce  STATE_DIR   pg_ctl restart -m fast (an administrator's restart)
#   pg_cluster.sh standby STATE_DIR PRIMARY_STATE_DIR
#                                     a hot standby of that primary: pg_basebackup -R (streaming
#                                     replication, standby.signal), its own temp dir and socket;
#                                     STATE_DIR/dsn as for start, and stop/kill/restart work on it
#                                     (stopping the primary's state dir also stops
#                                     PRIMARY_STATE_DIR/standby)
#
# The server listens only on a unix socket inside its temp dir (no TCP port, so parallel runs
# never collide), trusts local connections and skips fsync: data is disposable, but a crash of
# the server process (kill) still keeps every committed transaction.
#
# PostgreSQL refuses to run as root. As root the cluster belongs to an unprivileged user:
# $PROPGRAPH_PG_USER if set, else "postgres" (created by Debian's server package), else
# "nobody"; commands run through runuser (util-linux, always present on Debian). Otherwise
# the cluster belongs to the calling user.
#
# When no server binaries are installed, start prints a SKIPPED banner, writes
# STATE_DIR/skipped and exits 77 (CTest reports it skipped), and the tests skip too. Any other
# failure exits 1.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|kill|restart|bounce STATE_DIR | standby STATE_DIR PRIMARY_STATE_DIR" >&2
  exit 2
}
(($# == 2)) || { (($# == 3)) && [[ $1 == standby ]]; } || usage
command=$1
state=$2

log() { printf 'pg_cluster: %s\n' "$*" >&2; }

# The newest installed server's bin directory (Debian: /usr/lib/postgresql/<major>/bin;
# pg_config --bindir may name a client-only directory).
find_bindir() {
  local dir candidates=()
  while IFS= read -r dir; do candidates+=("$dir"); done < <(
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4,4 -n -r)
  if command -v pg_config >/dev/null 2>&1; then candidates+=("$(pg_config --bindir)"); fi
  if command -v initdb >/dev/null 2>&1; then candidates+=("$(dirname "$(command -v initdb)")"); fi
  for dir in "${candidates[@]}"; do
    if [[ -x $dir/initdb && -x $dir/pg_ctl && -x $dir/postgres ]]; then
      printf '%s\n' "$dir"
      return 0
    fi
  done
  return 1
}

cluster_owner() {
  if [[ -n ${PROPGRAPH_PG_USER:-} ]]; then
    printf '%s\n' "$PROPGRAPH_PG_USER"
  elif id -u postgres >/dev/null 2>&1; then
    printf 'postgres\n'
  else
    printf 'nobody\n'
  fi
}

# as_owner CMD...: runs CMD as the cluster's owner, from the cluster dir (the caller's working
# directory may be unreadable for that user).
as_owner() {
  if (($(id -u) == 0)); then
    (cd "$cluster" && runuser -u "$(cat "$state/owner")" -- "$@")
  else
    (cd "$cluster" && "$@")
  fi
}

# logged NAME LOGFILE COMMAND...: runs COMMAND as the cluster's owner with its output in LOGFILE;
# on failure shows the log and exits.
logged() {
  local name=$1 logfile=$2
  shift 2
  as_owner "$@" >"$logfile" 2>&1 || {
    log "$name failed:"
    cat "$logfile" >&2
    exit 1
  }
}

load_state() {
  [[ -f $state/cluster && -f $state/bindir ]] || {
    log "no cluster recorded in $state"
    exit 1
  }
  cluster=$(cat "$state/cluster")
  bindir=$(cat "$state/bindir")
}

pg_ctl_start() {
  if ! as_owner "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 start >/dev/null; then
    log "server did not start; its log:"
    cat "$cluster/server.log" >&2 || true
    return 1
  fi
}

start() {
  mkdir -p "$state"
  rm -f "$state/dsn" "$state/skipped"
  if ! bindir=$(find_bindir); then
    local reason="no PostgreSQL server binaries (initdb, pg_ctl, postgres) found in /usr/lib/postgresql/*/bin or PATH; install Debian's postgresql package"
    printf '%s\n' "$reason" >"$state/skipped"
    cat >&2 <<BANNER

################################################################################
###  SKIPPED: PostgresGraph tests
###  $reason
################################################################################

BANNER
    exit 77
  fi
  # /tmp rather than $TMPDIR: the cluster owner must reach it, and socket paths must stay short.
  cluster=$(mktemp -d "${PROPGRAPH_PG_TMPDIR:-/tmp}/propgraph-pg.XXXXXX")
  chmod 755 "$cluster"
  printf '%s\n' "$cluster" >"$state/cluster"
  printf '%s\n' "$bindir" >"$state/bindir"
  if (($(id -u) == 0)); then
    cluster_owner >"$state/owner"
    chown "$(cat "$state/owner")" "$cluster"
  fi
  log "initdb $cluster/data ($("$bindir/postgres" --version))${PROPGRAPH_PG_USER:+ as $PROPGRAPH_PG_USER}"
  logged initdb "$cluster/initdb.log" "$bindir/initdb" -D "$cluster/data" --auth=trust --username=propgraph \
    --encoding=UTF8 --locale=C --no-sync
  as_owner mkdir -m 755 "$cluster/socket"
  # Only a unix socket in our own directory: the port number merely names the socket file.
  as_owner tee -a "$cluster/data/postgresql.conf" >/dev/null <<CONF

# propgraph test cluster
listen_addresses = ''
unix_socket_directories = '$cluster/socket'
port = 5432
max_connections = 200
fsync = off
full_page_writes = off
dynamic_shared_memory_type = mmap
# Transactions of concurrent tests lock rows in opposite orders now and then: find the
# deadlock (and fail one of them, which transact() retries) in 50 ms rather than 1 s.
deadlock_timeout = 50ms
CONF
  pg_ctl_start
  printf 'host=%s port=5432 user=propgraph dbname=postgres\n' "$cluster/socket" >"$state/dsn"
  log "server up: $(cat "$state/dsn")"
}

standby() {
  local primary_state=$1 primary_cluster
  [[ -f $primary_state/cluster && -f $primary_state/bindir ]] || {
    log "no primary recorded in $primary_state"
    exit 1
  }
  if [[ -f $primary_state/skipped ]]; then
    mkdir -p "$state"
    cp "$primary_state/skipped" "$state/skipped"
    exit 77
  fi
  primary_cluster=$(cat "$primary_state/cluster")
  bindir=$(cat "$primary_state/bindir")
  mkdir -p "$state"
  rm -f "$state/dsn" "$state/skipped"
  cluster=$(mktemp -d "${PROPGRAPH_PG_TMPDIR:-/tmp}/propgraph-pg.XXXXXX")
  chmod 755 "$cluster"
  printf '%s\n' "$cluster" >"$state/cluster"
  printf '%s\n' "$bindir" >"$state/bindir"
  if [[ -f $primary_state/owner ]]; then
    cp "$primary_state/owner" "$state/owner"
    chown "$(cat "$state/owner")" "$cluster"
  fi
  log "pg_basebackup from $primary_cluster into $cluster/data"
  logged pg_basebackup "$cluster/basebackup.log" "$bindir/pg_basebackup" -h "$primary_cluster/socket" -p 5432 \
    -U propgraph -D "$cluster/data" -R -X stream --no-sync
  as_owner mkdir -m 755 "$cluster/socket"
  # The copied configuration names the primary's socket directory: this one has its own.
  as_owner tee -a "$cluster/data/postgresql.conf" >/dev/null <<CONF

# propgraph test standby
unix_socket_directories = '$cluster/socket'
hot_standby = on
hot_standby_feedback = on
CONF
  pg_ctl_start
  printf 'host=%s port=5432 user=propgraph dbname=postgres\n' "$cluster/socket" >"$state/dsn"
  log "standby up: $(cat "$state/dsn")"
}

stop() {
  local private
  # Private clusters of tests that died before stopping theirs live below STATE_DIR.
  for private in "$state"/private.* "$state"/standby; do
    [[ -d $private ]] && bash "$0" stop "$private" && rm -rf "$private"
  done
  if [[ -f $state/skipped ]]; then
    rm -f "$state/skipped"
    return 0
  fi
  load_state
  as_owner "$bindir/pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$cluster"
  rm -f "$state/dsn" "$state/cluster" "$state/bindir" "$state/owner"
  log "server stopped, $cluster removed"
}

case $command in
  start) start ;;
  standby) standby "$3" ;;
  stop) stop ;;
  kill)
    load_state
    as_owner "$bindir/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null
    ;;
  restart)
    load_state
    pg_ctl_start
    ;;
  bounce)
    load_state
    as_owner "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -m fast -w -t 60 restart >/dev/null
    ;;
  *) usage ;;
esac
