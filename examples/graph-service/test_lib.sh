# shellcheck shell=bash
# What test_service.sh and test_faults.sh share: a scratch directory ($work) removed at exit
# with every service started, a failure count, and starting and stopping the service.
#   service=path/to/graph-service; source test_lib.sh NAME   (NAME names the scratch directory)

: "${service:?set service to the graph-service binary before sourcing test_lib.sh}"
work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

failures=0
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  failures=$((failures + 1))
}

# Extra environment of the next start (VAR=VALUE words).
ENVIRONMENT=()

# start NAME ARGS...: starts the service on a free port (under `ulimit -n $NOFILE` when NOFILE
# is set, with $ENVIRONMENT); sets PID, PORT and BASE (http://127.0.0.1:PORT). Its output goes
# to $work/NAME.log.
start() {
  local name=$1 log
  shift
  log=$work/$name.log
  (
    [[ -n ${NOFILE-} ]] && ulimit -n "$NOFILE"
    exec env "${ENVIRONMENT[@]}" "$service" --port 0 "$@"
  ) >"$log" 2>&1 &
  PID=$!
  pids+=("$PID")
  local deadline=$((SECONDS + 30)) line=
  while ((SECONDS < deadline)); do
    line=$(grep -m1 '^listening on ' "$log" 2>/dev/null || true)
    [[ -n $line ]] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05
  done
  if [[ -z $line ]]; then
    cat "$log" >&2
    printf 'FAIL: %s did not start\n' "$name" >&2
    exit 1
  fi
  BASE=http://${line#listening on }
  # shellcheck disable=SC2034 # for the sourcing script
  PORT=${BASE##*:}
}

# stop PID NAME [SECONDS]: SIGTERM; the service must exit 0 within SECONDS (default 30) and
# say "stopped". One that does not is killed.
stop() {
  local pid=$1 name=$2 limit=${3:-30} status=0 started=$SECONDS
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null && ((SECONDS - started < limit)); do sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$name did not exit within $limit s of SIGTERM"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    return
  fi
  wait "$pid" || status=$?
  ((status == 0)) || fail "$name exited with status $status"
  grep -q '^stopped$' "$work/$name.log" || fail "$name did not say it stopped"
}
