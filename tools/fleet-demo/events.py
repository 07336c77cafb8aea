#!/usr/bin/env python3
"""Prints the fleet cloud's event stream with Tuya's own Python SDK (tuya-connector-python, unchanged).

    NBGW_CLOUD_SECRET=… events.py --url https://HOST:PORT --client-id ID --cursor-file FILE
        [--ca-file CA.pem] [--once | --follow] [--limit N] [--wait SECONDS]

The stream is `GET /v1.0/nbgw/events?after=CURSOR&limit=N&wait=SECONDS`, signed like every call,
answered in the usual envelope:

    {"success": true, "result": {"events": [{"cursor": "812-17", "type": "bound", "at": 1732856400000,
     "device_id": "…", "gateway": "…", "detail": "…"}, …], "next_cursor": "812-17"}}

(docs/cloud-api.yaml, `listEvents`; docs/fleet.md, "Events", says what `detail` carries per type.)

`after` omitted means from the start; `wait` long-polls up to that many seconds when nothing is
newer. Delivery is at least once: the cursor is written to --cursor-file (atomically) only after the
events before it were printed, so a consumer killed between the two prints them again on its next
run, and one that was stopped resumes where it left off. One line per event.

--once prints what exists and exits (the default); --follow keeps polling until Ctrl-C or SIGTERM.
The secret comes from NBGW_CLOUD_SECRET only, never from argv. With https, the cloud's certificate
is verified against --ca-file (a private CA), else REQUESTS_CA_BUNDLE, else the system's roots:
verification is never turned off.

Exit 0 when every answer was a success, 1 on a refusal or an answer that is not the envelope
(printed with the HTTP status and the cloud's code and message), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import signal
import sys
import tempfile
import time

from tuya_connector import TUYA_LOGGER, TuyaOpenAPI

EVENTS_PATH = "/v1.0/nbgw/events"
# Fields printed in this order after the type; any other field the cloud adds follows, sorted.
KNOWN_FIELDS = ("device_id", "gateway", "detail")


class StreamFailed(Exception):
    pass


class Consumer:
    def __init__(self, url: str, client_id: str, secret: str, ca_file: str | None) -> None:
        self.url = url.rstrip("/")
        self.api = TuyaOpenAPI(self.url, client_id, secret)
        if ca_file:
            # Verify against the private CA (never verify=False). requests lets REQUESTS_CA_BUNDLE and
            # CURL_CA_BUNDLE override a session's `verify` (the SDK gives no per-request one), so the
            # CA goes there too; both are often set to the system bundle, which lacks a private CA.
            os.environ["REQUESTS_CA_BUNDLE"] = ca_file
            os.environ.pop("CURL_CA_BUNDLE", None)
            self.api.session.verify = ca_file
        self.last_response = None
        # The SDK returns None on a status other than 200 (and crashes in its own error logging,
        # reading `response.body`): keep the last response to say what the cloud answered.
        self.api.session.hooks["response"].append(self._record)

    def _record(self, response, *args, **kwargs):
        self.last_response = response
        return response

    def call(self, what: str, perform) -> dict:
        self.last_response = None
        try:
            answer = perform()
        except Exception as error:  # the SDK's own failure, or the connection's
            raise StreamFailed(f"{what}: {self._described(error)}") from None
        if not isinstance(answer, dict):
            raise StreamFailed(f"{what}: {self._described(None)}")
        if answer.get("success") is not True:
            hint = ""
            if answer.get("code") == 1108 and EVENTS_PATH in what:
                hint = "; this cloud serves no event stream at this path (is nbgw-cloud older than the route?)"
            raise StreamFailed(
                f"{what}: refused by the cloud: code {answer.get('code')}: {answer.get('msg')}"
                f"{self._status_suffix()}{hint}"
            )
        return answer

    def _status_suffix(self) -> str:
        response = self.last_response
        return f" (HTTP {response.status_code})" if response is not None else ""

    def _described(self, error: Exception | None) -> str:
        response = self.last_response
        if response is None:
            return f"no answer from {self.url}: {error!r}"
        text = response.text.strip().replace("\n", " ")
        if len(text) > 300:
            text = text[:300] + "…"
        detail = f"HTTP {response.status_code} from {response.url.split('?')[0]}"
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict) and "success" in body:
            detail += f": code {body.get('code')}: {body.get('msg')}"
        elif text:
            detail += f": {text}"
        if response.status_code == 404 and EVENTS_PATH in response.url:
            detail += " (this cloud serves no event stream at this path: is nbgw-cloud older than the route?)"
        elif response.status_code == 404:
            detail += " (is --url the cloud's base URL, without a path?)"
        if error is not None:
            detail += f"; the SDK raised {type(error).__name__}"
        return detail

    def connect(self) -> None:
        self.call("token (GET /v1.0/token)", self.api.connect)

    def page(self, after: str | None, limit: int, wait: int) -> tuple[list[dict], str | None]:
        params: dict[str, object] = {"limit": limit}
        if after is not None:
            params["after"] = after
        if wait > 0:
            params["wait"] = wait
        answer = self.call(f"GET {EVENTS_PATH}", lambda: self.api.get(EVENTS_PATH, params))
        result = answer.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("events"), list):
            raise StreamFailed(f"GET {EVENTS_PATH}: the result has no events list: {json.dumps(answer)[:300]}")
        next_cursor = result.get("next_cursor")
        return result["events"], (str(next_cursor) if next_cursor is not None else None)


def read_cursor(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read().strip()
    except FileNotFoundError:
        return None
    return text or None


def write_cursor(path: str, cursor: str) -> None:
    """Writes the cursor atomically: a crash leaves the old cursor or the new one, never half."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".cursor.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(cursor + "\n")
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def event_line(event: dict) -> str:
    at = event.get("at")
    if isinstance(at, (int, float)):
        when = datetime.datetime.fromtimestamp(at / 1000, tz=datetime.timezone.utc)
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    else:
        stamp = "-"
    parts = [f"#{event.get('cursor', '?')}", stamp, str(event.get("type", "?"))]
    for key in KNOWN_FIELDS:
        if event.get(key) not in (None, ""):
            parts.append(f"{key}={event[key]}")
    for key in sorted(event):
        if key not in KNOWN_FIELDS and key not in ("cursor", "at", "type") and event[key] not in (None, ""):
            value = event[key] if isinstance(event[key], str) else json.dumps(event[key], sort_keys=True)
            parts.append(f"{key}={value}")
    return " ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Print the fleet cloud's event stream (Tuya's Python SDK); the secret from NBGW_CLOUD_SECRET.",
    )
    parser.add_argument("--url", required=True, help="the cloud, e.g. https://127.0.0.1:8443")
    parser.add_argument("--client-id", required=True, help="the client id to sign with")
    parser.add_argument("--cursor-file", required=True, help="where the cursor is kept between runs")
    parser.add_argument("--ca-file", help="a PEM file of the CA that signed the cloud's certificate")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="print what exists, then exit (default)")
    mode.add_argument("--follow", action="store_true", help="keep polling until Ctrl-C")
    parser.add_argument("--limit", type=int, default=100, help="events per request, 1-1000 (default 100)")
    parser.add_argument("--wait", type=int, default=25, help="--follow: seconds a poll waits, 0-25 (default 25)")
    arguments = parser.parse_args()
    secret = os.environ.get("NBGW_CLOUD_SECRET")
    if not secret:
        parser.error("set NBGW_CLOUD_SECRET to the client's secret (never on the command line)")
    if not 1 <= arguments.limit <= 1000:
        parser.error("--limit must be from 1 to 1000")
    if not 0 <= arguments.wait <= 25:
        parser.error("--wait must be from 0 to 25 seconds (a load balancer's server timeout must exceed it)")
    if arguments.ca_file and not os.path.isfile(arguments.ca_file):
        parser.error(f"--ca-file {arguments.ca_file}: no such file")
    # The SDK logs every request and answer at DEBUG, and its own failures at ERROR with a crash:
    # this script says what went wrong itself.
    TUYA_LOGGER.setLevel(logging.CRITICAL)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    consumer = Consumer(arguments.url, arguments.client_id, secret, arguments.ca_file)
    after = read_cursor(arguments.cursor_file)
    try:
        consumer.connect()
        while True:
            events, next_cursor = consumer.page(after, arguments.limit, arguments.wait if arguments.follow else 0)
            for event in events:
                print(event_line(event), flush=True)
            # The cursor moves only once the page is printed: at least once, never lost.
            if next_cursor is not None and next_cursor != after:
                write_cursor(arguments.cursor_file, next_cursor)
                after = next_cursor
            if not arguments.follow and len(events) < arguments.limit:
                break
            if arguments.follow and not events and arguments.wait == 0:
                time.sleep(1)  # no long poll asked for: poll once a second
    except StreamFailed as failure:
        print(f"events: {failure}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
