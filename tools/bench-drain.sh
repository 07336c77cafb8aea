#!/usr/bin/env bash
# How fast a gateway's backlog drains into nbgw-cloud (docs/fleet.md, "Batches"): N binds queued
# while the gateway was offline, sent by `nbgw cloud sync` through the batch endpoint, against the
# same backlog sent one call at a time (NBGW_CLOUD_BATCH=0), in the same run: the same node
# binary, the same database state (a template copy), the same gateway store (a copy). A private
# PostgreSQL cluster in a temporary directory (tools/pg-cluster.sh); fsync on.
#
#   tools/bench-drain.sh            # N=500 rows
#   N=2000 tools/bench-drain.sh
#
# Needs the debug build (`swift build`) and PostgreSQL 15 (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-500}"
bin="$(swift build --show-bin-path)"
for tool in nbgw nbgw-cloud; do
    [[ -x "$bin/$tool" ]] || { echo "bench-drain: no $bin/$tool; run swift build first" >&2; exit 2; }
done
T="$(mktemp -d /tmp/nbgw-bench-drain.XXXXXX)"
chmod 755 "$T"
nodes=()
cleanup() {
    for pid in "${nodes[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    tools/pg-cluster.sh stop "$T/pg" >/dev/null 2>&1 || true
    tools/pg-cluster.sh remove "$T/pg" >/dev/null 2>&1 || true
    rm -rf "$T"
}
trap cleanup EXIT

tools/pg-cluster.sh start "$T/pg" --fast >/dev/null
base_url="$(cat "$T/pg/url")"
export NBGW_CLOUD_DATABASE="$base_url" NBGW_CLOUD_LOG_LEVEL=error
export NBGW_CLOUD_DATABASE_PASSWORD="$(cat "$T/pg/password")"
cloud() { "$bin/nbgw-cloud" "$@"; }
cloud key create --key-file "$T/cloud.key" >/dev/null
cloud migrate >/dev/null
cloud tenants add bench >/dev/null
credentials="$(cloud gateways add --tenant bench --key-file "$T/cloud.key" --json gw)"
client_id="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])' <<<"$credentials")"
secret="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])' <<<"$credentials")"

# serve DATABASE_URL: a node on a free loopback port; its URL in $served_url (no subshell: the
# node's pid must reach the cleanup).
serve() {
    local fifo="$T/node-$RANDOM.out"
    NBGW_CLOUD_DATABASE="$1" "$bin/nbgw-cloud" serve --listen 127.0.0.1:0 --key-file "$T/cloud.key" \
        --tenant-rate 0 >"$fifo" 2>"$fifo.err" &
    nodes+=($!)
    for _ in $(seq 1 200); do
        if grep -q '^listening on ' "$fifo" 2>/dev/null; then
            served_url="http://$(sed -n 's/^listening on //p' "$fifo" | head -1)"
            return
        fi
        sleep 0.05
    done
    echo "bench-drain: the node did not start: $(cat "$fifo.err")" >&2
    exit 1
}

export NBGW_DB="$T/gw.sqlite" NBGW_CLOUD_CLIENT_ID="$client_id" NBGW_CLOUD_SECRET="$secret"
serve "$base_url"
url="$served_url"
"$bin/nbgw" accounts add alice >/dev/null
"$bin/nbgw" homes add lab --owner alice >/dev/null
echo "bench-drain: registering $N modules with the cloud (setup, not measured)" >&2
echo "qr" >"$T/labels.csv"
imeis="$(python3 - "$N" <<'PY'
import sys
def luhn(body):
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:
            d *= 2
            if d > 9: d -= 9
        total += d
    return (10 - total % 10) % 10
for i in range(int(sys.argv[1])):
    body = str(35_693_804_000_000 + i)
    print(body + str(luhn(body)))
PY
)"
for imei in $imeis; do
    NBGW_CLOUD_URL="$url" "$bin/nbgw" devices register --imei "$imei" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["qr"])' >>"$T/labels.csv"
done
# Offline: the binds commit locally and queue (the cloud URL points nowhere; no wait for it).
NBGW_CLOUD_URL="http://127.0.0.1:9" "$bin/nbgw" bind --csv "$T/labels.csv" --account alice --home lab \
    --cloud-wait 0 --json >/dev/null || true
pending="$(sqlite3 "file:$T/gw.sqlite?mode=ro" "SELECT count(*) FROM cloud_outbox WHERE operation = 'bind' AND state = 'pending'")"
[[ "$pending" == "$N" ]] || { echo "bench-drain: expected $N queued binds, found $pending" >&2; exit 1; }
sqlite3 "$T/gw.sqlite" ".backup '$T/gw-single.sqlite'"

# The cloud's state copied for the baseline: the same modules, no binding yet.
kill -TERM "${nodes[0]}"; wait "${nodes[0]}" 2>/dev/null || true; nodes=()
database="${base_url##*/}"
tools/pg-cluster.sh psql "$T/pg" -d postgres -c "CREATE DATABASE single TEMPLATE $database" >/dev/null
serve "$base_url"
batch_url="$served_url"
serve "${base_url%/*}/single"
single_url="$served_url"

# drain LABEL URL STORE [ENV…]: seconds for `nbgw cloud sync` to send every row.
drain() {
    local label="$1" node="$2" store="$3"
    shift 3
    local start end
    start="$(date +%s.%N)"
    env "$@" NBGW_DB="$store" NBGW_CLOUD_URL="$node" "$bin/nbgw" cloud sync --json >"$T/$label.json"
    end="$(date +%s.%N)"
    local done
    done="$(sqlite3 "file:$store?mode=ro" "SELECT count(*) FROM cloud_outbox WHERE operation = 'bind' AND state = 'done'")"
    [[ "$done" == "$N" ]] || { echo "bench-drain: $label left $((N - done)) rows unsent: $(cat "$T/$label.json")" >&2; exit 1; }
    python3 -c "print(f'{$end - $start:.3f}')"
}
single="$(drain single "$single_url" "$T/gw-single.sqlite" NBGW_CLOUD_BATCH=0)"
batch="$(drain batch "$batch_url" "$T/gw.sqlite" NBGW_CLOUD_BATCH=1)"
python3 - "$N" "$single" "$batch" <<'PY'
import sys
n, single, batch = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"backlog: {n} queued binds (pairing token + bind each), one nbgw-cloud node, PostgreSQL 15 fsync on")
print(f"one call at a time (NBGW_CLOUD_BATCH=0): {single:7.2f} s  {n / single:8.0f} rows/s")
print(f"batch endpoint:                         {batch:7.2f} s  {n / batch:8.0f} rows/s  ({single / batch:.1f}x)")
PY
