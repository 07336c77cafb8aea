#!/usr/bin/env bash
# Checks docs/ingest-api.yaml and docs/cloud-api.yaml against the real servers with schemathesis
# (every check, stateful phase included; docs/ingest.md "Contract checks"), and drives the pairing
# flow with Tuya's own Python SDK (tools/contract/sdk_flow.py). Needs the debug build
# (`swift build`) and the Python tools tools/setup.sh installs into .build-venv/.
#
#   tools/api-contract.sh [ingest|cloud|sdk|all] [--seed N] [--examples N] [--max-steps N] [--keep] [-- SCHEMATHESIS-ARGS]
#
# Defaults are CI's: both APIs, seed 18, 25 examples per operation and phase, 12 steps per
# stateful scenario. Exit 0 when schemathesis reports no failure.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-venv
if [ ! -x "$venv/bin/schemathesis" ]; then
    echo "api-contract: no $venv/bin/schemathesis; run tools/setup.sh (it installs tools/contract/requirements.txt)" >&2
    exit 2
fi
bin=$(swift build --show-bin-path)
for binary in nbgw nbgw-cloud-emulator nbgw-cloud; do
    if [ ! -x "$bin/$binary" ]; then
        echo "api-contract: no $bin/$binary; run swift build first" >&2
        exit 2
    fi
done
exec "$venv/bin/python" tools/contract/run.py --bin "$bin" --venv "$venv" "$@"
