#!/usr/bin/env bash
# The main job on its embedded default (no network, no hardware): the daemon, nbgwd, runs on its
# built-in defaults (local SQLite store under out/, embedded local cloud) against four simulated
# modules (nbgw-modem-sim's pseudo-terminals as static ports, udev off). Each module is probed,
# brought up, registered with the network and the cloud, and reaches `ready` with its device id
# and pairing label; then an owner account and a home are created and one device is bound with
# its label. Run tools/setup.sh first. SCRATCH_PATH=DIR builds in another directory.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=(); [[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }
bold "# building nbgw, nbgwd and nbgw-modem-sim (the first build takes a few minutes)"
for product in nbgw nbgwd nbgw-modem-sim; do
    swift build "${scratch[@]}" --product "$product"
done
bin="$(swift build "${scratch[@]}" --show-bin-path)"
for product in nbgw nbgwd nbgw-modem-sim; do
    [[ -x "$bin/$product" ]] || { echo "demo: $bin/$product was not built" >&2; exit 1; }
done

mkdir -p out
store="$PWD/out/demo.sqlite"
rm -f "$store" "$store-wal" "$store-shm" out/demo-*.log out/demo-sim.json out/demo-nbgwd.toml out/demo-control.sock
export NBGW_DB="$store"
# The daemon's control socket (a gateway's is /run/nbgw/control.sock): `nbgw at`, `nbgw modem reset`.
export NBGW_CONTROL="$PWD/out/demo-control.sock"
sim_pid=""; daemon_pid=""
cleanup() {
    [[ -n "$daemon_pid" ]] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null || true
    [[ -n "$sim_pid" ]] && kill -TERM "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null || true
}
trap cleanup EXIT

step() { printf '\n\033[1m$ nbgw %s\033[0m\n' "$*"; "$bin/nbgw" "$@"; }

# 1. Four modules on pseudo-terminals, scripted delays 20× faster than real modules, and a fifth
#    whose SIM slot is empty (it waits, and says why).
families=(bc66 bg95 sim7080 nrf9160)
bold "\$ nbgw-modem-sim --port bc66 --port bg95 --port sim7080 --port nrf9160 --port bc95,sim=missing --time-scale 0.05 &"
# shellcheck disable=SC2046
"$bin/nbgw-modem-sim" $(printf -- '--port %s ' "${families[@]}") --port bc95,sim=missing --time-scale 0.05 \
    >out/demo-sim.json 2>out/demo-sim.log </dev/null &
