#!/usr/bin/env python3
"""Drives the pairing flow with Tuya's own Python SDK, unchanged, against a cloud of ours.

`tuya-connector-python` (pinned in tools/contract/requirements.txt) is what an integrator who
already speaks to Tuya's cloud would point at nbgw's: it signs without a nonce, sends JSON with
spaces after `:` and `,`, and reads only the body of an HTTP 200 (on any other status it crashes in
its own error logging). tools/contract/run.py starts the server and runs this script:

    NBGW_CLOUD_SECRET=… sdk_flow.py URL CLIENT_ID

Steps: token, register a module, parse its label, a pairing token, bind, pairing result, unbind,
and a client with a wrong secret, which must read code 1004. With NBGW_CLOUD_OPERATOR_ID and
NBGW_CLOUD_OPERATOR_SECRET (an operator's credential of nbgw-cloud), a back-office script's device
management with the same SDK too: details one and in bulk, transfer, freeze, the operation log,
unfreeze; and the gateway's credential refused a change (1106). Exit 0 when every step answered as
docs/cloud-api.yaml says, 1 otherwise, naming the step and the answer.
"""

from __future__ import annotations

import json
import logging
import os
import sys

from tuya_connector import TUYA_LOGGER, TuyaOpenAPI

IMEI = "356938035643809"


class StepFailed(Exception):
    pass


def expect(step: str, answer: object, check) -> dict:
    """The answer of `step` when it is an envelope that passes `check`; StepFailed otherwise."""
    if not isinstance(answer, dict):
        raise StepFailed(f"{step}: the SDK got no envelope (it returns None on a status other than 200): {answer!r}")
    if not check(answer):
        raise StepFailed(f"{step}: unexpected answer {json.dumps(answer)}")
    print(f"sdk-flow: {step}: ok", flush=True)
    return answer


def succeeded(answer: dict) -> bool:
    return answer.get("success") is True and "result" in answer


def run(url: str, client_id: str, secret: str) -> None:
    api = TuyaOpenAPI(url, client_id, secret)
    expect("token", api.connect(), lambda a: succeeded(a) and a["result"].get("access_token"))
    module = expect("register", api.post("/v1.0/iot-03/nb-modules", {"imei": IMEI}), succeeded)["result"]
    device = module["device_id"]
    expect(
        "qr parse",
        api.post("/v1.0/iot-03/qrcode/parse", {"code": module["qrcode"]}),
        lambda a: succeeded(a)
        and a["result"].get("action_name") == "device_net_conn_bind_nb"
        and a["result"].get("action_data", {}).get("id") == device,
    )
    token = expect(
        "pairing token",
        api.post("/v1.0/iot-03/device-registration/token", {"pairing_type": "NB", "asset_id": "lab", "uid": "alice"}),
        lambda a: succeeded(a) and a["result"].get("token"),
    )["result"]["token"]
    expect(
        "bind",
        api.post(
            "/v1.0/iot-03/device-registration/nb-bind",
            {"device_id": device, "asset_id": "lab", "uid": "alice", "token": token},
        ),
        succeeded,
    )
    expect(
        "pairing result",
        api.get(f"/v1.1/iot-03/device-registration/tokens/{token}"),
        lambda a: succeeded(a) and [d["device_id"] for d in a["result"]["success_devices"]] == [device],
    )
    operator = (os.environ.get("NBGW_CLOUD_OPERATOR_ID"), os.environ.get("NBGW_CLOUD_OPERATOR_SECRET"))
    if operator[0] and operator[1]:
        manage(TuyaOpenAPI(url, operator[0], operator[1]), api, device)
    expect(
        "bind again with the spent token",
        api.post(
            "/v1.0/iot-03/device-registration/nb-bind",
            {"device_id": device, "asset_id": "lab", "uid": "alice", "token": token},
        ),
        lambda a: a.get("success") is False and a.get("code") == 3003,
    )
    expect(
        "unbind",
        api.delete(f"/v1.0/iot-03/device-registration/bindings/{device}"),
        lambda a: succeeded(a) and a["result"].get("status") == "unbound",
    )
    wrong = TuyaOpenAPI(url, client_id, secret + "-wrong")
    expect("a wrong secret", wrong.connect(), lambda a: a.get("success") is False and a.get("code") == 1004)


def manage(ops: TuyaOpenAPI, gateway: TuyaOpenAPI, device: str) -> None:
    """Device management as a back-office script does it with the SDK (nbgw-cloud only)."""
    expect("operator token", ops.connect(), succeeded)
    expect(
        "device details",
        ops.get(f"/v1.0/iot-03/devices/{device}"),
        lambda a: succeeded(a) and a["result"].get("binding", {}).get("uid") == "alice",
    )
    expect(
        "device details in bulk",
        ops.get("/v1.0/iot-03/devices", {"device_ids": f"{device},nb-nosuch"}),
        lambda a: succeeded(a) and [d["device_id"] for d in a["result"]["list"]] == [device]
        and a["result"]["missing"] == ["nb-nosuch"],
    )
    move = {"from_uid": "alice", "from_home": "lab", "to_uid": "bob", "to_home": "den", "reason": "sold, ticket 7"}
    expect(
        "a gateway may not transfer",
        gateway.post(f"/v1.0/iot-03/devices/{device}/transfer", move),
        lambda a: a.get("success") is False and a.get("code") == 1106,
    )
    expect(
        "transfer",
        ops.post(f"/v1.0/iot-03/devices/{device}/transfer", move),
        lambda a: succeeded(a) and a["result"]["status"] == "transferred"
        and a["result"]["device"]["binding"]["home"] == "den",
    )
    expect(
        "devices of the new home",
        ops.get("/v1.0/iot-03/homes/den/devices"),
        lambda a: succeeded(a) and [d["device_id"] for d in a["result"]["list"]] == [device],
    )
    expect(
        "freeze",
        ops.post(f"/v1.0/iot-03/devices/{device}/freeze", {"frozen": True, "reason": "RMA 42"}),
        lambda a: succeeded(a) and a["result"]["status"] == "frozen",
    )
    expect(
        "unfreeze",
        ops.post(f"/v1.0/iot-03/devices/{device}/freeze", {"frozen": False, "reason": "repaired"}),
        lambda a: succeeded(a) and a["result"]["status"] == "unfrozen",
    )
    expect(
        "operation log",
        ops.get(f"/v1.0/iot-03/devices/{device}/logs"),
        lambda a: succeeded(a)
        and [e["type"] for e in a["result"]["list"]] == ["registered", "bound", "transferred", "frozen", "unfrozen"],
    )


def main() -> int:
    secret = os.environ.get("NBGW_CLOUD_SECRET")
    if len(sys.argv) != 3 or not secret:
        print(__doc__, file=sys.stderr)
        return 2
    # The SDK logs every request and answer at DEBUG; its own errors are what matters here.
    TUYA_LOGGER.setLevel(logging.ERROR)
    try:
        run(sys.argv[1], sys.argv[2], secret)
    except StepFailed as failure:
        print(f"sdk-flow: FAILED: {failure}", file=sys.stderr, flush=True)
        return 1
    except Exception as error:  # The SDK's own failure (it crashed on 4xx answers before 2.1).
        print(f"sdk-flow: FAILED: the SDK raised {error!r}", file=sys.stderr, flush=True)
        return 1
    print("sdk-flow: the official SDK's flow passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
