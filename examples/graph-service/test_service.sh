#!/usr/bin/env bash
# End-to-end test of graph-service: starts it on 127.0.0.1 (a free port), drives every endpoint
# with curl checking status codes and JSON bodies (error cases and deadlines included), in both
# server modes, then stops it with SIGTERM while requests are in flight and checks that every
# one of them was answered and that it exits 0. Also restarts a durable one on its data.
#   test_service.sh path/to/graph-service
set -euo pipefail

service=${1:?usage: test_service.sh path/to/graph-service}
# shellcheck source=examples/graph-service/test_lib.sh
source "$(dirname "$0")/test_lib.sh" graph-service-test

# call METHOD PATH [BODY] [curl args...]: sets STATUS and BODY.
call() {
  local method=$1 path=$2 data=${3-}
  shift $(($# < 3 ? $# : 3))
  local args=(-sS --max-time 20 -o "$work/body" -w '%{http_code}' -X "$method" "$@")
  [[ -n $data ]] && args+=(-H 'Content-Type: application/json' --data-binary "$data")
  STATUS=$(curl "${args[@]}" "$BASE$path") || STATUS=curl-failed
  BODY=$(cat "$work/body" 2>/dev/null || true)
}

# expect STATUS [BODY]: checks the last call. BODY is the exact text, except that each * matches
# any run of characters.
expect() {
  local status=$1 body=${2-} pattern
  pattern=${body//\\/\\\\}  # every character but * is literal
  pattern=${pattern//\[/\\[}
  pattern=${pattern//\]/\\]}
  pattern=${pattern//\?/\\?}
  if [[ $STATUS != "$status" ]]; then
    fail "$LAST: status $STATUS, expected $status; body: $BODY"
  elif [[ -n $body && $BODY != $pattern ]]; then
    fail "$LAST: body $BODY, expected $body"
  fi
}
# check METHOD PATH [BODY [curl args...]] -- STATUS [BODY]
check() {
  local args=()
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  LAST="${args[*]:0:2}"
  call "${args[@]}"
  expect "$@"
}

id_of() { [[ $1 =~ ^\{\"id\":\"([^\"]+)\" ]] && printf '%s' "${BASH_REMATCH[1]}"; }
edge_id_of() { [[ $1 =~ \"id\":\"([^\"]+)\" ]] && printf '%s' "${BASH_REMATCH[1]}"; }

# Every endpoint, on a fresh in-memory service of mode $1 (fibers or threads).
check_endpoints() {
  local mode=$1
  check GET /health -- 200 "{\"in_flight\":1,\"mode\":\"$mode\",\"status\":\"ok\"}"

  check POST /persons '{"name":"Alice","age":30,"score":30.0,"email":"alice@example.com"}' -- 201 \
    '{"id":"*","label":"Person","properties":{"age":30,"email":"alice@example.com","name":"Alice","score":30.0}}'
  local alice bob carol dave
  alice=$(id_of "$BODY")
  check POST /persons '{"name":"Bob","tags":["x",1,2.5,null],"city":"Zürich"}' -- 201 \
    '*"properties":{"city":"Zürich","name":"Bob","tags":["x",1,2.5,null]}}'
  bob=$(id_of "$BODY")
  check POST /persons '{"name":"Carol"}' -- 201
  carol=$(id_of "$BODY")
  check POST /persons '{"name":"Dave"}' -- 201
  dave=$(id_of "$BODY")
  [[ -n $alice && -n $bob && -n $carol && -n $dave ]] || fail "no ids in the create responses"

  # Errors: duplicate unique key, malformed JSON, a nested object, a non-object body.
  check POST /persons '{"name":"Alice 2","email":"alice@example.com"}' -- 409 '{"error":"already_exists","message":"*email*"}'
  check POST /persons '{"name": }' -- 400 '{"error":"invalid_argument","message":"invalid JSON: *line 1, column*"}'
  check POST /persons '{"address":{"city":"Oslo"}}' -- 400 '*field address: JSON objects are not property values*'
  check POST /persons '[1]' -- 400 '*expected an object, got an array*'

  check GET "/persons/$alice" -- 200 \
    "{\"id\":\"$alice\",\"label\":\"Person\",\"properties\":{\"age\":30,\"email\":\"alice@example.com\",\"name\":\"Alice\",\"score\":30.0}}"
  check GET /persons/nobody -- 404 '{"error":"not_found","message":"no person nobody"}'
  check PATCH "/persons/$alice" '{"age":31,"score":null}' -- 200 \
    "{\"id\":\"$alice\",\"label\":\"Person\",\"properties\":{\"age\":31,\"email\":\"alice@example.com\",\"name\":\"Alice\"}}"
  check PATCH /persons/nobody '{"age":1}' -- 404
  check GET "/persons?limit=2" -- 200 "{\"items\":[{\"id\":\"$alice\"*},{\"id\":\"$bob\"*}],\"next\":\"$bob\"}"
  check GET "/persons?limit=2&after=$bob" -- 200 "{\"items\":[{\"id\":\"$carol\"*},{\"id\":\"$dave\"*}],\"next\":\"$dave\"}"

  # Edges: Alice KNOWS Bob, Bob KNOWS Carol, Carol KNOWS Dave, Alice FOLLOWS Carol.
  check POST "/persons/$alice/knows/$bob" '{"since":2020}' -- 201 \
    "{\"from\":\"$alice\",\"id\":\"*\",\"label\":\"KNOWS\",\"properties\":{\"since\":2020},\"to\":\"$bob\"}"
  local knows_ab
  knows_ab=$(edge_id_of "$BODY")
  check POST "/persons/$bob/knows/$carol" '{"since":2021}' -- 201
  check POST "/persons/$carol/knows/$dave" -- 201 '*"properties":{}*'
  check POST "/persons/$alice/follows/$carol" -- 201 '*"label":"FOLLOWS"*'
  check POST "/persons/$alice/knows/nobody" -- 404 '{"error":"not_found",*}'

  check GET "/persons/$alice/edges" -- 200 \
    "{\"items\":[{\"from\":\"$alice\",\"id\":\"$knows_ab\",\"label\":\"KNOWS\",*},{\"from\":\"$alice\",*\"label\":\"FOLLOWS\"*}],\"next\":null}"
  check GET "/persons/$carol/edges?direction=in&label=KNOWS" -- 200 "{\"items\":[{\"from\":\"$bob\",*\"to\":\"$carol\"}],\"next\":null}"
  check GET "/persons/nobody/edges" -- 404

  check GET "/persons/$alice/neighbors" -- 200 "{\"items\":[{\"id\":\"$bob\"*},{\"id\":\"$carol\"*}],\"next\":null}"
  check GET "/persons/$alice/neighbors?limit=1" -- 200 "{\"items\":[{\"id\":\"$bob\"*}],\"next\":\"$bob\"}"
  check GET "/persons/$alice/neighbors?limit=1&after=$bob" -- 200 "{\"items\":[{\"id\":\"$carol\"*}],\"next\":\"$carol\"}"
  check GET "/persons/$alice/neighbors?limit=1&after=$carol" -- 200 '{"items":[],"next":null}'
  check GET "/persons/$alice/neighbors?label=KNOWS&depth=3" -- 200 \
    "{\"items\":[{\"id\":\"$bob\"*},{\"id\":\"$carol\"*},{\"id\":\"$dave\"*}],\"next\":null}"
  check GET "/persons/$alice/neighbors?direction=sideways" -- 400 '*direction: expected out, in or both*'
  check GET "/persons/$alice/neighbors?depth=0" -- 400 '*query parameter depth: expected an integer in [1, 5], got \"0\"*'

  check GET "/paths?from=$alice&to=$dave" -- 200 "{\"edges\":[*],\"length\":2,\"vertices\":[{\"id\":\"$alice\"*"
  check GET "/paths?from=$alice&to=$dave&label=KNOWS" -- 200 '*"length":3,*'
  check GET "/paths?from=$dave&to=$alice&direction=out" -- 404 '{"error":"not_found","message":"no path from*"}'
  check GET "/paths?from=$alice" -- 400 '*from and to are required*'

  check GET "/pagerank?top=2" -- 200 '[{"score":*,"vertex":{*}},{"score":*,"vertex":{*}}]'

  check DELETE "/persons/$dave" -- 204
  check GET "/persons/$dave" -- 404
  check DELETE "/persons/$dave" -- 404
  check GET "/persons/$carol/edges?direction=out" -- 200 '{"items":[],"next":null}'  # Dave's edges went with him

  check GET /persons/x '' -H 'X-Timeout-Ms: soon' -- 400 '*header X-Timeout-Ms: expected an integer*'
  check GET /nowhere -- 404 '{"error":"not_found","message":"no route GET /nowhere"}'
  check PUT /persons -- 404

  # Bytes that are not UTF-8, in every position: a 400 whose JSON body says where.
  local invalid='{"error":"invalid_argument","message":'
  check GET '/persons?limit=%FF' -- 400 "$invalid\"query parameter limit: invalid UTF-8\"}"
  check GET "/persons/$alice/edges?direction=%FF" -- 400 "$invalid\"query parameter direction: invalid UTF-8\"}"
  check GET '/persons?%FF=1' -- 400 "$invalid\"query parameter 1: name: invalid UTF-8\"}"
  check GET '/persons/%FF/edges' -- 400 "$invalid\"path segment 2: invalid UTF-8\"}"
  check GET '/persons/%FF' -- 400 "$invalid\"path segment 2: invalid UTF-8\"}"
  check DELETE '/persons/%C0%AF' -- 400 "$invalid\"path segment 2: invalid UTF-8\"}"
  check POST /persons $'{"name":"\xff"}' -- 400 "$invalid\"body: invalid UTF-8\"}"
  check PATCH "/persons/$alice" $'{"name":"\xc3("}' -- 400 "$invalid\"body: invalid UTF-8\"}"
  check GET /persons '' -H $'X-Timeout-Ms: \xff' -- 400 "$invalid\"header X-Timeout-Ms: invalid UTF-8\"}"
  check GET /persons/%E2%82%AC -- 404 '{"error":"not_found","message":"no person €"}'

  # Malformed HTTP gets a 400 too; so does a raw byte that is not UTF-8 in the target.
  local port=${BASE##*:} reply=
  if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
    printf 'NOT HTTP\r\n\r\n' >&3
    IFS= read -r -t 10 reply <&3 || true
    exec 3>&-
  fi
  [[ $reply == "HTTP/1.1 400 Bad Request"* ]] || fail "malformed request: got '$reply'"
  reply=
  if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
    printf 'GET /persons/\xff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3
    reply=$(timeout 10 cat <&3 || true)
    exec 3>&-
  fi
  [[ $reply == "HTTP/1.1 400 Bad Request"*'{"error":"invalid_argument",'* ]] || fail "raw 0xFF in the target: got '$reply'"

  check GET /metrics -- 200
  [[ $BODY == *'# TYPE propgraph_calls_total counter'* ]] || fail "metrics: no calls family"
  [[ $BODY == *'propgraph_calls_total{operation="create_vertex"} 5'* ]] || fail "metrics: create_vertex calls: $BODY"
  [[ $BODY == *'propgraph_errors_total{operation="create_vertex",error="already_exists"} 1'* ]] ||
    fail "metrics: the duplicate email"
  [[ $BODY == *'propgraph_call_duration_seconds_bucket{operation="find_vertex_by_id",le="+Inf"}'* ]] ||
    fail "metrics: no find_vertex_by_id histogram"
}

# In-flight requests survive SIGTERM: each call waits 2 s in the backend (--latency-ms), long
# enough for eight curl processes to start even on a busy machine.
check_graceful_stop() {
  local name=$1
  shift
  start "$name" --latency-ms 2000 "$@"
  local pid=$PID
  check POST /persons '{"name":"Slow"}' -- 201
  local id
  id=$(id_of "$BODY")

  # Deadlines: the budget ends before the backend answers.
  check GET "/persons/$id" '' -H 'X-Timeout-Ms: 50' -- 504 '{"error":"timeout","message":"*deadline*"}'
  check GET "/persons/$id?timeout_ms=50" -- 504 '{"error":"timeout",*}'
  check GET "/persons/$id?timeout_ms=5000" -- 200 "{\"id\":\"$id\"*"

  local i curls=()
  for i in 1 2 3 4 5 6 7 8; do
    curl -sS --max-time 20 -o "$work/slow$i" -w '%{http_code}' "$BASE/persons/$id" >"$work/slow$i.status" 2>&1 &
    curls+=($!)
  done
  # Wait until all eight are being handled (the /health call counts itself too).
  local deadline=$((SECONDS + 20)) in_flight=0
  while ((SECONDS < deadline)); do
    call GET /health
    [[ $BODY =~ \"in_flight\":([0-9]+) ]] && in_flight=${BASH_REMATCH[1]}
    ((in_flight >= 9)) && break
    sleep 0.02
  done
  ((in_flight >= 9)) || fail "$name: only $in_flight requests in flight"
  stop "$pid" "$name"
  for i in "${!curls[@]}"; do
    wait "${curls[$i]}" || true
    local n=$((i + 1))
    [[ $(cat "$work/slow$n.status") == 200 ]] || fail "$name: in-flight request $n: $(cat "$work/slow$n.status")"
    [[ $(cat "$work/slow$n" 2>/dev/null) == "{\"id\":\"$id\""* ]] || fail "$name: in-flight request $n body"
  done
  # The listener is closed.
  curl -sS --max-time 5 -o /dev/null "$BASE/health" 2>/dev/null && fail "$name: still accepting after SIGTERM"
  return 0
}

echo "== fibers"
start fibers
check_endpoints fibers
stop "$PID" fibers

echo "== threads"
start threads --threads-per-connection
check_endpoints threads
stop "$PID" threads

echo "== graceful stop"
check_graceful_stop stop-fibers --fiber-threads 2
check_graceful_stop stop-threads --threads-per-connection

echo "== durable"
start durable1 --data-dir "$work/data"
check POST /persons '{"name":"Durable","n":1.0}' -- 201
durable_body=$BODY
stop "$PID" durable1
start durable2 --data-dir "$work/data"
check GET "/persons/$(id_of "$durable_body")" -- 200 "$durable_body"
stop "$PID" durable2

if ((failures)); then
  printf '%d check(s) failed\n' "$failures" >&2
  exit 1
fi
echo "graph-service: all checks passed"
