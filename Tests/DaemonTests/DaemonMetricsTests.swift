import Foundation
import Gateway
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What an operator watches, from a real `nbgwd` on simulated modules: the per-modem series of
/// `/metrics` (checked whole against the text format) and the modem list of `/healthz`.
@Suite("nbgwd metrics and health", .serialized, .timeLimit(.minutes(3)))
struct DaemonMetricsTests {
    /// Two modules that get ready and one the network denies.
    static let modules = ["bg95", "bc66,registration=denied", "sim7080"]

    static func scrape(_ daemon: DaemonProcess) async throws -> PrometheusText {
        let response = try await daemon.get("/metrics")
        #expect(response.status == 200)
        let text = PrometheusText(response.body)
        #expect(text.problems.isEmpty, "\(text.problems.joined(separator: "\n"))\n\(response.body)")
        return text
    }

    @Test("per-modem series and /healthz entries come from the modem table; every family has HELP and TYPE")
    func perModemSeries() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try SimulatorProcess(Self.modules, directory: directory)
        try await simulator.waitForPorts()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(ports: simulator.ports.map(\.path), store: directory.path("store.sqlite")),
            directory: directory
        )
        try await daemon.waitForReady()
        let rows = try await daemon.waitForModems("two ready with signal, one denied (waiting)") { rows in
            rows.filter { $0.state == "ready" && $0.signal.rssiDBm != nil }.count == 2
                && rows.contains { $0.state == "waiting" && $0.imei != nil }
        }

        let response = try await daemon.get("/metrics")
        let metrics = try await Self.scrape(daemon)
        for family in try PrometheusText.pythonFamilies(response.body) {
            let name = family["name"] as? String ?? "?"
            #expect((family["help"] as? String)?.isEmpty == false, "\(name) has no HELP")
            #expect(["counter", "gauge", "histogram"].contains(family["type"] as? String ?? ""), "\(name)")
        }
        #expect(metrics.value("nbgw_build_info", ["version": "0.2.0"]) == 1)
        #expect(metrics.value("nbgw_cloud_outbox_pending") == 0)
        #expect(metrics.value("nbgw_modems", ["state": "ready"]) == 2)
        #expect(metrics.help["nbgw_modems"]?.isEmpty == false, "the gateway's swift-metrics series have HELP")

        for row in rows {
            let imei = try #require(row.imei)
            let info = ["imei": imei, "port": row.port, "model": row.model ?? "", "firmware": row.firmware ?? ""]
            #expect(metrics.value("nbgw_modem_info", info) == 1, "\(info)")
            let states = metrics.series("nbgw_modem_state").filter { $0.labels["imei"] == imei }
            #expect(states.count == ModemState.allCases.count, "one series per state for \(imei)")
            #expect(states.filter { $0.value == 1 }.map { $0.labels["state"] } == [row.state], "\(imei)")
            if row.state == "ready" {
                #expect(metrics.value("nbgw_modem_rssi_dbm", ["imei": imei]) == row.signal.rssiDBm.map(Double.init))
                if let rsrp = row.signal.rsrpDBm {
                    #expect(metrics.value("nbgw_modem_rsrp_dbm", ["imei": imei]) == Double(rsrp))
                }
            }
        }

        let health = try await daemon.get("/healthz")
        let report = try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any] ?? [:]
        let list = report["modemList"] as? [[String: Any]] ?? []
        #expect(list.count == 3, "\(health.body)")
        let failed = try #require(rows.first { $0.state == "waiting" })
        let entry = try #require(list.first { $0["port"] as? String == failed.port })
        #expect(entry["imei"] as? String == failed.imei)
        #expect(entry["state"] as? String == "waiting")
        #expect(entry["reason"] as? String == "REGISTRATION_DENIED")
        #expect((entry["reasonMessage"] as? String)?.contains("#15 no suitable cells") == true)
        #expect(report["status"] as? String == "ok")

        // Unplugged: the module stays in the info and state series (state absent), its signal goes.
        let gone = try #require(rows.first { $0.port == simulator.ports[2].path })
        let goneIMEI = try #require(gone.imei)
        simulator.control("2 hangup")
        try await daemon.waitForModems("port 2 absent") { rows in
            rows.contains { $0.port == gone.port && $0.state == "absent" }
        }
        let afterUnplug = try await Self.scrape(daemon)
        #expect(afterUnplug.value("nbgw_modem_state", ["imei": goneIMEI, "state": "absent"]) == 1)
        #expect(afterUnplug.value("nbgw_modem_state", ["imei": goneIMEI, "state": "ready"]) == 0)
        #expect(afterUnplug.series("nbgw_modem_info").contains { $0.labels["imei"] == goneIMEI })
        #expect(!afterUnplug.series("nbgw_modem_rssi_dbm").contains { $0.labels["imei"] == goneIMEI })
        #expect(!afterUnplug.series("nbgw_modem_rsrp_dbm").contains { $0.labels["imei"] == goneIMEI })

        // The row goes away (an operator's DELETE): so do its series, at the next scrape.
        try Self.sqlite(daemon.storePath, "DELETE FROM modem WHERE imei = '\(goneIMEI)'")
        let afterDelete = try await Self.scrape(daemon)
        #expect(!afterDelete.samples.contains { $0.labels["imei"] == goneIMEI })
        #expect(afterDelete.value("nbgw_modem_state", ["imei": failed.imei ?? "", "state": "waiting"]) == 1)

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
        simulator.stop()
    }

    /// Runs one statement with the sqlite3 shell, as an operator would.
    static func sqlite(_ store: String, _ statement: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-cmd", ".timeout 5000", store, statement]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DaemonProcess.Failure(description: "sqlite3 \(statement): status \(process.terminationStatus)")
        }
    }
}
