#!/usr/bin/env bash
# Installs the Debian packages nbgw needs that are missing (idempotent: installed ones are skipped),
# then resolves the Swift packages. Safe to run any number of times.
set -euo pipefail
cd "$(dirname "$0")/.."

# libsqlite3-dev: GRDB and CSQLite link the system SQLite. sqlite3 and time: the benchmarks (baseline,
# peak RSS) and inspecting stores. libudev-dev: the daemon's port discovery (enumeration, hot-plug).
# umockdev + libumockdev-dev: fake udev devices in the discovery tests. wrk: the ingest benchmark.
# openssl and curl: the TLS tests make throwaway certificates and call the HTTPS server.
# python3-prometheus-client: the daemon tests parse /metrics with the Prometheus client's own parser.
# libqrencode-dev, libcairo2-dev, libzbar-dev, libpng-dev, libturbojpeg0-dev: labels (QR matrix; PNG, SVG,
# PDF and text) and reading QR codes in photos and console camera frames (zbar; PNG and JPEG decoded to
# grey). fonts-dejavu-core: the labels' text.
# poppler-utils: the label and console tests render PDF labels back to images (pdftoppm). chromium,
# chromium-driver and python3-venv: the console's browser tests (tools/test-console.sh; Selenium
# goes into .build-venv).
# postgresql-15 (initdb, pg_ctl, postgres, pgbench) and postgresql-client-15 (psql): the fleet cloud,
# nbgw-cloud, stores in PostgreSQL; its tests and the fleet demo start a private cluster of their own
# as an unprivileged user with tools/pg-cluster.sh, and pgbench measures the floor its benchmarks are
# read against. Debian's package also creates a system cluster (15/main, port 5432) and starts it
# where services may start: harmless, but nbgw never uses it.
# haproxy: the load balancer of tools/fleet-demo.sh and docs/fleet.md (TLS in front of the nbgw-cloud
# nodes, health checks on /healthz); the demo runs it unprivileged from a config of its own. Debian's
# package also enables a system haproxy.service whose configuration listens nowhere: nbgw never uses it.
packages=(libsqlite3-dev sqlite3 pkg-config time libudev-dev umockdev libumockdev-dev wrk openssl curl
    python3-prometheus-client libqrencode-dev libcairo2-dev libzbar-dev libpng-dev libturbojpeg0-dev fonts-dejavu-core
    poppler-utils chromium chromium-driver python3-venv postgresql-15 postgresql-client-15 haproxy)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "setup: system packages present (${packages[*]})"
fi

# Selenium for the browser tests, pinned, in a venv of its own (never the system's site-packages).
# Why 4.50.0, not the newest: 4.52 wants a certifi newer than the package index here offers.
selenium_version=4.50.0
venv=.build-venv
if ! "$venv/bin/python3" -c "import selenium, sys; sys.exit(selenium.__version__ != '$selenium_version')" 2>/dev/null; then
    echo "setup: installing selenium $selenium_version into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "selenium==$selenium_version"
fi
# axe-core for the browser tests' accessibility checks (WCAG 2 A and AA on every console page):
# axe-core-python carries axe-core 4.4's script (the npm registry is not reachable here).
if ! "$venv/bin/python3" -c "import axe_core_python" 2>/dev/null; then
    echo "setup: installing axe-core-python 0.1.0 into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps "axe-core-python==0.1.0"
fi

command -v swift >/dev/null || { echo "setup: the Swift toolchain is not on PATH; install Swift 6 first" >&2; exit 1; }
swift package resolve >/dev/null

# The contract checks' Python tools (openapi-spec-validator, schemathesis), pinned, in a
# virtualenv of their own (.build-venv/, ignored by git like every .build* folder).
command -v python3 >/dev/null || { echo "setup: python3 is not on PATH; install it (Debian: python3-venv)" >&2; exit 1; }
if [ ! -x .build-venv/bin/python ]; then
    python3 -m venv .build-venv
fi
if ! .build-venv/bin/pip install --quiet --disable-pip-version-check -r tools/contract/requirements.txt; then
    echo "setup: could not install tools/contract/requirements.txt from PyPI into .build-venv" >&2
    exit 1
fi
echo "setup: done"
