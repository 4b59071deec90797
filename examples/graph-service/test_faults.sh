#!/usr/bin/env bash
# Fault test of graph-service (ctest graph-service.faults), in both server modes:
# - timeouts: an idle client, a client trickling a request that never ends and a client that
#   never reads its responses are disconnected, and SIGTERM completes while they are connected;
# - out of descriptors (ulimit -n): the listener backs off instead of spinning, serves again
#   once descriptors return, and SIGTERM completes while it is out of them;
# - thread mode, no thread for a connection: it is answered 503, accepting goes on, SIGTERM
#   completes;
# - SIGTERM while clients keep connecting ends the service, round after round.
#   test_faults.sh path/to/graph-service path/to/graph-service-fail-threads.so
set -euo pipefail

service=${1:?usage: test_faults.sh path/to/graph-service path/to/fail-threads.so}
fail_threads=${2:?usage: test_faults.sh path/to/graph-service path/to/fail-threads.so}
client="python3 $(dirname "$0")/hostile_client.py"
# shellcheck source=examples/graph-service/test_lib.sh
source "$(dirname "$0")/test_lib.sh" graph-service-faults

# health: the status of GET /health within $1 seconds ("000" for no answer).
health() { curl -s --max-time "$1" -o /dev/null -w '%{http_code}' "$BASE/health" || true; }

