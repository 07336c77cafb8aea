#!/usr/bin/env bash
# The gateway under hostile load (issue 30; docs/operations.md, "Hostile load"): tools/soak/soak.py
# runs nbgwd on simulated modules, its descriptor limit at 1,024, and attacks it on loopback (idle
# and slow-header floods, a sign-in storm, an upload storm, a control-socket flood) while checking
# the watchdog, the modules, `nbgw at`, binds over the API and the daemon's RSS; then SIGTERM.
#
#   tools/soak.sh            the short run CI does: a release build (`swift build -c release`), 45 s,
#                            8 modules, 3,072 idle connections (three times the descriptor limit)
#   tools/soak.sh --long     the shipped build (tools/build-release.sh, into .build-release), 300 s,
#                            32 modules, 4,096 idle connections: the figures in docs/operations.md
#
# Why a release build even in CI: under a flood, what a waiting client sees is how fast the daemon
# accepts and sheds connections; a debug build does that several times slower (binds at p50 7.4 s
# under 2,048 idle connections, against 38 ms for release under 3,000), so it would measure the
# build, not the gateway.
#
# Extra arguments go to soak.py (--duration S, --modules N, --rss-bound MB, --json FILE, …).
# Needs python3, prlimit and setpriv (util-linux), and root for the control-socket flood's user switch.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--long" ]]; then
    shift
    bin="$(SCRATCH_PATH=.build-release tools/build-release.sh nbgwd nbgw nbgw-modem-sim | tail -n 1)"
    exec python3 tools/soak/soak.py --bin "$bin" --duration 300 --modules 32 --idle 4096 --rss-bound 150 "$@"
fi
for product in nbgw nbgwd nbgw-modem-sim; do
    swift build -c release --product "$product" >&2
done
bin="$(swift build -c release --show-bin-path)"
exec python3 tools/soak/soak.py --bin "$bin" --duration 45 --modules 8 --idle 3072 --rss-bound 150 "$@"
