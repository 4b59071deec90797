# shellcheck shell=bash
# scripts/bench --service: HTTP load on examples/graph-service with wrk, on loopback.
# Source it after common.sh; call pg_service_bench with the options below.
#
# For each server mode (fibers: coroutines + FiberPool + async_get; threads: a thread per
# connection, same handlers), each scenario (get: GET /persons/{id}; neighbors: GET
# /persons/{id}/neighbors; mix: 90% GET, 10% PATCH) and each connection count, one wrk run of a
# fixed duration. Results: build/bench/service.json (the run's fields, then one record per run)
# and a table on stdout.
#
# --callgrind counts instead of timing: the service runs under valgrind's callgrind, counting
# only while wrk runs, and each record gets the service's instructions per request (user space
# only; not disturbed by other load on the machine). Results: build/bench/service-callgrind.json.

pg_service_bench_usage() {
  cat <<'USAGE'
scripts/bench --service [--duration S] [--connections "64 1024"] [--modes "fibers threads"]
                        [--scenarios "get neighbors mix"] [--persons N] [--wrk-threads N]
                        [--server-args "..."] [--callgrind]
  --duration S       seconds per wrk run (default 10)
  --callgrind        instructions per request under callgrind instead of timings (default
                     connections "8", duration 5; build/bench/service-callgrind.json)
  --persons N        persons seeded into the service, 8 KNOWS edges each (default 10000)
  --wrk-threads N    wrk threads (default 2)
  --server-args ARGS extra graph-service options for the fiber mode (default
                     "--fiber-threads 1")
USAGE
}

pg_service_bench() {
  local duration=10 connections="64 1024" modes="fibers threads" scenarios="get neighbors mix"
  local persons=10000 wrk_threads=2 server_args="--fiber-threads 1" callgrind=0
  local command="scripts/bench --service $*"
  [[ " $* " == *" --callgrind "* ]] && callgrind=1 duration=5 connections=8
  while (($#)); do
    case $1 in
      --callgrind) ;;
      --duration) duration=$2; shift ;;
      --connections) connections=$2; shift ;;
      --modes) modes=$2; shift ;;
      --scenarios) scenarios=$2; shift ;;
      --persons) persons=$2; shift ;;
      --wrk-threads) wrk_threads=$2; shift ;;
      --server-args) server_args=$2; shift ;;
      -h | --help) pg_service_bench_usage; return 0 ;;
      *) pg_err "unknown --service option $1"; pg_service_bench_usage >&2; return 2 ;;
    esac
    shift
  done

  local service=$PROPGRAPH_ROOT/build/release/examples/graph-service/graph-service
  local script=$PROPGRAPH_ROOT/examples/graph-service/wrk/service.lua
  local out=$PROPGRAPH_ROOT/build/bench/service.json
  local runner=()
  if ((callgrind)); then
    out=$PROPGRAPH_ROOT/build/bench/service-callgrind.json
    command -v valgrind >/dev/null || { pg_err "valgrind is not installed (Debian: valgrind)"; return 1; }
  fi
  command -v wrk >/dev/null || { pg_err "wrk is not installed (Debian: wrk)"; return 1; }
  [[ -x $service ]] || { pg_err "$service is not built"; return 1; }
  local max_connections=0 c
  for c in $connections; do ((c > max_connections)) && max_connections=$c; done
  if (($(ulimit -n) < 2 * max_connections + 64)); then
    ulimit -n $((2 * max_connections + 64)) 2>/dev/null ||
      { pg_err "open-file limit $(ulimit -n) is too low for $max_connections connections"; return 1; }
  fi

  # The run's fields, as bench/run_info.hpp records them for the C++ benchmarks (the stamp of
  # the generated table in docs/service.md).
  local date load_start commit
  date=$(date +%Y-%m-%dT%H:%M:%S%z)
  load_start=$(cut -d' ' -f1-3 /proc/loadavg)
  commit=$(git -C "$PROPGRAPH_ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
  local work pid=
  work=$(mktemp -d "${TMPDIR:-/tmp}/propgraph-service-bench.XXXXXX")
  # shellcheck disable=SC2064
  trap "[[ -n \$pid ]] && kill -KILL \$pid 2>/dev/null; rm -rf '$work'" RETURN
  local records=() mode scenario
  for mode in $modes; do
    local args=(--port 0 --seed "$persons")
    # shellcheck disable=SC2206
    if [[ $mode == threads ]]; then args+=(--threads-per-connection); else args+=($server_args); fi
    ((callgrind)) && runner=(valgrind --tool=callgrind --instr-atstart=no "--callgrind-out-file=$work/$mode.cg")
    pg_log "starting ${runner[*]} graph-service ${args[*]}"
    "${runner[@]}" "$service" "${args[@]}" >"$work/$mode.log" 2>&1 &
    pid=$!
    local line= deadline=$((SECONDS + 120))
    while [[ -z $line ]] && ((SECONDS < deadline)) && kill -0 "$pid" 2>/dev/null; do
      sleep 0.1
      line=$(grep -m1 '^listening on ' "$work/$mode.log" || true)
    done
    [[ -n $line ]] || { cat "$work/$mode.log" >&2; pg_err "graph-service did not start"; return 1; }
    local base=http://${line#listening on }
    # Person ids for the scripts: the first 1000 (a page of the person list).
    curl -sS "$base/persons?limit=1000" | grep -o '"id":"[^"]*","label":"Person"' | cut -d'"' -f4 >"$work/ids"
    (($(wc -l <"$work/ids") > 0)) || { pg_err "no person ids from $base/persons"; return 1; }
    for scenario in $scenarios; do
      for c in $connections; do
        local load wrk_out result
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        pg_log "$mode $scenario, $c connections, ${duration}s (load $load)"
        ((callgrind)) && callgrind_control --zero "$pid" >/dev/null && callgrind_control --instr=on "$pid" >/dev/null
        wrk_out=$(wrk -t"$wrk_threads" -c"$c" -d"${duration}s" --timeout 10s -s "$script" "$base" -- "$work/ids" "$scenario")
        result=$(grep '^{"requests"' <<<"$wrk_out" | tail -n1)
        [[ -n $result ]] || { printf '%s\n' "$wrk_out" >&2; pg_err "no result from wrk"; return 1; }
        local extra=
        if ((callgrind)); then
          callgrind_control --instr=off "$pid" >/dev/null
          callgrind_control --dump "$pid" >/dev/null
          local dump instructions requests
          dump=$(ls -t "$work/$mode.cg"* | head -n1)
          instructions=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$dump")
          requests=$(sed 's/{"requests":\([0-9]*\).*/\1/' <<<"$result")
          extra=",\"instructions\":$instructions,\"instructions_per_request\":$((instructions / requests))"
        fi
        records+=("{\"server\":\"$mode\",\"scenario\":\"$scenario\",\"connections\":$c,\"load_before\":\"$load\"$extra,\"wrk\":$result}")
      done
    done
    kill -TERM "$pid"
    wait "$pid" || { pg_err "graph-service ($mode) exited with status $?"; return 1; }
    pid=
  done

  mkdir -p "$(dirname "$out")"
  {
    printf '{"command":"%s","date":"%s","commit":"%s","cores":%d,"load_average_start":"%s","load_average_end":"%s",\n' \
      "$command" "$date" "$commit" "$(nproc)" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '"duration_s":%d,"persons":%d,"wrk_threads":%d,"fiber_server_args":"%s",\n"results":[\n' \
      "$duration" "$persons" "$wrk_threads" "$server_args"
    local i
    for i in "${!records[@]}"; do
      printf '  %s%s\n' "${records[$i]}" "$( ((i + 1 < ${#records[@]})) && echo ,)"
    done
    printf ']}\n'
  } >"$out"
  pg_log "wrote $out"
  if ((callgrind)); then pg_service_callgrind_table "$out"; else pg_service_table "$out"; fi
}

