#!/usr/bin/env python3
"""Checks the two HTTP contracts as an integrator would: schemathesis, every check, stateful phase.

For each API it starts the real server on loopback on a fresh store (`nbgw ingest serve`, with an
API key from `nbgw apikeys create`; `nbgw-cloud-emulator`, its requests signed by
tools/contract/tuya_signing.py), seeds it through the real CLI or API, writes a schemathesis.toml
(seed, example budget, dictionaries of the seeded names) and runs

    schemathesis run docs/<api>.yaml --checks all --phases examples,coverage,fuzzing,stateful

Exit status: 0 when every run reports no failure, 1 otherwise. Usage: tools/api-contract.sh (which
finds the binaries and the virtualenv) and docs/ingest.md "Contract checks".
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent

# Accounts and homes the ingest store is seeded with (the same shape as Tests/IngestTests' fixture):
# owners with homes, a guest, and a home whose allow-list refuses the seeded devices' product.
ACCOUNTS = [("alice", "owner"), ("bob", "owner"), ("gus", "guest"), ("carol", "owner")]
HOMES = [("lab", "alice", None), ("bobs", "bob", None), ("locked", "carol", "p-other")]


def luhn_complete(body: str) -> str:
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char)
        if index % 2 == 0:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return body + str((10 - total % 10) % 10)


IMEIS = [luhn_complete(f"35693803{serial:06d}") for serial in range(10)]


class Server:
    """A child process that prints one line once it listens; stopped with SIGTERM."""

    def __init__(self, argv: list[str], env: dict[str, str], log: pathlib.Path) -> None:
        self.log = open(log, "wb")
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=self.log)

    def first_line(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        line = b""
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}; see {self.log.name}")
            line = self.process.stdout.readline()
            if line:
                return line.decode()
        raise RuntimeError(f"server did not say it listens within {timeout} s; see {self.log.name}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def run_cli(nbgw: pathlib.Path, env: dict[str, str], *args: str) -> dict:
    result = subprocess.run([str(nbgw), *args, "--json"], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgw {' '.join(args)} exited {result.returncode}: {result.stdout}{result.stderr}")
    return json.loads(result.stdout)


def toml_list(values: list) -> str:
    return "[" + ", ".join(json.dumps(value) for value in values) + "]"


def schemathesis(
    venv: pathlib.Path, spec: str, url: str, config: pathlib.Path, env: dict[str, str], extra: list[str]
) -> int:
    argv = [
        str(venv / "bin" / "schemathesis"),
        "--config-file",
        str(config),
        "run",
        str(ROOT / "docs" / spec),
        "--url",
        url,
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--no-color",
        *extra,
    ]
    print(f"contract: schemathesis run docs/{spec} --url {url} (config {config})", flush=True)
    # In the work directory: schemathesis keeps its cache (.schemathesis/) in the current one.
    return subprocess.run(argv, env=env, cwd=config.parent).returncode


def common_config(args: argparse.Namespace, top: str = "") -> str:
    """Seed, budget and the check settings both APIs share (each with its reason); `top`: more
    top-level keys (TOML wants them before the first table)."""
    return top + textwrap.dedent(
        f"""\
        seed = {args.seed}
        # A 413 refuses a request as surely as a 400 (bodies over the size limit).
        [checks.negative_data_rejection]
        expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
        [generation]
        max-examples = {args.examples}
        database = "none"
        [phases.stateful]
        max-steps = {args.max_steps}
        """
    )


def ingest(args: argparse.Namespace, work: pathlib.Path) -> int:
    nbgw = args.bin / "nbgw"
    env = dict(os.environ, NBGW_DB=str(work / "ingest.sqlite"), USER="contract")
    env.pop("NBGW_CLOUD_URL", None)
    for name, role in ACCOUNTS:
        run_cli(nbgw, env, "accounts", "add", name, "--role", role)
    for name, owner, product in HOMES:
        run_cli(nbgw, env, "homes", "add", name, "--owner", owner, *(["--allow-product", product] if product else []))
    devices = []
    for imei in IMEIS:
        devices.append(run_cli(nbgw, env, "devices", "register", "--imei", imei, "--manufacturer", "Quectel"))
    # Half of them bound, so that lists, unbinds and the stateful links start from real bindings.
    for device, (account, home) in zip(devices[:4], [("alice", "lab"), ("alice", "lab"), ("bob", "bobs")] * 2):
        run_cli(nbgw, env, "bind", "--qr", device["qr"], "--account", account, "--home", home)
    key = run_cli(nbgw, env, "apikeys", "create", "--name", "contract")["key"]
    # The key goes to schemathesis through the environment (the config names the variable), not argv.
    env["NBGW_CONTRACT_KEY"] = key

    ids = [device["deviceId"] for device in devices]
    payloads = [device["qr"] for device in devices] + [
        '{"actionName":"device_net_conn_bind_nb","actionData":{"id":"%s"}}' % ids[0],
        f"https://scan.example/?actionName=device_net_conn_bind_nb&id={ids[1]}",
        "MT:-24J042C00KA0648G00",
        "34970112332",
    ]
    config = work / "ingest.toml"
    config.write_text(
        common_config(args)
        + textwrap.dedent(
            f"""\
            [auth.openapi.apiKey]
            bearer = "${{NBGW_CONTRACT_KEY}}"
            [dictionaries.accounts]
            values = {toml_list([name for name, _ in ACCOUNTS])}
            [dictionaries.homes]
            values = {toml_list([name for name, _, _ in HOMES])}
            [dictionaries.devices]
            values = {toml_list(ids)}
            [dictionaries.payloads]
            values = {toml_list(payloads)}
            # Seeded names and payloads half of the time, so that positive cases reach the binding rules
            # (bound, unchanged, 403, 409) and not only 404s for names that do not exist.
            [parameters]
            "body.account" = {{ dictionary = "accounts", probability = 0.5 }}
            "body.home" = {{ dictionary = "homes", probability = 0.5 }}
            "body.qr" = {{ dictionary = "payloads", probability = 0.5 }}
            "query.account" = {{ dictionary = "accounts", probability = 0.5 }}
            "path.home" = {{ dictionary = "homes", probability = 0.5 }}
            "path.deviceId" = {{ dictionary = "devices", probability = 0.5 }}

            # Whether a string is a pairing payload is decided by parsing it (check digits, base38,
            # Verhoeff, bytes of UTF-8), which JSON Schema cannot state: a schema-valid `qr` that is not
            # one is 400 (docs/ingest-api.yaml "Requests"). A pairing token dies with its bind and after
            # 10 minutes: a schema-valid token can be 410 Gone, like a 404 it is the token's state.
            [[operations]]
            include-operation-id = ["parseQR", "createBinding"]
            checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "410", "429"]
            """
        )
    )
    server = Server(
        [str(nbgw), "ingest", "serve", "--port", "0", "--rate-limit", "0", "--json", "--log-level", "error"],
        env,
        work / "ingest-server.log",
    )
    try:
        port = json.loads(server.first_line())["port"]
        return schemathesis(args.venv, "ingest-api.yaml", f"http://127.0.0.1:{port}", config, env, args.extra)
    finally:
        server.stop()


def seed_cloud(url: str, env: dict[str, str]) -> list[dict]:
    """Registers modules, a home and a binding through the signed API (the hook's signer)."""
    sys.path.insert(0, str(HERE))
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        import importlib

        import requests
        import tuya_signing

        # Its credentials are read when the module loads: load it again for this server's.
        importlib.reload(tuya_signing)

        auth = tuya_signing.TuyaSigning()
        modules = []
        for imei in IMEIS[:6]:
            answer = requests.post(f"{url}/v1.0/iot-03/nb-modules", json={"imei": imei}, auth=auth, timeout=10)
            modules.append(answer.json()["result"])
        token = requests.post(
            f"{url}/v1.0/iot-03/device-registration/token",
            json={"pairing_type": "NB", "asset_id": "lab", "uid": "alice"},
            auth=auth,
            timeout=10,
        ).json()["result"]["token"]
        bound = requests.post(
            f"{url}/v1.0/iot-03/device-registration/nb-bind",
            json={"device_id": modules[0]["device_id"], "asset_id": "lab", "uid": "alice", "token": token},
            auth=auth,
            timeout=10,
        ).json()
        if not bound.get("success"):
            raise RuntimeError(f"seeding the emulator failed: {bound}")
        return modules
    finally:
        os.environ.clear()
        os.environ.update(saved)


def cloud_config(args: argparse.Namespace, work: pathlib.Path, name: str, modules: list[dict]) -> pathlib.Path:
    """The schemathesis configuration of a cloud run: the signing hook, and the seeded IMEIs,
    device ids, labels and names as dictionaries."""
    ids = [module["device_id"] for module in modules]
    config = work / f"{name}.toml"
    config.write_text(
        common_config(args, top=f'hooks = "{HERE / "tuya_signing.py"}"\n')
        + textwrap.dedent(
            f"""\
            [dictionaries.imeis]
            values = {toml_list(IMEIS)}
            [dictionaries.devices]
            values = {toml_list(ids)}
            [dictionaries.labels]
            values = {toml_list([module["qrcode"] for module in modules])}
            [dictionaries.names]
            values = {toml_list(["lab", "bobs", "alice", "bob"])}
            # Registered IMEIs, device ids, labels and names half of the time, so that positive
            # cases reach the store's rules (bound, unchanged, 403, 409) and not only 404s.
            [parameters]
            "body.imei" = {{ dictionary = "imeis", probability = 0.5 }}
            "body.device_id" = {{ dictionary = "devices", probability = 0.5 }}
            "path.device_id" = {{ dictionary = "devices", probability = 0.5 }}
            "body.code" = {{ dictionary = "labels", probability = 0.5 }}
            "body.asset_id" = {{ dictionary = "names", probability = 0.5 }}
            "body.uid" = {{ dictionary = "names", probability = 0.5 }}

            # The IMEI's Luhn check digit is checked, which a pattern cannot say: a schema-valid
            # IMEI with a wrong one is 400 (docs/cloud-api.yaml, registerModule). A pairing token
            # dies with its bind and after 10 minutes: 410 Gone is its state, like a 404.
            [[operations]]
            include-operation-id = ["registerModule"]
            checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]
            [[operations]]
            include-operation-id = ["bindDevice"]
            checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "410", "429"]
            """
        )
    )
    return config


def cloud(args: argparse.Namespace, work: pathlib.Path) -> int:
    emulator = args.bin / "nbgw-cloud-emulator"
    env = dict(
        os.environ,
        NBGW_CLOUD_CLIENT_ID="contractclient",
        NBGW_CLOUD_SECRET=os.environ.get("NBGW_CONTRACT_CLOUD_SECRET", "contract-secret-" + os.urandom(8).hex()),
    )
    status = 0
    # Two runs on two fresh emulators: every business call, and then the admin calls alone. Why
    # apart: `PUT /admin/faults` makes the next business calls fail on purpose (that is what it is
    # for); admin calls themselves are never faulted, so alone they are checked like any other.
    for name, filters in [
        ("cloud", ["--exclude-path-regex", "^/admin/"]),
        ("cloud-admin", ["--include-path-regex", "^/admin/"]),
    ]:
        server = Server(
            [str(emulator), "--port", "0", "--db", str(work / f"{name}.sqlite"), "--log-level", "error"],
            env,
            work / f"{name}-server.log",
        )
        try:
            url = server.first_line().strip().rsplit(" ", 1)[-1]
            modules = seed_cloud(url, env)
            config = cloud_config(args, work, name, modules)
            # On every request, the auth probes' unsigned ones too: the checks judge statuses, which
            # the emulator answers when asked (docs/cloud-api.yaml, "Envelope and statuses").
            prefer = ["-H", "Prefer: http-status"]
            status |= schemathesis(args.venv, "cloud-api.yaml", url, config, env, [*filters, *prefer, *args.extra])
        finally:
            server.stop()
    return status


def sdk(args: argparse.Namespace, work: pathlib.Path) -> int:
    """Tuya's own Python SDK through the pairing flow (tools/contract/sdk_flow.py) on a fresh
    emulator: its default answers, no nonce, JSON with spaces."""
    emulator = args.bin / "nbgw-cloud-emulator"
    secret = "sdk-secret-" + os.urandom(8).hex()
    env = dict(os.environ, NBGW_CLOUD_CLIENT_ID="sdkclient", NBGW_CLOUD_SECRET=secret)
    server = Server(
        [str(emulator), "--port", "0", "--db", str(work / "sdk.sqlite"), "--log-level", "error"],
        env,
        work / "sdk-server.log",
    )
    try:
        url = server.first_line().strip().rsplit(" ", 1)[-1]
        # The secret through the environment, never on argv.
        result = subprocess.run([str(args.venv / "bin" / "python"), str(HERE / "sdk_flow.py"), url, "sdkclient"], env=env)
        return 0 if result.returncode == 0 else 1
    finally:
        server.stop()


def fleet(args: argparse.Namespace, work: pathlib.Path) -> int:
    """The same contract against `nbgw-cloud` on PostgreSQL (a private cluster of
    tools/pg-cluster.sh): schemathesis on every business call, then Tuya's own SDK through the
    pairing flow, each as a gateway of its own added with `nbgw-cloud gateways add`."""
    cluster = pathlib.Path(f"/tmp/nbgw-pgc-{os.getpid()}")
    started = subprocess.run(
        [str(ROOT / "tools" / "pg-cluster.sh"), "start", str(cluster), "--fast"], capture_output=True, text=True
    )
    if started.returncode != 0:
        print(f"contract: fleet: the PostgreSQL cluster did not start: {started.stderr}", flush=True)
        return 1
    try:
        binary = str(args.bin / "nbgw-cloud")
        env = dict(
            os.environ,
            NBGW_CLOUD_DATABASE=started.stdout.strip().splitlines()[-1],
            NBGW_CLOUD_DATABASE_PASSWORD=(cluster / "password").read_text().strip(),
            NBGW_CLOUD_LOG_LEVEL="error",
        )
        key = work / "fleet.key"

        def cloud_command(*argv: str) -> str:
            done = subprocess.run([binary, *argv], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"nbgw-cloud {' '.join(argv)}: {done.stderr}")
            return done.stdout

        cloud_command("key", "create", "--key-file", str(key))
        cloud_command("migrate")
        cloud_command("tenants", "add", "contract")

        def gateway(name: str, kind: str = "gateways") -> tuple[str, str]:
            printed = json.loads(cloud_command(kind, "add", "--tenant", "contract", "--key-file", str(key), "--json", name))
            return printed["client_id"], printed["secret"]

        server = Server(
            [binary, "serve", "--listen", "127.0.0.1:0", "--key-file", str(key), "--tenant-rate", "0",
             # Generated event polls answer within a second instead of each waiting up to 25 s.
             "--event-wait-limit", "1"],
            env,
            work / "fleet-server.log",
        )
        status = 0
        try:
            url = "http://" + server.first_line().strip().rsplit(" ", 1)[-1]
            # An operator's credential: it signs every call a gateway's does, and device management's changes.
            client_id, secret = gateway("schemathesis", "operators")
            signing = dict(env, NBGW_CLOUD_CLIENT_ID=client_id, NBGW_CLOUD_SECRET=secret)
            modules = seed_cloud(url, signing)
            config = cloud_config(args, work, "fleet", modules)
            prefer = ["-H", "Prefer: http-status"]
            status |= schemathesis(
                args.venv, "cloud-api.yaml", url, config, signing, ["--exclude-path-regex", "^/admin/", *prefer, *args.extra]
            )
            client_id, secret = gateway("sdk")
            operator_id, operator_secret = gateway("sdk-ops", "operators")
            result = subprocess.run(
                [str(args.venv / "bin" / "python"), str(HERE / "sdk_flow.py"), url, client_id],
                env=dict(
                    env,
                    NBGW_CLOUD_SECRET=secret,
                    NBGW_CLOUD_OPERATOR_ID=operator_id,
                    NBGW_CLOUD_OPERATOR_SECRET=operator_secret,
                ),
            )
            status |= 0 if result.returncode == 0 else 1
        finally:
            server.stop()
        return status
    finally:
        subprocess.run([str(ROOT / "tools" / "pg-cluster.sh"), "remove", str(cluster)], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("api", choices=["ingest", "cloud", "sdk", "fleet", "all"], nargs="?", default="all")
    parser.add_argument("--bin", type=pathlib.Path, required=True, help="directory with nbgw, nbgw-cloud-emulator and nbgw-cloud")
    parser.add_argument("--venv", type=pathlib.Path, default=ROOT / ".build-venv")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--examples", type=int, default=25, help="test cases per operation and phase")
    parser.add_argument("--max-steps", type=int, default=12, help="steps per stateful scenario")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (stores, logs, configs)")
    # Options anywhere; what follows `--` (and anything unknown) goes to schemathesis.
    args, extra = parser.parse_known_args()
    args.extra = [item for item in extra if item != "--"]
    # Absolute: schemathesis runs in the work directory (its cache goes there).
    args.bin = args.bin.resolve()
    args.venv = args.venv.resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="nbgw-contract-"))
    os.chmod(work, 0o700)
    status = 1
    try:
        status = 0
        if args.api in ("ingest", "all"):
            status |= ingest(args, work)
        if args.api in ("cloud", "all"):
            status |= cloud(args, work)
        if args.api in ("sdk", "all"):
            status |= sdk(args, work)
        if args.api in ("fleet", "all"):
            status |= fleet(args, work)
    finally:
        if args.keep or status:
            print(f"contract: work directory kept: {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"contract: {'no failures' if status == 0 else 'FAILURES (see above)'}", flush=True)
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
