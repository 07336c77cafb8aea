import Foundation
import Registry
import TestCertificates
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `nbgwd` as a real process against `nbgw-modem-sim`'s real pseudo-terminals (static `[[ports]]`,
/// udev off), observed through its store, its HTTP endpoints and a real systemd notification
/// socket. One process test at a time: they share two cores with the build.
@Suite("nbgwd as a real process", .serialized, .timeLimit(.minutes(5)))
struct DaemonProcessTests {
    /// Twelve modules, every modem family the simulator plays, two of the common ones.
    static let twelve = [
        "bc66", "bg95", "sim7080", "nrf9160", "bc95", "sara-r410", "generic", "bc66", "bg95", "sim7080", "nrf9160",
        "generic",
    ]

    /// Rows that are ready with an IMEI and a device id, by IMEI.
    static func readyDevices(_ rows: [ModemRecord]) -> [String: String] {
        var devices: [String: String] = [:]
        for row in rows where row.state == "ready" {
            if let imei = row.imei, let device = row.deviceID { devices[imei] = device }
        }
        return devices
    }

    /// The value of one sample line of the Prometheus text (`name{labels} value`).
    static func sample(_ metrics: String, _ series: String) -> Double? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("twelve simulated modules reach ready; /healthz and /metrics count them; SIGTERM stops it cleanly")
    func twelveModemsReady() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try SimulatorProcess(Self.twelve, directory: directory)
        try await simulator.waitForPorts()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(
                ports: simulator.ports.map(\.path),
                store: directory.path("store.sqlite"),
                extra: "\n[shutdown]\ngrace_period = 5\n"
            ),
            directory: directory,
            watchdog: .seconds(1)
        )
        let ready = try await daemon.waitForReady()
        #expect(ready.contains("12 static ports, udev off"))

        let rows = try await daemon.waitForModems("12 modems ready") { Self.readyDevices($0).count == 12 }
        #expect(rows.count == 12)
        #expect(Set(rows.map(\.port)) == Set(simulator.ports.map(\.path)))
        for row in rows {
            #expect(row.imei?.count == 15, "\(row.port)")
            #expect(row.deviceID?.hasPrefix("nb") == true, "\(row.port)")
            #expect(row.dialect != nil, "\(row.port)")
        }
        #expect(Set(rows.compactMap(\.imei)).count == 12)

        let health = try await daemon.get("/healthz")
        #expect(health.status == 200)
        let report = try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any] ?? [:]
        #expect(report["status"] as? String == "ok")
        #expect(report["store"] as? String == "ok")
        #expect((report["modems"] as? [String: Int])?["ready"] == 12)
        #expect(report["modemsTotal"] as? Int == 12)

        let metrics = try await daemon.get("/metrics")
        #expect(metrics.status == 200)
        #expect(Self.sample(metrics.body, "nbgw_modems{state=\"ready\"}") == 12)
        #expect(Self.sample(metrics.body, "nbgw_modems{state=\"failed\"}") == 0)
        #expect(Self.sample(metrics.body, "nbgw_registrations_total{result=\"created\"}") == 12)
        #expect(Self.sample(metrics.body, "nbgw_store_up") == 1)
        #expect((Self.sample(metrics.body, "nbgw_at_commands_total") ?? 0) > 12 * 10)
        #expect((Self.sample(metrics.body, "process_resident_memory_bytes") ?? 0) > 1_000_000)

        // The watchdog (WATCHDOG_USEC = 1 s) is pinged every half second.
        _ = try await daemon.notifications.waitFor(timeout: .seconds(5)) { $0 == "WATCHDOG=1" }

        let stopAsked = ContinuousClock.now
        daemon.send(SIGTERM)
        let status = try await daemon.waitForExit(timeout: .seconds(10))
        let took = stopAsked.duration(to: .now)
        #expect(status == 0, "\(daemon.log.suffix(2000))")
        #expect(took < .seconds(5), "graceful stop took \(took), the grace period is 5 s")
        let messages = daemon.notifications.messages
        #expect(messages.first?.hasPrefix("READY=1") == true)
        #expect(messages.last?.hasPrefix("STOPPING=1") == true)
        let after = try Registry(path: daemon.storePath).modems.all()
        #expect(after.allSatisfy { $0.state == "absent" }, "rows left claiming a state nobody vouches for")
        simulator.stop()
    }

    @Test("kill -9 at random moments, then a restart: the same device ids, no duplicate rows")
    func killNineAndRestart() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try SimulatorProcess(Array(Self.twelve.prefix(8)), directory: directory)
        try await simulator.waitForPorts()
        let config = DaemonProcess.config(ports: simulator.ports.map(\.path), store: directory.path("store.sqlite"))

        let first = try DaemonProcess(config: config, directory: directory)
        try await first.waitForReady()
        let rows = try await first.waitForModems("8 modems ready") { Self.readyDevices($0).count == 8 }
        let devices = Self.readyDevices(rows)
        first.send(SIGKILL)
        _ = try await first.waitForExit(timeout: .seconds(5))

        // Kill it again at moments spread over start-up (before, during and after the probes).
        var generator = SystemRandomNumberGenerator()
        var moments: [Int] = []
        for _ in 0..<5 {
            let moment = Int.random(in: 0...1500, using: &generator)
            moments.append(moment)
            let victim = try DaemonProcess(config: config, directory: directory)
            try await Task.sleep(for: .milliseconds(moment))
            victim.send(SIGKILL)
            let status = try await victim.waitForExit(timeout: .seconds(5))
            #expect(status != nil, "kill -9 at \(moment) ms did not end the process")
        }

        let last = try DaemonProcess(config: config, directory: directory)
        try await last.waitForReady()
        let final = try await last.waitForModems("8 modems ready again after kills at \(moments) ms") {
            Self.readyDevices($0).count == 8
        }
        #expect(Self.readyDevices(final) == devices, "kills at \(moments) ms")
        #expect(final.count == 8, "duplicate modem rows after kills at \(moments) ms")
        let registry = try Registry(path: last.storePath)
        #expect(
            try registry.directory.devices(limit: 100).count == 8,
            "duplicate device rows after kills at \(moments) ms"
        )
        for (imei, device) in devices {
            #expect(try registry.directory.device(imei: imei)?.deviceID == device)
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            check.arguments = [last.storePath, "PRAGMA integrity_check"]
            let output = Pipe()
            check.standardOutput = output
            try check.run()
            let verdict = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            check.waitUntilExit()
            #expect(verdict == "ok\n", "integrity_check after kills at \(moments) ms")
        }
        last.send(SIGTERM)
        #expect(try await last.waitForExit(timeout: .seconds(15)) == 0)
        simulator.stop()
    }

    @Test("a reboot banner re-initialises the module; a hang-up marks it absent; the others stay ready")
    func rebootAndHangup() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try SimulatorProcess(["bg95", "bc66", "sim7080", "nrf9160"], directory: directory)
        try await simulator.waitForPorts()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(ports: simulator.ports.map(\.path), store: directory.path("store.sqlite")),
            directory: directory
        )
        try await daemon.waitForReady()
        let before = try await daemon.waitForModems("4 modems ready") { Self.readyDevices($0).count == 4 }
        func row(_ rows: [ModemRecord], _ index: Int) -> ModemRecord? {
            rows.first { $0.port == simulator.ports[index].path }
        }

        let rebootAt = Date()
        simulator.control("0 reboot")
        let rebooted = try await daemon.waitForModems("port 0 ready again after its reboot") { rows in
            guard let port0 = row(rows, 0) else { return false }
            return port0.state == "ready" && port0.stateSince > rebootAt
        }
        #expect(row(rebooted, 0)?.deviceID == row(before, 0)?.deviceID)
        #expect(daemon.log.contains("port=\(simulator.ports[0].path) state=probing"))

        simulator.control("1 hangup")
        let hungUp = try await daemon.waitForModems("port 1 absent after its hang-up") { rows in
            row(rows, 1)?.state == "absent"
        }
        #expect(row(hungUp, 1)?.imei == row(before, 1)?.imei)
        for index in [2, 3] {
            #expect(row(hungUp, index)?.state == "ready")
            #expect(row(hungUp, index)?.stateSince == row(before, index)?.stateSince, "port \(index) was disturbed")
        }
        let health = try await daemon.get("/healthz")
        let report = try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any] ?? [:]
        #expect((report["modems"] as? [String: Int])?["ready"] == 3)

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
        simulator.stop()
    }
}

