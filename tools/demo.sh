#!/usr/bin/env bash
# The main job on its embedded default (no network, no hardware): a fresh store under out/,
# an owner account and a home, a module registered with the embedded cloud, its pairing label
# parsed, the device bound, the binding listed. Run tools/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product nbgw
nbgw="$(swift build --show-bin-path)/nbgw"
mkdir -p out
export NBGW_DB="$PWD/out/demo.sqlite"
rm -f "$NBGW_DB" "$NBGW_DB-wal" "$NBGW_DB-shm"

step() { printf '\n\033[1m$ nbgw %s\033[0m\n' "$*"; "$nbgw" "$@"; }

step accounts add alice --role owner
step homes add alice-lab --owner alice --allow-product bc66-meter
step devices register --imei 490154203237518 --imsi 460001357924680 --iccid 89860012345678901234 \
    --manufacturer Quectel --model BC66 --firmware BC66NBR01A10 --product bc66-meter
label="$("$nbgw" devices register --imei 490154203237518 --json | sed -E 's/.*"qr":"([^"]*)".*/\1/')"
step qr parse "$label"
step bind --qr "$label" --account alice --home alice-lab
step bind --qr "$label" --account alice --home alice-lab
step bindings list --json
echo
echo "demo: store at $NBGW_DB (mode $(stat -c %a "$NBGW_DB")); try: $nbgw devices show 490154203237518"
