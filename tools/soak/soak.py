#!/usr/bin/env python3
"""The gateway under hostile load and hostile people (issue 30; docs/operations.md, "Hostile load").

Runs the real nbgwd on simulated modules, its descriptor limit pinned at 1,024 (systemd's default
soft limit), a fake NOTIFY_SOCKET with a 10 s watchdog, the console and the ingest API on loopback,
and attacks it from loopback addresses for DURATION seconds, all at once:

- an idle-connection flood of several times the descriptor limit, from many source addresses;
- a slow-header flood (a head trickled a byte at a time);
- a sign-in storm (unknown names, from many addresses, each attempt a fresh form);
- an upload storm (a signed-in operator posting CSV files as fast as they are refused, and
  unauthenticated oversized bodies);
- a control-socket flood by an unprivileged member of the operators' group.

Meanwhile a watcher checks that the watchdog keeps being notified, every module stays `ready`,
`nbgw at` answers, a bind over the API answers within 2 s (p99 reported), and the daemon's RSS
stays under the bound. Then SIGTERM must end it with status 0 within its grace period. Prints the
figures and a JSON summary; exits 1 when a check fails. Loopback only, every count bounded.

Usage: soak.py --bin DIR [--duration S] [--modules N] [--rss-bound MB] [--json FILE]
"""

import argparse
import asyncio
import grp
import http.client
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

FAMILIES = ["bc66", "bg95", "sim7080", "nrf9160", "bc95", "sara-r410", "generic"]
PASSWORD = "soak-password-1234"


def log(message):
    print(f"soak: {message}", flush=True)


