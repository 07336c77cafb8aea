import ATKit
import Foundation
import NBGWCore

/// What the daemon's control socket asks of the gateway (docs/control.md): the live modem list, an
/// operator's request to one supervisor, an AT command on a supervised modem's own session, its
/// URCs, and new SIM PINs after a reload.
extension Gateway {
    /// Every module the gateway knows now (its supervisors' view), by port.
    public func modems() -> [ModemStatus] {
        directory.statuses()
    }

    /// The module `key` names (an IMEI, or its port by any path that resolves to it), if a
    /// supervisor runs for it.
    public func modem(_ key: String) -> ModemStatus? {
        directory.entry(for: key, canonical: Self.canonical)?.status
    }

    /// Hands `action` to the supervisor of `key`, which carries it out between its own steps:
    /// ``ModemAction/reset`` and ``ModemAction/reprobe`` end whatever it does (a command in flight
    /// is cancelled) and start a fresh attempt, ``ModemAction/release`` closes the port and waits,
    /// ``ModemAction/resume`` ends a release.
    ///
    /// - Returns: the module as it was when the request was handed over.
    /// - Throws: `UNKNOWN_MODEM` when no supervisor runs for `key`; `MODEM_BUSY` when the request
    ///   does not fit the state (a released module must be resumed first; only a released one can be).
    @discardableResult
    public func perform(_ action: ModemAction, on key: String, by requester: String) throws(NBGWError) -> ModemStatus {
        let entry = try supervisedEntry(key)
        let status = entry.status
        if action == .resume, status.state != .released {
            throw NBGWError(
                .modemBusy,
                "\(Self.name(status)) is not released (it is \(status.state.rawValue)); nothing to resume"
            )
        }
        if action != .resume, status.state == .released {
            throw NBGWError(
                .modemBusy,
                "\(Self.name(status)) is released (\(status.reason?.message ?? "by an operator")); "
                    + "`nbgw modem resume \(status.imei ?? status.port)` first"
            )
        }
        entry.mailbox.post(SupervisorMailbox.Request(action: action, requester: requester))
        return status
    }

    /// Sends `command` on the supervised modem's own AT session: queued behind the supervisor's
    /// command in flight, never interleaved with it (``ATSession`` sends one command at a time), with
    /// the URCs the module sent while it ran. A command that would break the supervisor's view
    /// (``SupervisedCommandPolicy``), or a line the policy cannot read, is refused unless `force`;
    /// forced, it runs and the module is probed afresh (`reprobing` is true).
    ///
    /// - Throws: `UNKNOWN_MODEM`; `MODEM_BUSY` when the supervisor has no session open (probing,
    ///   waiting out a backoff, released, given up): the message says what it is doing;
    ///   `COMMAND_REFUSED` for a disruptive command without `force`.
    public func sendAT(
        _ command: String,
        to key: String,
        timeout: Duration? = nil,
        force: Bool = false,
        requester: String = "operator"
    ) async throws(NBGWError) -> (modem: ModemStatus, exchange: ATExchange, urcs: [String], reprobing: Bool) {
        let entry = try supervisedEntry(key)
        guard let live = entry.live.current else { throw Self.noSession(entry.status) }
        let refusal = SupervisedCommandPolicy.refusal(for: command, dialect: live.dialect)
        if let refusal, !force {
            throw NBGWError(
                .commandRefused,
                "\(ATCommandRedaction.redact(refusal)), on \(Self.name(entry.status)) which the daemon supervises; add "
                    + "--force to send it anyway (the daemon then probes the module afresh), or `nbgw modem release` it first"
            )
        }
        let urcs = live.hub.subscribeURCs()
        let collector = Task {
            var lines: [String] = []
            for await urc in urcs { lines.append(urc.line) }
            return lines
        }
        let (exchange, _) = await ATExchange.run(command, on: live.session, timeout: timeout)
        collector.cancel()
        if refusal != nil {
            entry.mailbox.post(SupervisorMailbox.Request(action: .reprobe, requester: requester))
        }
        return (entry.status, exchange, await collector.value, refusal != nil)
    }

    /// The URCs the supervised modem sends from now on (for an operator's console), until its
    /// session closes or the stream is dropped.
    public func urcs(of key: String) throws(NBGWError) -> (modem: ModemStatus, urcs: AsyncStream<ATURC>) {
        let entry = try supervisedEntry(key)
        guard let live = entry.live.current else { throw Self.noSession(entry.status) }
        return (entry.status, live.hub.subscribeURCs())
    }

    /// Replaces the SIM PINs (the daemon reloaded its config): supervisors waiting on a locked SIM
    /// try the new ones at once (each PIN still at most once).
    public func updateSIMPINs(_ book: SIMPINBook) {
        context.simPINs.replace(book)
    }

    private func supervisedEntry(_ key: String) throws(NBGWError) -> SupervisorDirectory.Entry {
        guard let entry = directory.entry(for: key, canonical: Self.canonical) else {
            let known = directory.statuses().filter(\.supervised).map { $0.imei ?? $0.port }
            throw NBGWError(
                .unknownModem,
                "no supervised modem has IMEI or port \(key.escapedForDisplay())"
                    + (known.isEmpty
                        ? " (the daemon supervises none now)" : "; supervised: \(known.joined(separator: ", "))")
                    + "; list them with `nbgw modems`"
            )
        }
        return entry
    }

    private static func noSession(_ status: ModemStatus) -> NBGWError {
        let doing: String
        switch status.state {
        case .probing: doing = "the daemon is probing it; retry in a few seconds"
        case .failed where status.reason?.code == ModemReasonCode.notResponding.rawValue:
            doing = "the daemon gave up on it (not responding); `nbgw modem release` it to use the port directly"
        case .failed: doing = "it failed and the daemon waits to retry; retry then, or `nbgw modem release` it"
        case .released: doing = "it is released (\(status.reason?.message ?? "by an operator")); use the port directly"
        default: doing = "its session is being opened or closed; retry in a moment"
        }
        return NBGWError(.modemBusy, "\(name(status)) has no AT session open now (\(status.state.rawValue)): \(doing)")
    }

    static func name(_ status: ModemStatus) -> String {
        status.imei.map { "\(status.port) (IMEI \($0))" } ?? status.port
    }

    /// `realpath(3)`, or the path itself when it does not resolve.
    @Sendable static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
