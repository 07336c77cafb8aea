#!/usr/bin/env bash
# Benchmark of the modem probe against the simulator's scripted latency.
#
#   1. Scaling: probes 1, 2, 4, ... 64 simulated BG95 modules at once (`nbgw modem probe-many`,
#      --baud 115200, simulator at real-time latencies) and compares the wall time with the
#      simulator's scripted latency plus the probe's deliberate guard time (20 ms between
#      commands). The simulator (one thread for every port, on the same cores) also reports how
#      late it actually answered; host overhead = wall − scripted − simulator lateness − guard.
#      Also reports the probe's CPU time (getrusage of the nbgw process).
#   2. ModemManager's cases (issue 3): a single-port module appearing → listed with its IMEI
#      (MM 1.20: ~3.1 s), and a four-port module with a silent diagnostic port (MM: ~27 s), both
#      as full `nbgw modem probe` processes with speed auto-detection.
#
# Usage: tools/bench-probe.sh [MAX_PORTS]   (default 64). SCRATCH_PATH=... to use another build dir,
# CONFIGURATION=debug to skip the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
max="${1:-64}"
configuration="${CONFIGURATION:-release}"
scratch=(); [[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")
swift build "${scratch[@]}" -c "$configuration" --product nbgw >/dev/null
swift build "${scratch[@]}" -c "$configuration" --product nbgw-modem-sim >/dev/null
bin="$(swift build "${scratch[@]}" -c "$configuration" --show-bin-path)"
work="$(mktemp -d)"
sim_pid=""
cleanup() { [[ -n "$sim_pid" ]] && kill "$sim_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# Starts the simulator with the given arguments; leaves its port paths in $work/paths.
start_simulator() {
    "$bin/nbgw-modem-sim" "$@" >"$work/sim.out" 2>"$work/sim.err" &
    sim_pid=$!
    local want; want=$(python3 -c 'import sys; a=sys.argv[1:]; c=int(a[a.index("--count")+1]) if "--count" in a else 1; print(a.count("--port")*c)' "$@")
    for _ in $(seq 1 500); do
        [[ $(wc -l <"$work/sim.out") -ge $want ]] && break
        sleep 0.01
    done
    python3 -c 'import json,sys; print(" ".join(json.loads(l)["path"] for l in open(sys.argv[1]) if l.startswith("{\"baud")))' "$work/sim.out" >"$work/paths"
}

# Stops the simulator; leaves its statistics line in $work/stats.json.
stop_simulator() {
    kill -TERM "$sim_pid"
    wait "$sim_pid" || true
    sim_pid=""
    tail -n 1 "$work/sim.out" >"$work/stats.json"
}

echo "configuration: $configuration; $(nproc) cores"
echo
echo "1. Scaling: N simulated BG95 modules probed at once (nbgw modem probe-many --baud 115200, latencies 1:1)"
printf "%6s %9s %12s %9s %9s %12s %9s %13s %9s\n" "ports" "wall ms" "scripted ms" "sim late" "guard ms" "overhead ms" "overhead" "w/o sim late" "CPU ms"
n=1
while [[ $n -le $max ]]; do
    start_simulator --port bg95 --count "$n" --time-scale 1
    # shellcheck disable=SC2046
    "$bin/nbgw" modem probe-many $(cat "$work/paths") --baud 115200 --json >"$work/probe.json"
    stop_simulator
    python3 - "$work/probe.json" "$work/stats.json" "$n" <<'PY'
import json, sys
probe = json.load(open(sys.argv[1]))
stats = json.load(open(sys.argv[2]))["stats"]
n = int(sys.argv[3])
assert probe["ok"] == n, probe
wall = probe["seconds"] * 1000
# The ports run in parallel: the floor is the slowest port's scripted latency plus the guard time
# the probe waits between its session commands (20 ms × (commands − 2): the first command and the
# wake AT, sent before the session exists, are not preceded by one).
slowest = max(stats, key=lambda s: s["scripted_latency_ms"] + s["lateness_ms"] + 20 * (s["commands"] - 2))
scripted = slowest["scripted_latency_ms"]
late = slowest["lateness_ms"]
guard = 20 * (slowest["commands"] - 2)
floor = scripted + guard
overhead = wall - floor - late
cpu = (probe["cpuUserSeconds"] + probe["cpuSystemSeconds"]) * 1000
print(f"{n:6d} {wall:9.1f} {scripted:12.1f} {late:9.1f} {guard:9.0f} {overhead:12.1f} {overhead / floor * 100:8.1f}% {(wall - floor) / floor * 100:12.1f}% {cpu:9.1f}")
PY
    n=$((n * 2))
done

echo
echo "2. ModemManager's cases (latencies 1:1, speed auto-detection)"
echo "   whole = a complete 'nbgw modem probe' process (start to exit: every field of the report);"
echo "   IMEI  = from the start of the probe to the answer carrying the IMEI (what MM's figure measures)"
measure() {  # label, then nbgw arguments; prints the process's wall time
    local label="$1"; shift
    local start end
    start=$(date +%s.%N)
    "$bin/nbgw" "$@" >"$work/out.json" 2>/dev/null || true
    end=$(date +%s.%N)
    python3 -c 'import sys; print(f"{sys.argv[1]:<52} whole {float(sys.argv[3]) - float(sys.argv[2]):5.2f} s", end="")' "$label" "$start" "$end"
}
imei_time() {  # port...; prints the slowest port's time to IMEI from probe-many
    "$bin/nbgw" modem probe-many "$@" --json >"$work/many.json"
    python3 - "$work/many.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
times = [r["imeiSeconds"] for r in d["results"] if r.get("imeiSeconds") is not None]
kinds = ", ".join(r.get("dialect") or r["error"].split(":")[0] for r in d["results"])
print(f"   IMEI {max(times):5.2f} s   probe-many {d['seconds']:5.2f} s   ({kinds})")
PY
}
start_simulator --port bg95 --port bc95 --time-scale 1
read -r bg95 bc95 <"$work/paths"
measure "single-port BG95 (115200)       [MM 1.20: 3.1 s]" modem probe "$bg95" --json
imei_time "$bg95"
measure "single-port BC95 (9600 after 115200)" modem probe "$bc95" --json
imei_time "$bc95"
stop_simulator
start_simulator --port diag --port nmea --port bg95 --port bg95 --time-scale 1
# shellcheck disable=SC2046
measure "four-port module, silent diag   [MM 1.20: 27 s]" modem probe-many $(cat "$work/paths") --json
# shellcheck disable=SC2046
imei_time $(cat "$work/paths")
stop_simulator
