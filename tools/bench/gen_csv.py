#!/usr/bin/env python3
"""Writes the benchmark's input: N rows of scanned payloads for devices nb000…N, with a
realistic share of bad rows (about 2%: garbage, unknown labels, Matter codes, a duplicate,
empty qr cells, a broken quote). 90% are label URLs, 10% the parse-result JSON form; with
the third argument `json`, every good row is the JSON form (the issue's JSON-payload workload),
compact; `json-spaced` writes it as json.dumps does by default (a space after `:` and `,`);
`json-pretty` pretty-printed with tabs and line breaks (a quoted cell over several lines).

Usage: gen_csv.py N OUT [mix|json|json-spaced|json-pretty]"""
import json
import sys

n = int(sys.argv[1])
out = sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "mix"
json_only = mode != "mix"
layout = {"json": {"separators": (",", ":")}, "json-spaced": {}, "json-pretty": {"indent": "\t"}}.get(mode, {"separators": (",", ":")})
with open(out, "w", newline="") as f:
    w = f.write
    w("qr,ref\r\n")
    for i in range(1, n + 1):
        r = i % 100
        if r == 7:
            w(f"garbage-{i},bad\r\n")
        elif r == 17:
            w(f"https://nbgw.local/d/X{i:011d},unknown\r\n")
        elif r == 27:
            w("MT:-24J042C00KA0648G00,matter\r\n")
        elif r == 37:
            w(f",empty-{i}\r\n")
        elif r == 47 and i > 1000:
            w(f"https://nbgw.local/d/L{i - 1000:011d},dup\r\n")
        elif r == 57:
            w(f'"broken"quote{i},bad\r\n')
        elif json_only or r % 10 == 3:
            payload = json.dumps({"actionName": "device_net_conn_bind_nb", "actionData": {"id": f"nb{i:018d}"}}, **layout)
            cell = payload.replace('"', '""')
            w(f'"{cell}",json{i}\r\n')
        else:
            w(f"https://nbgw.local/d/L{i:011d},r{i}\r\n")
