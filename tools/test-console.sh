#!/usr/bin/env bash
# The web console in a real browser: headless Chromium (Debian's chromium + chromium-driver) driven
# by Selenium (pinned, in .build-venv, installed by tools/setup.sh) against the real nbgwd on
# simulated modules (docs/console.md, "Tests"). Screenshots go to out/console-screenshots/ (or
# $CONSOLE_ARTIFACTS). A missing browser, driver or Selenium fails the run: nothing is skipped.
# Expects the products built (tools/test.sh builds them first); SCRATCH_PATH=DIR for another build dir.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=(); [[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")
bin="$(swift build "${scratch[@]}" --show-bin-path)"
for tool in /usr/bin/chromium /usr/bin/chromedriver /usr/bin/pdftoppm .build-venv/bin/python3; do
    [[ -x "$tool" ]] || { echo "test-console: $tool is missing; run tools/setup.sh (it installs it)" >&2; exit 1; }
done
for product in nbgw nbgwd nbgw-modem-sim; do
    [[ -x "$bin/$product" ]] || { echo "test-console: $bin/$product is not built (swift build)" >&2; exit 1; }
done
export NBGW_BIN="$bin"
export CONSOLE_ARTIFACTS="${CONSOLE_ARTIFACTS:-$PWD/out/console-screenshots}"
started=$(date +%s)
.build-venv/bin/python3 Tests/Browser/console_browser_test.py "$@"
echo "test-console: passed in $(($(date +%s) - started)) s; screenshots in $CONSOLE_ARTIFACTS"
