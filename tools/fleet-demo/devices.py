#!/usr/bin/env python3
"""Device management of the fleet cloud with Tuya's own Python SDK, as a back office's script does it.

    NBGW_CLOUD_SECRET=… devices.py --url https://HOST:PORT --client-id ID [--ca-file CA.pem] COMMAND DEVICE_ID

Commands: `show` (the device's details: registration, frozen or not, binding), `log` (its
operation log, oldest first), `freeze --reason TEXT`, `unfreeze --reason TEXT`. The changes need
an operator's credential (`nbgw-cloud operators add`); a gateway's is refused with code 1106.
Signed, verified and reported as tools/fleet-demo/events.py does (the same client class); the
calls are docs/cloud-api.yaml's `devices` tag. Exit 0 on success, 1 when the cloud refused (its
code and message printed), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from events import Consumer, StreamFailed, event_line
from tuya_connector import TUYA_LOGGER

DEVICES_PATH = "/v1.0/iot-03/devices"


def describe(device: dict) -> str:
    binding = device.get("binding")
    owner = f"bound to {binding['uid']} in {binding['home']} through {binding['gateway']}" if binding else "bound to nobody"
    frozen = f"frozen ({device.get('frozen_reason')})" if device.get("frozen") else "not frozen"
    return f"{device['device_id']} imei {device['imei']} registered by {device['registered_by']}: {owner}, {frozen}"


def main() -> int:
    parser = argparse.ArgumentParser(description="Manage a fleet cloud's devices (Tuya's Python SDK).")
    parser.add_argument("--url", required=True, help="the cloud, e.g. https://127.0.0.1:8443")
    parser.add_argument("--client-id", required=True, help="the client id to sign with (an operator's, to change)")
    parser.add_argument("--ca-file", help="a PEM file of the CA that signed the cloud's certificate")
    parser.add_argument("command", choices=["show", "log", "freeze", "unfreeze"])
    parser.add_argument("device_id")
    parser.add_argument("--reason", help="freeze, unfreeze: why (kept in the operation log)")
    arguments = parser.parse_args()
    secret = os.environ.get("NBGW_CLOUD_SECRET")
    if not secret:
        parser.error("set NBGW_CLOUD_SECRET to the client's secret (never on the command line)")
    if arguments.command in ("freeze", "unfreeze") and not arguments.reason:
        parser.error(f"{arguments.command} needs --reason (it goes to the device's operation log)")
    if arguments.ca_file and not os.path.isfile(arguments.ca_file):
        parser.error(f"--ca-file {arguments.ca_file}: no such file")
    TUYA_LOGGER.setLevel(logging.CRITICAL)

    client = Consumer(arguments.url, arguments.client_id, secret, arguments.ca_file)
    path = f"{DEVICES_PATH}/{arguments.device_id}"
    api = client.api
    try:
        client.connect()
        if arguments.command == "show":
            answer = client.call(f"GET {path}", lambda: api.get(path))
            print(describe(answer["result"]), flush=True)
        elif arguments.command == "log":
            after = None
            while True:
                params = {"page_size": 100, **({"last_row_key": after} if after else {})}
                page = client.call(f"GET {path}/logs", lambda: api.get(f"{path}/logs", params))["result"]
                for event in page["list"]:
                    print(event_line(event), flush=True)
                if not page.get("has_more"):
                    break
                after = page["last_row_key"]
        else:
            body = {"frozen": arguments.command == "freeze", "reason": arguments.reason}
            answer = client.call(f"POST {path}/freeze", lambda: api.post(f"{path}/freeze", body))
            result = answer["result"]
            print(f"{result['status']}: {describe(result['device'])}", flush=True)
    except StreamFailed as failure:
        print(f"devices: {failure}", file=sys.stderr, flush=True)
        return 1
    except (KeyError, TypeError) as error:
        print(f"devices: an answer without the field {error}: {json.dumps(client.last_response.json())[:300]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
