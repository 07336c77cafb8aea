/// The console's stylesheet and script, served from `/static/` with long-lived caching off
/// (they change with the binary). Written here, no build step, no package registry: plain CSS
/// and one plain script that starts what the page's `data-page` asks for. The script never writes
/// markup from data (`textContent` only).
enum ConsoleAssets {
    static let files: [String: (type: String, body: String)] = [
        "console.css": ("text/css; charset=utf-8", css),
        "console.js": ("text/javascript; charset=utf-8", script),
        "favicon.svg": ("image/svg+xml", favicon),
    ]

    /// The tab's icon: a module with its antenna, in the top bar's blue. Why served at all: without
    /// one, every page's visit logged a 404 for `/favicon.ico` in the browser's console.
    static let favicon = #"""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
        <rect width="32" height="32" rx="6" fill="#11365e"/>
        <rect x="8" y="13" width="16" height="12" rx="2" fill="#fff"/>
        <path d="M20 13V6" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/>
        <circle cx="20" cy="6" r="2.5" fill="#f4b400"/>
        </svg>
        """#

    static let css = #"""
        :root { --fg: #1b1f24; --bg: #fafafa; --muted: #5a6270; --line: #d6d9de; --accent: #0b5cad;
          --ok: #0a6630; --warn: #9a5b00; --bad: #b3261e; font-family: system-ui, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--fg); background: var(--bg); line-height: 1.45; }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid #f4b400; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 8px; top: 8px; background: #fff; padding: 8px; z-index: 9; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        .top { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 12px;
          background: #11365e; color: #fff; }
        .top a { color: #fff; }
        .brand { font-weight: 700; }
        .top nav ul { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; margin: 0; padding: 0; }
        .top nav a { display: inline-block; padding: 6px 2px; }
        .top nav a[aria-current="page"] { font-weight: 700; text-decoration: underline 3px; }
        .signout { margin-left: auto; display: flex; gap: 8px; align-items: center; }
        main { padding: 12px; max-width: 1100px; margin: 0 auto; }
        h1 { font-size: 1.5rem; margin: 8px 0 12px; }
        h2 { font-size: 1.15rem; }
        label { display: block; font-weight: 600; margin-bottom: 4px; }
        input, select, button { font: inherit; min-height: 44px; }
        input, select { width: 100%; max-width: 32rem; padding: 8px; border: 1px solid #8a919c; border-radius: 6px;
          background: #fff; }
        button { padding: 8px 16px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
          color: #fff; cursor: pointer; }
        button.danger { background: var(--bad); border-color: var(--bad); }
        .signout button { min-height: 36px; padding: 4px 10px; background: transparent; border-color: #fff; }
        fieldset { border: 1px solid var(--line); border-radius: 8px; }
        img.label { max-width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; }
        .hint { color: var(--muted); }
        .flash { padding: 10px 12px; border-radius: 6px; background: #eef3fa; }
        .flash.error { background: #fbe9e7; color: var(--bad); font-weight: 600; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top;
          overflow-wrap: anywhere; }
        .state { display: inline-block; padding: 2px 8px; border-radius: 10px; background: #e8eaed; font-weight: 600; }
        .state-ready { background: #d7f0df; color: var(--ok); }
        .state-waiting, .state-locked, .state-searching, .state-registering { background: #fdf0d5; color: var(--warn); }
        .state-failed, .state-absent { background: #fbe3e1; color: var(--bad); }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
        .facts dt { font-weight: 600; }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        .actions { display: flex; flex-wrap: wrap; gap: 8px; }
        form.inline { display: inline; margin-left: 6px; }
        .result { margin: 16px 0; padding: 16px; border-radius: 10px; border: 3px solid transparent; min-height: 2rem; }
        .result:empty { display: none; }
        .result-status { font-size: 2rem; font-weight: 800; margin: 0; }
        .result-code { font-family: ui-monospace, monospace; font-size: 1.1rem; margin: 4px 0; }
        .result-message { font-size: 1.15rem; margin: 4px 0; }
        .result-bound { background: #d7f0df; border-color: var(--ok); color: #064d25; }
        .result-unchanged { background: #e3edf9; border-color: var(--accent); color: #0a3d73; }
        .result-failed { background: #fbe3e1; border-color: var(--bad); color: #7a1510; }
        progress { width: 100%; max-width: 32rem; height: 1.2rem; }
        .history { padding-left: 1.2rem; }
        .history li { margin: 2px 0; }
        video { width: 100%; max-width: 480px; border-radius: 8px; background: #000; }
        .search { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 12px; }
        .search label { width: 100%; }
        .search input { flex: 1 1 12rem; }
        .pages { display: flex; gap: 16px; align-items: center; margin: 12px 0; }
        .confirm-question { font-size: 1.2rem; font-weight: 700; }
        .qr-text { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
        .bottom { color: var(--muted); padding: 12px; text-align: center; font-size: 0.9rem; }
        @media (max-width: 640px) {
          .top { padding: 6px 8px; }
          .signout { margin-left: 0; }
          .facts { grid-template-columns: 1fr; }
          .result-status { font-size: 1.6rem; }
          thead { display: none; }
          #modems tr, #list tr { display: block; border-bottom: 2px solid var(--line); padding: 4px 0; }
          #modems td, #list td { display: block; border: 0; padding: 2px 8px; }
          #modems td[data-label]:not(:empty)::before { content: attr(data-label) ": "; font-weight: 600;
            color: var(--muted); }
        }
        """#

    static let script = #"""
        "use strict";
        (function () {
          var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

          function post(url, body, type) {
            var headers = { "X-CSRF-Token": csrf, "Accept": "application/json" };
            if (type) headers["Content-Type"] = type;
            return fetch(url, { method: "POST", body: body, headers: headers, credentials: "same-origin" })
              .then(function (r) {
                return r.json().catch(function () { return { status: "failed", code: "HTTP_" + r.status, message: r.statusText }; });
              });
          }

          function text(el, value) { el.textContent = value == null ? "" : String(value); }

          function cell(tr, value, href, label) {
            var td = document.createElement("td");
            if (label) td.dataset.label = label;
            if (href) { var a = document.createElement("a"); a.href = href; text(a, value); td.appendChild(a); }
            else text(td, value);
            tr.appendChild(td);
            return td;
          }

          // Modems: the table refreshes itself every 1.5 s from /modems.json.
          function modems() {
            var body = document.getElementById("modems-body");
            var status = document.getElementById("modems-status");
            function refresh() {
              fetch("/modems.json", { headers: { "Accept": "application/json" }, credentials: "same-origin" })
                .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
                .then(function (data) {
                  var rows = document.createDocumentFragment();
                  data.modems.forEach(function (m) {
                    var tr = document.createElement("tr");
                    tr.dataset.port = m.port;
                    var td = document.createElement("td");
                    td.dataset.label = "State";
                    var span = document.createElement("span");
                    span.className = "state state-" + m.state.replace(/[^a-z_]/g, "");
                    text(span, m.state); td.appendChild(span); tr.appendChild(td);
                    cell(tr, m.reason, null, "Reason");
                    cell(tr, m.imei, m.href, "IMEI");
                    cell(tr, m.model, null, "Model"); cell(tr, m.port, null, "Port");
                    cell(tr, m.signal, null, "Signal"); cell(tr, m.deviceId, null, "Device");
                    rows.appendChild(tr);
                  });
                  body.replaceChildren(rows);
                  text(status, data.modems.length + " modules; " + data.ready + " ready; updated " + new Date().toLocaleTimeString());
                })
                .catch(function (e) { text(status, "Cannot refresh: " + e.message); });
            }
            setInterval(refresh, 1500);
            refresh();
          }

          // Bind: the scan field (a keyboard-wedge scanner types and presses Enter) and the camera.
          function bind() {
            var form = document.getElementById("bind-form");
            var qr = document.getElementById("qr");
            var result = document.getElementById("result");
            var history = document.getElementById("history");
            var busy = false;

            function show(r) {
              var kind = r.status === "bound" ? "bound" : (r.status === "unchanged" ? "unchanged" : "failed");
              result.className = "result result-" + kind;
              result.replaceChildren();
              var h = document.createElement("p"); h.className = "result-status"; text(h, r.headline || r.status);
              var c = document.createElement("p"); c.className = "result-code"; text(c, r.code || "");
              var m = document.createElement("p"); m.className = "result-message"; text(m, r.message || "");
              result.append(h, c, m);
              var li = document.createElement("li");
              text(li, (r.headline || r.status) + " · " + (r.code || "") + " · " + (r.deviceId || r.message || ""));
              history.prepend(li);
            }

            function fields(extra) {
              var data = new URLSearchParams();
              data.set("csrf", csrf);
              ["account", "home", "token"].forEach(function (n) { var e = document.getElementById(n); if (e) data.set(n, e.value); });
              Object.keys(extra).forEach(function (k) { data.set(k, extra[k]); });
              return data;
            }

            // A home belongs to one owner: picking the home picks its account.
            var home = document.getElementById("home"), account = document.getElementById("account");
            function follow() {
              var option = home.options[home.selectedIndex];
              if (option && option.dataset.owner) account.value = option.dataset.owner;
            }
            home.addEventListener("change", follow);
            if (!/[?&]account=/.test(location.search)) follow();

            form.addEventListener("submit", function (event) {
              event.preventDefault();
              var value = qr.value;
              if (!value || busy) return;
              busy = true;
              post("/bind", fields({ qr: value }), "application/x-www-form-urlencoded")
                .then(show)
                .catch(function (e) { show({ status: "failed", code: "NETWORK", message: e.message }); })
                .then(function () { busy = false; qr.value = ""; qr.focus(); });
            });

            var video = document.getElementById("camera");
            var canvas = document.getElementById("frame");
            var start = document.getElementById("camera-start");
            var stop = document.getElementById("camera-stop");
            var cstatus = document.getElementById("camera-status");
            var stream = null, timer = null, lastCode = "", lastAt = 0, sending = false;

            function stopCamera() {
              if (timer) clearInterval(timer);
              timer = null;
              if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
              stream = null;
              video.hidden = true; stop.hidden = true; start.hidden = false;
              text(cstatus, "Camera off.");
            }

            function sendFrame() {
              if (sending || !video.videoWidth) return;
              var scale = Math.min(1, 640 / video.videoWidth);
              var w = Math.round(video.videoWidth * scale), h = Math.round(video.videoHeight * scale);
              canvas.width = w; canvas.height = h;
              var ctx = canvas.getContext("2d", { willReadFrequently: true });
              ctx.drawImage(video, 0, 0, w, h);
              var rgba = ctx.getImageData(0, 0, w, h).data;
              var gray = new Uint8Array(w * h);
              for (var i = 0, j = 0; j < gray.length; i += 4, j++) {
                gray[j] = (rgba[i] * 77 + rgba[i + 1] * 150 + rgba[i + 2] * 29) >> 8;
              }
              sending = true;
              var f = fields({ width: w, height: h });
              post("/bind/frame?" + f.toString(), gray, "application/octet-stream")
                .then(function (r) {
                  if (!r.found) { text(cstatus, r.busy ? "The gateway is busy; trying the next frame…" : "Looking for a code…"); return; }
                  var now = Date.now();
                  if (r.qr === lastCode && now - lastAt < 4000) return;
                  lastCode = r.qr; lastAt = now;
                  text(cstatus, "Read a code.");
                  show(r);
                })
                .catch(function (e) { text(cstatus, "Frame not sent: " + e.message); })
                .then(function () { sending = false; });
            }

            start.addEventListener("click", function () {
              if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
                text(cstatus, "This browser gives no camera here (it needs HTTPS or localhost).");
                return;
              }
              navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false })
                .then(function (s) {
                  stream = s; video.srcObject = s; video.hidden = false; stop.hidden = false; start.hidden = true;
                  return video.play();
                })
                .then(function () { text(cstatus, "Camera on: hold a label in view."); timer = setInterval(sendFrame, 400); })
                .catch(function (e) { text(cstatus, "No camera: " + e.message); stopCamera(); });
            });
            stop.addEventListener("click", stopCamera);
          }

          // Batch: the file goes up as the request body; the page follows the job until it ends.
          function batch() {
            var form = document.getElementById("batch-form");
            var file = document.getElementById("file");
            var bar = document.getElementById("batch-progress");
            var status = document.getElementById("batch-status");
            var report = document.getElementById("batch-report");
            var link = document.getElementById("batch-report-link");
            form.addEventListener("submit", function (event) {
              event.preventDefault();
              if (!file.files.length) { text(status, "Choose a CSV file first."); return; }
              var q = new URLSearchParams();
              q.set("name", file.files[0].name);
              q.set("account", document.getElementById("account").value);
              q.set("home", document.getElementById("home").value);
              report.hidden = true;
              text(status, "Uploading…");
              post("/batch?" + q.toString(), file.files[0], "text/csv")
                .then(function (r) {
                  if (!r.id) { text(status, (r.code || "") + " " + (r.message || "upload refused")); return; }
                  follow(r.id);
                })
                .catch(function (e) { text(status, "Upload failed: " + e.message); });
            });
            function follow(id) {
              fetch("/batch/" + id + ".json", { headers: { "Accept": "application/json" }, credentials: "same-origin" })
                .then(function (r) { return r.json(); })
                .then(function (j) {
                  if (j.bytesTotal === undefined) { text(status, (j.code || "") + " " + (j.message || "")); return; }
                  bar.max = Math.max(1, j.bytesTotal); bar.value = j.bytesDone;
                  text(status, j.summary);
                  if (j.done) {
                    if (j.report) { link.href = j.report; report.hidden = false; link.focus(); }
                  } else setTimeout(function () { follow(id); }, 300);
                })
                .catch(function (e) { text(status, "Progress not read: " + e.message); });
            }
            var running = document.getElementById("batch-card").dataset.running;
            if (running) follow(running);
          }

          var page = document.body.dataset.page;
          if (page === "modems") modems();
          if (page === "bind") bind();
          if (page === "batch") batch();
        })();
        """#
}
