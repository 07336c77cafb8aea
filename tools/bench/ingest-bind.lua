-- wrk script for tools/bench-ingest.sh: every request binds a different device.
-- Args (after `--`): first device index, devices per thread, pacing delay in ms (0: none).
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  local first = tonumber(args[1] or "0")
  local span = tonumber(args[2] or "100000")
  pause = tonumber(args[3] or "0")
  counter = first + tid * span
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("NBGW_BENCH_KEY")
end

function request()
  local id = string.format("nb%018d", counter)
  counter = counter + 1
  local body = '{"qr":"{\\"actionName\\":\\"device_net_conn_bind_nb\\",\\"actionData\\":{\\"id\\":\\"' .. id ..
    '\\"}}","account":"bench","home":"bench-home"}'
  return wrk.format(nil, nil, nil, body)
end

function delay()
  return pause
end

function done(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d max_us=%d non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency.max, non2xx,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
