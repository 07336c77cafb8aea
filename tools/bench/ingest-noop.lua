-- wrk script for tools/bench-ingest.sh: the authenticated no-op route, same body size as a bind.
function init(args)
  pause = tonumber(args[1] or "0")
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("NBGW_BENCH_KEY")
  wrk.body = '{"qr":"{\\"actionName\\":\\"device_net_conn_bind_nb\\",\\"actionData\\":{\\"id\\":\\"nb000000000000000000\\"}}","account":"bench","home":"bench-home"}'
end

function delay()
  return pause
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d max_us=%d non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency.max, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
