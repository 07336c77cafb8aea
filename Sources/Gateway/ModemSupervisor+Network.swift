import ATKit
import Foundation
import Registry

extension ModemSupervisor {
    /// How often a module that is not registered is asked `AT+CEREG?` (and `AT+CFUN?`) while it
    /// searches or waits. Why 30 s: URCs bring changes at once; the poll only catches URCs routed
    /// elsewhere or lost, and a radio someone turned off.
    static let searchPollInterval: Duration = .seconds(30)

    /// Waits until the module registers (home or roaming) and returns that status; nil when the SIM
    /// went away meanwhile (the attempt gates the SIM again, without a backoff).
    ///
    /// The state tells the truth all along, and nothing is restarted:
    /// - `searching` while the module searches, up to ``GatewayConfiguration/registrationTimeout``;
    /// - `waiting` with `REGISTRATION_DENIED` when the network rejects it (`+CEREG` stat 3; the EMM
    ///   cause decoded, ``ATKit/EMMCause``), `SIM_FAILURE` on nRF91's stat 90, `NO_SERVICE` past the
    ///   timeout with the last signal seen (updated at every poll), `RADIO_OFF` when the radio is
    ///   off and the module refuses `AT+CFUN=1`;
    /// - back to `searching` when a denial clears.
    ///
    /// - Throws: on a reboot banner, a closed session, or cancellation.
    func awaitRegistration(
        session: ATSession,
        hub: ModemEventHub,
        dialect: ModemDialect
    ) async throws -> RegistrationStatus? {
        let elapsed = context.clock.startStopwatch()
        var shown: ModemReason?
        var lastStatus: RegistrationStatus?
        var lastSignal: ModemRecord.Signal?
        while true {
            try Task.checkCancellation()
            let events = hub.subscribe()
            let status = try await optional { try await session.send(CEREG.Read()) } ?? lastStatus
            if let status, status.isRegistered { return status }
            lastStatus = status
            var reason = try await ensureRadioOn(session)
            if reason == nil, let status { reason = registrationReason(status) }
            let searched = elapsed()
            if reason == nil, searched >= configuration.registrationTimeout {
                if let signal = try await readSignal(session) {
                    lastSignal = signal
                    _ = try? await context.registry.modems.update(port: path, ModemRecord.Change(signal: signal))
                }
                reason = noService(for: searched, status: status, signal: lastSignal)
            }
            if reason?.code != shown?.code {
                let registration = status.map { Self.registration($0, dialect: dialect, operator: nil) }
                await transition(
                    to: reason.map { ModemReasonCode(rawValue: $0.code)?.state ?? .waiting } ?? .searching,
                    ModemRecord.Change(registration: registration, seen: true),
                    reason: reason
                )
            } else if let reason, reason != shown {
                await updateReason(reason)
            }
            shown = reason
            let untilDeadline = configuration.registrationTimeout - searched
            let wake = await waitForChange(
                events,
                timeout: untilDeadline > .zero ? min(Self.searchPollInterval, untilDeadline) : Self.searchPollInterval
            ) { event in
                switch event {
                case .registration(let status): status.domain == .eps
                case .rebooted, .sim, .simStatus, .functionality: true
                default: false
                }
            }
            switch wake {
            case .event(.registration(let status)) where status.isRegistered:
                return status
            case .event(.rebooted(let marker)):
                throw ModemBringUpError.rebooted(marker: marker, port: path)
            case .event(.sim(let sim)) where sim != .ready:
                return nil
            case .event(.simStatus):
                if let sim = try await readSIM(session), sim != .ready { return nil }
            case .ended:
                throw ModemBringUpError.sessionEnded(port: path)
            case .cancelled:
                throw CancellationError()
            case .event, .tick, .pins:
                continue
            }
        }
    }

