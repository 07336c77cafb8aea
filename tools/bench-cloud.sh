#!/usr/bin/env bash
# nbgw-cloud's signed binds against PostgreSQL's own floor, in one run (docs/fleet.md,
# "Performance"):
#
#   1. the floor: tools/bench/cloud-floor.sql through pgbench with prepared statements, the same
#      SQL one HTTP bind costs a node (two requests, two transactions);
#   2. one node, capped to NODE_CPU of a core (a cgroup's CPU quota), closed loop: its peak rate;
#      then open loop at half that peak: p50 and p99 from each bind's scheduled start;
#   3. two nodes, each capped the same, closed loop: the peak, to read against one node's.
#
# A bind here is what a gateway's outbox does for one row: a pairing token, then the bind, each
# signed, with an Idempotency-Key, over HTTP on loopback; devices picked at random among DEVICES
# registered beforehand (so a few find their device taken: counted as conflicts, answered all the
# same). PostgreSQL runs with fsync on (tools/pg-cluster.sh without --fast) in a private cluster.
#
#   tools/bench-cloud.sh                 SECONDS_RUN=15 CLIENTS=32 NODE_CPU=0.5 DEVICES=200000
#                                        NODE_THREADS (default: NODE_CPU rounded up)
#                                        HALF_RATE (the open loop's rate; default: half the peak)
#
# Prints one line per run and a summary; the release build comes first (5-6 minutes the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
run_seconds=${SECONDS_RUN:-15}
clients=${CLIENTS:-32}
node_cpu=${NODE_CPU:-0.5}
devices=${DEVICES:-200000}
# A node's event-loop threads: as many as the cores its cap gives it. NIO counts a cgroup's quota
# by itself, but the cap is put on a running node here, after NIO counted.
node_threads=${NODE_THREADS:-$(awk -v share="$node_cpu" 'BEGIN { t = int(share); if (t < share) t++; if (t < 1) t = 1; print t }')}

swift build -c release --product nbgw-cloud >&2
swift build -c release --product nbgw-cloud-load >&2
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d /tmp/nbgw-bench-cloud.XXXXXX)
chmod 0755 "$work"
cluster="$work/pg"
nodes=()
cleanup() {
    for pid in "${nodes[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    # The nodes' cgroups (made in start_node's subshell: found by name, not by a variable).
    # A cgroup goes once its last task is gone: the killed nodes are not this shell's children, so
    # their end is waited for here, a few tries apart.
    for group in /sys/fs/cgroup/cpu/nbgw-bench-$$-*; do
        [ -d "$group" ] || continue
        for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$group" 2>/dev/null && break; sleep 0.2; done
    done
    tools/pg-cluster.sh remove "$cluster" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

url=$(tools/pg-cluster.sh start "$cluster" | tail -n 1)
export NBGW_CLOUD_DATABASE="$url"
NBGW_CLOUD_DATABASE_PASSWORD=$(cat "$cluster/password")
export NBGW_CLOUD_DATABASE_PASSWORD
export NBGW_CLOUD_LOG_LEVEL=error
key="$work/cloud.key"
"$bin/nbgw-cloud" key create --key-file "$key" >/dev/null
"$bin/nbgw-cloud" migrate >/dev/null
"$bin/nbgw-cloud" tenants add bench >/dev/null
gateway=$("$bin/nbgw-cloud" gateways add --tenant bench --key-file "$key" --json bench-gw)
client_id=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["client_id"])' "$gateway")
secret=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["secret"])' "$gateway")

sql() { tools/pg-cluster.sh psql "$cluster" -q -v ON_ERROR_STOP=1 -At -c "$1"; }
# The devices, registered in one statement (registration is not what is measured here).
sql "INSERT INTO device (imei, tenant_id, device_id, label_code, registered_by, created_at, updated_at)
     SELECT lpad(g::text, 15, '0'), 'bench', 'bd' || lpad(g::text, 7, '0'), 'BD' || lpad(g::text, 10, '0'), 'bench-gw', 0, 0
     FROM generate_series(1, $devices) g"
sql "VACUUM ANALYZE" >/dev/null

reset() {
    sql "TRUNCATE binding, pairing_outcome, event, pairing_token, idempotency" >/dev/null
    sql "VACUUM ANALYZE" >/dev/null
}

