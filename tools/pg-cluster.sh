#!/usr/bin/env bash
# A private PostgreSQL 15 cluster in a directory of its own, for the tests and demos of the fleet
# cloud (nbgw-cloud stores in PostgreSQL): no system service, no Docker, nothing outside DIR.
#
#   tools/pg-cluster.sh start DIR [--port N] [--fast]   create (initdb) if needed, start, print the URL
#   tools/pg-cluster.sh stop DIR [--immediate]           stop (-m fast, or -m immediate: a crash);
#                                                        no error if it is not running
#   tools/pg-cluster.sh restart DIR                      stop if running, start again on the same port
#                                                        (after `stop --immediate` it runs crash recovery)
#   tools/pg-cluster.sh psql DIR [ARGS…]                 psql -X as nbgw on database nbgw over TCP
#   tools/pg-cluster.sh exec DIR CMD [ARGS…]             CMD with PGHOST, PGPORT, PGUSER, PGDATABASE and
#                                                        PGPASSFILE set and PostgreSQL 15's bin/ first on
#                                                        PATH (e.g. `exec DIR pgbench -i -s 1`)
#   tools/pg-cluster.sh remove DIR                       stop and delete DIR
#
# `start` prints one line, postgresql://nbgw@127.0.0.1:PORT/nbgw (never the password), and writes it
# to DIR/url. The superuser is nbgw with a random password in DIR/password (0600, never on argv:
# initdb reads it from a file, psql from DIR/pgpass); it owns the database nbgw. Every connection,
# TCP and the Unix socket alike, authenticates with scram-sha-256, so a store's password handling is
# exercised for real. The server listens on 127.0.0.1 only and on DIR/socket/.s.PGSQL.PORT.
#
# DIR/data is the data directory, DIR/socket the socket directory, DIR/log the server log (initdb
# and pg_ctl output included). Settings for tests: max_connections=200 (pool tests open many),
# idle_in_transaction_session_timeout=60s (a test that dies inside a transaction does not hold
# locks for ever), timezone UTC (timestamptz renders the same everywhere), fsync=on so that
# pgbench and store benchmarks measure an honest commit. --fast (only when the cluster is created)
# sets fsync=off, synchronous_commit=off, full_page_writes=off: for functional tests, never figures.
# Without --port a free port in 20000–32767 is picked (below Linux's ephemeral range, so a client's
# outgoing connection does not take it between a stop and a restart) and kept for every restart.
#
# Why: PostgreSQL's initdb and server refuse to run as root, and tests here run as root. As root,
# everything server-side runs as nobody:nogroup (setpriv), which owns DIR/data, DIR/socket and
# DIR/log; DIR itself, DIR/password and DIR/pgpass stay the caller's (root reads them, nobody and
# the world cannot). So DIR and every folder above it must be searchable by nobody: /tmp/… or
# /work/… are, /root/… is not (checked, with a message). When not root, everything runs as the
# caller. Unix socket paths are limited to 107 bytes, so DIR may be at most about 85 bytes long
# (checked). `start` of a new cluster takes 1.0–1.5 s here (measured on 2 cores, Debian 12,
# PostgreSQL 15.18: initdb --no-sync 0.8 s, pg_ctl -w start 0.12 s, CREATE DATABASE 0.17 s; three
# at once 1.6–2.0 s each); starting a stopped one 0.17 s. PGBIN=DIR overrides /usr/lib/postgresql/15/bin.
set -Eeuo pipefail

me=pg-cluster
pgbin="${PGBIN:-/usr/lib/postgresql/15/bin}"
dir=""