class Figures:
    """What the watcher and the attackers saw, under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.bind_latencies = []
        self.bind_failures = []
        self.at_failures = []
        self.modem_failures = []
        self.watchdog = []
        self.rss_samples = []

    def add(self, key, value=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + value


class Gateway:
    """The simulator, the daemon, the fake systemd socket, in a temporary directory."""

    def __init__(self, bin_dir, modules, figures):
        self.bin = bin_dir
        self.modules = modules
        self.figures = figures
        self.dir = tempfile.mkdtemp(prefix="nbgw-soak-")
        self.store = os.path.join(self.dir, "store.sqlite")
        self.control = os.path.join(self.dir, "control.sock")
        self.notify_path = os.path.join(self.dir, "notify.sock")
        self.port = free_port()
        self.metrics_port = free_port()
        self.env = dict(os.environ, NBGW_DB=self.store, NBGW_CONTROL=self.control)
        self.processes = []
        self.daemon = None

    def nbgw(self, *args, stdin=None, check=True, timeout=30, user=None):
        command = [f"{self.bin}/nbgw", *args]
        if user is not None:
            command = ["setpriv", f"--reuid={user[0]}", f"--regid={user[1]}", "--clear-groups", *command]
        result = subprocess.run(command, input=stdin, capture_output=True, text=True, env=self.env, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"nbgw {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def start(self):
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        threading.Thread(target=self.listen_notify, daemon=True).start()
        sim_out = open(os.path.join(self.dir, "sim.json"), "w")
        args = [f"{self.bin}/nbgw-modem-sim", "--time-scale", "0.05"]
        for index in range(self.modules):
            args += ["--port", FAMILIES[index % len(FAMILIES)]]
        sim = subprocess.Popen(args, stdout=sim_out, stderr=open(os.path.join(self.dir, "sim.log"), "w"),
                               stdin=subprocess.DEVNULL)
        self.processes.append(sim)
        paths = []
        for _ in range(400):
            with open(os.path.join(self.dir, "sim.json")) as f:
                paths = re.findall(r'"path":"([^"]+)"', f.read())
            if len(paths) >= self.modules:
                break
            time.sleep(0.05)
        assert len(paths) == self.modules, f"the simulator opened {len(paths)} ports of {self.modules}"
        config = os.path.join(self.dir, "nbgwd.toml")
        with open(config, "w") as f:
            # As root, the operators' group is nogroup and the control-socket flood runs as nobody in
            # it (an unprivileged member); otherwise the group is the user's own.
            group = "nogroup" if os.geteuid() == 0 else grp.getgrgid(os.getegid()).gr_name
            f.write(f'[store]\npath = "{self.store}"\ngroup = "{group}"\n\n[control]\nsocket = "{self.control}"\n\n'
                    f'[discovery]\nudev = false\n\n[metrics]\nlisten = "127.0.0.1:{self.metrics_port}"\n\n'
                    f'[ingest]\nenabled = true\nlisten = "127.0.0.1:{self.port}"\nrate_limit = 0\n\n')
            for path in paths:
                f.write(f'[[ports]]\npath = "{path}"\n\n')
        os.chmod(config, 0o600)
        self.log_path = os.path.join(self.dir, "nbgwd.log")
        env = dict(self.env, NOTIFY_SOCKET=self.notify_path, WATCHDOG_USEC="10000000")
        # systemd's default soft limit without the unit's LimitNOFILE=: the daemon must hold with it.
        self.daemon = subprocess.Popen(["prlimit", "--nofile=1024:1024", f"{self.bin}/nbgwd", "--config", config],
                                       stderr=open(self.log_path, "w"), stdout=subprocess.DEVNULL, env=env)
        self.processes.append(self.daemon)
        deadline = time.time() + 120
        while time.time() < deadline:
            if "nbgwd ready" in open(self.log_path).read():
                break
            assert self.daemon.poll() is None, "nbgwd exited:\n" + open(self.log_path).read()[-3000:]
            time.sleep(0.1)
        else:
            raise AssertionError("nbgwd never said it was ready:\n" + open(self.log_path).read()[-3000:])

    def listen_notify(self):
        while True:
            try:
                data = self.notify.recv(4096).decode()
            except OSError:
                return
            if "WATCHDOG=1" in data.split("\n"):
                with self.figures.lock:
                    self.figures.watchdog.append(time.monotonic())

    def modems(self):
        result = self.nbgw("modems", "--json", check=False, timeout=20)
        if result.returncode != 0:
            return None
        return json.loads(result.stdout)["modems"]

    def wait_ready(self, timeout=180):
        deadline = time.time() + timeout
        while time.time() < deadline:
            modems = self.modems() or []
            if len([m for m in modems if m.get("state") == "ready"]) == self.modules:
                return modems
            time.sleep(0.5)
        raise AssertionError(f"not every module reached ready: {self.modems()}")

    def rss(self):
        with open(f"/proc/{self.daemon.pid}/status") as f:
            status = f.read()
        rss = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))
        hwm = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
        return rss, hwm

    def descriptors(self):
        return len(os.listdir(f"/proc/{self.daemon.pid}/fd"))

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, headers=None, source="127.0.0.1", timeout=10):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        headers = dict(response.getheaders())
        headers["Set-Cookie"] = response.msg.get_all("Set-Cookie") or []
        return response.status, headers, response.read()
    finally:
        connection.close()


def sign_in(port, name, password, source):
    """One sign-in as a browser does it: the form (its token in a cookie and a field), then the POST."""
    status, headers, body = call(port, "GET", "/signin", source=source)
    token = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    cookie = headers["Set-Cookie"][0].split(";")[0]
    form = urllib.parse.urlencode({"csrf": token, "name": name, "password": password})
    status, headers, _ = call(port, "POST", "/signin", body=form, source=source, headers={
        "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
    session = next((c.split(";")[0] for c in headers["Set-Cookie"] if "nbgw_session=" in c), None)
    return status, session


# The attacks. Each runs until `stop` is set, bounded in what it holds.

async def idle_flood(port, stop, figures, total, addresses):
    """`total` connections that send nothing, spread over `addresses` source addresses (past the
    per-client cap), reopened as the daemon closes them."""
    async def holder(source):
        while not stop.is_set():
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), timeout=5)
                figures.add("idle_opened")
                try:
                    await asyncio.wait_for(reader.read(1), timeout=60)
                    figures.add("idle_closed_by_daemon")
                except asyncio.TimeoutError:
                    pass
                writer.close()
            except (OSError, asyncio.TimeoutError):
                figures.add("idle_connect_failed")
                await asyncio.sleep(0.5)

    tasks = [asyncio.create_task(holder(f"127.1.{(i % addresses) // 250}.{(i % addresses) % 250 + 1}"))
             for i in range(total)]
    while not stop.is_set():
        await asyncio.sleep(0.5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def slow_header_flood(port, stop, figures, total):
    async def trickler(index):
        source = f"127.4.{index // 250}.{index % 250 + 1}"
        while not stop.is_set():
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), timeout=5)
                figures.add("slow_opened")
                writer.write(b"GET /signin HTTP/1.1\r\nHost: x\r\n")
                closed = False
                for _ in range(120):
                    if stop.is_set():
                        break
                    writer.write(b"X-Slow: a\r\n")
                    try:
                        await writer.drain()
                        if await asyncio.wait_for(reader.read(1024), timeout=1) == b"":
                            closed = True
                            break
                    except asyncio.TimeoutError:
                        continue
                    except OSError:
                        closed = True
                        break
                if closed:
                    figures.add("slow_closed_by_daemon")
                writer.close()
            except (OSError, asyncio.TimeoutError):
                figures.add("slow_connect_failed")
                await asyncio.sleep(0.5)

    tasks = [asyncio.create_task(trickler(i)) for i in range(total)]
    while not stop.is_set():
        await asyncio.sleep(0.5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def run_async(coroutine_factory):
    def target():
        asyncio.run(coroutine_factory())
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def sign_in_storm(port, stop, figures, workers):
    def worker(index):
        n = 0
        while not stop.is_set():
            n += 1
            source = f"127.2.{index}.{n % 250 + 1}"
            try:
                status, _ = sign_in(port, f"nobody{random.randrange(1 << 30)}", "not the password", source)
                figures.add(f"signin_{status}")
            except (OSError, http.client.HTTPException, AttributeError):
                figures.add("signin_error")
                time.sleep(0.2)
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
    for thread in threads:
        thread.start()
    return threads


def upload_storm(port, stop, figures, workers, session, csrf, account, home):
    body = ("qr,account,home\n" + "".join(f"https://nbgw.local/d/x{i:08d},{account},{home}\n"
                                             for i in range(60000))).encode()

    def worker(index):
        while not stop.is_set():
            source = f"127.3.0.{index + 1}"
            try:
                status, _, _ = call(port, "POST", f"/batch?name=storm{index}.csv&account={account}&home={home}",
                                    body=body, source=source, timeout=30, headers={
                                        "Cookie": session, "X-CSRF-Token": csrf, "Content-Type": "text/csv",
                                        "Origin": f"http://127.0.0.1:{port}"})
                figures.add(f"upload_{status}")
                # Unauthenticated: a body far past the API's limit.
                status, _, _ = call(port, "POST", "/v1/bindings", body=b"x" * (1 << 20), source=source,
                                    headers={"Content-Type": "application/json"}, timeout=30)
                figures.add(f"anon_body_{status}")
            except (OSError, http.client.HTTPException):
                figures.add("upload_error")
                time.sleep(0.5)
            time.sleep(0.2)
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
    for thread in threads:
        thread.start()
    return threads


def control_flood(gateway, stop, figures, holders):
    """An unprivileged member of the operators' group (nobody in nogroup) opening control
    connections and holding them."""
    script = (
        "import socket, sys, time\n"
        "held = []\n"
        "end = time.time() + float(sys.argv[2])\n"
        "while time.time() < end:\n"
        "    try:\n"
        "        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); held.append(s)\n"
        "    except OSError:\n"
        "        time.sleep(0.1)\n"
        "    if len(held) >= int(sys.argv[3]):\n"
        "        for s in held: s.close()\n"
        "        held = []\n"
        "    time.sleep(0.01)\n"
    )
    # Without root the flood runs as this user, who is also the daemon's: it then tests the reserve
    # rather than the per-user cap (said in the log).
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    if not prefix:
        log("not root: the control-socket flood runs as the daemon's own user (privileged), not as a member")
    return subprocess.Popen([*prefix, sys.executable, "-c", script, gateway.control, str(10 ** 6), str(holders)])


def watcher(gateway, stop, figures, imei, label, key):
    """Every second: a bind or an unbind over the API (timed), `nbgw at`, the modem list, RSS."""
    bound = False
    n = 0
    while not stop.is_set():
        n += 1
        started = time.monotonic()
        try:
            if bound:
                status, _, body = call(gateway.port, "DELETE", f"/v1/bindings/{label[0]}", timeout=10,
                                       headers={"Authorization": f"Bearer {key}"})
                ok = status == 200
            else:
                status, _, body = call(gateway.port, "POST", "/v1/bindings", timeout=10, headers={
                    "Authorization": f"Bearer {key}", "Content-Type": "application/json"},
                    body=json.dumps({"qr": label[1], "account": "soak-owner", "home": "soak-home"}))
                ok = status == 201
            elapsed = time.monotonic() - started
            with figures.lock:
                figures.bind_latencies.append(elapsed)
            if not ok or elapsed > 2:
                figures.bind_failures.append(f"{'unbind' if bound else 'bind'}: {status} in {elapsed:.2f} s: "
                                             f"{body[:200]!r}")
            if ok:
                bound = not bound
        except (OSError, http.client.HTTPException) as error:
            figures.bind_failures.append(f"bind: {error} after {time.monotonic() - started:.2f} s")
        if n % 3 == 0:
            result = gateway.nbgw("at", imei, "AT+CSQ", check=False, timeout=15)
            if result.returncode != 0 or "+CSQ" not in result.stdout:
                figures.at_failures.append(f"rc {result.returncode}: {result.stderr.strip()[:200]}")
            modems = gateway.modems()
            not_ready = [m.get("imei") for m in (modems or []) if m.get("state") != "ready"]
            if modems is None or not_ready or len(modems) != gateway.modules:
                figures.modem_failures.append(f"not ready: {not_ready if modems is not None else 'no answer'}")
        try:
            rss, hwm = gateway.rss()
            with figures.lock:
                figures.rss_samples.append((rss, hwm, gateway.descriptors()))
        except OSError:
            pass
        time.sleep(max(0, 1 - (time.monotonic() - started)))


def percentile(values, fraction):
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--modules", type=int, default=8)
    parser.add_argument("--idle", type=int, default=3000, help="idle connections (several times 1,024)")
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--signins", type=int, default=16)
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--control", type=int, default=100)
    parser.add_argument("--rss-bound", type=float, default=300, help="MB the daemon's peak RSS must stay under")
    parser.add_argument("--json")
    options = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    figures = Figures()
    gateway = Gateway(options.bin, options.modules, figures)
    failures = []
    summary = {}
    try:
        gateway.start()
        modems = gateway.wait_ready()
        imei = modems[0]["imei"]
        device = json.loads(gateway.nbgw("devices", "show", imei, "--json").stdout)
        label = (device["device"]["deviceId"], device["qr"])
        gateway.nbgw("accounts", "add", "soak-owner", "--role", "owner")
        gateway.nbgw("homes", "add", "soak-home", "--owner", "soak-owner")
        key = json.loads(gateway.nbgw("apikeys", "create", "--name", "soak", "--json").stdout)["key"]
        gateway.nbgw("operators", "add", "storm", "--role", "operator", stdin=PASSWORD + "\n")
        status, session = sign_in(gateway.port, "storm", PASSWORD, "127.3.1.1")
        assert session, f"the operator could not sign in ({status})"
        _, _, page = call(gateway.port, "GET", "/bind", headers={"Cookie": session}, source="127.3.1.1")
        csrf = re.search(rb'name="csrf-token" content="([^"]+)"', page).group(1).decode()
        baseline_rss = gateway.rss()[0]
        baseline_fds = gateway.descriptors()
        log(f"{options.modules} modules ready; daemon RSS {baseline_rss / 1024:.1f} MB, {baseline_fds} descriptors; "
            f"attacking for {options.duration:.0f} s")

        stop = threading.Event()
        started = time.monotonic()
        threads = [
            run_async(lambda: idle_flood(gateway.port, stop, figures, options.idle, max(1, options.idle // 30))),
            run_async(lambda: slow_header_flood(gateway.port, stop, figures, options.slow)),
            *sign_in_storm(gateway.port, stop, figures, options.signins),
            *upload_storm(gateway.port, stop, figures, options.uploads, session, csrf, "soak-owner", "soak-home"),
        ]
        flooder = control_flood(gateway, stop, figures, options.control)
        watch = threading.Thread(target=watcher, args=(gateway, stop, figures, imei, label, key), daemon=True)
        watch.start()
        while time.monotonic() - started < options.duration:
            time.sleep(1)
            if gateway.daemon.poll() is not None:
                failures.append(f"nbgwd exited during the attack with {gateway.daemon.returncode}")
                break
        stop.set()
        flooder.terminate()
        watch.join(30)
        for thread in threads:
            thread.join(10)
        attack_end = time.monotonic()

        # The watchdog: no gap over the period systemd would restart at (10 s here).
        with figures.lock:
            pings = [t for t in figures.watchdog if started - 10 <= t <= attack_end]
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        if pings:
            gaps.append(attack_end - pings[-1])
        worst_gap = max(gaps) if gaps else float("inf")
        if worst_gap >= 10:
            failures.append(f"the watchdog went {worst_gap:.1f} s without WATCHDOG=1 (systemd restarts at 10 s)")
        peak_hwm = max(s[1] for s in figures.rss_samples) / 1024 if figures.rss_samples else 0
        peak_fds = max(s[2] for s in figures.rss_samples) if figures.rss_samples else 0
        if peak_hwm > options.rss_bound:
            failures.append(f"peak RSS {peak_hwm:.1f} MB over the bound {options.rss_bound:.0f} MB")
        if figures.bind_failures:
            failures.append(f"{len(figures.bind_failures)} binds failed or took over 2 s: {figures.bind_failures[:3]}")
        if figures.at_failures:
            failures.append(f"nbgw at failed {len(figures.at_failures)} times: {figures.at_failures[:3]}")
        if figures.modem_failures:
            failures.append(f"modules not ready {len(figures.modem_failures)} times: {figures.modem_failures[:3]}")

        # SIGTERM: exit 0 within the grace period (10 s).
        stopping = time.monotonic()
        gateway.daemon.send_signal(signal.SIGTERM)
        try:
            code = gateway.daemon.wait(30)
        except subprocess.TimeoutExpired:
            code = None
        stop_seconds = time.monotonic() - stopping
        if code != 0 or stop_seconds > 10:
            failures.append(f"SIGTERM: exit {code} after {stop_seconds:.1f} s (want 0 within the 10 s grace period)")

        latencies = figures.bind_latencies
        summary = {
            "duration": options.duration, "modules": options.modules,
            "counts": dict(sorted(figures.counts.items())),
            "binds": len(latencies), "bindP50Ms": round(percentile(latencies, 0.5) * 1000, 1),
            "bindP99Ms": round(percentile(latencies, 0.99) * 1000, 1),
            "bindMaxMs": round(max(latencies) * 1000, 1) if latencies else None,
            "watchdogPings": len(pings), "watchdogWorstGapS": round(worst_gap, 2),
            "rssBaselineMB": round(baseline_rss / 1024, 1), "rssPeakMB": round(peak_hwm, 1),
            "descriptorsBaseline": baseline_fds, "descriptorsPeak": peak_fds,
            "sigtermExit": code, "sigtermSeconds": round(stop_seconds, 2),
            "failures": failures,
        }
    except Exception as error:  # noqa: BLE001 - the report says what broke
        failures.append(f"{type(error).__name__}: {error}")
        summary["failures"] = failures
    finally:
        gateway.stop()
    log(json.dumps(summary, indent=2))
    if options.json:
        with open(options.json, "w") as f:
            json.dump(summary, f, indent=2)
    if failures:
        log("FAILED:\n  " + "\n  ".join(failures))
        log(f"the daemon's log: {gateway.log_path if hasattr(gateway, 'log_path') else gateway.dir}")
        return 1
    log("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
