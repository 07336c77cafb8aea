#!/usr/bin/env bash
# Does the way a JSON payload is written change how fast a batch binds it? `nbgw bind --csv` on the
# same rows with every good row's payload written three ways (tools/bench/gen_csv.py): compact
# (the baseline, in the same run), as json.dumps writes it by default (a space after `:` and `,`),
# and pretty-printed (tabs and line breaks inside the quoted CSV cell). Goal (docs/cli.md, "CSV
# batches"): each layout at >= 0.9x the compact rate.
#
#   tools/bench-json-layouts.sh [N]          N rows (default 300000), REPEAT runs each (default 3),
#                                            interleaved, each on a fresh copy of the store; medians
#   OLD_BIN=/path/to/nbgw tools/bench-json-layouts.sh
#                                            measures that binary too, interleaved (an older
#                                            commit's release build: before and after in one run)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-300000}"
repeat="${REPEAT:-3}"
swift build -c release --product nbgw >/dev/null
new="$(swift build -c release --show-bin-path)/nbgw"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export NBGW_DB="$work/store.sqlite"

"$new" accounts add bench >/dev/null
"$new" homes add bench-home --owner bench >/dev/null
sqlite3 "$NBGW_DB" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $n)
INSERT INTO device (device_id, imei, product_id, label_code, registered_at, updated_at)
SELECT printf('nb%018d', i), printf('35%013d', i), 'meter', printf('L%011d', i), 0, 0 FROM n;
SQL
mv "$NBGW_DB" "$work/base.sqlite"
layouts="json json-spaced json-pretty"
for layout in $layouts; do python3 tools/bench/gen_csv.py "$n" "$work/$layout.csv" "$layout"; done

binaries="new"
[ -n "${OLD_BIN:-}" ] && binaries="old new"
results="$work/results.txt"
: >"$results"
for _ in $(seq "$repeat"); do
    for binary in $binaries; do
        bin=$new
        [ "$binary" = old ] && bin=$OLD_BIN
        for layout in $layouts; do
            rm -f "$NBGW_DB" "$NBGW_DB-wal" "$NBGW_DB-shm" "$work/$layout.csv.report.csv"
            cp "$work/base.sqlite" "$NBGW_DB"
            "$bin" bind --csv "$work/$layout.csv" --account bench --home bench-home --operator bench --json \
                >"$work/summary.json" || true
            python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], s["seconds"], s["bound"])' \
                "$work/summary.json" "$binary" "$layout" >>"$results"
        done
    done
done

python3 - "$n" "$results" <<'PY'
import collections, statistics, sys
n = int(sys.argv[1])
runs = collections.defaultdict(list)
bound = {}
for line in open(sys.argv[2]):
    binary, layout, seconds, count = line.split()
    runs[(binary, layout)].append(float(seconds))
    bound[(binary, layout)] = int(count)
for binary in ("old", "new"):
    if (binary, "json") not in runs:
        continue
    compact = n / statistics.median(runs[(binary, "json")])
    for layout in ("json", "json-spaced", "json-pretty"):
        values = runs[(binary, layout)]
        rate = n / statistics.median(values)
        print(f"{binary} {layout:12} {rate:10,.0f} rows/s = {rate / compact:.2f} x compact  "
              f"(bound {bound[(binary, layout)]}; {'/'.join(f'{v:.2f}' for v in values)} s)")
PY
