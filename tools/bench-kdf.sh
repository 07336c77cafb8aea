#!/usr/bin/env bash
# What a console sign-in's password check costs: `nbgw operators add --generate` (one scrypt
# derivation at the console's cost, N=2^15 r=8 p=3, plus the process and the store) against
# `nbgw operators list` (the same process and store, no derivation) in the same run, and, as a
# second baseline, OpenSSL's scrypt with the same parameters through Python's hashlib.
# NBGW_BIN=path/to/nbgw picks a binary (default: a release build); ROUNDS (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-5}"
if [[ -z "${NBGW_BIN:-}" ]]; then
    swift build -c release --product nbgw >/dev/null
    NBGW_BIN="$(swift build -c release --show-bin-path)/nbgw"
fi
store="$(mktemp -d)/bench.sqlite"
export NBGW_DB="$store"
"$NBGW_BIN" operators add bench --generate >/dev/null
ms() { local start end; start=$(date +%s%N); "$@" >/dev/null; end=$(date +%s%N); echo $(((end - start) / 1000000)); }
echo "round add_ms list_ms kdf_ms openssl_ms"
for round in $(seq 1 "$rounds"); do
    add=$(ms "$NBGW_BIN" operators add bench --generate --replace)
    list=$(ms "$NBGW_BIN" operators list)
    openssl=$(python3 -c "
import hashlib, time
t = time.perf_counter()
hashlib.scrypt(b'password', salt=b'0123456789abcdef', n=2**15, r=8, p=3, maxmem=64 * 1024 * 1024, dklen=32)
print(int((time.perf_counter() - t) * 1000))")
    echo "$round $add $list $((add - list)) $openssl"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$(dirname "$store")"
