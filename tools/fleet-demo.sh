#!/usr/bin/env bash
# The fleet on one machine (issue 34, docs/fleet.md): a private PostgreSQL cluster in a temporary
# directory (tools/pg-cluster.sh: no root service, no Docker), two nbgw-cloud nodes behind Debian's
# haproxy over TLS with a private CA made here, and two gateways, A and B (nbgwd on simulated
# modules, each with its own store, control socket and cloud credentials). Then the story: both
# register their modules; a label printed at A is scanned at B and binds; the same device scanned
# at A for another account is refused by the cloud, naming the owner; an event consumer (Tuya's
# Python SDK, tools/fleet-demo/events.py) prints the stream; the back office freezes and unfreezes
# the device and prints its log (tools/fleet-demo/devices.py); a node is killed and haproxy keeps
# serving; everything stops cleanly (also on Ctrl-C or a failure). Runs as root or as an ordinary
# user. Run tools/setup.sh first (PostgreSQL 15, haproxy, openssl, curl, sqlite3, .build-venv).
#
# Settings (environment):
#   NBGW_FLEET_BIN=DIR  use the binaries in DIR (nbgw, nbgwd, nbgw-cloud, nbgw-modem-sim), no build
#   SCRATCH_PATH=DIR    build in another directory (as tools/demo.sh)
#   NODE_TLS=1|0        1 (default): the nodes serve TLS themselves (`serve --tls-certificate
#                       --tls-key`) and haproxy re-encrypts to them, verifying them against the CA;
#                       0: haproxy talks plain HTTP to nodes on loopback (a TLS-terminating load
#                       balancer in front of them, docs/fleet.md)
#   FRONT_TLS=1|0       1 (default): haproxy serves https:// with the demo's certificate and the
#                       gateways trust the demo's CA; 0: haproxy serves plain http:// on loopback
#                       (the gateways' adapter accepts plain HTTP to a loopback host only)
#   KEEP=1              keep the temporary directory (stores, logs, configs, the stopped cluster)
#
# Secrets never go on a command line: the database password reaches nbgw-cloud as a file
# (--database-password-file), the gateways' secrets sit in their nbgwd.toml and cli.env (0600) and
# reach the CLI through its environment, and no secret is printed.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
umask 077
trap 'echo "fleet-demo: unexpected failure (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

NODE_TLS="${NODE_TLS:-1}"
FRONT_TLS="${FRONT_TLS:-1}"
KEEP="${KEEP:-0}"
[[ "$NODE_TLS" == [01] ]] || { echo "fleet-demo: NODE_TLS must be 1 or 0, not $NODE_TLS" >&2; exit 2; }
[[ "$FRONT_TLS" == [01] ]] || { echo "fleet-demo: FRONT_TLS must be 1 or 0, not $FRONT_TLS" >&2; exit 2; }

# The loopback is never proxied (curl and Python's requests honour *_proxy variables).
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
tenant=acme
label_base="https://label.fleet-demo.invalid/d/"
# Scripted modem delays 20× faster than real modules, as tools/demo.sh.
time_scale=0.05
# Each gateway's simulated modules. The simulator's IMEIs are a family's base plus the port's index,
# so two simulators with the same family at the same index would share an IMEI: distinct families.
families_a=(bc66 bg95 sim7080)
families_b=(nrf9160 sara-r410 generic)

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }
note() { printf '\033[2m%s\033[0m\n' "$*"; }
die() {
    printf '\nfleet-demo: %s\n' "$1" >&2
    if [[ -n "${2:-}" && -s "$2" ]]; then
        printf 'fleet-demo: last lines of %s:\n' "$2" >&2
        tail -n 20 "$2" | sed 's/^/    /' >&2
    fi
    exit 1
}
# The command as a user would type it, with the temporary directory shown as $T.
show() {
    local text="$*"
    [[ -n "${T:-}" ]] && text="${text//"$T"/\$T}"
    printf '\n\033[1m%s$ %s\033[0m\n' "${prompt:-}" "$text"
}

# ---------------------------------------------------------------------------------------------
# Processes started here, stopped in reverse order on exit (SIGTERM, then SIGKILL after 10 s).
proc_names=(); proc_pids=()
# alive PID: the process exists and is not a zombie (a child we have not reaped yet is one).
alive() {
    local state
    state="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d ' ' -f 1)" || return 1
    [[ -n "$state" && "$state" != Z && "$state" != X ]]
}
# start_bg NAME STDOUT STDERR CMD…: CMD in the background; its pid in $last_pid.
start_bg() {
    local name="$1" out="$2" err="$3"
    shift 3
    "$@" >>"$out" 2>>"$err" </dev/null &
    last_pid=$!
    proc_names+=("$name"); proc_pids+=("$last_pid")
}
# stop_pid PID [SIGNAL]: signal it, wait up to 10 s, then SIGKILL; sets $stop_status.
stop_pid() {
    local pid="$1" signal="${2:-TERM}" i
    stop_status=0
    kill -"$signal" "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        echo "fleet-demo: pid $pid did not stop within 10 s of SIG$signal; SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || stop_status=$?
}
forget_pid() {
    local i
    for i in "${!proc_pids[@]}"; do
        if [[ "${proc_pids[$i]}" == "$1" ]]; then proc_pids[i]=""; fi
    done
}