# pg_service_table FILE: the results as a Markdown table (requests/s, p50, p99, errors).
pg_service_table() {
  printf '\n| server | scenario | connections | requests/s | p50 ms | p99 ms | errors | load before |\n'
  printf '|---|---|--:|--:|--:|--:|--:|---|\n'
  grep -o '{"server".*}}' "$1" | while IFS= read -r r; do
    local server scenario conns requests us p50 p99 errors load
    server=$(sed 's/.*"server":"\([^"]*\)".*/\1/' <<<"$r")
    scenario=$(sed 's/.*"scenario":"\([^"]*\)".*/\1/' <<<"$r")
    conns=$(sed 's/.*"connections":\([0-9]*\).*/\1/' <<<"$r")
    load=$(sed 's/.*"load_before":"\([^"]*\)".*/\1/' <<<"$r")
    requests=$(sed 's/.*"requests":\([0-9]*\).*/\1/' <<<"$r")
    us=$(sed 's/.*"duration_us":\([0-9]*\).*/\1/' <<<"$r")
    p50=$(sed 's/.*"p50":\([0-9]*\).*/\1/' <<<"$r")
    p99=$(sed 's/.*"p99":\([0-9]*\).*/\1/' <<<"$r")
    errors=$(sed 's/.*"errors":{\([^}]*\)}.*/\1/' <<<"$r" | grep -o '[0-9][0-9]*' | awk '{ s += $1 } END { print s }')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$server" "$scenario" "$conns" \
      "$(awk -v r="$requests" -v us="$us" 'BEGIN { printf "%.0f", r / (us / 1e6) }')" \
      "$(awk -v x="$p50" 'BEGIN { printf "%.2f", x / 1000 }')" "$(awk -v x="$p99" 'BEGIN { printf "%.2f", x / 1000 }')" \
      "$errors" "$load"
  done
}

# pg_service_callgrind_table FILE: instructions per request by server and scenario.
pg_service_callgrind_table() {
  printf '\n| server | scenario | connections | instructions per request | requests counted |\n'
  printf '|---|---|--:|--:|--:|\n'
  grep -o '{"server".*}}' "$1" | while IFS= read -r r; do
    printf '| %s | %s | %s | %s | %s |\n' "$(sed 's/.*"server":"\([^"]*\)".*/\1/' <<<"$r")" \
      "$(sed 's/.*"scenario":"\([^"]*\)".*/\1/' <<<"$r")" "$(sed 's/.*"connections":\([0-9]*\).*/\1/' <<<"$r")" \
      "$(sed 's/.*"instructions_per_request":\([0-9]*\).*/\1/' <<<"$r")" "$(sed 's/.*"requests":\([0-9]*\).*/\1/' <<<"$r")"
  done
}