# A cgroup (v1 cpu controller) with a quota of node_cpu cores for one node.
cap() {
    local pid=$1 name=$2
    local group="/sys/fs/cgroup/cpu/nbgw-bench-$$-$name"
    if mkdir "$group" 2>/dev/null; then
        echo 100000 >"$group/cpu.cfs_period_us"
        awk -v share="$node_cpu" 'BEGIN { print int(100000 * share) }' >"$group/cpu.cfs_quota_us"
        for task in /proc/"$pid"/task/*; do echo "${task##*/}" >"$group/tasks"; done
    else
        echo "bench-cloud: cannot make a cgroup under /sys/fs/cgroup/cpu (run as root with cgroup v1's cpu controller); nodes uncapped" >&2
    fi
}

start_node() {
    local name=$1
    local log="$work/$name.log"
    NIO_SINGLETON_GROUP_LOOP_COUNT=$node_threads "$bin/nbgw-cloud" serve --listen 127.0.0.1:0 --key-file "$key" --tenant-rate 0 --database-connections "${DB_CONNECTIONS:-$clients}" >"$log.out" 2>"$log" &
    local pid=$!
    nodes+=("$pid")
    for _ in $(seq 1 100); do
        if grep -q '^listening on ' "$log.out" 2>/dev/null; then break; fi
        sleep 0.1
    done
    local port
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$log.out")
    [ -n "$port" ] || { cat "$log" >&2; echo "bench-cloud: node $name did not start" >&2; exit 1; }
    # The node's threads exist once it listens: all of them go into its cgroup.
    cap "$pid" "$name"
    echo "$pid http://127.0.0.1:$port"
}

load() {
    NBGW_CLOUD_SECRET="$secret" "$bin/nbgw-cloud-load" --urls "$1" --client-id "$client_id" --concurrency "$clients" \
        --seconds "$run_seconds" --devices "$devices" "${@:2}"
}

field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

echo "bench-cloud: floor (pgbench, prepared, $clients clients, ${run_seconds} s)" >&2
reset
floor_out=$(tools/pg-cluster.sh exec "$cluster" pgbench -n -M prepared -c "$clients" -j 2 -T "$run_seconds" \
    -D devices="$devices" -D client="$client_id" -f tools/bench/cloud-floor.sql nbgw)
floor=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$floor_out" | head -n 1)
echo "floor: $floor binds/s" >&2

read -r pid1 url1 < <(start_node one)
nodes+=("$pid1") # start_node runs in a subshell: its own list never reaches cleanup
reset
# The node's CPU time (user + system, clock ticks) around its closed-loop run: CPU per bind.
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }
ticks_before=$(cpu_ticks "$pid1")
one=$(load "$url1")
ticks_after=$(cpu_ticks "$pid1")
echo "one node (capped $node_cpu core): $one" >&2
half=${HALF_RATE:-$(python3 -c "print(round($(field "$one" binds_per_s) / 2, 1))")}
reset
one_half=$(load "$url1" --rate "$half")
echo "one node at half peak ($half/s): $one_half" >&2
rss_one=$(awk '/VmHWM/ {print $2}' /proc/"$pid1"/status)

read -r pid2 url2 < <(start_node two)
nodes+=("$pid2")
reset
two=$(load "$url1,$url2")
echo "two nodes (capped $node_cpu core each): $two" >&2
rss_two=$(awk '/VmHWM/ {print $2}' /proc/"$pid2"/status)

python3 - "$floor" "$one" "$one_half" "$two" "$rss_one" "$rss_two" "$node_cpu" "$((ticks_after - ticks_before))" "$(getconf CLK_TCK)" <<'EOF'
import json, sys
floor = float(sys.argv[1]); one = json.loads(sys.argv[2]); half = json.loads(sys.argv[3]); two = json.loads(sys.argv[4])
cpu_ms = int(sys.argv[8]) * 1000 / int(sys.argv[9])
print(f"floor (pgbench, same SQL):          {floor:8.1f} binds/s")
print(f"one node, {sys.argv[7]} core:              {one['binds_per_s']:8.1f} binds/s  = {one['binds_per_s'] / floor:.2f} x floor  (errors {one['errors']})")
print(f"one node's CPU per bind:            {cpu_ms / one['binds']:.2f} ms ({cpu_ms / 1000 / one['seconds']:.2f} cores busy)")
print(f"one node at half peak:              p50 {half['p50_ms']} ms, p99 {half['p99_ms']} ms  ({half['binds_per_s']} binds/s, errors {half['errors']})")
print(f"two nodes, {sys.argv[7]} core each:        {two['binds_per_s']:8.1f} binds/s  = {two['binds_per_s'] / one['binds_per_s']:.2f} x one node  (errors {two['errors']})")
print(f"node peak RSS:                      {int(sys.argv[5]) / 1024:.1f} MB and {int(sys.argv[6]) / 1024:.1f} MB")
EOF
