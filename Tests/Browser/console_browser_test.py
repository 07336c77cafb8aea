#!/usr/bin/env python3
"""The web console in headless Chromium, against the real nbgwd on simulated modules.

Run by tools/test-console.sh (which checks the browser, the driver and the binaries first).
Every step asserts what a person would see; a failure stops the run with the step's name, the
page's address and a screenshot. Nothing here skips: a missing piece is a failure.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

import axe_core_python
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

BIN = os.environ["NBGW_BIN"]
ARTIFACTS = os.environ["CONSOLE_ARTIFACTS"]
FAMILIES = ["bc66", "bg95", "sim7080", "nrf9160"]
PASSWORD = "console-test-password-1"


class Stack:
    """The simulator, the daemon and their files in a temporary directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="nbgw-console-")
        self.store = os.path.join(self.dir, "store.sqlite")
        self.control = os.path.join(self.dir, "control.sock")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, NBGW_DB=self.store, NBGW_CONTROL=self.control)
        self.processes = []

    def start(self):
        sim_out = open(os.path.join(self.dir, "sim.json"), "w")
        args = [f"{BIN}/nbgw-modem-sim", "--time-scale", "0.05"]
        for family in FAMILIES:
            args += ["--port", family]
        sim = subprocess.Popen(args, stdout=sim_out, stderr=open(os.path.join(self.dir, "sim.log"), "w"),
                               stdin=subprocess.DEVNULL)
        self.processes.append(sim)
        paths = []
        for _ in range(200):
            with open(os.path.join(self.dir, "sim.json")) as f:
                paths = re.findall(r'"path":"([^"]+)"', f.read())
            if len(paths) >= len(FAMILIES):
                break
            time.sleep(0.05)
        assert len(paths) == len(FAMILIES), f"the simulator opened {len(paths)} ports"
        config = os.path.join(self.dir, "nbgwd.toml")
        with open(config, "w") as f:
            f.write(f'[store]\npath = "{self.store}"\n\n[control]\nsocket = "{self.control}"\n\n'
                    f'[discovery]\nudev = false\n\n[metrics]\nenabled = false\n\n'
                    f'[ingest]\nenabled = true\nlisten = "127.0.0.1:{self.port}"\n\n')
            for path in paths:
                f.write(f'[[ports]]\npath = "{path}"\n\n')
        os.chmod(config, 0o600)
        self.log = os.path.join(self.dir, "nbgwd.log")
        daemon = subprocess.Popen([f"{BIN}/nbgwd", "--config", config], stderr=open(self.log, "w"),
                                  stdout=subprocess.DEVNULL, env=self.env)
        self.processes.append(daemon)
        for _ in range(300):
            if "nbgwd ready" in open(self.log).read():
                break
            assert daemon.poll() is None, "nbgwd exited:\n" + open(self.log).read()
            time.sleep(0.1)
        else:
            raise AssertionError("nbgwd never said it was ready:\n" + open(self.log).read()[-3000:])

    def nbgw(self, *args, stdin=None):
        result = subprocess.run([f"{BIN}/nbgw", *args], input=stdin, capture_output=True, text=True, env=self.env,
                                timeout=60)
        assert result.returncode == 0, f"nbgw {' '.join(args)} failed: {result.stderr}"
        return result.stdout

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


