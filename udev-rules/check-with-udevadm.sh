#!/usr/bin/env bash
# Runs systemd's own `udevadm test` over the testbed's fake modules with udev-rules/90-nbgw.rules and the local
# template udev-rules/89-nbgw-local.rules.example (installed as 89-nbgw-local.rules), without installing anything: udevadm comes out of Debian's `udev` package unpacked in a temporary directory, and
# runs under umockdev inside a private mount namespace (a tmpfs on /run holds the rules, an overlay on /dev
# keeps the links udevadm creates). Needs root (for unshare) and a built nbgw-udev-testbed.
#
#   udev-rules/check-with-udevadm.sh [.build/debug/nbgw-udev-testbed] [KIND...]
#
# Prints, per tty, the properties and links the rules produced, and fails on any warning udevadm logs
# about either rules file. Set UDEVADM=/path/to/udevadm to use an installed or unpacked one.
set -euo pipefail
cd "$(dirname "$0")/.."
testbed=${1:-.build/debug/nbgw-udev-testbed}
shift || true
kinds=("$@")
((${#kinds[@]})) || kinds=(bg95 bg96 sim7080 thingy91 cp210x zigbee bc66board)
[ "$(id -u)" -eq 0 ] || { echo "check-with-udevadm: needs root for unshare -m" >&2; exit 2; }
command -v umockdev-run >/dev/null || { echo "check-with-udevadm: install umockdev" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
udevadm=${UDEVADM:-}
if [ -z "$udevadm" ]; then
    (cd "$work" && apt-get download udev >/dev/null 2>&1) || { echo "check-with-udevadm: apt-get download udev failed" >&2; exit 2; }
    dpkg-deb -x "$work"/udev_*.deb "$work/udev"
    udevadm="$work/udev/bin/udevadm"
fi
rules="$PWD/udev-rules/90-nbgw.rules"
cp "$PWD/udev-rules/89-nbgw-local.rules.example" "$work/89-nbgw-local.rules"
local_rules="$work/89-nbgw-local.rules"
status=0
for kind in "${kinds[@]}"; do
    "$testbed" describe "$kind" --no-udev-properties >"$work/$kind.umockdev"
    for tty in $(sed -n 's/^P: \(.*\/tty\/tty[A-Z]*[0-9]*\)$/\1/p' "$work/$kind.umockdev"); do
        echo "== $kind ${tty##*/}"
        unshare -m --propagation private bash -euo pipefail -c '
            scratch=$(mktemp -d)
            mount -t tmpfs none "$scratch"
            mkdir -p "$scratch/upper" "$scratch/work" "$scratch/pts"
            mount --bind /dev/pts "$scratch/pts"
            mount -t overlay overlay -o "lowerdir=/dev,upperdir=$scratch/upper,workdir=$scratch/work" /dev
            mount --move "$scratch/pts" /dev/pts
            mount -t tmpfs none /run
            mkdir -p /run/udev/rules.d
            cp "$1" "$5" /run/udev/rules.d/
            umockdev-run --device "$2" -- "$3" test --action=add "/sys$4" 2>&1
        ' check "$rules" "$work/$kind.umockdev" "$udevadm" "$tty" "$local_rules" >"$work/out" || status=1
        if grep -E "(90-nbgw|89-nbgw-local).rules:[0-9]+ .*(Invalid|invalid|ignoring|[Ww]arning|[Ff]ailed)" "$work/out"; then
            status=1
        fi
        grep -E "^(ID_NBGW_[A-Z_]*|ID_MM_DEVICE_IGNORE|DEVLINKS)=|(90-nbgw|89-nbgw-local).rules:[0-9]+ (GROUP|MODE)" \
            "$work/out" || echo "(nothing set)"
    done
done
exit $status