sim_pid=$!
for _ in $(seq 1 200); do
    [[ $(grep -c '"path"' out/demo-sim.json 2>/dev/null || true) -ge $((${#families[@]} + 1)) ]] && break
    sleep 0.05
done
cat out/demo-sim.json

# 2. nbgwd's config: the defaults, plus the simulator's ptys as static ports and udev off.
config="$PWD/out/demo-nbgwd.toml"
{
    echo "# nbgwd for the demo: built-in defaults (local store, embedded cloud), simulator ports."
    echo "[store]"
    echo "path = \"$store\""
    echo
    echo "[control]"
    echo "socket = \"$NBGW_CONTROL\""
    echo
    echo "[discovery]"
    echo "udev = false"
    echo
    echo "[metrics]"
    echo "listen = \"127.0.0.1:0\"   # any free port (the daemon logs it)"
    echo
    echo "# The ingest API and the web console (docs/console.md) on one listener."
    echo "[ingest]"
    echo "enabled = true"
    echo "listen = \"127.0.0.1:${CONSOLE_PORT:-8080}\""
    sed -n 's/.*"path":"\([^"]*\)".*/\n[[ports]]\npath = "\1"/p' out/demo-sim.json
} >"$config"
chmod 600 "$config"
bold "\$ cat out/demo-nbgwd.toml"
cat "$config"

# 3. The daemon, in the background (its log: out/demo-nbgwd.log).
bold "\$ nbgwd --config out/demo-nbgwd.toml &"
"$bin/nbgwd" --config "$config" 2>out/demo-nbgwd.log &
daemon_pid=$!

# 4. Wait (60 s at most) until every module is ready with its device id.
# `nbgw modems` reads the modem table; where this checkout's CLI lacks it, sqlite3 does.
has_modems_command() { "$bin/nbgw" modems --json >/dev/null 2>&1; }
ready_count() {
    if has_modems_command; then
        { "$bin/nbgw" modems --json 2>/dev/null || true; } | { grep -o '"state":"ready"' || true; } | wc -l
    else
        sqlite3 "file:$store?mode=ro" \
            "SELECT count(*) FROM modem WHERE state = 'ready' AND device_id IS NOT NULL" 2>/dev/null || echo 0
    fi
}
printf 'waiting for %d modules to reach ready' "${#families[@]}"
started=$(date +%s%N)
# The daemon creates the store: read it only once the daemon says it runs.
for _ in $(seq 1 300); do
    grep -q "nbgwd ready" out/demo-nbgwd.log 2>/dev/null && break
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.1
done
for _ in $(seq 1 600); do
    kill -0 "$daemon_pid" 2>/dev/null || { echo; echo "demo: nbgwd exited:" >&2; cat out/demo-nbgwd.log >&2; exit 1; }
    count=$(ready_count)
    [[ "$count" -ge ${#families[@]} ]] && break
    printf '.'
    sleep 0.1
done
[[ "$count" -ge ${#families[@]} ]] || { echo; echo "demo: only $count modules ready after 60 s" >&2; tail -20 out/demo-nbgwd.log >&2; exit 1; }
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
# The web console: an admin with a password made for this run, printed once.
console_url=$(sed -n 's/.*ingest on \(http[s]*:\/\/[0-9.:]*\).*/\1/p' out/demo-nbgwd.log | head -1)
console_password=$("$bin/nbgw" operators add demo --role admin --generate --replace --json |
    sed -E 's/.*"password":"([^"]*)".*/\1/')
bold "The web console: ${console_url:-http://127.0.0.1:${CONSOLE_PORT:-8080}}/  operator: demo  password: $console_password"
echo "(a one-time password for this run; nbgw operators add demo --replace sets another)"
printf ' %d ready after %d.%03d s\n' "$count" $((elapsed_ms / 1000)) $((elapsed_ms % 1000))
grep -E "modem ready|nbgwd ready" out/demo-nbgwd.log | sed 's/^/  log: /'

# 5. The operator's view (the fifth module shows why it waits), then each module's device id and label.
if has_modems_command; then
    for _ in $(seq 1 100); do
        "$bin/nbgw" modems 2>/dev/null | grep -q SIM_ABSENT && break
        sleep 0.1
    done
    step modems
    imeis=$("$bin/nbgw" modems | awk '$1 == "ready" { print $3 }')
else
    bold "\$ sqlite3 out/demo.sqlite 'SELECT port, state, imei, model, device_id FROM modem'"
    sqlite3 -column -header "file:$store?mode=ro" "SELECT port, state, imei, model, dialect, device_id FROM modem"
    imeis=$(sqlite3 "file:$store?mode=ro" "SELECT imei FROM modem WHERE state = 'ready' ORDER BY port")
fi
for imei in $imeis; do
    step devices show "$imei"
done

# One module while the others run: an AT command on its own session (through the daemon), a reset.
step at "$(echo "$imeis" | head -1)" 'AT+CSQ' 'AT+CEREG?'
step modem reset "$(echo "$imeis" | head -1)"

metrics=$(sed -n 's/.*http.address=\([0-9.:]*\).*metrics and health listening.*/\1/p' out/demo-nbgwd.log | head -1)
if [[ -n "$metrics" ]] && command -v curl >/dev/null; then
    bold "\$ curl http://$metrics/healthz"
    curl -s "http://$metrics/healthz"
fi

# 6. One bind: an owner, a home, the first module's label.
first=$(echo "$imeis" | head -1)
label=$("$bin/nbgw" devices show "$first" --json | sed -E 's/.*"qr":"([^"]*)".*/\1/')
step accounts add alice --role owner
step homes add alice-lab --owner alice
step bind --qr "$label" --account alice --home alice-lab
step bindings list

# In a terminal, the daemon (and the console) stay up until Enter.
if [[ -t 0 ]]; then
    bold "The console is at ${console_url:-http://127.0.0.1:${CONSOLE_PORT:-8080}}/ (operator demo, password $console_password); press Enter to stop the daemon"
    read -r _ || true
fi

# 7. SIGTERM: the daemon stops gracefully, every module is marked absent.
bold "\$ kill -TERM nbgwd"
kill -TERM "$daemon_pid"
status=0; wait "$daemon_pid" || status=$?
daemon_pid=""
echo "nbgwd exited with status $status"
tail -2 out/demo-nbgwd.log | sed 's/^/  log: /'
kill -TERM "$sim_pid"; wait "$sim_pid" 2>/dev/null || true; sim_pid=""
echo
echo "demo: store at $NBGW_DB (mode $(stat -c %a "$NBGW_DB")); daemon log out/demo-nbgwd.log; config out/demo-nbgwd.toml"
echo "      try: $bin/nbgw devices list; $bin/nbgwd --config out/demo-nbgwd.toml --check-config"
exit "$status"