usage() {
    sed -n '/^#   tools\/pg-cluster.sh start/,/^#   tools\/pg-cluster.sh remove/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

die() {
    echo "$me: $*" >&2
    exit 1
}

# fail WHAT HINT: what failed, the end of the server log, what to do; then exit 1.
fail() {
    {
        echo "$me: $1"
        if [[ -n "$dir" && -s "$dir/log" ]]; then
            echo "$me: last lines of $dir/log:"
            tail -n 15 "$dir/log" | sed 's/^/    /'
        fi
        echo "$me: $2"
    } >&2
    exit 1
}
trap 'fail "unexpected failure at line $LINENO: $BASH_COMMAND" "see the message above; the cluster is in ${dir:-DIR}"' ERR

# The server side runs unprivileged: as root, as nobody:nogroup; otherwise as the caller. From / so
# that a working directory nobody cannot read (/root) does not trouble initdb or pg_ctl.
if [[ "$(id -u)" -eq 0 ]]; then
    pg_owner="nobody:nogroup"
    as_pg() { (cd / && exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"); }
else
    pg_owner=""
    as_pg() { (cd / && exec "$@"); }
fi

# own PATH… : hand to the server's user (as root), else nothing to do.
own() { if [[ -n "$pg_owner" ]]; then chown "$pg_owner" "$@"; fi; }

is_cluster() { [[ -f "$dir/data/PG_VERSION" ]]; }
# The postmaster of postmaster.pid is alive. A killed one stays a zombie until init reaps it (about
# 1.7 s here after kill -9: init is not bash); pg_ctl counts a zombie as running, this does not.
postmaster_alive() {
    local pid state
    pid="$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    state="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d ' ' -f 1)" || return 1
    [[ -n "$state" && "$state" != Z && "$state" != X ]]
}
is_running() { is_cluster && postmaster_alive && as_pg "$pgbin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1; }
# The setting that wins: the last line in postgresql.conf, then postgresql.auto.conf (ALTER SYSTEM).
cluster_setting() {
    { cat "$dir/data/postgresql.conf" "$dir/data/postgresql.auto.conf" 2>/dev/null || true; } |
        sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*'\{0,1\}\([^' #]*\).*/\1/p" | tail -n 1
}
cluster_port() { cluster_setting port; }
cluster_fast() { [[ "$(cluster_setting fsync)" == off ]]; }

# A port nothing listens on: random in 20000–32767, tried with SO_REUSEADDR as the postmaster binds.
free_port() {
    command -v python3 >/dev/null || die "python3 is needed to pick a free port; install it or pass --port N"
    python3 - <<'EOF'
import random, socket, sys
for _ in range(200):
    port = random.randint(20000, 32767)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    sys.exit(0)
sys.exit("no free port in 20000-32767 after 200 tries")
EOF
}

# set_dir DIR: dir becomes the absolute, physical path of DIR (as given when it does not exist).
set_dir() {
    local given="$1"
    [[ -n "$given" ]] || usage
    [[ "$given" != *[\'$'\n'\\]* ]] || die "$given: a cluster directory may not contain a quote, a backslash or a newline"
    if [[ -d "$given" ]]; then
        dir="$(cd -- "$given" && pwd -P)"
    elif [[ "$given" == /* ]]; then
        dir="$given"
    else
        dir="$PWD/$given"
    fi
}

# check_socket_path PORT: the server's socket path must fit a sockaddr_un (107 bytes and a NUL).
check_socket_path() {
    local socket_path="$dir/socket/.s.PGSQL.$1"
    ((${#socket_path} <= 107)) ||
        die "the socket path $socket_path is ${#socket_path} bytes, over the Unix limit of 107; use a shorter DIR (e.g. /tmp/NAME)"
}

write_pgpass() {
    local port="$1"
    # libpq ignores a password file that the group or the world can read; * matches TCP and socket.
    (umask 077 && printf '*:%s:*:nbgw:%s\n' "$port" "$(cat "$dir/password")" >"$dir/pgpass")
}

# sql DB STATEMENT: run one statement over the Unix socket (the password from DIR/pgpass).
sql() {
    env -u PGPASSWORD -u PGSERVICE -u PGSERVICEFILE -u PGSSLMODE -u PGHOSTADDR -u PGOPTIONS PGPASSFILE="$dir/pgpass" \
        "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 \
        -h "$dir/socket" -p "$(cluster_port)" -U nbgw -d "$1" -tAc "$2"
}

pg_start() {
    local port
    port="$(cluster_port)"
    [[ -n "$port" ]] || fail "$dir/data/postgresql.conf has no port setting" "remove the cluster and start a new one: $0 remove $dir"
    : >>"$dir/log"
    # A postmaster killed a moment ago (kill -9) holds its lock file until it is reaped: wait (≤ 10 s).
    local pid i
    if pid="$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)" && [[ "$pid" =~ ^[0-9]+$ ]]; then
        for ((i = 0; i < 100; i++)); do
            if [[ ! -e "/proc/$pid" ]] || postmaster_alive; then break; fi
            sleep 0.1
        done
    fi
    # The server gets none of the caller's descriptors above 2 (only the log and /dev/null): a
    # caller that waits for this script's end by a descriptor it handed down (swift-corelibs
    # Foundation's Process does, with a socket) would otherwise wait as long as the server runs.
    if ! (close_inherited_descriptors && as_pg "$pgbin/pg_ctl" start -w -t 60 -D "$dir/data" -l "$dir/log") >>"$dir/log" 2>&1; then
        fail "PostgreSQL did not start in $dir (port $port)" \
            "if the port is taken (\"could not bind\" above), stop what listens on 127.0.0.1:$port or remove this cluster and start a new one; otherwise see $dir/log"
    fi
}

# Closes every descriptor above 2 of the current (sub)shell.
close_inherited_descriptors() {
    local fd
    for fd in /proc/"$BASHPID"/fd/*; do
        fd="${fd##*/}"
        if [[ "$fd" =~ ^[0-9]+$ ]] && ((fd > 2)); then
            eval "exec $fd>&-" 2>/dev/null || true
        fi
    done
}

# Create database nbgw if missing (also repairs a start that failed between initdb and here).
ensure_database() {
    local has
    has="$(sql postgres "SELECT 1 FROM pg_database WHERE datname = 'nbgw'" 2>>"$dir/log")" ||
        fail "could not connect to the cluster in $dir over its socket as nbgw" "see $dir/log; $0 remove $dir and start again"
    if [[ "$has" != 1 ]]; then
        sql postgres "CREATE DATABASE nbgw OWNER nbgw" 2>>"$dir/log" ||
            fail "CREATE DATABASE nbgw failed in $dir" "see $dir/log"
    fi
}

announce() {
    local url
    url="postgresql://nbgw@127.0.0.1:$(cluster_port)/nbgw"
    printf '%s\n' "$url" >"$dir/url"
    printf '%s\n' "$url"
}

initialize() {
    local port="$1" fast="$2" pwfile
    check_socket_path "$port"
    # A directory from `mktemp -d` is 0700: nobody needs to pass through it (only that).
    if [[ -n "$pg_owner" ]] && ! as_pg test -x "$dir"; then
        chmod o+x "$dir"
    fi
    if [[ -n "$pg_owner" ]] && ! as_pg test -x "$dir"; then
        die "nobody cannot reach $dir (a folder above it is not searchable by others, e.g. /root); use a DIR under /tmp or /work"
    fi
    mkdir -m 700 "$dir/data"
    mkdir -m 755 "$dir/socket"
    (umask 077 && : >"$dir/log")
    own "$dir/data" "$dir/socket" "$dir/log"
    (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/password")
    write_pgpass "$port"

    # initdb reads the password from a file the server's user can read (a pipe on /dev/stdin is
    # refused once setpriv has dropped root): a copy, 0600, removed as soon as initdb is done.
    pwfile="$dir/initdb-password"
    (umask 077 && cat "$dir/password" >"$pwfile")
    own "$pwfile"
    if ! as_pg "$pgbin/initdb" -D "$dir/data" -U nbgw --pwfile="$pwfile" \
        --auth-host=scram-sha-256 --auth-local=scram-sha-256 --encoding=UTF8 --no-locale \
        --no-sync --no-instructions >>"$dir/log" 2>&1; then
        rm -f "$pwfile"
        fail "initdb failed in $dir/data" "see the lines above; $0 remove $dir and start again"
    fi
    rm -f "$pwfile"

    {
        echo
        echo "# tools/pg-cluster.sh (later lines win over the ones above)"
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$dir/socket'"
        echo "max_connections = 200"
        echo "idle_in_transaction_session_timeout = '60s'"
        echo "timezone = 'UTC'"
        echo "log_timezone = 'UTC'"
        echo "log_line_prefix = '%m [%p] %q%u@%d '"
        if [[ "$fast" == 1 ]]; then
            echo "fsync = off"
            echo "synchronous_commit = off"
            echo "full_page_writes = off"
        else
            echo "fsync = on"
        fi
    } >>"$dir/data/postgresql.conf"
}

cmd_start() {
    local port="" fast=0
    set_dir "${1:-}"
    shift || true
    while (($#)); do
        case "$1" in
            --port)
                if ! [[ "${2:-}" =~ ^[0-9]+$ ]] || (($2 < 1024 || $2 > 65535)); then
                    die "--port needs a number from 1024 to 65535"
                fi
                port="$2"
                shift 2
                ;;
            --fast) fast=1; shift ;;
            *) die "start: unknown option $1" ;;
        esac
    done
    if [[ -e "$dir" && ! -d "$dir" ]]; then
        die "$dir exists and is not a directory"
    fi
    if [[ -d "$dir" ]] && ! is_cluster && [[ -n "$(ls -A "$dir")" ]]; then
        die "$dir is not empty and holds no cluster (no data/PG_VERSION); pick an empty or new directory, or $0 remove $dir if it is a broken cluster"
    fi
    if is_cluster; then
        # An existing cluster keeps the port and durability it was created with.
        if [[ -n "$port" && "$port" != "$(cluster_port)" ]]; then
            die "$dir was created on port $(cluster_port), not $port; $0 remove $dir first to change it"
        fi
        if [[ "$fast" == 1 ]] && ! cluster_fast; then
            die "$dir was created without --fast (fsync=on); $0 remove $dir first to change it"
        fi
        [[ -f "$dir/pgpass" ]] || write_pgpass "$(cluster_port)"
        is_running || pg_start
    else
        check_socket_path "${port:-65535}"
        [[ -n "$port" ]] || port="$(free_port)" || die "could not find a free port; pass --port N"
        if [[ ! -d "$dir" ]]; then
            mkdir -p -- "$dir" || die "could not create $dir"
            dir="$(cd -- "$dir" && pwd -P)"
            # A start that fails before initdb leaves no empty directory behind.
            trap 'rmdir -- "$dir" 2>/dev/null || true' EXIT
        fi
        initialize "$port" "$fast"
        trap - EXIT
        pg_start
    fi
    ensure_database
    announce
}

cmd_stop() {
    local mode=fast
    set_dir "${1:-}"
    shift || true
    while (($#)); do
        case "$1" in
            --immediate) mode=immediate; shift ;;
            *) die "stop: unknown option $1" ;;
        esac
    done
    is_running || return 0
    if ! as_pg "$pgbin/pg_ctl" stop -w -t 60 -m "$mode" -D "$dir/data" >>"$dir/log" 2>&1; then
        fail "pg_ctl stop -m $mode failed in $dir" "try $0 stop $dir --immediate"
    fi
}

cmd_restart() {
    set_dir "${1:-}"
    (($# == 1)) || usage
    is_cluster || die "$dir holds no cluster (no data/PG_VERSION); create one with $0 start $dir"
    cmd_stop "$dir"
    cmd_start "$dir"
}

# client_env: the environment a client needs to reach the cluster as nbgw on database nbgw.
client_env() {
    is_cluster || die "$dir holds no cluster (no data/PG_VERSION); create one with $0 start $dir"
    is_running || die "the cluster in $dir is not running; $0 start $dir"
    [[ -f "$dir/pgpass" ]] || write_pgpass "$(cluster_port)"
    unset PGPASSWORD PGSERVICE PGSERVICEFILE PGSSLMODE PGHOSTADDR PGOPTIONS
    PGPORT="$(cluster_port)"
    export PGHOST=127.0.0.1 PGPORT PGUSER=nbgw PGDATABASE=nbgw PGPASSFILE="$dir/pgpass"
}

cmd_psql() {
    set_dir "${1:-}"
    shift || true
    client_env
    trap - ERR
    exec "$pgbin/psql" -X "$@"
}

cmd_exec() {
    set_dir "${1:-}"
    shift || true
    (($#)) || usage
    client_env
    export PATH="$pgbin:$PATH"
    trap - ERR
    exec "$@"
}

cmd_remove() {
    set_dir "${1:-}"
    (($# == 1)) || usage
    [[ -e "$dir" ]] || return 0
    # Only a directory that looks like ours (or an empty one) is deleted: a wrong argument must not
    # wipe something else.
    if ! is_cluster && [[ ! -f "$dir/password" && ! -f "$dir/url" && -n "$(ls -A "$dir")" ]]; then
        die "$dir does not look like a cluster of this script (no data/PG_VERSION, password or url); not deleting it"
    fi
    cmd_stop "$dir" --immediate
    rm -rf -- "$dir"
}

[[ -x "$pgbin/initdb" ]] || die "PostgreSQL 15 is not installed ($pgbin/initdb is missing); run tools/setup.sh"
command="${1:-}"
shift || true
case "$command" in
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    restart) cmd_restart "$@" ;;
    psql) cmd_psql "$@" ;;
    exec) cmd_exec "$@" ;;
    remove) cmd_remove "$@" ;;
    *) usage ;;
esac
