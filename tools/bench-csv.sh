#!/usr/bin/env bash
# Benchmark of `nbgw bind --csv` (release build) against two baselines measured in the same run:
#   - `sqlite3 .import` of the same CSV into a plain table (raw SQLite speed, no rules),
#   - a straightforward Python sqlite3 script applying the same rules (tools/bench/python_baseline.py).
# Usage: tools/bench-csv.sh [N]   (default 1000000). Prints rows/s, the ratios and peak RSS.
#        REPEAT=5 tools/bench-csv.sh   runs nbgw, .import and the floor that many times each,
#        interleaved, each on a fresh copy of the store (default 3), and reports the medians: on
#        this 2-core machine one run of the floor took 3.5 s and the next 4.6 s, so a ratio of
#        single runs moved by a tenth from run to run. The Python baseline runs once (30 s).
#        MIX=json tools/bench-csv.sh   every good row a JSON payload instead of the mix (90 % label
#        URLs, 10 % JSON), the same bad rows; MIX=json-spaced or json-pretty writes that JSON as
#        json.dumps does by default or pretty-printed (tools/bench-json-layouts.sh compares them).
#        NBGW_BIN=/path/to/nbgw tools/bench-csv.sh   measures that binary (e.g. an older commit's
#        release build, for a before/after in the same hour) instead of building this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000000}"
repeat="${REPEAT:-3}"
if [ -n "${NBGW_BIN:-}" ]; then
    nbgw="$NBGW_BIN"
else
    swift build -c release --product nbgw >/dev/null
    nbgw="$(swift build -c release --show-bin-path)/nbgw"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export NBGW_DB="$work/store.sqlite"

"$nbgw" accounts add bench >/dev/null
"$nbgw" homes add bench-home --owner bench >/dev/null
# N registered devices, written straight into the store (registering 1 M modules through the CLI
# would benchmark registration, not binding).
sqlite3 "$NBGW_DB" <<SQL
PRAGMA journal_mode=WAL;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $n)
INSERT INTO device (device_id, imei, product_id, label_code, registered_at, updated_at)
SELECT printf('nb%018d', i), printf('35%013d', i), 'meter', printf('L%011d', i), 0, 0 FROM n;
SQL
python3 tools/bench/gen_csv.py "$n" "$work/in.csv" "${MIX:-mix}"
cp "$NBGW_DB" "$work/python.sqlite"
mv "$NBGW_DB" "$work/base.sqlite"
echo "input: $n rows, $(du -h "$work/in.csv" | cut -f1); $repeat runs of nbgw, .import and the floor, interleaved"

# 1. nbgw, on a fresh copy of the store
run_nbgw() {
    rm -f "$NBGW_DB" "$NBGW_DB-wal" "$NBGW_DB-shm" "$work/in.csv.report.csv"
    cp "$work/base.sqlite" "$NBGW_DB"
    /usr/bin/time -v -o "$work/time.txt" "$nbgw" bind --csv "$work/in.csv" --account bench --home bench-home \
        --operator bench --json >"$work/summary.json" || true
    nbgw_s="$nbgw_s $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$work/summary.json")"
    rss_kb="$rss_kb $(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$work/time.txt")"
}

# 2. sqlite3 .import into a plain table
run_import() {
    rm -f "$work"/import.sqlite*
    import_s="$import_s $(python3 - "$work" <<'PY'
import subprocess, sys, time
work = sys.argv[1]
subprocess.run(["sqlite3", f"{work}/import.sqlite", "PRAGMA journal_mode=WAL; CREATE TABLE plain (qr TEXT, ref TEXT);"], check=True, capture_output=True)
start = time.time()
subprocess.run(["sqlite3", f"{work}/import.sqlite", ".import --csv --skip 1 " + f"{work}/in.csv plain"], check=True, capture_output=True)
print(time.time() - start)
PY
)"
}

