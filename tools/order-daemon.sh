#!/usr/bin/env bash
# Regenerates packaging/nbgwd.order: the daemon's functions in the order lld should place them, so
# that the code nbgwd runs sits together instead of being spread over its 30 MB text segment
# (docs/operations.md, "Memory"). Rerun it after large changes to the daemon's code paths; a stale
# order file still links (unknown names are skipped), it only packs less well.
#
# How: builds nbgwd as tools/build-release.sh does, evicts it from the page cache, turns file
# read-ahead off on its disk (restored on exit), runs it against 32 simulated BG95s (start-up,
# probe, bring-up, registration, signal polls every 5 s, a metrics and a health scrape) and lists
# the functions and constants on the pages it touched (tools/hot-symbols.py). With read-ahead off
# and the file out of the cache the kernel has nothing to map around a fault, so resident means
# touched.
#
# Needs root (read_ahead_kb, page cache eviction, /proc/PID/pagemap), python3 and curl.
# Usage: tools/order-daemon.sh [STEADY_SECONDS]   (default 30). SCRATCH_PATH=DIR builds there.
set -euo pipefail
cd "$(dirname "$0")/.."
steady="${1:-30}"
[[ $(id -u) -eq 0 ]] || { echo "order-daemon: run as root (it changes read-ahead and reads pagemap)" >&2; exit 1; }
bin="$(tools/build-release.sh nbgwd nbgw-modem-sim | tail -1)"
binary="$(readlink -f "$bin/nbgwd")"

# The disk the binary lives on, and its read-ahead setting.
source_device="$(df --output=source "$binary" | tail -1)"
disk="$(lsblk -no PKNAME "$source_device" 2>/dev/null | head -1)"
[[ -n "$disk" ]] || disk="$(basename "$source_device")"
ra_file="/sys/class/block/$disk/queue/read_ahead_kb"
[[ -w "$ra_file" ]] || { echo "order-daemon: cannot set read-ahead for $binary's disk ($ra_file)" >&2; exit 1; }
ra_before="$(cat "$ra_file")"

work="$(mktemp -d)"
sim_pid=""; daemon_pid=""
cleanup() {
    echo "$ra_before" >"$ra_file"
    for pid in $daemon_pid $sim_pid; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$bin/nbgw-modem-sim" --port bg95 --count 32 --time-scale 1 >"$work/sim.json" 2>/dev/null </dev/null &
sim_pid=$!
for _ in $(seq 1 500); do [[ $(grep -c '"path"' "$work/sim.json" || true) -ge 32 ]] && break; sleep 0.01; done
metrics_port=$((20000 + RANDOM % 20000))
{
    echo "[store]"; echo "path = \"$work/store.sqlite\""
    echo "[discovery]"; echo "udev = false"
    echo "[log]"; echo "level = \"warning\""
    echo "[modem]"; echo "signal_poll_interval = 5"
    echo "[metrics]"; echo "listen = \"127.0.0.1:$metrics_port\""
    sed -n 's/.*"path":"\([^"]*\)".*/[[ports]]\npath = "\1"/p' "$work/sim.json"
} >"$work/nbgwd.toml"

sync "$binary"
python3 -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$binary"
echo 0 >"$ra_file"
"$binary" --config "$work/nbgwd.toml" 2>"$work/nbgwd.log" &
daemon_pid=$!
ready=0
for _ in $(seq 1 600); do
    ready=$(python3 -c "import sqlite3, sys
try:
    print(sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True).execute(\"SELECT count(*) FROM modem WHERE state = 'ready'\").fetchone()[0])
except sqlite3.Error:
    print(0)" "$work/store.sqlite")
    [[ "$ready" -ge 32 ]] && break
    sleep 0.1
done
[[ "$ready" -ge 32 ]] || { echo "order-daemon: only $ready of 32 modules ready; see $work/nbgwd.log" >&2; cat "$work/nbgwd.log" >&2; exit 1; }
sleep "$steady"
curl -fsS "http://127.0.0.1:$metrics_port/metrics" >/dev/null
curl -fsS "http://127.0.0.1:$metrics_port/healthz" >/dev/null
sleep 1
python3 tools/hot-symbols.py "$daemon_pid" "$binary" >packaging/nbgwd.order
kill -TERM "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true; daemon_pid=""
# SwiftPM does not know the link reads the order file: remove the binary so that it is linked again.
rm -f "$binary"
tools/build-release.sh nbgwd >/dev/null
echo "order-daemon: wrote packaging/nbgwd.order ($(wc -l <packaging/nbgwd.order) symbols) and relinked $binary" >&2