# cpu PID: its user + system time in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# within VALUE LOW HIGH: VALUE (seconds, or "open") is in [LOW, HIGH].
within() { [[ $1 != open ]] && awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# wait_output FILE REGEX: waits up to 20 s for a line of FILE to match REGEX (extended, whole line);
# sets LINE to it.
wait_output() {
  local deadline=$((SECONDS + 20))
  LINE=
  while ((SECONDS < deadline)); do
    LINE=$(grep -m1 -E -x -- "$2" "$1" 2>/dev/null || true)
    [[ -n $LINE ]] && return 0
    sleep 0.05
  done
  return 1
}

# noread_start: a client pipelines 300 requests for 1000 persons and does not read; sets
# NOREAD (its pid); $work/noread.out says "sent", then when the server hung up.
noread_start() {
  rm -f "$work/noread.out"  # not the last client's "sent"
  $client "$PORT" noread 300 '/persons?limit=1000' >"$work/noread.out" &
  NOREAD=$!
  wait_output "$work/noread.out" sent || fail "the non-reading client could not send its requests"
}

# Idle, read and write timeouts (1 s, 1.5 s, 1 s), then SIGTERM with hostile clients connected.
check_timeouts() {
  local name=$1
  shift
  start "$name" --seed 1000 --idle-timeout-ms 1000 --read-timeout-ms 1500 --write-timeout-ms 1000 "$@"
  local pid=$PID seconds idle trickle
  # Concurrently: each client measures its own time.
  $client "$PORT" idle >"$work/idle" &
  idle=$!
  $client "$PORT" trickle >"$work/trickle" &
  trickle=$!
  wait "$idle" "$trickle" || true
  seconds=$(cat "$work/idle")
  within "$seconds" 0.8 4 || fail "$name: an idle connection was closed after $seconds s, expected about 1 s"
  seconds=$(cat "$work/trickle")
  within "$seconds" 1.3 4 ||
    fail "$name: a request trickling in was cut after $seconds s, expected about 1.5 s from its first byte"

  # A client that never reads: the server gives up on it and goes on serving the others.
  noread_start
  [[ $(health 5) == 200 ]] || fail "$name: not serving while a client does not read"
  wait "$NOREAD" || true
  seconds=$(tail -n1 "$work/noread.out")
  within "$seconds" 0.8 8 || fail "$name: a client that did not read was disconnected after $seconds s"

  # SIGTERM ends within the timeouts while a client trickles a request and another does not read.
  $client "$PORT" trickle >/dev/null &
  trickle=$!
  noread_start
  sleep 0.3
  stop "$pid" "$name" 6
  kill "$trickle" "$NOREAD" 2>/dev/null || true
  wait "$trickle" "$NOREAD" 2>/dev/null || true
}

# Out of descriptors: `ulimit -n 64` and 100 connections held open.
check_descriptors() {
  local name=$1
  shift
  NOFILE=64 start "$name" "$@"
  local pid=$PID round hold before after
  for round in recover sigterm; do
    touch "$work/hold"
    rm -f "$work/hold.out"  # not the last round's "holding"
    $client "$PORT" hold 100 "$work/hold" >"$work/hold.out" &
    hold=$!
    wait_output "$work/hold.out" 'holding [0-9]+' || fail "$name: could not open the connections"
    sleep 0.5
    [[ $(health 1) == 000 ]] ||
      fail "$name ($round): still serving with $(ls "/proc/$pid/fd" | wc -l) descriptors: the limit was not reached"
    # The listener must wait between failed accepts, not spin (that is a whole core).
    before=$(cpu "$pid")
    sleep 1
    after=$(cpu "$pid")
    ((after - before <= 25)) || fail "$name: $((after - before)) % CPU while out of descriptors"
    if [[ $round == recover ]]; then
      rm -f "$work/hold"
      wait "$hold" || true
      [[ $(health 5) == 200 ]] || fail "$name: did not serve again once descriptors returned"
    else
      stop "$pid" "$name" 5
      rm -f "$work/hold"
      wait "$hold" || true
    fi
  done
}

# Thread mode: pthread_create fails while $work/nothreads exists (the fail-threads preload).
check_thread_failure() {
  local name=threads-fail
  ENVIRONMENT=("LD_PRELOAD=$fail_threads" "GRAPH_SERVICE_FAIL_THREADS=$work/nothreads")
  start "$name" --threads-per-connection
  ENVIRONMENT=()
  local pid=$PID status
  [[ $(health 5) == 200 ]] || fail "$name: not serving"
  touch "$work/nothreads"
  status=$(health 5)
  [[ $status == 503 ]] || fail "$name: without a thread for it a request got $status, expected 503"
  status=$(health 5)
  [[ $status == 503 ]] || fail "$name: a second request without a thread got $status, expected 503"
  rm -f "$work/nothreads"
  status=$(health 5)
  [[ $status == 200 ]] || fail "$name: once threads could be created again a request got $status"
  stop "$pid" "$name" 5
}

# SIGTERM under load: clients keep connecting while the listener closes. Each round must end
# within 5 s (an accept loop that retried on the closed listener spun and never ended).
check_stop_under_load() {
  local name=$1 round load
  shift
  for round in 1 2 3 4 5 6; do
    start "$name-$round" "$@"
    load=()
    for _ in 1 2 3 4; do
      (while :; do curl -s --max-time 2 -o /dev/null "$BASE/health" || true; done) 2>/dev/null &
      load+=($!)
    done
    sleep 0.3
    stop "$PID" "$name-$round" 5
    kill "${load[@]}" 2>/dev/null || true
    wait "${load[@]}" 2>/dev/null || true
  done
}

echo "== SIGTERM under load ($SECONDS s)"
check_stop_under_load stop-load-fibers
check_stop_under_load stop-load-threads --threads-per-connection
echo "== timeouts, fibers ($SECONDS s)"
check_timeouts timeouts-fibers
echo "== timeouts, threads ($SECONDS s)"
check_timeouts timeouts-threads --threads-per-connection
echo "== descriptors, fibers ($SECONDS s)"
check_descriptors descriptors-fibers
echo "== descriptors, threads ($SECONDS s)"
check_descriptors descriptors-threads --threads-per-connection
echo "== thread creation fails ($SECONDS s)"
check_thread_failure

if ((failures)); then
  printf '%d check(s) failed\n' "$failures" >&2
  exit 1
fi
echo "graph-service faults: all checks passed"
