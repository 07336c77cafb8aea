import Gateway
import Prometheus
import Registry

/// The per-modem series of `/metrics`, computed from the modem table at every scrape
/// (docs/operations.md, "Metrics and health"). A module is in them while the store has its row
/// with an IMEI; a row that goes away takes its series with it.
///
/// | series | labels | value |
/// |---|---|---|
/// | `nbgw_modem_info` | `imei`, `port`, `model`, `firmware` | 1 |
/// | `nbgw_modem_state` | `imei`, `state` (every state) | 1 for the current state, 0 for the others |
/// | `nbgw_modem_rsrp_dbm`, `nbgw_modem_rssi_dbm`, `nbgw_modem_rsrq_db` | `imei` | last polled, while present |
///
/// An `absent` module keeps its info and state series (state `absent` = 1: an alert on it fires
/// when a module disappears); its signal series go, since the last reading no longer describes a
/// radio anyone listens to.
///
/// Why `nbgw_modem_state` is one series per state with 0 and 1 (the OpenMetrics "StateSet") and
/// not one series whose `state` label changes: the set of series stays the same while the module
/// exists, so `nbgw_modem_state{state="failed"} == 1` fires and resolves by value, and
/// `max_over_time(nbgw_modem_state{state="ready"}[1h]) == 0` finds a module that was never ready
/// in an hour. A changing label would end one series and start another at every transition:
/// alerts would see a gap, and for five minutes (Prometheus' staleness) a module would seem to be
/// in two states.
enum ModemSeries {
    struct Sample: Hashable {
        /// A series: its name and label values.
        struct Key: Hashable {
            var name: String
            var labels: [String]
        }

        var name: String
        var labels: [String]
        var value: Double

        var key: Key { Key(name: name, labels: labels) }
    }

    /// The label names of each family, in the order samples give their values.
    static let labelNames: [String: [String]] = [
        info: ["imei", "port", "model", "firmware"],
        state: ["imei", "state"],
        rsrp: ["imei"],
        rssi: ["imei"],
        rsrq: ["imei"],
    ]

    static let info = "nbgw_modem_info"
    static let state = "nbgw_modem_state"
    static let rsrp = "nbgw_modem_rsrp_dbm"
    static let rssi = "nbgw_modem_rssi_dbm"
    static let rsrq = "nbgw_modem_rsrq_db"

    static let help: [String: String] = [
        info: "A module the store knows (by IMEI), always 1; its port, model and firmware as labels.",
        state: "1 for the module's current supervisor state, 0 for each other state (one series per state).",
        rsrp: "RSRP of a present module's serving cell in dBm, as last polled (+CESQ; 3GPP TS 27.007 8.69).",
        rssi: "RSSI of a present module in dBm, as last polled (+CSQ; 3GPP TS 27.007 8.5).",
        rsrq: "RSRQ of a present module's serving cell in dB, as last polled (+CESQ).",
    ]

    /// The samples for `records`: rows without an IMEI (a port still probing, a non-modem port)
    /// have none; they are counted in `nbgw_modems{state}`.
    static func samples(_ records: [ModemRecord]) -> [Sample] {
        var samples: [Sample] = []
        for record in records {
            guard let imei = record.imei else { continue }
            samples.append(
                Sample(
                    name: info,
                    labels: [imei, record.port, label(record.model), label(record.firmware)],
                    value: 1
                )
            )
            var states = ModemState.allCases.map(\.rawValue)
            // A state a newer daemon wrote into a shared store is still shown.
            if !states.contains(record.state) { states.append(record.state) }
            for name in states {
                samples.append(Sample(name: state, labels: [imei, name], value: name == record.state ? 1 : 0))
            }
            guard record.state != ModemState.absent.rawValue else { continue }
            if let value = record.signal.rsrpDBm {
                samples.append(Sample(name: rsrp, labels: [imei], value: Double(value)))
            }
            if let value = record.signal.rssiDBm {
                samples.append(Sample(name: rssi, labels: [imei], value: Double(value)))
            }
            if let value = record.signal.rsrqDB { samples.append(Sample(name: rsrq, labels: [imei], value: value)) }
        }
        return samples
    }

    /// Text read from a module, as a label value: at most 128 bytes (swift-prometheus escapes
    /// quotes, backslashes and line breaks).
    static func label(_ text: String?) -> String {
        guard let text else { return "" }
        guard text.utf8.count > 128 else { return text }
        return String(decoding: JournalEntry.truncated(Array(text.utf8), to: 128), as: UTF8.self)
    }

    static func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help[name] ?? "")
    }
}
