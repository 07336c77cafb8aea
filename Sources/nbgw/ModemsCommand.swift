import ATKit
import ArgumentParser
import Control
import Foundation
import Gateway
import NBGWCore
import Registry

/// `nbgw modems`: one line per modem the daemon supervises or has seen (like `mmcli -L`), read
/// from the store's modem table, so it works while the daemon runs.
struct ModemsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modems",
        abstract: "List modems: state, reason, IMEI, model, port, signal, device id (from the daemon's modem table).",
        discussion: """
            Present modems first (by port), then absent ones. States: probing, configuring, searching, \
            registering, ready, waiting, locked, failed, released, absent, not_modem; REASON says why a modem \
            waits or failed (docs/gateway.md). Details: `nbgw modem show IMEI|PORT`. --watch follows the running \
            daemon instead: every state change as it happens, until Ctrl-C. The store: `nbgw --where`.
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print every state change as it happens (from the running daemon), until Ctrl-C.")
    var watch = false

    func run() async throws {
        if watch {
            try await watchDaemon()
            return
        }
        try await Output.run(json: store.json) {
            let modems = try store.openExistingRegistry().modems.all()
            if store.json {
                Output.json(["modems": modems])
            } else if modems.isEmpty {
                Output.line("no modems (the daemon records them as it finds them; see docs/gateway.md)")
            } else {
                Output.table(
                    ["STATE", "REASON", "IMEI", "MODEL", "PORT", "SIGNAL", "DEVICE"],
                    modems.map { modem in
                        [
                            modem.state, modem.reason?.code ?? "-", modem.imei ?? "-", modem.model ?? "-", modem.port,
                            Self.signal(modem), modem.deviceID ?? "-",
                        ]
                    }
                )
            }
        }
    }

    /// The listing's signal column: RSRP (LTE), else RSSI, for modems that are present.
    static func signal(_ modem: ModemRecord) -> String {
        guard modem.state != ModemState.absent.rawValue, modem.state != ModemState.notModem.rawValue,
            let dBm = modem.signal.summaryDBm
        else { return "-" }
        return "\(dBm) dBm"
    }

    /// `--watch`: the daemon's current list, then one line (or JSON object) per state change.
    func watchDaemon() async throws {
        try await Output.run(json: store.json) {
            let client = try DaemonControl.connect()
            let id = client.newID()
            let current: ControlModems = try client.request(ControlRequest(id: id, op: .watch))
            if store.json {
                Output.json(current)
            } else {
                Output.line("nbgwd \(client.hello.version) (pid \(client.hello.pid)), store \(client.hello.store)")
                Output.table(
                    ["STATE", "REASON", "IMEI", "PORT", "DEVICE"],
                    current.modems.map {
                        [$0.state.rawValue, $0.reason?.code ?? "-", $0.imei ?? "-", $0.port, $0.deviceID ?? "-"]
                    }
                )
                Output.line("-- following state changes (Ctrl-C to stop)")
            }
            try client.follow { head, line in
                guard head.type == .event, let status = client.decode(ModemStatus.self, from: line) else { return true }
                if store.json {
                    Output.json(status)
                } else {
                    let reason = status.reason.map { "  \($0.code): \($0.message)" } ?? ""
                    Output.line(
                        "\(Output.time(status.stateSince ?? Date()))  \(status.port)  \(status.imei ?? "-")  "
                            + "\(status.state.rawValue)\(reason)"
                    )
                }
                return true
            }
            throw NBGWError(.daemonNotRunning, "nbgwd closed the connection (it stopped?)")
        }
    }

    /// What to do: the reason's advice while the modem waits, is locked or failed, else what the
    /// state means for the operator.
    static func advice(for modem: ModemRecord) -> String? {
        let state = ModemState(rawValue: modem.state)
        if let reason = modem.reason, let advice = ModemReason(code: reason.code, message: reason.message).advice,
            state != .ready
        {
            return advice
        }
        if let code = modem.lastError.flatMap({ ModemFailureCode(rawValue: $0.code) }),
            state == .failed || state == .notModem
        {
            return code.advice
        }
        switch state {
        case .absent:
            return "Not supervised now: the port was unplugged, or the daemon is stopped (`systemctl status nbgwd`); "
                + "the facts shown are the last known."
        case .searching:
            return "Waiting for the network: check the antenna and coverage if this lasts (the daemon retries after "
                + "its registration timeout)."
        case .failed:
            return "The daemon retries at the time shown; the last error says why it failed."
        default:
            return nil
        }
    }

    /// The text of `nbgw modem show`.
    static func details(_ modem: ModemRecord, advice: String?) -> [String] {
        var lines: [String] = []
        func add(_ label: String, _ value: String?) {
            guard let value else { return }
            lines.append((label + ":").padding(toLength: 15, withPad: " ", startingAt: 0) + value)
        }
        add("port", modem.port)
        add("state", "\(modem.state) since \(Output.timestamp(modem.stateSince))")
        if let reason = modem.reason { add("reason", "\(reason.code): \(reason.message)") }
        add("IMEI", modem.imei ?? "-")
        add("device id", modem.deviceID ?? "-")
        add("module", [modem.manufacturer, modem.model].compactMap { $0 }.joined(separator: " ").nonEmpty ?? "-")
        add("firmware", modem.firmware)
        add("dialect", modem.dialect.map { dialect in modem.baud.map { "\(dialect) at \($0) baud" } ?? dialect })
        add("IMSI", modem.imsi)
        add("ICCID", modem.iccid)
        add("registration", registration(modem.registration))
        add("PSM", psm(modem.registration))
        add("signal", signalDetails(modem.signal))
        if let error = modem.lastError {
            add("last error", "\(error.code) at \(Output.timestamp(error.at)): \(error.message)")
        }
        add("what to do", advice)
        if modem.attempts > 0 { add("attempts", "\(modem.attempts) failed in a row") }
        add("next retry", modem.retryAt.map(Output.timestamp))
        add("first seen", Output.timestamp(modem.firstSeen))
        add("last seen", Output.timestamp(modem.lastSeen))
        add("device key", modem.deviceKey)
        for (key, value) in modem.attributes.sorted(by: { $0.key < $1.key }) {
            add("  \(key)", value)
        }
        return lines
    }

    /// `registered_home (stat 1), lte-m (AcT 8), TAC B3C1, cell 01D4A2F3, operator 26201`.
    static func registration(_ registration: ModemRecord.Registration) -> String {
        guard let stat = registration.stat else { return "-" }
        var parts = ["\(RegistrationState(rawValue: stat)?.name ?? "unknown") (stat \(stat))"]
        if let act = registration.act {
            parts.append("\(registration.technology ?? "?") (AcT \(act))")
        }
        if let tac = registration.tac { parts.append("TAC \(tac)") }
        if let ci = registration.ci { parts.append("cell \(ci)") }
        if let plmn = registration.operator { parts.append("operator \(plmn)") }
        if let cause = registration.rejectCause { parts.append("reject cause \(cause) (3GPP TS 24.301 Annex A)") }
        if let at = registration.at { parts.append("at \(Output.timestamp(at))") }
        return parts.joined(separator: ", ")
    }

    static func psm(_ registration: ModemRecord.Registration) -> String? {
        guard registration.activeTimeSeconds != nil || registration.periodicTAUSeconds != nil else { return nil }
        return "Active-Time \(registration.activeTimeSeconds.map { "\($0) s" } ?? "-"), "
            + "Periodic-TAU \(registration.periodicTAUSeconds.map { "\($0) s" } ?? "-")"
    }

    static func signalDetails(_ signal: ModemRecord.Signal) -> String {
        var parts: [String] = []
        if let rssi = signal.rssiDBm { parts.append("RSSI \(rssi) dBm") }
        if let rsrp = signal.rsrpDBm { parts.append("RSRP \(rsrp) dBm") }
        if let rsrq = signal.rsrqDB { parts.append("RSRQ \(rsrq) dB") }
        guard !parts.isEmpty else { return "-" }
        return parts.joined(separator: ", ") + (signal.at.map { " at \(Output.timestamp($0))" } ?? "")
    }
}

extension String {
    /// nil for the empty string.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
