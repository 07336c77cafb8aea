#!/usr/bin/env bash
# Runs the whole test suite: builds every product first (the CLI tests run the real `nbgw` binary),
# then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --explicit-target-dependency-import-check error
swift test --skip-build "$@"
