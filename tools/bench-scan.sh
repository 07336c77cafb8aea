#!/usr/bin/env bash
# Benchmark of `nbgw scan` against a baseline measured in the same run: `nbgw bind --qr` in a loop
# (one process per label, what an operator scripting around the shell would do).
#
#   1. throughput: N labels through a pty into one `nbgw scan --input /dev/pts/N` session (a serial
#      scanner), vs N `nbgw bind --qr` processes; binds per second of each.
#   2. a cloud that never answers (a TCP port that accepts and stays silent): per-scan latency
#      (scan written → its line printed, one at a time) of `nbgw scan` (cloud wait 0.8 s) vs
#      `nbgw bind --qr` (default cloud wait 2 s); every bind commits locally and says `queued`.
#
# Usage: tools/bench-scan.sh [N] [M]   (default N=300 labels, M=20 with the silent cloud)
# BIN=path/to/nbgw to use a given binary (default: a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-300}"
m="${2:-20}"
if [ -z "${BIN:-}" ]; then
    swift build -c release --product nbgw >/dev/null
    BIN="$(swift build -c release --show-bin-path)/nbgw"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export BIN work n m
python3 tools/bench/scan_bench.py
