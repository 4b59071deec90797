-- wrk script for graph-service (scripts/bench --service):
--   wrk -s service.lua URL -- IDS_FILE SCENARIO
-- IDS_FILE holds one person id per line; SCENARIO is
--   get        GET /persons/{random id}
--   neighbors  GET /persons/{random id}/neighbors
--   mix        90% GET /persons/{id}, 10% PATCH /persons/{id} {"visits": n}
-- done() prints one JSON line: requests, errors, duration, latency percentiles (microseconds).
local ids = {}
local scenario = "get"
local counter = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then ids[#ids + 1] = line end
  end
  scenario = args[2] or scenario
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end

local function person()
  return "/persons/" .. ids[math.random(#ids)]
end

function request()
  counter = counter + 1
  if scenario == "neighbors" then
    return wrk.format("GET", person() .. "/neighbors")
  elseif scenario == "mix" and counter % 10 == 0 then
    return wrk.format("PATCH", person(), {["Content-Type"] = "application/json"},
                      string.format('{"visits":%d}', counter))
  end
  return wrk.format("GET", person())
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
