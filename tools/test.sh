#!/usr/bin/env bash
# Runs the whole test suite: builds every product first (the CLI and daemon tests run the real
# `nbgw`, `nbgwd`, `nbgw-modem-sim` and `nbgw-udev-testbed` binaries), then `swift test` in four
# processes, then the HTTP contract checks (docs/ingest.md) and the fuzz targets
# (docs/fuzzing.md). Why several processes: the real-process suites wait on child processes and the
# in-process suites run dozens of simulated modems; in one process on a two-core machine they share
# a two-thread cooperative pool and starve each other's time limits. Arguments (e.g. --filter X)
# run one `swift test` with them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --explicit-target-dependency-import-check error
# The udev rules and docs/discovery.md's module table are generated from KnownModule.catalogue: fail
# here, before any test, when the committed files are not what the catalogue generates. The binary is
# run directly: 0.08 s, where `swift run --skip-build` spent 25 s loading the package graph (measured
# on this 2-core machine under load).
.build/debug/nbgw-gen-udev --check
# Every `docs/….md` citation in Sources/ and tools/ names a file and a section that exist (0.9 s, no build).
tools/check-doc-citations.py
if (($#)); then
    exec swift test --skip-build "$@"
fi
# Why the in-process suites run in two processes: Foundation's Process.run (Swift 6.3.1) copies
# 256 bytes per /proc/self/fd entry and reads past glibc's 32 KiB readdir buffer once a process
# has about 1,365 descriptors open (swift-corelibs-foundation PR #5472): the one process peaked at
# 1,502 (ptys, sockets, SQLite files) and crashed in CI. Split, the peaks are 486 and 891.
pty_suites='ATKitTests|GatewayTests|DiscoveryTests|ModemProbeTests'
swift test --skip-build --filter "$pty_suites"
swift test --skip-build --skip "nbgwTests|DaemonTests|FleetCloudTests|$pty_suites"
swift test --skip-build --filter 'nbgwTests'
swift test --skip-build --filter 'DaemonTests'
# The fleet cloud's suites alone: 32 gateways and two nbgw-cloud nodes on PostgreSQL keep both
# cores busy for a minute, and beside the in-process suites they starved the HTTP tests' read
# timeouts (48 issues in one CI run).
swift test --skip-build --filter 'FleetCloudTests'
# The fleet on one machine as an operator runs it (docs/fleet.md, "The demo"): two nodes behind
# haproxy over TLS, two gateways; it checks its own story and stops everything (about 20 s).
mkdir -p out
NBGW_FLEET_BIN="$(swift build --show-bin-path)" tools/fleet-demo.sh >out/fleet-demo.log 2>&1 ||
    { cat out/fleet-demo.log; echo "test.sh: tools/fleet-demo.sh failed (its output above)" >&2; exit 1; }
# The web console in headless Chromium against the real daemon (fails if the browser is missing).
tools/test-console.sh
# The gateway under hostile load (docs/operations.md, "Hostile load"): a release nbgwd on simulated
# modules, flooded and stormed on loopback for 45 s, must keep its watchdog, modules, `nbgw at` and
# binds within 2 s, stay under its RSS bound and stop cleanly on SIGTERM.
tools/soak.sh
# The HTTP contracts against the real servers (schemathesis, fixed seed, bounded budget).
tools/api-contract.sh
# Every fuzz target briefly: builds Fuzz/ (libFuzzer + AddressSanitizer), replays the seeds and
# the regression inputs, then fuzzes; any crash, sanitizer report or broken property fails CI.
tools/fuzz.sh all 15