extension DaemonProcessTests {
    /// Runs the `nbgw` CLI against `store`; returns stdout.
    static func nbgw(_ arguments: [String], store: String) throws -> String {
        let process = Process()
        process.executableURL = Binaries.nbgw
        process.arguments = arguments
        process.environment = Binaries.cleanEnvironment(["NBGW_DB": store])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("[ingest] enabled: the QR ingest API runs inside the daemon and lists its modems to a key holder")
    func ingestInsideTheDaemon() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.sqlite")
        let created = try Self.nbgw(["apikeys", "create", "--name", "scanner-1", "--json"], store: store)
        let key = try #require(
            (try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["key"] as? String
        )
        let simulator = try SimulatorProcess(["bg95", "bc66"], directory: directory)
        try await simulator.waitForPorts()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(
                ports: simulator.ports.map(\.path),
                store: store,
                extra: "\n[ingest]\nenabled = true\nlisten = \"127.0.0.1:0\"\n"
            ),
            directory: directory
        )
        let ready = try await daemon.waitForReady()
        let ingest = try #require(daemon.ingestBase, "no ingest address in \(ready)")
        let rows = try await daemon.waitForModems("2 modems ready") { Self.readyDevices($0).count == 2 }

        #expect(try await DaemonProcess.get(ingest + "/v1/modems").status == 401)
        let listed = try await DaemonProcess.get(ingest + "/v1/modems", headers: ["Authorization": "Bearer \(key)"])
        #expect(listed.status == 200, "\(listed.body)")
        for imei in rows.compactMap(\.imei) {
            #expect(listed.body.contains(imei))
        }
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
        simulator.stop()
    }

    @Test("[ingest] with tls_certificate and tls_key: the daemon serves HTTPS on 0.0.0.0 without insecure_expose")
    func ingestOverTLSInsideTheDaemon() async throws {
        let directory = try TemporaryDirectory()
        let certificate = try SelfSignedCertificate()
        let store = directory.path("store.sqlite")
        let created = try Self.nbgw(["apikeys", "create", "--name", "scanner-1", "--json"], store: store)
        let key = try #require(
            (try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["key"] as? String
        )
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(
                ports: ["/dev/null"],
                store: store,
                extra: """

                    [ingest]
                    enabled = true
                    listen = "0.0.0.0:0"
                    tls_certificate = "\(certificate.certificatePath)"
                    tls_key = "\(certificate.keyPath)"

                    """
            ),
            directory: directory
        )
        let ready = try await daemon.waitForReady()
        let base = try #require(daemon.ingestBase, "no ingest address in \(ready)")
        #expect(base.hasPrefix("https://0.0.0.0:"), "\(ready)")
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) })

        let url = "https://127.0.0.1:\(port)/v1/modems"
        let anonymous = try Curl.request(url, trusting: certificate.certificatePath)
        #expect(anonymous.status == 401, "\(anonymous)")
        let listed = try Curl.request(
            url,
            trusting: certificate.certificatePath,
            headers: ["Authorization": "Bearer \(key)"]
        )
        #expect(listed.status == 200, "\(listed)")
        let plain = try Curl.request("http://127.0.0.1:\(port)/v1/modems", trusting: nil)
        #expect(plain.status == 0, "plain HTTP to the TLS port was answered: \(plain)")
        #expect(daemon.log.contains("scheme=https") || daemon.log.contains("scheme: https"), "\(daemon.log)")
        #expect(
            !daemon.log.contains(
                try String(contentsOfFile: certificate.keyPath, encoding: .utf8).split(separator: "\n")[1]
            )
        )

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
    }
}
