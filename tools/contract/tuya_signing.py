"""Schemathesis hook: signs every request to the cloud emulator as nbgw's HTTPCloud does.

Loaded by tools/contract/run.py through `hooks` in the generated schemathesis.toml. The signature
covers the exact bytes on the wire (method, body, signed headers, path and sorted query), so it is
made on the prepared `requests` request, after schemathesis has serialized everything
(docs/cloud-api.yaml "Signing"; Sources/TuyaCloud/TuyaSigner.swift is the reference).

Credentials come from the environment (NBGW_CLOUD_CLIENT_ID, NBGW_CLOUD_SECRET), never from argv.
Probes that schemathesis sends to check that authentication is enforced (`ignored_auth`) are sent
without this auth object, so they arrive unsigned, as they must.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from urllib.parse import unquote_to_bytes, urlsplit

import requests
import schemathesis
from schemathesis.core.parameters import ParameterLocation

CLIENT_ID = os.environ["NBGW_CLOUD_CLIENT_ID"]
SECRET = os.environ["NBGW_CLOUD_SECRET"].encode()
TOKEN_PATH = "/v1.0/token"
IDEMPOTENCY = "Idempotency-Key"


def form_decode(text: str) -> str:
    """`+` as a space, then `%XX` (the emulator's query decoding); undecodable bytes kept as they are."""
    return unquote_to_bytes(text.replace("+", " ")).decode("utf-8", "surrogateescape")


def canonical_url(url: str) -> str:
    """Path plus `?` and the decoded query items sorted by name (stable), as TuyaSigner.canonicalURL."""
    parts = urlsplit(url)
    items = []
    for item in parts.query.split("&"):
        if not item:
            continue
        name, _, value = item.partition("=")
        items.append((form_decode(name), form_decode(value)))
    items.sort(key=lambda pair: pair[0])
    path = parts.path or "/"
    if not items:
        return path
    return path + "?" + "&".join(f"{name}={value}" for name, value in items)


def signed_headers(method: str, url: str, body: bytes, access_token: str | None, extra: list[tuple[str, str]]):
    """The signing headers for one request (client_id, sign, sign_method, t, nonce, access_token)."""
    string_to_sign = (
        method.upper()
        + "\n"
        + hashlib.sha256(body).hexdigest()
        + "\n"
        + "".join(f"{name}:{value}\n" for name, value in extra)
        + "\n"
        + canonical_url(url)
    )
    t = str(int(time.time() * 1000))
    nonce = secrets.token_hex(16)
    message = CLIENT_ID + (access_token or "") + t + nonce + string_to_sign
    sign = hmac.new(SECRET, message.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest().upper()
    headers = {"client_id": CLIENT_ID, "sign": sign, "sign_method": "HMAC-SHA256", "t": t, "nonce": nonce}
    if access_token is not None:
        headers["access_token"] = access_token
    return headers


def is_token_style(path: str) -> bool:
    """Token calls and the emulator's admin calls are signed without an access token."""
    return path == TOKEN_PATH or path.startswith(TOKEN_PATH + "/") or path.startswith("/admin/")


class TuyaSigning(requests.auth.AuthBase):
    """Signs a prepared request; fetches and caches the access token business calls carry."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: tuple[str, float] | None = None

    def access_token(self, origin: str) -> str:
        with self._lock:
            if self._token is not None and self._token[1] > time.time() + 60:
                return self._token[0]
            url = origin + TOKEN_PATH + "?grant_type=1"
            headers = signed_headers("GET", url, b"", None, [])
            response = requests.get(url, headers=headers, timeout=10)
            envelope = response.json()
            if not envelope.get("success"):
                raise RuntimeError(f"the emulator refused the hook's token call: {json.dumps(envelope)}")
            result = envelope["result"]
            self._token = (result["access_token"], time.time() + int(result["expire_time"]))
            return self._token[0]

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        parts = urlsplit(request.url)
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode("utf-8")
        token = None if is_token_style(parts.path) else self.access_token(f"{parts.scheme}://{parts.netloc}")
        extra = []
        if IDEMPOTENCY in request.headers:
            # A key must be signed (docs/cloud-api.yaml "Idempotency"), as HTTPCloud signs it.
            extra.append((IDEMPOTENCY, request.headers[IDEMPOTENCY]))
            request.headers["Signature-Headers"] = IDEMPOTENCY
        request.headers.update(signed_headers(request.method, request.url, body, token, extra))
        # Refusals with their own HTTP status, which is what schemathesis checks; without it they
        # are HTTP 200 with the envelope, as Tuya's SDKs expect (docs/cloud-api.yaml, "Envelope and
        # statuses"; tools/contract/sdk_flow.py drives that default with Tuya's own SDK).
        request.headers["Prefer"] = "http-status"
        return request


SIGNER = TuyaSigning()


@schemathesis.auth()
class SignUnlessHeadersAreTheNegation:
    """Attaches the signer to every case, except one generated to break its headers: a case whose
    header component is negative is meant to arrive without (or with broken) required headers, and
    the signing headers are required headers of every operation (docs/cloud-api.yaml, security)."""

    def get(self, case, context):
        return SIGNER

    def set(self, case, data, context):
        meta = case.meta
        if meta is not None and meta.is_negative_at(ParameterLocation.HEADER):
            return
        # What schemathesis' own `requests` auth provider does: the transport passes it to requests.
        case._auth = data
