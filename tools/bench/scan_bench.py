"""tools/bench-scan.sh's measurements (see there). Real processes, a real pty, a real silent TCP cloud."""
import os, pty, select, socket, sqlite3, statistics, subprocess, sys, threading, time

BIN, WORK, N, M = os.environ["BIN"], os.environ["work"], int(os.environ["n"]), int(os.environ["m"])
BASE = "https://nbgw.local/d/"


def store(name, count):
    path = os.path.join(WORK, name)
    env = dict(os.environ, NBGW_DB=path)
    subprocess.run([BIN, "accounts", "add", "bench"], env=env, check=True, capture_output=True)
    subprocess.run([BIN, "homes", "add", "bench-home", "--owner", "bench"], env=env, check=True, capture_output=True)
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO device (device_id, imei, label_code, registered_at, updated_at) VALUES (?, ?, ?, 0, 0)",
        [("nb%018d" % i, "35%013d" % i, "L%011d" % i) for i in range(1, count + 1)],
    )
    db.commit()
    db.close()
    return env, [BASE + "L%011d" % i for i in range(1, count + 1)]


def bind_loop(env, labels, extra=()):
    latencies = []
    for label in labels:
        start = time.monotonic()
        result = subprocess.run(
            [BIN, "bind", "--qr", label, "--account", "bench", "--home", "bench-home", *extra],
            env=env, capture_output=True, text=True,
        )
        latencies.append(time.monotonic() - start)
        assert result.returncode == 0, result.stderr
    return latencies


class Session:
    """`nbgw scan` reading a pty's slave as a serial scanner; lines of its stdout counted."""

    def __init__(self, env, extra=()):
        self.master, slave = pty.openpty()
        path = os.ttyname(slave)
        self.process = subprocess.Popen(
            [BIN, "scan", "--account", "bench", "--home", "bench-home", "--input", path, "--speed", "115200", *extra],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        os.close(slave)
        self.lines = []
        self.cond = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()
        # Ready once it has set the port up and said so.
        banner = self.process.stderr.readline()
        assert "scanning from" in banner, banner

    def read(self):
        for line in self.process.stdout:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()

    def wait(self, count, timeout=120):
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.lines) >= count, timeout)
        assert ok, "".join(self.lines[-5:])

    def send(self, payload):
        os.write(self.master, (payload + "\r").encode())

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        os.close(self.master)
        return self.lines


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def silent_cloud():
    """A TCP listener that accepts connections and never answers: an unreachable cloud that hangs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held = []

    def accept():
        while True:
            connection, _ = server.accept()
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1]


# 1. Throughput, embedded cloud.
env, labels = store("throughput.sqlite", 2 * N)
start = time.monotonic()
bind_loop(env, labels[:N])
loop_s = time.monotonic() - start

session = Session(env)
start = time.monotonic()
for label in labels[N:]:
    session.send(label)
session.wait(N)
scan_s = time.monotonic() - start
lines = session.stop()
bound = sum(1 for line in lines if line.startswith("✔"))
assert bound == N, f"{bound} of {N} scans bound: {lines[:3]}"
print(f"throughput ({N} labels, embedded cloud):")
print(f"  nbgw bind --qr loop   {N / loop_s:8.1f} binds/s  ({loop_s:.2f} s)")
print(f"  nbgw scan (pty)       {N / scan_s:8.1f} binds/s  ({scan_s:.2f} s)  x{loop_s / scan_s:.1f}")

# 2. A cloud that never answers: every answer waits the cloud wait, then `queued`.
port = silent_cloud()
env, labels = store("silent.sqlite", 2 * M)
env.update(
    NBGW_CLOUD_URL=f"http://127.0.0.1:{port}",
    NBGW_CLOUD_CLIENT_ID="bench",
    NBGW_CLOUD_SECRET="bench-secret-bench-secret",
    NBGW_CLOUD_LABEL_BASE=BASE,
)
loop = bind_loop(env, labels[:M])
session = Session(env)
scans = []
for index, label in enumerate(labels[M:]):
    start = time.monotonic()
    session.send(label)
    session.wait(index + 1)
    scans.append(time.monotonic() - start)
lines = session.stop()
queued = sum(1 for line in lines if "cloud queued" in line)
assert queued == M, f"{queued} of {M} scans queued: {lines[:3]}"
print(f"per-scan latency, cloud silent ({M} labels, all bound locally and queued):")
for name, values in (("nbgw bind --qr loop", loop), ("nbgw scan (pty)", scans)):
    print(
        f"  {name:20s}  p50 {statistics.median(values) * 1000:6.0f} ms  p99 {percentile(values, 99) * 1000:6.0f} ms"
        f"  max {max(values) * 1000:6.0f} ms"
    )
