#!/usr/bin/env bash
# Benchmark of the daemon: time from port appearance to "ready with IMEI" in the store, and the
# daemon's memory and CPU, compared with ModemManager 1.20 (issue 6: 3.1 s to list a single-port
# modem with its IMEI, 27 s for a four-port module with a silent port, 24 MB RSS with 32 modems).
#
#   1. single-port modules (nbgw-modem-sim BG95s, latencies 1:1), static [[ports]], udev off:
#      t0 = nbgwd starts (the ports exist already), for 1, 8 and 64 modules.
#   2. four-port modules as static ports, every port probed (no udev facts to skip any): per module
#      a silent diagnostic port, an NMEA port and two BG95 AT ports (bench-probe.sh's layout; the
#      simulator gives each AT port its own IMEI, so a module is two ready rows), for 1, 8 and 64.
#      "silent settled" is when the last diagnostic and NMEA port was classified not_modem.
#   3. four-port modules under umockdev (nbgw-udev-testbed fakes a BG95's diag, NMEA, AT and modem
#      interfaces, one IMEI), hot-plugged while the daemon runs on udev discovery: t0 = the `add`
#      lines are written, for 1 and 8 modules (umockdev's preload keeps a fixed-size descriptor
#      table: beyond about 12 four-port modules it aborts, so 64 cannot be faked this way).
#   4. 32 single-port modules: the daemon's peak RSS (VmHWM) and CPU time over start-up plus a
#      minute of steady state (signal polls).
#
# Per layout: to IMEI = until every module's row has its IMEI (the probe identified it: what
# ModemManager's figure measures); to ready = until every row is `ready` (brought up, registered
# with the simulated network (its scripted attach takes 2 to 6 s) and the cloud), from the rows'
# own state_since timestamps.
#
# Usage: tools/bench-daemon.sh [MAX_MODULES]   (default 64). SCRATCH_PATH=DIR builds there,
# CONFIGURATION=debug skips the release build, STEADY=SECONDS sets the steady-state phase (60).
# The release build is tools/build-release.sh's (what docs/operations.md installs).
set -euo pipefail
cd "$(dirname "$0")/.."
max="${1:-64}"
configuration="${CONFIGURATION:-release}"
steady="${STEADY:-60}"
scratch=(); [[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")
if [[ "$configuration" == release ]]; then
    # As installed on a gateway: static Swift runtime, functions placed by packaging/nbgwd.order.
    bin="$(tools/build-release.sh nbgwd nbgw-modem-sim nbgw-udev-testbed 2>/dev/null | tail -1)"
else
    for product in nbgwd nbgw-modem-sim nbgw-udev-testbed; do
        swift build "${scratch[@]}" -c "$configuration" --product "$product" >/dev/null
    done
    bin="$(swift build "${scratch[@]}" -c "$configuration" --show-bin-path)"
fi
command -v python3 >/dev/null || { echo "bench-daemon: python3 is needed to poll the store" >&2; exit 1; }
work="$(mktemp -d)"
sim_pid=""; daemon_pid=""; testbed_pid=""
cleanup() {
    for pid in $daemon_pid $testbed_pid $sim_pid; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
now_ms() { date +%s%3N; }

# Polls the store until N rows are ready (and M rows not_modem); prints "imei_max imei_median
# ready_max ready_median not_modem_max" in seconds from T0 (epoch ms), or "failed". IMEI times are
# observed by polling (every 5 ms); ready and not_modem times come from the rows' state_since.
wait_ready() {  # store, N, t0_ms, timeout_s, [M]
    python3 - "$@" <<'PY' || echo failed
import sqlite3, sys, time
store, n, t0, timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
m = int(sys.argv[5]) if len(sys.argv) > 5 else 0
deadline = time.time() + timeout
imei_at, ready_at, silent_at = {}, {}, {}
while time.time() < deadline:
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
        rows = db.execute("SELECT port, imei, state, state_since FROM modem").fetchall()
        db.close()
    except sqlite3.Error:
        rows = []
    now = time.time() * 1000
    for port, imei, state, since in rows:
        if state == "not_modem":
            silent_at[port] = since
            continue
        if imei and port not in imei_at:
            imei_at[port] = now
        if state == "ready" and imei:
            ready_at[port] = since
        else:
            ready_at.pop(port, None)
    if len(ready_at) >= n and len(imei_at) >= n and len(silent_at) >= m:
        break
    time.sleep(0.005)
else:
    print(f"timeout: {len(imei_at)} with IMEI, {len(ready_at)} ready of {n}, {len(silent_at)} not_modem of {m}",
          file=sys.stderr)
    sys.exit(1)
def stats(values):
    values = sorted((v - t0) / 1000 for v in values)
    return values[-1], values[len(values) // 2]
imei = stats(list(imei_at.values())[:n]); ready = stats(list(ready_at.values())[:n])
silent = f"{stats(list(silent_at.values()))[0]:.2f}" if m else "-"
print(f"{imei[0]:.2f} {imei[1]:.2f} {ready[0]:.2f} {ready[1]:.2f} {silent}")
PY
}

stop_daemon() {
    [[ -n "$daemon_pid" ]] || return 0
    kill -TERM "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true; daemon_pid=""
}

results="$work/results"
: >"$results"
record() {  # layout, n, measurement "imei_max imei_med ready_max ready_med silent_max" or "failed", MM figure
    echo "$1 $2 $4 $3" >>"$results"
    echo "  $1, $2 modules: $3"
}

# Runs nbgwd on static ports for the simulator's ports; records the layout. Args: layout, modules,
# AT ports expected ready, silent ports expected not_modem, MM figure, simulator arguments…
run_static() {
    local layout="$1" modules="$2" ready="$3" silent="$4" mm="$5"; shift 5
    local ports=$((ready + silent))
    rm -f "$work"/store.sqlite*
    "$bin/nbgw-modem-sim" "$@" --time-scale 1 >"$work/sim.json" 2>/dev/null </dev/null &
    sim_pid=$!
    for _ in $(seq 1 500); do [[ $(grep -c '"path"' "$work/sim.json" || true) -ge $ports ]] && break; sleep 0.01; done
    {
        echo "[store]"; echo "path = \"$work/store.sqlite\""
        echo "[discovery]"; echo "udev = false"
        echo "[metrics]"; echo "enabled = false"
        echo "[log]"; echo "level = \"warning\""
        sed -n 's/.*"path":"\([^"]*\)".*/[[ports]]\npath = "\1"/p' "$work/sim.json"
    } >"$work/nbgwd.toml"
    local t0; t0=$(now_ms)
    "$bin/nbgwd" --config "$work/nbgwd.toml" 2>"$work/nbgwd.log" &
    daemon_pid=$!
    record "$layout" "$modules" "$(wait_ready "$work/store.sqlite" "$ready" "$t0" 180 "$silent")" "$mm"
    stop_daemon
    kill -TERM "$sim_pid"; wait "$sim_pid" 2>/dev/null || true; sim_pid=""
}

echo "configuration: $configuration; $(nproc) cores; simulated latencies 1:1"

# 1. Single-port modules, static ports.
for n in 1 8 64; do
    [[ $n -le $max ]] || continue
    run_static single-port "$n" "$n" 0 3.1 --port bg95 --count "$n"
done

# 2. Four-port modules as static ports: every port probed.
for n in 1 8 64; do
    [[ $n -le $max ]] || continue
    run_static four-port "$n" $((2 * n)) $((2 * n)) 27 --port diag --port nmea --port bg95 --port bg95 --count "$n"
done

# 3. Four-port modules under umockdev, hot-plugged while the daemon runs (udev discovery).
if command -v umockdev-wrapper >/dev/null; then
    for n in 1 8; do
        [[ $n -le $max ]] || continue
        rm -f "$work"/store.sqlite*
        mkfifo "$work/testbed.in" 2>/dev/null || true
        exec 4<>"$work/testbed.in"
        umockdev-wrapper "$bin/nbgw-udev-testbed" serve --time-scale 1 -- \
            "$bin/nbgwd" --db "$work/store.sqlite" --no-metrics --log-level warning \
            <&4 >"$work/testbed.json" 2>"$work/nbgwd.log" &
        testbed_pid=$!
        # Why up to 60 s: on a loaded machine the testbed (umockdev preload, then nbgwd under it) has
        # taken longer than 5 s to start, and modules plugged before the daemon listens are lost.
        for _ in $(seq 1 6000); do grep -q child-started "$work/testbed.json" 2>/dev/null && break; sleep 0.01; done
        if ! grep -q child-started "$work/testbed.json" 2>/dev/null; then
            echo "nbgw-udev-testbed did not start nbgwd within 60 s; see $work/nbgwd.log" >&2
            exit 1
        fi
        sleep 1  # the daemon's start-up (store, enumeration of an empty testbed) is not port appearance
        t0=$(now_ms)
        for i in $(seq 1 "$n"); do echo "add bg95 m$i" >&4; done
        record udev-4-port "$n" "$(wait_ready "$work/store.sqlite" "$n" "$t0" 180)" 27
        echo quit >&4
        wait "$testbed_pid" 2>/dev/null || true; testbed_pid=""
        exec 4>&-
        rm -f "$work/testbed.in"
    done
else
    echo "(umockdev layout skipped: umockdev-wrapper is missing; run tools/setup.sh)"
fi

# 4. 32 modules: peak RSS and CPU time (start-up plus the steady-state phase).
rm -f "$work"/store.sqlite*
"$bin/nbgw-modem-sim" --port bg95 --count 32 --time-scale 1 >"$work/sim.json" 2>/dev/null </dev/null &
sim_pid=$!
for _ in $(seq 1 500); do [[ $(grep -c '"path"' "$work/sim.json" || true) -ge 32 ]] && break; sleep 0.01; done
{
    echo "[store]"; echo "path = \"$work/store.sqlite\""
    echo "[discovery]"; echo "udev = false"
    echo "[log]"; echo "level = \"warning\""
    sed -n 's/.*"path":"\([^"]*\)".*/[[ports]]\npath = "\1"/p' "$work/sim.json"
} >"$work/nbgwd.toml"
t0=$(now_ms)
"$bin/nbgwd" --config "$work/nbgwd.toml" --metrics-listen 127.0.0.1:0 2>"$work/nbgwd.log" &
daemon_pid=$!
wait_ready "$work/store.sqlite" 32 "$t0" 120 >/dev/null
ready_status=$(grep VmHWM /proc/$daemon_pid/status | awk '{print $2}')
sleep "$steady"
read -r rss_now hwm anon file < <(awk '/VmRSS/{r=$2} /VmHWM/{h=$2} /RssAnon/{a=$2} /RssFile/{f=$2} END{print r, h, a, f}' /proc/$daemon_pid/status)
ticks=$(getconf CLK_TCK)
cpu=$(awk -v t="$ticks" '{printf "%.2f", ($14 + $15) / t}' /proc/$daemon_pid/stat)
stop_daemon
kill -TERM "$sim_pid"; wait "$sim_pid" 2>/dev/null || true; sim_pid=""

echo
python3 - "$results" "$hwm" "$rss_now" "$cpu" "$steady" "$ready_status" "$anon" "$file" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
hwm, rss, cpu, steady, hwm_ready = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6])
anon, file = int(sys.argv[7]), int(sys.argv[8])
print("Time from port appearance to the store (seconds; max over the modules, median in brackets)")
print(f"{'layout':<12} {'modules':>7} {'to IMEI':>16} {'to ready':>16} {'silent settled':>15} {'MM 1.20':>8} "
      f"{'MM / ours (IMEI)':>17}")
for row in rows:
    layout, n, mm = row[0], row[1], float(row[2])
    if row[3] == "failed":
        print(f"{layout:<12} {n:>7}  failed (see above)")
        continue
    imax, imed, rmax, rmed = map(float, row[3:7])
    silent = row[7]
    print(f"{layout:<12} {n:>7} {imax:7.2f} ({imed:5.2f}) {rmax:7.2f} ({rmed:5.2f}) {silent:>15} {mm:7.1f}s "
          f"{mm / imax:15.1f}x")
print()
print(f"32 modules: peak RSS {hwm / 1024:.1f} MB (at ready {hwm_ready / 1024:.1f} MB, after {steady} s steady state "
      f"{rss / 1024:.1f} MB); MM 1.20: 24 MB -> MM / ours {24 * 1024 / hwm:.2f}x")
print(f"            of which private heap and stacks (RssAnon) {anon / 1024:.1f} MB, mapped files: the binary and the "
      f"shared Swift runtime, Foundation, libc, SQLite (RssFile) {file / 1024:.1f} MB")
print(f"32 modules: CPU time (user + system) over start-up and {steady} s of steady state: {cpu:.2f} s")
PY