    /// Why a registration report keeps the module from registering, when it says so itself: a
    /// denial (with its EMM cause, 3GPP TS 24.301 Annex A) or nRF91's UICC failure (stat 90).
    func registrationReason(_ status: RegistrationStatus) -> ModemReason? {
        switch status.state {
        case .denied:
            let cause: String
            if let value = status.rejectCause, status.causeType == nil || status.causeType == 0 {
                let emm = EMMCause(value)
                cause = "EMM cause \(emm); \(emm.advice)"
            } else if let value = status.rejectCause {
                cause = "manufacturer-specific cause \(value) (see the module's AT manual)"
            } else {
                cause =
                    "no reject cause reported (the module's +CEREG level does not carry it); check the SIM's "
                    + "subscription and the APN"
            }
            return ModemReason(.registrationDenied, "\(moduleName): the network denied registration: \(cause)")
        case .simFailure:
            return ModemReason(
                .simFailure,
                "\(moduleName): the module reports a SIM (UICC) failure (+CEREG: 90); re-seat or replace the SIM"
            )
        default:
            return nil
        }
    }

    /// `NO_SERVICE` after `searched` without registration, with the last report and signal.
    func noService(for searched: Duration, status: RegistrationStatus?, signal: ModemRecord.Signal?) -> ModemReason {
        let minutes = Int(searched.seconds / 60)
        let seconds = Int(searched.seconds) % 60
        let stat =
            status.map { "last +CEREG stat \($0.stat)\($0.state.map { " (\($0))" } ?? "")" } ?? "no +CEREG report"
        var levels: [String] = []
        if let rsrp = signal?.rsrpDBm { levels.append("RSRP \(rsrp) dBm") }
        if let rsrq = signal?.rsrqDB { levels.append("RSRQ \(rsrq) dB") }
        if let rssi = signal?.rssiDBm { levels.append("RSSI \(rssi) dBm") }
        let seen =
            levels.isEmpty
            ? "no signal measured (+CSQ 99)"
            : "last signal \(levels.joined(separator: ", "))"
                + (signal?.at.map { " at \($0.formatted(date: .omitted, time: .standard))" } ?? "")
        return ModemReason(
            .noService,
            "\(moduleName): not registered after \(minutes)m \(seconds)s (\(stat)); \(seen); check the antenna, "
                + "coverage and the configured bands; the module keeps searching"
        )
    }

    /// Turns the radio on when the module has it off (`+CFUN: 0` or `4`, 3GPP TS 27.007 §8.2) and
    /// the config does not keep it off; nil when it is on (or now is), else `RADIO_OFF` with what
    /// the module said.
    func ensureRadioOn(_ session: ATSession) async throws -> ModemReason? {
        guard let level = try await optional({ try await session.send(CFUN.Read()) }), level != .full else {
            return nil
        }
        do {
            try await session.send(CFUN.Set(.full))
            log(.notice, "the radio was off (+CFUN: \(level.rawValue)): turned it on")
            return nil
        } catch let error as ATError {
            if case .commandFailed(_, _, let final, _) = error {
                return ModemReason(
                    .radioOff,
                    "\(moduleName): the radio is off (+CFUN: \(level.rawValue)) and the module refused AT+CFUN=1 "
                        + "(\(final))"
                )
            }
            throw error
        }
    }

    /// `[modem] radio = "off"`: the module is configured, its radio left off; `waiting` with
    /// `RADIO_OFF` until the session ends or the module reboots.
    func holdWithRadioOff(session: ATSession, hub: ModemEventHub) async -> AttemptOutcome {
        let events = hub.subscribe()
        await transition(
            to: .waiting,
            ModemRecord.Change(seen: true),
            reason: ModemReason(
                .radioOff,
                "\(moduleName): configured, radio kept off by [modem] radio = \"off\"; set radio = \"on\" and reset "
                    + "the module to bring it onto the network"
            )
        )
        for await event in events {
            if case .rebooted(let marker) = event {
                log(.info, "the module rebooted (\(marker)); initialising it again")
                return await awaitBoot(session)
            }
        }
        if Task.isCancelled { return .failure(ModemFailure(.modemError, "\(path): supervision cancelled")) }
        return .failure(.closed(port: path, detail: "\(path): the AT session ended (the port closed)"))
    }
}