T=""
cluster_started=0
cleanup() {
    local status=$? i
    trap '' INT TERM
    set +e
    ((status == 0)) || echo >&2
    for ((i = ${#proc_pids[@]} - 1; i >= 0; i--)); do
        [[ -n "${proc_pids[$i]}" ]] || continue
        if alive "${proc_pids[$i]}"; then
            echo "fleet-demo: stopping ${proc_names[$i]} (pid ${proc_pids[$i]})" >&2
            stop_pid "${proc_pids[$i]}"
        else
            wait "${proc_pids[$i]}" 2>/dev/null
        fi
    done
    if [[ -n "$T" ]]; then
        [[ "$cluster_started" == 1 ]] && "$repo/tools/pg-cluster.sh" stop "$T/pg" >/dev/null
        if [[ "$KEEP" == 1 ]]; then
            echo "fleet-demo: kept $T (KEEP=1): logs, stores, configs; the cluster: tools/pg-cluster.sh start $T/pg" >&2
        else
            [[ "$cluster_started" == 1 ]] && "$repo/tools/pg-cluster.sh" remove "$T/pg"
            rm -rf -- "$T"
        fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_until WHAT SECONDS LOG CMD…: poll CMD every 0.1 s; fail naming WHAT and LOG when it never
# succeeds. Every wait here is bounded.
wait_until() {
    local what="$1" seconds="$2" log="$3" deadline
    shift 3
    deadline=$(($(date +%s%N) + seconds * 1000000000))
    until "$@"; do
        (($(date +%s%N) < deadline)) || die "$what: not within $seconds s" "$log"
        sleep 0.1
    done
}

free_port() {
    python3 - <<'EOF'
import random, socket, sys
for _ in range(200):
    port = random.randint(20000, 32767)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    sys.exit(0)
sys.exit("fleet-demo: no free port in 20000-32767 after 200 tries")
EOF
}

# json_field KEY[.KEY…]: that string of the JSON object on stdin (secrets pass through pipes, not argv).
json_field() {
    python3 -c '
import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    value = value[key]
print(value)' "$1"
}

# ---------------------------------------------------------------------------------------------
bold "# fleet-demo: NODE_TLS=$NODE_TLS FRONT_TLS=$FRONT_TLS"
for tool in python3 openssl curl sqlite3 /usr/sbin/haproxy; do
    command -v "$tool" >/dev/null || die "$tool is missing; run tools/setup.sh"
done
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || die "PostgreSQL 15 is missing; run tools/setup.sh"

products=(nbgw nbgwd nbgw-cloud nbgw-modem-sim)
if [[ -n "${NBGW_FLEET_BIN:-}" ]]; then
    bin="$(cd "$NBGW_FLEET_BIN" && pwd)"
    note "using the binaries in $bin (NBGW_FLEET_BIN), no build"
else
    scratch=(); [[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")
    bold "# building ${products[*]} (the first build takes a few minutes)"
    for product in "${products[@]}"; do
        swift build "${scratch[@]}" --product "$product"
    done
    bin="$(swift build "${scratch[@]}" --show-bin-path)"
fi
for product in "${products[@]}"; do
    [[ -x "$bin/$product" ]] || die "$bin/$product is missing (not built?)"
done
if [[ "$NODE_TLS" == 1 ]] && ! "$bin/nbgw-cloud" help serve 2>&1 | grep -q -- '--tls-certificate'; then
    die "this nbgw-cloud ($bin/nbgw-cloud) has no \`serve --tls-certificate\`: its nodes cannot serve TLS themselves; run with NODE_TLS=0 (haproxy terminates TLS and talks HTTP to the nodes on loopback)"
fi
venv_python="$repo/.build-venv/bin/python3"
if ! "$venv_python" -c 'import tuya_connector' 2>/dev/null; then
    venv_python=""
    note "(no .build-venv/bin/python3 that imports tuya_connector here: the event consumer step is skipped; tools/setup.sh installs it)"
fi

# The temporary directory: short (PostgreSQL's socket path must fit 107 bytes) and, as root,
# passable by nobody, who runs the PostgreSQL server (tools/pg-cluster.sh); everything in it 0600/0700.
T="$(mktemp -d "${TMPDIR:-/tmp}/nbgw-fleet.XXXXXX")"
[[ "$(id -u)" -eq 0 ]] && chmod 711 "$T"
mkdir "$T/tls" "$T/cloud" "$T/haproxy" "$T/labels" "$T/events" "$T/gw-a" "$T/gw-b"
bold "# everything lives in T=$T (removed at the end unless KEEP=1)"

# ---------------------------------------------------------------------------------------------
bold "# 1. PostgreSQL: a private cluster, as an unprivileged user"
show "tools/pg-cluster.sh start $T/pg --fast"
cluster_started=1
database_url="$("$repo/tools/pg-cluster.sh" start "$T/pg" --fast)" || die "the PostgreSQL cluster did not start" "$T/pg/log"
echo "$database_url"
note "(its password is in \$T/pg/password, mode 0600: nbgw-cloud reads it with --database-password-file)"
export NBGW_CLOUD_DATABASE="$database_url"
show "export NBGW_CLOUD_DATABASE=$database_url"
db_args=(--database-password-file "$T/pg/password" --key-file "$T/cloud/cloud.key")

# ---------------------------------------------------------------------------------------------
bold "# 2. A private CA and the cloud's certificate (127.0.0.1 and localhost)"
show "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj '/CN=nbgw fleet demo CA' -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' -keyout $T/tls/ca.key -out $T/tls/ca.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj '/CN=nbgw fleet demo CA' \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' \
    -keyout "$T/tls/ca.key" -out "$T/tls/ca.pem" 2>"$T/tls/openssl.log" || die "openssl could not make the CA" "$T/tls/openssl.log"
show "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj '/CN=localhost' -keyout $T/tls/server.key -out $T/tls/server.csr"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj '/CN=localhost' \
    -keyout "$T/tls/server.key" -out "$T/tls/server.csr" 2>>"$T/tls/openssl.log" ||
    die "openssl could not make the server key" "$T/tls/openssl.log"
printf '%s\n' 'subjectAltName = IP:127.0.0.1, DNS:localhost' 'basicConstraints = critical, CA:FALSE' \
    'keyUsage = critical, digitalSignature' 'extendedKeyUsage = serverAuth' >"$T/tls/server.ext"
show "openssl x509 -req -in $T/tls/server.csr -CA $T/tls/ca.pem -CAkey $T/tls/ca.key -CAcreateserial -days 2 -extfile $T/tls/server.ext -out $T/tls/server.pem"
openssl x509 -req -in "$T/tls/server.csr" -CA "$T/tls/ca.pem" -CAkey "$T/tls/ca.key" -CAcreateserial -days 2 \
    -extfile "$T/tls/server.ext" -out "$T/tls/server.pem" 2>>"$T/tls/openssl.log" ||
    die "openssl could not sign the server certificate" "$T/tls/openssl.log"
# haproxy takes the certificate and its key in one file.
cat "$T/tls/server.pem" "$T/tls/server.key" >"$T/tls/haproxy.pem"
chmod 600 "$T/tls/ca.key" "$T/tls/server.key" "$T/tls/haproxy.pem"
chmod 644 "$T/tls/ca.pem" "$T/tls/server.pem"
show "openssl verify -CAfile $T/tls/ca.pem $T/tls/server.pem"
openssl verify -CAfile "$T/tls/ca.pem" "$T/tls/server.pem"
ls -l "$T/tls" | awk 'NR > 1 { print "  " $1, $NF }'

# ---------------------------------------------------------------------------------------------
bold "# 3. The cloud's key, schema, tenant and gateways"
show "nbgw-cloud key create --key-file $T/cloud/cloud.key"
"$bin/nbgw-cloud" key create --key-file "$T/cloud/cloud.key"
show "nbgw-cloud migrate ${db_args[*]}"
"$bin/nbgw-cloud" migrate "${db_args[@]}"
show "nbgw-cloud tenants add ${db_args[*]} $tenant"
"$bin/nbgw-cloud" tenants add "${db_args[@]}" "$tenant"
declare -A client_id secret gateway_name
gateway_name[a]=line-1; gateway_name[b]=line-2; gateway_name[office]=back-office
for who in a b office; do
    # The back office signs with an operator's credential: it reads the stream and manages devices.
    kind=gateways
    [[ "$who" == office ]] && kind=operators
    show "nbgw-cloud $kind add ${db_args[*]} --tenant $tenant ${gateway_name[$who]} --json   # the secret: captured, not shown"
    credentials="$("$bin/nbgw-cloud" "$kind" add "${db_args[@]}" --tenant "$tenant" "${gateway_name[$who]}" --json)" ||
        die "nbgw-cloud $kind add ${gateway_name[$who]} failed (see above)"
    client_id[$who]="$(json_field client_id <<<"$credentials")"
    secret[$who]="$(json_field secret <<<"$credentials")"
    unset credentials
    # The secret goes into TOML and shell files below: only characters that need no quoting.
    [[ "${client_id[$who]}" =~ ^[A-Za-z0-9]+$ && "${secret[$who]}" =~ ^[A-Za-z0-9]+$ ]] ||
        die "the credentials of ${gateway_name[$who]} are not alphanumeric; this script cannot write them safely"
    echo "client_id ${client_id[$who]}, secret: ${#secret[$who]} characters (not shown)"
done

# ---------------------------------------------------------------------------------------------
bold "# 4. Two nbgw-cloud nodes on one database"
declare -A node_port node_pid
node_scheme=http; [[ "$NODE_TLS" == 1 ]] && node_scheme=https
# start_node N PORT: node N on 127.0.0.1:PORT (0: any free port); its port in node_port[N].
start_node() {
    local n="$1" port="$2" args
    args=(serve "${db_args[@]}" --listen "127.0.0.1:$port" --label-base "$label_base")
    [[ "$NODE_TLS" == 1 ]] && args+=(--tls-certificate "$T/tls/server.pem" --tls-key "$T/tls/server.key")
    show "nbgw-cloud ${args[*]} &"
    : >"$T/cloud/node-$n.out"
    start_bg "nbgw-cloud node $n" "$T/cloud/node-$n.out" "$T/cloud/node-$n.log" "$bin/nbgw-cloud" "${args[@]}"
    node_pid[$n]=$last_pid
    local deadline=$(($(date +%s) + 30))
    until grep -q '^listening on ' "$T/cloud/node-$n.out"; do
        alive "${node_pid[$n]}" || die "nbgw-cloud node $n exited before listening (log: $T/cloud/node-$n.log)" "$T/cloud/node-$n.log"
        (($(date +%s) < deadline)) || die "nbgw-cloud node $n did not listen within 30 s (log: $T/cloud/node-$n.log)" "$T/cloud/node-$n.log"
        sleep 0.1
    done
    node_port[$n]="$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$T/cloud/node-$n.out" | tail -n 1)"
    echo "node $n: $(tail -n 1 "$T/cloud/node-$n.out")"
}
start_node 1 0
start_node 2 0
for n in 1 2; do
    curl_node=(curl -sS --max-time 5)
    [[ "$NODE_TLS" == 1 ]] && curl_node+=(--cacert "$T/tls/ca.pem")
    show "curl ${curl_node[*]:1} $node_scheme://127.0.0.1:${node_port[$n]}/healthz"
    "${curl_node[@]}" "$node_scheme://127.0.0.1:${node_port[$n]}/healthz" | sed -e '$a\' ||
        die "node $n does not answer /healthz on 127.0.0.1:${node_port[$n]}" "$T/cloud/node-$n.log"
done

# ---------------------------------------------------------------------------------------------
bold "# 5. haproxy in front: TLS, round robin, health checks on /healthz"
front_port="$(free_port)"
front_scheme=http; [[ "$FRONT_TLS" == 1 ]] && front_scheme=https
front_url="$front_scheme://127.0.0.1:$front_port"
bind_tls=""; [[ "$FRONT_TLS" == 1 ]] && bind_tls=" ssl crt $T/tls/haproxy.pem alpn http/1.1"
# To the nodes: re-encrypted and verified against the CA (name included), or plain on loopback.
server_tls=""
[[ "$NODE_TLS" == 1 ]] && server_tls=" ssl verify required ca-file $T/tls/ca.pem verifyhost localhost check-ssl"
cat >"$T/haproxy/haproxy.cfg" <<EOF
# haproxy for tools/fleet-demo.sh: no chroot, no user or group (it runs as whoever starts it),
# ports above 1024, logs on standard output (the demo sends them to \$T/haproxy/haproxy.log).
global
    log stdout format raw local0 info
    stats socket $T/haproxy/stats.sock mode 600 level admin
    maxconn 512

defaults
    mode http
    log global
    option httplog
    timeout connect 1s
    # Above the event stream's long poll (events.py waits at most 25 s).
    timeout client 60s
    timeout server 60s
    timeout check 2s
    # A request that cannot reach a node (it just died, not yet marked down) goes to another one.
    retries 3
    option redispatch 1

frontend fleet
    bind 127.0.0.1:$front_port$bind_tls
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    # A node is out after 2 failed checks 1 s apart, back after 1 good one.
    default-server inter 1s fall 2 rise 1
    server node1 127.0.0.1:${node_port[1]} check$server_tls
    server node2 127.0.0.1:${node_port[2]} check$server_tls
EOF
show "cat $T/haproxy/haproxy.cfg"
sed "s|$T|\$T|g" "$T/haproxy/haproxy.cfg"
show "haproxy -c -f $T/haproxy/haproxy.cfg"
/usr/sbin/haproxy -c -f "$T/haproxy/haproxy.cfg" || die "haproxy refuses its configuration (above)"
show "haproxy -db -f $T/haproxy/haproxy.cfg &"
: >"$T/haproxy/haproxy.log"
start_bg haproxy "$T/haproxy/haproxy.log" "$T/haproxy/haproxy.log" /usr/sbin/haproxy -db -f "$T/haproxy/haproxy.cfg"
haproxy_pid=$last_pid
curl_front=(curl -sS --max-time 5)
[[ "$FRONT_TLS" == 1 ]] && curl_front+=(--cacert "$T/tls/ca.pem")
front_healthy() { [[ "$("${curl_front[@]}" -o /dev/null -w '%{http_code}' "$front_url/healthz" 2>/dev/null)" == 200 ]]; }
wait_until "haproxy on 127.0.0.1:$front_port (log: $T/haproxy/haproxy.log)" 20 "$T/haproxy/haproxy.log" front_healthy
# haproxy's own view of the nodes, through its stats socket: NAME STATUS CHECK REQUESTS, tab-separated.
backend_rows() {
    python3 - "$T/haproxy/stats.sock" <<'EOF'
import csv, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show stat\n")
data = b""
while chunk := s.recv(65536):
    data += chunk
rows = list(csv.reader(data.decode().lstrip("# ").splitlines()))
for row in rows[1:]:
    if len(row) == len(rows[0]):
        r = dict(zip(rows[0], row))
        if r["pxname"] == "nodes" and r["svname"] not in ("FRONTEND", "BACKEND"):
            print("\t".join((r["svname"], r["status"], r["check_status"], r["stot"])))
EOF
}
backend_state() {
    backend_rows | awk -F '\t' '{ printf "  %s: %-10s last check %-6s requests %s\n", $1, $2, $3, $4 }'
}
# server_is NAME STATUS [CHECK]: haproxy's status of that node (and its last check) are these.
server_is() { backend_rows | awk -F '\t' -v n="$1" -v s="$2" -v c="${3:-}" '$1 == n && $2 == s && (c == "" || $3 == c) { found = 1 } END { exit !found }'; }
both_up() { server_is node1 UP L7OK && server_is node2 UP L7OK; }
wait_until "haproxy's health checks of both nodes (log: $T/haproxy/haproxy.log)" 20 "$T/haproxy/haproxy.log" both_up
for _ in 1 2; do
    show "curl ${curl_front[*]:1} $front_url/healthz"
    "${curl_front[@]}" "$front_url/healthz" | sed -e '$a\'
done
show "echo 'show stat' | socat $T/haproxy/stats.sock -   # (read with python3 here)"
backend_state

# ---------------------------------------------------------------------------------------------
bold "# 6. Two gateways, A and B: simulated modules, nbgwd, each its own store and credentials"

# gw A|B ARGS…: nbgw at that gateway: NBGW_CONFIG names the daemon's config, whose [store],
# [control] and [cloud] (credentials and CA included) the CLI uses as nbgwd does.
gw() {
    local who="$1"
    shift
    prompt="[${who^^}] " show "nbgw $*"
    ( . "$T/gw-$who/cli.env" && exec "$bin/nbgw" "$@" )
}
# gw_quiet A|B ARGS…: the same, not shown.
gw_quiet() {
    local who="$1"
    shift
    ( . "$T/gw-$who/cli.env" && exec "$bin/nbgw" "$@" )
}

declare -A daemon_pid sim_pid module_count
for who in a b; do
    dir="$T/gw-$who"
    if [[ "$who" == a ]]; then families=("${families_a[@]}"); else families=("${families_b[@]}"); fi
    module_count[$who]=${#families[@]}
    sim_args=(); for family in "${families[@]}"; do sim_args+=(--port "$family"); done
    sim_args+=(--time-scale "$time_scale")
    prompt="[${who^^}] " show "nbgw-modem-sim ${sim_args[*]} &"
    : >"$dir/sim.json"
    start_bg "simulator ${who^^}" "$dir/sim.json" "$dir/sim.log" "$bin/nbgw-modem-sim" "${sim_args[@]}"
    sim_pid[$who]=$last_pid
    sim_ports() { [[ $(grep -c '"path"' "$dir/sim.json" 2>/dev/null || true) -ge ${#families[@]} ]]; }
    wait_until "gateway ${who^^}'s simulator (log: $dir/sim.log)" 20 "$dir/sim.log" sim_ports
    cat "$dir/sim.json"

    ca_line=""
    if [[ "$FRONT_TLS" == 1 ]]; then
        ca_line="ca_file = \"$T/tls/ca.pem\""
    fi
    {
        echo "# nbgwd of gateway ${who^^} (${gateway_name[$who]}) in tools/fleet-demo.sh: mode 0600, it holds the cloud secret."
        echo "[store]"
        echo "path = \"$dir/store.sqlite\""
        echo
        echo "[control]"
        echo "socket = \"$dir/control.sock\""
        echo
        echo "[discovery]"
        echo "udev = false"
        echo
        echo "[metrics]"
        echo "listen = \"127.0.0.1:0\""
        echo
        echo "[cloud]"
        echo "mode = \"http\""
        echo "url = \"$front_url\""
        echo "label_base = \"$label_base\""
        [[ -n "$ca_line" ]] && echo "$ca_line"
        echo "client_id = \"${client_id[$who]}\""
        echo "secret = \"${secret[$who]}\""
        sed -n 's/.*"path":"\([^"]*\)".*/\n[[ports]]\npath = "\1"/p' "$dir/sim.json"
    } >"$dir/nbgwd.toml"
    chmod 600 "$dir/nbgwd.toml"
    # The CLI at this gateway: the daemon's config, as /etc/nbgw/nbgwd.toml is on a real gateway
    # (store, control socket and cloud from it; credentials never on a command line).
    {
        echo "export NBGW_CONFIG='$dir/nbgwd.toml'"
        echo "export USER='operator-${who}'"
    } >"$dir/cli.env"
    chmod 600 "$dir/cli.env"
    prompt="[${who^^}] " show "cat $dir/nbgwd.toml   # (mode $(stat -c %a "$dir/nbgwd.toml"); the secret not shown)"
    sed -e "s|$T|\$T|g" -e 's/^secret = .*/secret = "…"   # (hidden)/' "$dir/nbgwd.toml"
    prompt="[${who^^}] " show "nbgwd --config $dir/nbgwd.toml --check-config"
    "$bin/nbgwd" --config "$dir/nbgwd.toml" --check-config >"$dir/check-config.out" 2>&1 || {
        sed "s|$T|\$T|g" "$dir/check-config.out"
        die "gateway ${who^^}'s nbgwd refuses its configuration $dir/nbgwd.toml (above)"
    }
    # What the daemon makes of its [cloud] section (the secret redacted by nbgwd itself).
    sed -n '/^\[cloud\]/,/^$/p' "$dir/check-config.out" | sed "s|$T|\$T|g"
    prompt="[${who^^}] " show "nbgwd --config $dir/nbgwd.toml &"
    : >"$dir/nbgwd.log"
    start_bg "nbgwd ${who^^}" /dev/null "$dir/nbgwd.log" "$bin/nbgwd" --config "$dir/nbgwd.toml"
    daemon_pid[$who]=$last_pid
done

# Every module of both gateways ready (registered with the cloud, a device id): 90 s at most.
ready_count() {
    { gw_quiet "$1" modems --json 2>/dev/null || true; } | python3 -c '
import json, sys
try:
    modems = json.load(sys.stdin).get("modems", [])
except ValueError:
    modems = []
print(sum(1 for m in modems if m.get("state") == "ready" and m.get("deviceId")))'
}
for who in a b; do
    daemon_up() { alive "${daemon_pid[$1]}" || die "gateway ${1^^}'s nbgwd exited (log: $T/gw-$1/nbgwd.log)" "$T/gw-$1/nbgwd.log"; grep -q "nbgwd ready" "$T/gw-$1/nbgwd.log"; }
    wait_until "gateway ${who^^}'s nbgwd to start (log: $T/gw-$who/nbgwd.log)" 30 "$T/gw-$who/nbgwd.log" daemon_up "$who"
done
printf 'waiting for every module of A (%d) and B (%d) to be ready' "${module_count[a]}" "${module_count[b]}"
started=$(date +%s%N)
all_ready() {
    local who
    for who in a b; do
        alive "${daemon_pid[$who]}" || die "gateway ${who^^}'s nbgwd exited (log: $T/gw-$who/nbgwd.log)" "$T/gw-$who/nbgwd.log"
        [[ "$(ready_count "$who")" -ge "${module_count[$who]}" ]] || { printf '.'; sleep 0.4; return 1; }
    done
}
deadline=$(($(date +%s) + 90))
until all_ready; do
    if (($(date +%s) >= deadline)); then
        echo
        late=""
        for who in a b; do
            count="$(ready_count "$who")"
            echo "gateway ${who^^}: $count of ${module_count[$who]} modules ready" >&2
            gw_quiet "$who" modems >&2 || true
            [[ -n "$late" || "$count" -ge "${module_count[$who]}" ]] || late="$who"
        done
        die "not every module of gateway ${late^^} became ready within 90 s (log: $T/gw-$late/nbgwd.log)" "$T/gw-$late/nbgwd.log"
    fi
done
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
printf ' all ready after %d.%03d s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000))
imeis_of() { gw_quiet "$1" modems --json | python3 -c '
import json, sys
for m in json.load(sys.stdin)["modems"]:
    if m.get("state") == "ready":
        print(m["imei"])'; }
mapfile -t imeis_a < <(imeis_of a)
mapfile -t imeis_b < <(imeis_of b)
duplicates="$(printf '%s\n' "${imeis_a[@]}" "${imeis_b[@]}" | sort | uniq -d)"
[[ -z "$duplicates" ]] || die "gateways A and B share IMEIs ($duplicates): pick other simulator families"

# =============================================================================================
bold "# a. Both gateways registered their modules, each through its own credentials"
gw a modems
gw b modems
show "tools/pg-cluster.sh psql $T/pg -c 'SELECT imei, device_id, registered_by FROM device ORDER BY registered_by, imei'"
"$repo/tools/pg-cluster.sh" psql "$T/pg" -c 'SELECT imei, device_id, registered_by FROM device ORDER BY registered_by, imei'

# ---------------------------------------------------------------------------------------------
bold "# b. Gateway A prints a label for one of its modules"
imei="${imeis_a[0]}"
gw a labels "$imei" --format png --out "$T/labels"
device="$(gw_quiet a devices show "$imei" --json | json_field device.deviceId)"
label="$(gw_quiet a devices show "$imei" --json | json_field qr)"
gw a devices show "$imei"
note "(the label's QR: $label; the PNG: \$T/labels/$device.png)"

# ---------------------------------------------------------------------------------------------
bold "# c. The label printed at A is scanned at gateway B and binds there (bob, home bob-line)"
gw b accounts add bob --role owner
gw b homes add bob-line --owner bob
gw b bind --image "$T/labels/$device.png" --account bob --home bob-line ||
    die "gateway B could not bind the label gateway A printed (above)"
gw b bindings list

# ---------------------------------------------------------------------------------------------
bold "# d. The same device scanned at A for another account (carol): the cloud refuses, naming the owner"
gw a accounts add carol --role owner
gw a homes add carol-lab --owner carol
gw a bind --qr "$label" --account carol --home carol-lab || note "(exit $?)"
# The outbox settles (the CLI's quick attempt or A's daemon): no row pending or in flight.
outbox_settled() {
    [[ "$(sqlite3 "file:$T/gw-a/store.sqlite?mode=ro" \
        "SELECT count(*) FROM cloud_outbox WHERE state IN ('pending', 'inflight')" 2>/dev/null)" == 0 ]]
}
wait_until "gateway A's outbox to settle (log: $T/gw-a/nbgwd.log)" 60 "$T/gw-a/nbgwd.log" outbox_settled
show "sqlite3 $T/gw-a/store.sqlite \"SELECT id, operation, state, last_error FROM cloud_outbox WHERE operation = 'bind'\""
sqlite3 -header -column "file:$T/gw-a/store.sqlite?mode=ro" \
    "SELECT id, operation, state, last_error FROM cloud_outbox WHERE operation = 'bind'"
owner_named="$(sqlite3 "file:$T/gw-a/store.sqlite?mode=ro" \
    "SELECT count(*) FROM cloud_outbox WHERE operation = 'bind' AND state = 'dead'
        AND last_error LIKE '%to account bob through gateway ${gateway_name[b]}%'")"
[[ "$owner_named" == 1 ]] || die "gateway A's refused bind does not name the owner (bob through ${gateway_name[b]})"
gw a cloud sync --check || note "(exit $?: the refused bind is reported until an operator settles it)"
show "tools/pg-cluster.sh psql $T/pg -c 'SELECT device_id, uid, home, gateway FROM binding'   # the cloud: one owner"
"$repo/tools/pg-cluster.sh" psql "$T/pg" -c 'SELECT device_id, uid, home, gateway FROM binding'

# ---------------------------------------------------------------------------------------------
bold "# e. An event consumer prints the stream (Tuya's Python SDK, signed like the gateways)"
# The consumer's own client (another credential of the tenant), its cursor in a file.
printf "export NBGW_CLOUD_SECRET='%s'\n" "${secret[office]}" >"$T/events/env"
chmod 600 "$T/events/env"
events_args=(--url "$front_url" --client-id "${client_id[office]}" --cursor-file "$T/events/cursor")
[[ "$FRONT_TLS" == 1 ]] && events_args+=(--ca-file "$T/tls/ca.pem")
consume() {
    show "NBGW_CLOUD_SECRET=… tools/fleet-demo/events.py ${events_args[*]} --once"
    ( . "$T/events/env" && exec "$venv_python" "$repo/tools/fleet-demo/events.py" "${events_args[@]}" --once )
}
[[ -n "$venv_python" ]] || die "no Python with Tuya's SDK for the event consumer: run tools/setup.sh (.build-venv)"
consume | tee "$T/events/first.out" || die "the event consumer failed (above)"
grep -q " bound device_id=$device gateway=${gateway_name[b]} detail=bob" "$T/events/first.out" ||
    die "the stream lacks B's bind of $device"
grep -q " conflict device_id=$device gateway=${gateway_name[a]}" "$T/events/first.out" ||
    die "the stream lacks A's conflict over $device"
# More happens; the consumer resumes from its cursor and prints only what is new.
gw b unbind "$device" || die "gateway B could not unbind $device"
consume | tee "$T/events/second.out" || die "the event consumer failed (above)"
[[ "$(grep -c "^#" "$T/events/second.out")" == 1 ]] && grep -q " unbound device_id=$device" "$T/events/second.out" ||
    die "resumed from its cursor, the consumer should print the unbind alone"

# The back office manages the device (device management, the same SDK and credential).
devices_args=(--url "$front_url" --client-id "${client_id[office]}")
[[ "$FRONT_TLS" == 1 ]] && devices_args+=(--ca-file "$T/tls/ca.pem")
manage() {
    show "NBGW_CLOUD_SECRET=… tools/fleet-demo/devices.py ${devices_args[*]} $(printf '%q ' "$@")"
    ( . "$T/events/env" && exec "$venv_python" "$repo/tools/fleet-demo/devices.py" "${devices_args[@]}" "$@" )
}
manage show "$device" || die "the back office could not read $device"
manage freeze "$device" --reason "RMA 42: returned by bob" | tee "$T/events/freeze.out" ||
    die "the back office could not freeze $device"
grep -q "^frozen: .*frozen (RMA 42: returned by bob)" "$T/events/freeze.out" || die "$device is not shown frozen"
manage unfreeze "$device" --reason "repaired" || die "the back office could not unfreeze $device"
manage log "$device" | tee "$T/events/log.out" || die "the back office could not read the log of $device"
[[ "$(grep -c "frozen\|unfrozen" "$T/events/log.out")" == 2 ]] ||
    die "the log of $device should end with its freeze and unfreeze, by ${gateway_name[office]}"

# ---------------------------------------------------------------------------------------------
bold "# f. A node dies; haproxy keeps serving"
show "echo 'show stat' | socat $T/haproxy/stats.sock -"
backend_state
log_mark=$(wc -l <"$T/haproxy/haproxy.log")
show "kill -KILL ${node_pid[1]}   # nbgw-cloud node 1"
# (Grouped so that bash's own "Killed" notice about its child goes nowhere.)
{ kill -KILL "${node_pid[1]}"; wait "${node_pid[1]}" || true; } 2>/dev/null
forget_pid "${node_pid[1]}"
# At once, before haproxy has seen it: a request for the dead node is sent again to the other one.
second="${imeis_b[1]}"
label_b="$(gw_quiet b devices show "$second" --json | json_field qr)"
gw b bind --qr "$label_b" --account bob --home bob-line || note "(exit $?)"
show "tail -n +$((log_mark + 1)) $T/haproxy/haproxy.log   # the bind's requests"
tail -n "+$((log_mark + 1))" "$T/haproxy/haproxy.log" | grep ' "[A-Z]* /' | cut -d ' ' -f 4,6,11,13- || true
note "(server, status, connections/retries, request: +1 is a request first sent to node 1, refused, and redispatched)"
node1_down() { server_is node1 DOWN; }
wait_until "haproxy to take node 1 out (log: $T/haproxy/haproxy.log)" 15 "$T/haproxy/haproxy.log" node1_down
show "echo 'show stat' | socat $T/haproxy/stats.sock -"
backend_state
show "grep 'nodes/node1 is' $T/haproxy/haproxy.log"
grep 'nodes/node1 is' "$T/haproxy/haproxy.log" || true
for _ in 1 2 3; do
    show "curl ${curl_front[*]:1} $front_url/healthz"
    "${curl_front[@]}" "$front_url/healthz" | sed -e '$a\'
done
gw b cloud sync --check || note "(exit $?)"
bold "# … and node 1 comes back on its port: haproxy puts it back after one good check"
start_node 1 "${node_port[1]}"
wait_until "haproxy to put node 1 back (log: $T/haproxy/haproxy.log)" 15 "$T/haproxy/haproxy.log" both_up
show "echo 'show stat' | socat $T/haproxy/stats.sock -"
backend_state

# ---------------------------------------------------------------------------------------------
if [[ -t 0 && -t 1 ]]; then
    bold "The fleet runs. At gateway A: set -a; . $T/gw-a/cli.env; set +a; then nbgw … (likewise gw-b)."
    bold "Press Enter to stop everything."
    read -r _ || true
fi

bold "# g. Everything stops: gateways, simulators and nodes on SIGTERM, haproxy on SIGUSR1 (its graceful stop), then PostgreSQL"
for who in b a; do
    show "kill -TERM ${daemon_pid[$who]}   # nbgwd ${who^^}"
    stop_pid "${daemon_pid[$who]}"; forget_pid "${daemon_pid[$who]}"
    echo "nbgwd ${who^^} exited with status $stop_status"
    show "kill -TERM ${sim_pid[$who]}   # simulator ${who^^}"
    stop_pid "${sim_pid[$who]}"; forget_pid "${sim_pid[$who]}"
    echo "simulator ${who^^} exited with status $stop_status"
done
# SIGUSR1 is haproxy's graceful stop (it finishes what is in flight); SIGTERM its hard stop.
show "kill -USR1 $haproxy_pid   # haproxy"
stop_pid "$haproxy_pid" USR1; forget_pid "$haproxy_pid"
echo "haproxy exited with status $stop_status"
for n in 1 2; do
    show "kill -TERM ${node_pid[$n]}   # nbgw-cloud node $n"
    stop_pid "${node_pid[$n]}"; forget_pid "${node_pid[$n]}"
    echo "node $n exited with status $stop_status"
done
show "tools/pg-cluster.sh stop $T/pg"
"$repo/tools/pg-cluster.sh" stop "$T/pg"
if [[ "$KEEP" != 1 ]]; then
    show "tools/pg-cluster.sh remove $T/pg && rm -rf $T"
    "$repo/tools/pg-cluster.sh" remove "$T/pg"
    cluster_started=0
    rm -rf -- "$T"
    T=""
fi
bold "fleet-demo: done"
