#!/usr/bin/env python3
"""The baseline the issue asks for: a straightforward Python sqlite3 script applying the same
rules as `nbgw bind --csv` (parse the QR as JSON/URL/label, find the device, refuse bound ones,
duplicates, guests, foreign homes; insert the binding and its audit row), committing every
5,000 rows. No report, no resume: strictly less work than nbgw does."""
import csv, json, sqlite3, sys, time
from urllib.parse import urlparse, parse_qs

db_path, csv_path, account, home = sys.argv[1:5]
db = sqlite3.connect(db_path, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
acc = db.execute("SELECT id, role FROM account WHERE name=?", (account,)).fetchone()
hm = db.execute("SELECT id, owner_account_id FROM home WHERE name=?", (home,)).fetchone()
start = time.time()
rows = bound = failed = 0
seen = {}
db.execute("BEGIN IMMEDIATE")
with open(csv_path, newline="", encoding="utf-8-sig") as f:
    reader = csv.DictReader(f)
    for rec in reader:
        rows += 1
        qr = (rec.get("qr") or "").strip()
        dev = None
        try:
            if not qr:
                raise ValueError("MISSING_FIELD")
            if qr.startswith("{"):
                obj = json.loads(qr)
                if obj.get("actionName") != "device_net_conn_bind_nb":
                    raise ValueError("NOT_NB_DEVICE")
                dev = db.execute(
                    "SELECT d.id, d.device_id, d.imei, b.account_id FROM device d LEFT JOIN binding b ON b.device_row=d.id WHERE d.device_id=?",
                    (obj["actionData"]["id"],)).fetchone()
            elif qr.startswith("http"):
                u = urlparse(qr)
                q = parse_qs(u.query)
                if "actionName" in q:
                    dev = db.execute(
                        "SELECT d.id, d.device_id, d.imei, b.account_id FROM device d LEFT JOIN binding b ON b.device_row=d.id WHERE d.device_id=?",
                        (q["id"][0],)).fetchone()
                else:
                    code = u.path.rsplit("/", 1)[-1]
                    dev = db.execute(
                        "SELECT d.id, d.device_id, d.imei, b.account_id FROM device d LEFT JOIN binding b ON b.device_row=d.id WHERE d.label_code=?",
                        (code,)).fetchone()
            else:
                raise ValueError("QR_PROTOCOL_NOT_RECOGNIZED")
            if dev is None:
                raise ValueError("UNKNOWN_DEVICE")
            if dev[0] in seen:
                raise ValueError("DUPLICATE_IN_FILE")
            seen[dev[0]] = rows
            if acc is None or acc[1] != "owner" or hm is None or hm[1] != acc[0]:
                raise ValueError("ACCOUNT")
            if dev[3] is not None:
                raise ValueError("DEVICE_ALREADY_BOUND")
            now = int(time.time() * 1000)
            db.execute("INSERT INTO binding (device_row, account_id, home_id, bound_at, source, operator) VALUES (?,?,?,?, 'csv', ?)",
                       (dev[0], acc[0], hm[0], now, "bench"))
            db.execute("INSERT INTO audit_log (at, event, device_id, imei, account, home, source, operator, detail) VALUES (?, 'bind', ?, ?, ?, ?, 'csv', ?, ?)",
                       (now, dev[1], dev[2], account, home, "bench", f"line {rows + 1}"))
            bound += 1
        except (ValueError, KeyError, json.JSONDecodeError):
            failed += 1
        if rows % 5000 == 0:
            db.execute("COMMIT")
            db.execute("BEGIN IMMEDIATE")
db.execute("COMMIT")
elapsed = time.time() - start
print(json.dumps({"rows": rows, "bound": bound, "failed": failed, "seconds": elapsed}))