def label_y4m(stack, imei, path, width=640, height=480):
    """A Y4M video (Chromium's fake camera input) of the module's label as nbgw prints it: `nbgw labels`
    renders it (libqrencode, cairo) as a 1-up PDF, poppler's pdftoppm rasterises it to 8-bit grey (PGM)."""
    pdf = os.path.join(stack.dir, f"label-{imei}.pdf")
    stack.nbgw("labels", imei, "--format", "pdf", "--paper", "roll", "--out", pdf)
    base = os.path.join(stack.dir, f"label-{imei}")
    subprocess.run(["pdftoppm", "-gray", "-singlefile", "-scale-to", str(width * 7 // 8), pdf, base], check=True,
                   timeout=60)
    with open(base + ".pgm", "rb") as f:
        data = f.read()
    # Netpbm's binary grey header: P5, width, height, maxval, one whitespace byte, then the pixels.
    fields, offset = [], 0
    while len(fields) < 4:
        while data[offset:offset + 1].isspace():
            offset += 1
        if data[offset:offset + 1] == b"#":
            offset = data.index(b"\n", offset)
            continue
        end = offset
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[offset:end])
        offset = end
    assert fields[0] == b"P5" and fields[3] == b"255", fields
    columns, rows = int(fields[1]), int(fields[2])
    pixels = data[offset + 1:offset + 1 + columns * rows]
    assert columns <= width and rows <= height, (columns, rows)
    x0, y0 = (width - columns) // 2, (height - rows) // 2
    luma = bytearray([200]) * (width * height)
    for r in range(rows):
        start = (y0 + r) * width + x0
        luma[start:start + columns] = pixels[r * columns:(r + 1) * columns]
    chroma = bytes([128]) * (width // 2 * height // 2)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(2):
            f.write(b"FRAME\n" + bytes(luma) + chroma + chroma)


class ConsoleTest:
    def __init__(self, stack, camera_file):
        self.stack = stack
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                     f"--use-file-for-fake-video-capture={camera_file}", "--window-size=1280,900"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(30)
        self.shots = []

    # helpers
    def go(self, path):
        self.driver.get(self.stack.base + path)

    def wait(self, condition, timeout=20, what="condition"):
        try:
            return WebDriverWait(self.driver, timeout).until(condition)
        except TimeoutException:
            raise AssertionError(f"waited {timeout} s for {what} on {self.driver.current_url}")

    def text(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css).text

    def shot(self, name, description):
        os.makedirs(ARTIFACTS, exist_ok=True)
        path = os.path.join(ARTIFACTS, f"{len(self.shots) + 1:02d}-{name}.png")
        # The whole page, not only the window: the window's width, the document's height.
        width, height, mobile = self.driver.execute_script(
            "return [window.innerWidth, document.documentElement.scrollHeight, window.innerWidth < 640]")
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": max(height, 200), "deviceScaleFactor": 1,
                                     "mobile": mobile})
        try:
            self.driver.save_screenshot(path)
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.shots.append((os.path.basename(path), description))

    def sign_in(self, name, password):
        self.go("/signin")
        self.driver.find_element(By.ID, "name").send_keys(name)
        password_field = self.driver.find_element(By.ID, "password")
        password_field.send_keys(password)
        password_field.send_keys(Keys.ENTER)

    def sign_out(self):
        self.driver.find_element(By.CSS_SELECTOR, "form.signout button").click()
        self.wait(EC.url_contains("/signin"), what="the sign-in page after signing out")

    def csp_violations(self):
        return [entry["message"] for entry in self.driver.get_log("browser")
                if "Content Security Policy" in entry["message"] or "Refused to" in entry["message"]]

    def axe_violations(self):
        """What axe-core (the copy axe-core-python bundles) finds on the current page against WCAG 2
        A and AA: one line per rule broken, with the elements that break it."""
        if not self.driver.execute_script("return typeof window.axe === 'object'"):
            with open(os.path.join(os.path.dirname(axe_core_python.__file__), "axe.min.js")) as f:
                self.driver.execute_script(f.read())
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}).then(function (r) {"
            " done(r.violations.map(function (v) { return v.id + ' (' + v.impact + '): ' +"
            " v.nodes.map(function (n) { return n.target.join(' '); }).join(', '); })); })"
            ".catch(function (e) { done(['axe did not run: ' + e]); });")

    def accessible(self, what):
        violations = self.axe_violations()
        assert not violations, f"axe on {what} ({self.driver.current_url}): " + "; ".join(violations)

    def no_horizontal_scroll(self):
        return self.driver.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth + 1")

    def fetch_status(self, method, path, body=None, headers=None):
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {method: arguments[1], body: arguments[2], headers: arguments[3] || {},"
            " credentials: 'same-origin'}).then(function (r) { return r.text().then(function (t) {"
            " done([r.status, t]); }); }).catch(function (e) { done([0, String(e)]); });",
            path, method, body, headers or {})


def main():
    stack = Stack()
    started = time.time()
    test = None
    step = "start"
    try:
        stack.start()
        stack.nbgw("operators", "add", "root", "--role", "admin", stdin=PASSWORD + "\n")
        stack.nbgw("operators", "add", "line", "--role", "binder", stdin=PASSWORD + "\n")
        stack.nbgw("operators", "add", "mallory", "--role", "operator", stdin=PASSWORD + "\n")
        stack.nbgw("accounts", "add", "alice", "--role", "owner")
        stack.nbgw("homes", "add", "alice-lab", "--owner", "alice")
        camera = os.path.join(stack.dir, "camera.y4m")
        # Until a label is known the camera shows an empty grey frame.
        with open(camera, "wb") as f:
            f.write(b"YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg\nFRAME\n" + bytes([128]) * (640 * 480 * 3 // 2))
        test = ConsoleTest(stack, camera)
        d = test.driver

        step = "a wrong password is refused"
        test.sign_in("root", "not the password")
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".flash.error"), "Wrong name or password"),
                  what="the refusal")
        assert "/signin" in d.current_url
        test.shot("signin-refused", "Sign-in page after a wrong password: the red 'Wrong name or password.' line.")

        step = "a sign-in form without its token is refused"
        d.execute_script("document.querySelector('input[name=csrf]').value = 'forged'")
        d.find_element(By.ID, "name").send_keys("root")
        d.find_element(By.ID, "password").send_keys(PASSWORD + Keys.ENTER)
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".flash.error"), "security token"),
                  what="the CSRF refusal of the sign-in form")
        assert d.get_cookie("nbgw_session") is None

        step = "five wrong passwords lock an operator out"
        for _ in range(5):
            test.sign_in("mallory", "wrong guess")
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".flash.error"), "locked until"),
                  what="the lock-out message")
        test.sign_in("mallory", PASSWORD)
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".flash.error"), "locked until"),
                  what="the right password refused while locked")
        test.shot("signin-locked", "Sign-in page of a locked operator: 'Too many failed sign-ins: locked until …'.")

        step = "sign in with the keyboard alone"
        # The lock-out step's derivations may still fill the sign-in queue (4 waiting): then the
        # page says "Too many sign-ins at once: wait a few seconds and try again", and a person
        # does just that. Seen in CI when the steps above ran quickly.
        for attempt in range(6):
            test.go("/signin")
            test.wait(lambda drv: drv.execute_script("return document.activeElement.id") == "name",
                      what="the name field's autofocus")
            d.switch_to.active_element.send_keys("root")          # the name field has autofocus
            d.switch_to.active_element.send_keys(Keys.TAB)
            d.switch_to.active_element.send_keys(PASSWORD + Keys.ENTER)
            test.wait(lambda drv: "/modems" in drv.current_url or "Too many sign-ins at once" in drv.page_source,
                      what="the modems page after signing in")
            if "/modems" in d.current_url:
                break
            time.sleep(3)
        test.wait(EC.url_contains("/modems"), what="the modems page after signing in")
        cookie = d.get_cookie("nbgw_session")
        assert cookie["httpOnly"] and cookie.get("sameSite") == "Strict", cookie

        step = "the modems reach ready on the page without a reload"
        d.execute_script("window.__sameDocument = 'yes'")
        test.wait(lambda drv: len(drv.find_elements(By.CSS_SELECTOR, "#modems-body .state-ready")) == len(FAMILIES),
                  timeout=60, what=f"{len(FAMILIES)} ready modems")
        assert d.execute_script("return window.__sameDocument") == "yes", "the page reloaded"
        test.shot("modems-ready", "Modems page: four simulated modules (BC66, BG95, SIM7080, nRF9160) in green "
                  "'ready' with IMEI, model, port, signal and device id, updated by polling.")
        modems = json.loads(stack.nbgw("modems", "--json"))["modems"]
        imeis = sorted(m["imei"] for m in modems if m.get("state") == "ready")
        labels = {}
        for imei in imeis:
            device = json.loads(stack.nbgw("devices", "show", imei, "--json"))
            labels[imei] = (device["device"]["deviceId"], device["qr"])

        step = "a module page and an admin action through the control socket"
        first = imeis[0]
        d.find_element(By.LINK_TEXT, first).click()
        test.wait(EC.presence_of_element_located((By.ID, "facts-h")), what="the module page")
        assert labels[first][0] in d.page_source
        test.wait(lambda drv: drv.execute_script(
            "var i = document.querySelector('img.label'); return i !== null && i.complete && i.naturalWidth > 0"),
            what="the module's label image drawn")
        assert d.find_element(By.LINK_TEXT, "Label (PDF)").get_attribute("href").endswith(".pdf")
        test.shot("module", "Module page: facts (state, port, IMEI, model, firmware, IMSI, ICCID, signal, device id),"
                  " registration, the label's payload, the admin actions and the audit trail.")
        d.find_element(By.XPATH, "//button[text()='Release the port']").click()
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".result-message"), "took the release"),
                  what="the release result")
        test.go("/modems")
        d.execute_script("window.__sameDocument = 'yes'")
        test.wait(lambda drv: "released" in drv.find_element(By.CSS_SELECTOR, f"tr:has(a[href$='{first}'])").text,
                  what="the released module")
        stack.nbgw("modem", "resume", first, "--no-wait")
        test.wait(lambda drv: "ready" in drv.find_element(By.CSS_SELECTOR, f"tr:has(a[href$='{first}'])").text,
                  timeout=60, what="the resumed module back to ready")
        assert d.execute_script("return window.__sameDocument") == "yes", "the page reloaded"

        step = "bind by typing into the scan field"
        test.go("/bind")
        Select(d.find_element(By.ID, "account")).select_by_visible_text("alice")
        Select(d.find_element(By.ID, "home")).select_by_visible_text("alice-lab")
        scan = d.find_element(By.ID, "qr")
        scan.send_keys(labels[first][1] + Keys.ENTER)
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#result .result-status"), "Bound"),
                  what="'Bound'")
        assert labels[first][0] in test.text("#result")
        test.wait(lambda drv: drv.switch_to.active_element.get_attribute("id") == "qr", what="the scan field refocused")
        d.switch_to.active_element.send_keys(labels[first][1] + Keys.ENTER)
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#result .result-status"), "Already bound here"),
                  what="'Already bound here'")
        d.switch_to.active_element.send_keys("hello, not a device" + Keys.ENTER)
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#result .result-code"),
                                                   "QR_PROTOCOL_NOT_RECOGNIZED"), what="the CLI's code")
        test.shot("bind-scan", "Bind page after three scans: the last result big and red, 'Not a device code' with "
                  "QR_PROTOCOL_NOT_RECOGNIZED and the CLI's message; the history lists Bound and Already bound here.")

        step = "bind by camera"
        second = imeis[1]
        label_y4m(stack, second, camera)
        test.go("/bind")
        Select(d.find_element(By.ID, "account")).select_by_visible_text("alice")
        Select(d.find_element(By.ID, "home")).select_by_visible_text("alice-lab")
        d.find_element(By.ID, "camera-start").click()
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#result .result-status"), "Bound"),
                  timeout=30, what="a camera bind")
        assert labels[second][0] in test.text("#result"), test.text("#result")
        test.shot("bind-camera", "Bind page with the camera on: Chromium's fake camera shows the label of the second "
                  "module as `nbgw labels` prints it; the server read it with zbar and bound it: 'Bound'.")
        d.find_element(By.ID, "camera-stop").click()

        step = "a CSRF-less script request is refused"
        status, body = test.fetch_status("POST", "/bind", "qr=x&account=alice&home=alice-lab",
                                         {"Content-Type": "application/x-www-form-urlencoded",
                                          "Accept": "application/json"})
        assert status == 403 and "CSRF_REFUSED" in body, (status, body)

        step = "upload a CSV, watch it, download its report, rerun it"
        csv_path = os.path.join(stack.dir, "tray.csv")
        with open(csv_path, "w") as f:
            f.write("qr,account,home\n")
            for imei in imeis[2:]:
                f.write(f"{labels[imei][1]},alice,alice-lab\n")
        test.go("/batch")
        for run, expected in [(1, "2 bound, 0 unchanged"), (2, "0 bound, 2 unchanged")]:
            d.find_element(By.ID, "file").send_keys(csv_path)
            d.find_element(By.ID, "batch-upload").click()
            test.wait(EC.visibility_of_element_located((By.ID, "batch-report-link")), what=f"batch {run}'s report")
            assert expected in test.text("#batch-status"), test.text("#batch-status")
            href = d.find_element(By.ID, "batch-report-link").get_attribute("href")
            status, report = test.fetch_status("GET", href)
            assert status == 200 and report.startswith("line,status,code"), (status, report[:200])
            assert report.count("unchanged" if run == 2 else "bound") >= 2, report
        test.shot("batch", "Batch page after the rerun: 'Done: 2 rows, 0 bound, 2 unchanged, 0 failed.' and the "
                  "report link; the progress bar full.")

        step = "lists: devices, bindings, accounts, homes, tokens"
        test.go("/devices?q=" + imeis[3])
        rows = d.find_elements(By.CSS_SELECTOR, "#list tbody tr")
        assert len(rows) == 1 and imeis[3] in rows[0].text, [r.text for r in rows]
        test.shot("devices", "Devices list searched by one IMEI: one row.")
        test.go("/accounts?q=ali")
        assert "alice" in test.text("#list tbody")
        test.go("/homes")
        assert "alice-lab" in test.text("#list tbody")
        test.go("/tokens")
        d.find_element(By.XPATH, "//button[text()='Create token']").click()
        test.wait(EC.text_to_be_present_in_element((By.TAG_NAME, "main"), "Devices bound with it"),
                  what="the new token's pairing result")
        assert "pending" in test.text(".facts")
        test.go("/tokens")
        assert "pending" in test.text("#list tbody") and "alice-lab" in test.text("#list tbody")
        test.shot("tokens", "Pairing tokens: the token just made for alice-lab, 'pending', with its expiry.")

        step = "unbind with confirmation"
        test.go("/bindings")
        assert len(d.find_elements(By.CSS_SELECTOR, "#list tbody tr")) == 4
        test.shot("bindings", "Bindings list: four devices in alice / alice-lab with source http and the operator.")
        target = labels[imeis[3]][0]
        d.find_element(By.CSS_SELECTOR, f"a[href='/bindings/{target}/unbind']").click()
        test.wait(EC.presence_of_element_located((By.ID, "confirm")), what="the confirmation")
        test.shot("unbind-confirm", f"Unbind confirmation for {target}: the binding's facts, a red Unbind button and "
                  "Cancel.")
        d.find_element(By.ID, "confirm").click()
        test.wait(EC.text_to_be_present_in_element((By.CSS_SELECTOR, ".result-status"), "Unbound"), what="'Unbound'")
        test.go("/bindings")
        assert target not in d.find_element(By.ID, "list").text

        step = "every action is in the console's trail"
        trail = subprocess.run(["sqlite3", stack.store, "SELECT event, operator, client_address FROM console_audit"],
                               capture_output=True, text=True, check=True).stdout
        for event in ["signin_refused", "lockout", "signin", "modem_release", "bind", "bind_refused", "batch",
                      "unbind"]:
            assert f"{event}|" in trail, f"no {event} in the trail:\n{trail}"
        assert "root|127.0.0.1:" in trail

        step = "print the labels not printed yet from the modems page"
        test.go("/modems")
        assert "registered modules have no printed label yet" in test.text("#labels-unprinted")
        csrf = d.find_element(By.CSS_SELECTOR, "meta[name='csrf-token']").get_attribute("content")
        status, body = test.fetch_status("POST", "/labels/print", "csrf=" + csrf,
                                         {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200 and body.startswith("%PDF-"), f"HTTP {status}: {body[:80]!r}"
        test.go("/modems")
        assert "Every registered module has a printed label." in test.text("#labels-unprinted")

        step = "every page passes axe (WCAG 2 A and AA)"
        pages = ["/modems", f"/modems/{first}", "/bind", "/batch", "/devices", "/bindings", "/accounts", "/homes",
                 "/tokens"]
        for path in pages:
            test.go(path)
            time.sleep(0.3)
            test.accessible(path)

        step = "the tab's icon is served (no 404 in the browser's log)"
        test.go("/modems")
        icon = d.find_element(By.CSS_SELECTOR, "link[rel='icon']").get_attribute("href")
        for path in [icon.replace(stack.base, ""), "/favicon.ico"]:
            status, body = test.fetch_status("GET", path)
            assert status == 200 and "<svg" in body, f"{path}: HTTP {status}"
        missing = [entry["message"] for entry in d.get_log("browser") if "favicon" in entry["message"]]
        assert not missing, missing

        step = "a phone-sized window"
        d.set_window_size(390, 844)
        for path, name, description in [
                ("/bind", "phone-bind", "Bind page at 390×844 (a phone): pickers, scan field and camera stacked, "
                 "no sideways scrolling."),
                ("/modems", "phone-modems", "Modems at 390×844: each module a stacked card instead of a wide row."),
                ("/bindings", "phone-bindings", "Bindings at 390×844."),
                (f"/modems/{first}", "phone-module", "A module at 390×844: its label scaled to the screen's width.")]:
            test.go(path)
            time.sleep(0.3)
            assert test.no_horizontal_scroll(), f"{path} scrolls sideways on a phone"
            test.accessible(f"{path} on a phone")
            test.shot(name, description)
        d.set_window_size(1280, 900)

        step = "no Content-Security-Policy violations"
        violations = test.csp_violations()
        assert not violations, violations

        step = "sign out"
        test.go("/modems")
        test.sign_out()
        test.go("/modems")
        assert "/signin" in d.current_url
        test.accessible("the sign-in page")

        step = "a binder sees only the bind pages"
        test.sign_in("line", PASSWORD)
        test.wait(EC.url_contains("/bind"), what="the binder's first page")
        nav = d.find_element(By.CSS_SELECTOR, "nav").text
        assert "Modems" not in nav and "Bind" in nav, nav
        test.go("/modems")
        assert "PERMISSION_DENIED" in d.page_source
        test.shot("binder-forbidden", "A binder opening /modems: 'Forbidden', PERMISSION_DENIED and what role it needs.")

        print(f"console browser test: passed in {time.time() - started:.1f} s")
        for name, description in test.shots:
            print(f"  {name}: {description}")
        return 0
    except Exception:
        print(f"console browser test FAILED at step: {step}", file=sys.stderr)
        traceback.print_exc()
        if test is not None:
            try:
                print(f"  page: {test.driver.current_url}", file=sys.stderr)
                test.shot("failure", f"the page when '{step}' failed")
            except Exception:
                pass
        try:
            print("  nbgwd log (end):\n" + open(stack.log).read()[-4000:], file=sys.stderr)
        except Exception:
            pass
        return 1
    finally:
        if test is not None:
            test.driver.quit()
        stack.stop()
        shutil.rmtree(stack.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
