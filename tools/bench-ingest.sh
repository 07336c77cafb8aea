#!/usr/bin/env bash
# Benchmark of the QR ingest API (issue 7), release build, loopback, one run:
#   1. the authenticated no-op route (POST /v1/noop): the server's ceiling for this request shape;
#   2. POST /v1/bindings, every request a different registered device: peak binds/s and p99;
#   3. the same binds paced to half the measured peak: p99 there.
# The goal (issue 7): binds/s >= 0.5 x no-op, and p99 < 10 ms at half the peak rate.
#
# Usage: tools/bench-ingest.sh [SECONDS]   (default 10 per run)
# Env: CONNECTIONS (default 32), THREADS (default 2), DEVICES (default: enough for the runs),
#      PORT (default 18080), SCRATCH (SwiftPM scratch path, default .build-bench).
#
# Half the peak rate: plain wrk (the Debian package) has no -R (that is wrk2), so each connection
# is paced with wrk's Lua delay() hook: delay = CONNECTIONS / (peak / 2) - mean latency. wrk's
# latency figures exclude the delay. The achieved rate is printed next to the p99.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
connections="${CONNECTIONS:-32}"
threads="${THREADS:-2}"
port="${PORT:-18080}"
scratch="${SCRATCH:-.build-bench}"
# Generous upper bound on binds: 3 runs x seconds x 40k/s.
devices="${DEVICES:-$((seconds * 40000 * 3))}"

if ! command -v wrk >/dev/null; then
    echo "installing wrk (Debian package)…" >&2
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get install -y wrk >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y wrk >/dev/null; }
fi

swift build -c release --scratch-path "$scratch" --product nbgw >/dev/null
nbgw="$scratch/release/nbgw"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export NBGW_DB="$work/store.sqlite"

"$nbgw" accounts add bench >/dev/null
"$nbgw" homes add bench-home --owner bench >/dev/null
# DEVICES registered devices written straight into the store (registering them one CLI call at a
# time would benchmark registration, not binding).
sqlite3 "$NBGW_DB" <<SQL
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $devices - 1)
INSERT INTO device (device_id, imei, label_code, registered_at, updated_at)
SELECT printf('nb%018d', i), printf('35%013d', i), printf('L%011d', i), 0, 0 FROM n;
SQL
NBGW_BENCH_KEY="$("$nbgw" apikeys create --name bench --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')"
export NBGW_BENCH_KEY

"$nbgw" ingest serve --host 127.0.0.1 --port "$port" --rate-limit 0 --log-level error >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/v1/noop"; then break; fi
    sleep 0.1
done

run() { # label, wrk args… → prints the RESULT line
    local label="$1"
    shift
    local line
    line="$(wrk -t "$threads" -c "$connections" -d "${seconds}s" --timeout 5s "$@" | grep '^RESULT')"
    echo "$label ${line#RESULT }"
}
field() { sed -E "s/.* $2=([0-9.]+).*/\1/" <<<"$1"; }

url="http://127.0.0.1:$port"
span=$((devices / 3 / threads))
# Warm-up (connections, caches, the store's pages), not reported.
wrk -t 1 -c 4 -d 2s -s tools/bench/ingest-noop.lua "$url/v1/noop" >/dev/null

noop="$(run noop -s tools/bench/ingest-noop.lua "$url/v1/noop")"
bind="$(run bind -s tools/bench/ingest-bind.lua "$url/v1/bindings" -- 0 "$span" 0)"
peak="$(field "$bind" rps)"
p50="$(field "$bind" p50_us)"
pace_ms="$(python3 -c "import sys; c,peak,p50=map(float,sys.argv[1:]); print(max(0, round(c/(peak/2)*1000 - p50/1000)))" \
    "$connections" "$peak" "$p50")"
half="$(run bind-half -s tools/bench/ingest-bind.lua "$url/v1/bindings" -- $((devices / 3)) "$span" "$pace_ms")"

echo "$noop"
echo "$bind"
echo "$half (delay ${pace_ms} ms per request per connection)"
python3 - "$noop" "$bind" "$half" <<'PY'
import re, sys
def parse(line):
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", line)}
noop, bind, half = map(parse, sys.argv[1:])
ratio = bind["rps"] / noop["rps"]
print(f"no-op: {noop['rps']:.0f} req/s, p99 {noop['p99_us']/1000:.2f} ms")
print(f"binds: {bind['rps']:.0f} binds/s, p99 {bind['p99_us']/1000:.2f} ms, non-2xx {bind['non2xx']:.0f}")
print(f"ratio binds / no-op: {ratio:.2f} (goal >= 0.5: {'met' if ratio >= 0.5 else 'NOT met'})")
print(f"at ~half peak: {half['rps']:.0f} binds/s, p99 {half['p99_us']/1000:.2f} ms "
      f"(goal < 10 ms: {'met' if half['p99_us'] < 10000 else 'NOT met'})")
PY
count="$(sqlite3 "$NBGW_DB" "SELECT count(*) FROM binding")"
echo "bindings in the store: $count"
