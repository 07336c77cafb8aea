import ATKit
import Foundation
import Registry
import Synchronization

extension ModemSupervisor {
    /// What the ready phase shares between its URC follower and its poller.
    struct WatchState {
        var registration: ModemRecord.Registration
        var registered = true
        /// Started when the registration was lost; nil while registered.
        var lostFor: (@Sendable () -> Duration)?
        var inPowerSaving = false
        /// The reason shown while not registered (denied, no service), nil while `ready` or `searching`.
        var reason: ModemReason?
    }

    /// The ready phase's ``WatchState`` behind its lock, in an object both child tasks hold (a task
    /// cannot capture a `Mutex` itself).
    final class SharedWatchState: Sendable {
        let state: Mutex<WatchState>

        init(_ state: WatchState) {
            self.state = Mutex(state)
        }
    }

    /// What ended the ready phase.
    enum WatchEnd: Sendable {
        case rebooted(marker: String)
        /// The SIM went away or changed: gate it again.
        case simChanged
        case failure(ModemFailure)
    }

    /// The ready phase: follows the module's URCs (registration changes update the row: lost →
    /// `searching`, denied → `waiting`, regained → `ready`; a boot banner re-initialises; a SIM taken
    /// out gates the SIM again) and polls signal and registration every
    /// ``GatewayConfiguration/signalPollInterval``, until one of them ends it or the task is
    /// cancelled. A registration lost for longer than ``GatewayConfiguration/registrationTimeout``
    /// shows `waiting` with `NO_SERVICE`; nothing is restarted.
    func watch(
        session: ATSession,
        events: AsyncStream<ModemEvent>,
        dialect: ModemDialect,
        registration: ModemRecord.Registration
    ) async -> AttemptOutcome {
        let shared = SharedWatchState(WatchState(registration: registration))
        let end = await withTaskGroup(of: WatchEnd?.self) { group in
            group.addTask { await self.follow(events, session: session, dialect: dialect, shared: shared) }
            group.addTask { await self.poll(session, dialect: dialect, shared: shared) }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        switch end {
        case .rebooted(let marker)?:
            log(.info, "the module rebooted (\(marker)); initialising it again")
            return await awaitBoot(session)
        case .simChanged?:
            log(.info, "the SIM changed; checking it again")
            return .reinitialise
        case .failure(let failure)?:
            return .failure(failure)
        case nil:
            return .failure(ModemFailure(.modemError, "\(path): supervision cancelled"))
        }
    }

    /// Follows URCs until a reboot, a SIM change or the end of the session.
    func follow(
        _ events: AsyncStream<ModemEvent>,
        session: ATSession,
        dialect: ModemDialect,
        shared: SharedWatchState
    ) async -> WatchEnd? {
        for await event in events {
            switch event {
            case .registration(let status) where status.domain == .eps:
                if let end = await registrationChanged(status, dialect: dialect, shared: shared) { return end }
            case .rebooted(let marker):
                return .rebooted(marker: marker)
            case .sim(let sim) where sim != .ready:
                return .simChanged
            case .simStatus:
                if let sim = try? await readSIM(session), sim != .ready { return .simChanged }
            case .functionality(let level) where level != .full:
                _ = try? await ensureRadioOn(session)
            case .powerSaving(let transition):
                shared.state.withLock { $0.inPowerSaving = transition == .entered }
                log(.debug, transition == .entered ? "entered PSM" : "left PSM")
            default:
                break
            }
            if case .powerSaving = event { continue }
            // Any other URC means the module is awake (not every family reports leaving PSM).
            shared.state.withLock { $0.inPowerSaving = false }
        }
        if Task.isCancelled { return nil }
        return .failure(.closed(port: path, detail: "\(path): the AT session ended (the port closed)"))
    }

    /// Reads signal and registration now and every poll interval; ends the phase when the port
    /// closes, the module stops answering, or the registration stays lost beyond the timeout.
    func poll(_ session: ATSession, dialect: ModemDialect, shared: SharedWatchState) async -> WatchEnd? {
        while !Task.isCancelled {
            if !shared.state.withLock({ $0.inPowerSaving }) {
                do {
                    if let signal = try await readSignal(session) {
                        _ = try? await context.registry.modems.update(
                            port: path,
                            ModemRecord.Change(signal: signal, seen: true)
                        )
                    }
                    if let status = try await optional({ try await session.send(CEREG.Read()) }),
                        let end = await registrationChanged(status, dialect: dialect, shared: shared)
                    {
                        return end
                    }
                } catch {
                    if Task.isCancelled { return nil }
                    return .failure(.session(error, port: path, imei: status.withLock { $0.imei }, phase: .ready))
                }
            }
            if let lost = shared.state.withLock({ $0.lostFor?() }), lost >= configuration.registrationTimeout {
                await showNoService(lost: lost, session: session, shared: shared)
            }
            do {
                try await context.clock.sleep(configuration.signalPollInterval)
            } catch {
                return nil
            }
        }
        return nil
    }

    /// A new `+CEREG` status: the row gets it; losing the registration moves to `searching`, a
    /// denial (or nRF91's SIM failure) to `waiting` with its reason, regaining it back to `ready`.
    func registrationChanged(
        _ status: RegistrationStatus,
        dialect: ModemDialect,
        shared: SharedWatchState
    ) async -> WatchEnd? {
        let stopwatch = context.clock.startStopwatch
        let blocked = status.isRegistered ? nil : registrationReason(status)
        let (registration, newState, reason) = shared.state.withLock {
            shared -> (ModemRecord.Registration, ModemState?, ModemReason?) in
            var registration = ModemSupervisor.registration(
                status,
                dialect: dialect,
                operator: status.isRegistered ? shared.registration.operator : nil
            )
            if status.isRegistered {
                // A URC at a lower reporting level carries fewer fields: keep what is still true.
                registration.tac = registration.tac ?? shared.registration.tac
                registration.ci = registration.ci ?? shared.registration.ci
                registration.act = registration.act ?? shared.registration.act
                registration.technology = registration.technology ?? shared.registration.technology
            }
            shared.registration = registration
            defer { shared.registered = status.isRegistered }
            if status.isRegistered, !shared.registered {
                shared.lostFor = nil
                shared.reason = nil
                return (registration, .ready, nil)
            }
            if !status.isRegistered, shared.registered {
                shared.lostFor = stopwatch()
            }
            if let blocked, blocked.code != shared.reason?.code {
                shared.reason = blocked
                return (registration, .waiting, blocked)
            }
            let deniedBefore = shared.reason?.code == ModemReasonCode.registrationDenied.rawValue
            if !status.isRegistered, shared.registered || (blocked == nil && deniedBefore) {
                shared.reason = nil
                return (registration, .searching, nil)
            }
            return (registration, nil, nil)
        }
        let change = ModemRecord.Change(registration: registration, seen: true)
        if let newState {
            await transition(to: newState, change, reason: reason)
        } else {
            _ = try? await context.registry.modems.update(port: path, change)
        }
        return nil
    }

    /// The registration has been lost for `lost`: `waiting` with `NO_SERVICE` and the signal just
    /// read (the reason's message follows the signal at every poll).
    func showNoService(lost: Duration, session: ATSession, shared: SharedWatchState) async {
        let signal = try? await readSignal(session)
        let status = shared.state.withLock { shared in
            RegistrationStatus(stat: shared.registration.stat ?? 2)
        }
        let reason = noService(for: lost, status: status, signal: signal ?? nil)
        let previous = shared.state.withLock { shared -> ModemReason? in
            // A denial says more than "no service": it stays.
            guard shared.reason?.code != ModemReasonCode.registrationDenied.rawValue else { return shared.reason }
            defer { shared.reason = reason }
            return shared.reason
        }
        if previous?.code == ModemReasonCode.registrationDenied.rawValue { return }
        if previous?.code != reason.code {
            await transition(to: .waiting, ModemRecord.Change(signal: signal ?? nil), reason: reason)
        } else {
            await updateReason(reason, ModemRecord.Change(signal: signal ?? nil))
        }
    }

    /// `+CSQ` and `+CESQ` (3GPP TS 27.007 §8.5, §8.69); nil when neither answered usefully.
    /// Throws only what ends the session (port closed, module unresponsive).
    func readSignal(_ session: ATSession) async throws -> ModemRecord.Signal? {
        let quality = try await optional { try await session.send(CSQ()) }
        let extended = try await optional { try await session.send(CESQ()) }
        guard quality != nil || extended != nil else { return nil }
        return ModemRecord.Signal(
            rssiDBm: quality?.rssiDBm,
            rsrpDBm: extended?.rsrpDBm,
            rsrqDB: extended?.rsrqDB,
            at: Date()
        )
    }

    /// The value of a query, nil when the module refused it, did not answer in time or answered
    /// in an unexpected shape; rethrows what ends the session.
    func optional<T: Sendable>(_ query: () async throws -> T) async throws -> T? {
        do {
            return try await query()
        } catch let error as ATError {
            switch error {
            case .commandFailed, .timeout, .invalidCommand: return nil
            case .transportClosed, .sessionClosed, .unresponsive: throw error
            }
        } catch is ATResponseParseError {
            return nil
        }
    }

    /// After a reboot banner: waits until the module answers `AT` again (it cannot be probed while
    /// it boots: a silent probe would call it no modem), then asks for a fresh probe.
    func awaitBoot(_ session: ATSession) async -> AttemptOutcome {
        let clock = ContinuousClock()
        let start = clock.now
        while start.duration(to: clock.now) < configuration.rebootRecovery, !Task.isCancelled {
            do {
                // 1 s: an idle module answers AT in milliseconds; a booting one not at all.
                _ = try await session.send(ATCommandRequest("AT", timeout: .seconds(1)))
                return .reinitialise
            } catch let error as ATError {
                switch error {
                case .transportClosed, .sessionClosed:
                    return .failure(.closed(port: path, detail: "\(path): the port closed while the module rebooted"))
                default:
                    // Why a pause: a booting module may refuse at once (ERROR) rather than time out.
                    try? await Task.sleep(for: .milliseconds(100))
                }
            } catch {
                break
            }
        }
        return .failure(
            ModemFailure(
                .unresponsive,
                "\(path): the module rebooted and did not answer AT within \(configuration.rebootRecovery)"
            )
        )
    }
}
