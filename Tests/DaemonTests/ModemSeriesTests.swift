import Cloud
import Foundation
import Gateway
import Prometheus
import Registry
import Testing

@testable import Daemon

/// The per-modem series and the outbox depth, in process: rows in, series out, against a real
/// store and a real Prometheus registry.
@Suite("per-modem series")
struct ModemSeriesTests {
    static func row(
        _ port: String,
        imei: String?,
        state: String,
        signal: ModemRecord.Signal = .init()
    ) -> ModemRecord {
        let now = Date()
        return ModemRecord(
            port: port,
            imei: imei,
            state: state,
            stateSince: now,
            model: "BG95-M3",
            firmware: "BG95M3LAR02A03",
            signal: signal,
            firstSeen: now,
            lastSeen: now,
            updatedAt: now
        )
    }

    @Test("rows become info, state-set and signal series; no IMEI, no series; absent keeps no signal")
    func samples() {
        let signal = ModemRecord.Signal(rssiDBm: -73, rsrpDBm: -86, rsrqDB: -10.5)
        let samples = ModemSeries.samples([
            Self.row("/dev/ttyUSB2", imei: "864425038511204", state: "ready", signal: signal),
            Self.row("/dev/ttyUSB6", imei: "867187030123415", state: "absent", signal: signal),
            Self.row("/dev/ttyUSB9", imei: nil, state: "probing"),
            Self.row("/dev/ttyUSB3", imei: "490154203237518", state: "sim_locked"),
        ])
        func values(_ name: String, _ imei: String) -> [String: Double] {
            Dictionary(
                uniqueKeysWithValues: samples.filter { $0.name == name && $0.labels[0] == imei }.map {
                    ($0.labels.dropFirst().joined(separator: ","), $0.value)
                }
            )
        }
        #expect(values("nbgw_modem_info", "864425038511204") == ["/dev/ttyUSB2,BG95-M3,BG95M3LAR02A03": 1])
        let ready = values("nbgw_modem_state", "864425038511204")
        #expect(ready.count == ModemState.allCases.count)
        #expect(ready.filter { $0.value == 1 }.keys.sorted() == ["ready"])
        #expect(values("nbgw_modem_rsrp_dbm", "864425038511204") == ["": -86])
        #expect(values("nbgw_modem_rssi_dbm", "864425038511204") == ["": -73])
        #expect(values("nbgw_modem_rsrq_db", "864425038511204") == ["": -10.5])
        #expect(values("nbgw_modem_state", "867187030123415")["absent"] == 1)
        #expect(values("nbgw_modem_rsrp_dbm", "867187030123415").isEmpty, "an absent module's signal is stale")
        #expect(!samples.contains { $0.labels.contains("/dev/ttyUSB9") })
        // A state this build does not know (a newer daemon wrote it) still has its series, at 1.
        let unknown = values("nbgw_modem_state", "490154203237518")
        #expect(unknown.count == ModemState.allCases.count + 1 && unknown["sim_locked"] == 1)
    }

    @Test("a scrape registers new series and unregisters gone ones; outbox depth and build info are there")
    func render() throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = DaemonMetrics(registry: registry)
        let first = HealthReport(
            storeError: nil,
            modems: [:],
            uptimeSeconds: 1,
            records: [
                Self.row("/dev/ttyUSB2", imei: "864425038511204", state: "ready", signal: .init(rssiDBm: -73)),
                Self.row("/dev/ttyUSB6", imei: "867187030123415", state: "failed"),
            ],
            outboxPending: 4
        )
        var text = PrometheusText(String(decoding: metrics.render(first), as: UTF8.self))
        #expect(text.problems.isEmpty, "\(text.problems)")
        #expect(text.value("nbgw_cloud_outbox_pending") == 4)
        #expect(text.value("nbgw_build_info", ["version": "0.2.0"]) == 1)
        #expect(text.value("nbgw_modem_rssi_dbm", ["imei": "864425038511204"]) == -73)
        #expect(text.value("nbgw_modem_state", ["imei": "867187030123415", "state": "failed"]) == 1)

        // The first module moves to another port, the second's row goes away.
        let second = HealthReport(
            storeError: nil,
            modems: [:],
            uptimeSeconds: 2,
            records: [Self.row("/dev/ttyUSB4", imei: "864425038511204", state: "searching")]
        )
        text = PrometheusText(String(decoding: metrics.render(second), as: UTF8.self))
        #expect(text.problems.isEmpty, "\(text.problems)")
        #expect(text.series("nbgw_modem_info").map { $0.labels["port"] } == ["/dev/ttyUSB4"])
        #expect(!text.samples.contains { $0.labels["imei"] == "867187030123415" })
        #expect(text.value("nbgw_modem_state", ["imei": "864425038511204", "state": "searching"]) == 1)
        #expect(text.value("nbgw_modem_state", ["imei": "864425038511204", "state": "ready"]) == 0)
        #expect(text.series("nbgw_modem_rssi_dbm").isEmpty, "no signal read on the new port yet")
        #expect(text.value("nbgw_cloud_outbox_pending") == 0)

        // No modem left: the families go, HELP and TYPE included.
        let empty = HealthReport(storeError: nil, modems: [:], uptimeSeconds: 3)
        let body = String(decoding: metrics.render(empty), as: UTF8.self)
        #expect(!body.contains("nbgw_modem_"))
        #expect(PrometheusText(body).problems.isEmpty)
    }

    @Test("the outbox depth counts pending and in-flight rows, with an HTTP cloud only")
    func outboxDepth() async throws {
        let directory = try TemporaryDirectory()
        let registry = try Registry(path: directory.path("store.sqlite"))
        for index in 0..<4 {
            _ = try registry.outbox.enqueue(
                .init(operation: .register, subject: "86442503851120\(index)", payload: "{}")
            )
        }
        let claimed = try registry.outbox.claim(owner: "test", lease: .seconds(60), limit: 2)
        #expect(claimed.count == 2)
        #expect(try registry.outbox.complete(id: claimed[0].id, owner: "test", result: "{}"))
        #expect(try registry.outbox.pendingCount() == 3)

        let gateway = Gateway(
            configuration: GatewayConfiguration(),
            registry: registry,
            cloud: EmbeddedCloud()
        )
        let withHTTPCloud = Daemon.healthCheck(gateway: gateway, registry: registry, countsOutbox: true, started: .now)
        #expect(await withHTTPCloud().outboxPending == 3)
        let embedded = Daemon.healthCheck(gateway: gateway, registry: registry, started: .now)
        #expect(await embedded().outboxPending == 0)
    }
}