# 3. SQLite's own floor for the same writes: one INSERT ... SELECT per table over all devices
#    (no CSV, no parsing, no rules, no per-row statements): what the schema's inserts, indexes,
#    triggers and foreign keys cost by themselves. The writes of the store's schema: from
#    migration v12 a batch bind's audit is its batch_job_device row (no audit_log row); before
#    it, a separate audit_log row (NBGW_BIN of an older commit makes an older store).
run_floor() {
    rm -f "$work"/floor.sqlite*
    cp "$work/base.sqlite" "$work/floor.sqlite"
    floor_s="$floor_s $(python3 - "$work" "$n" <<'PY'
import subprocess, sys, time
work, n = sys.argv[1], int(sys.argv[2])
v12 = subprocess.run(["sqlite3", f"{work}/floor.sqlite", "SELECT count(*) FROM sqlite_schema WHERE name = 'audit_trail'"],
                     check=True, capture_output=True, text=True).stdout.strip() == "1"
job = "INSERT INTO batch_job (input_path,input_size,input_mtime_ns,report_path,started_at,updated_at,next_offset,next_line) VALUES ('x',0,0,'r',0,0,0,1);"
bind = "INSERT INTO binding (device_row, account_id, home_id, token_id, bound_at, source, operator) SELECT id, 1, 1, NULL, 0, 'csv', 'bench' FROM device;"
if v12:
    writes = job + "INSERT INTO batch_job_device (device_row, job_id, line, bound_at, account_id, home_id, operator) SELECT id, 1, id + 1, 0, 1, 1, 'bench' FROM device;" + bind
else:
    writes = job + "INSERT INTO batch_job_device SELECT 1, id, id + 1 FROM device;" + bind + \
        "INSERT INTO audit_log (at, event, device_id, imei, account, home, source, operator, detail) SELECT 0, 'bind', device_id, imei, 'bench', 'bench-home', 'csv', 'bench', 'job#1 line ' || id FROM device;"
sql = "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL; BEGIN;" + writes + "COMMIT;"
start = time.time()
subprocess.run(["sqlite3", f"{work}/floor.sqlite"], input=sql.encode(), check=True, capture_output=True)
print(time.time() - start)
PY
)"
}

nbgw_s="" rss_kb="" import_s="" floor_s=""
for _ in $(seq "$repeat"); do
    run_nbgw
    run_import
    run_floor
done

# 4. Python with the same rules
py_json=$(python3 tools/bench/python_baseline.py "$work/python.sqlite" "$work/in.csv" bench bench-home)
py_s=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seconds"])' "$py_json")

python3 - "$n" "$nbgw_s" "$import_s" "$py_s" "$rss_kb" "$work/summary.json" "$floor_s" "${MIX:-mix}" <<'PY'
import json, statistics, sys
n, py_s = int(sys.argv[1]), float(sys.argv[4])
runs = {name: [float(v) for v in sys.argv[i].split()] for name, i in (("nbgw", 2), ("import", 3), ("floor", 7))}
rss_kb = [int(v) for v in sys.argv[5].split()]
summary = json.load(open(sys.argv[6]))
json_only = sys.argv[8].startswith("json")
med = {name: statistics.median(values) for name, values in runs.items()}
spread = {name: "/".join(f"{v:.2f}" for v in values) for name, values in runs.items()}
rate = n / med["nbgw"]
print(f"nbgw bind --csv : {rate:12,.0f} rows/s  (median {med['nbgw']:.2f} s in-process of {spread['nbgw']})  bound={summary['bound']} failed={summary['failed']} {summary['failuresByCode']}")
print(f"sqlite3 .import : {n / med['import']:12,.0f} rows/s  (median {med['import']:.2f} s of {spread['import']})   ratio nbgw/.import = {rate / (n / med['import']):.2f}  (goal >= {0.15 if json_only else 0.25})")
print(f"python baseline : {n / py_s:12,.0f} rows/s  ({py_s:.2f} s, one run)   ratio nbgw/python  = {rate / (n / py_s):.2f}  (goal >= 2)")
print(f"SQL floor       : {n / med['floor']:12,.0f} rows/s  (median {med['floor']:.2f} s of {spread['floor']})   ratio nbgw/floor   = {rate / (n / med['floor']):.2f}  (goal >= 0.85; same writes, set-wise, no parsing or rules)")
print(f"peak RSS        : {max(rss_kb) / 1024:.1f} MiB, the largest of the runs  (goal < 64 MiB)")
PY
