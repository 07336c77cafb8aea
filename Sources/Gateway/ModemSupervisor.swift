import ATKit
import Cloud
import DeviceIdentity
import Foundation
import Logging
import Provisioning
import Registry
import Synchronization

/// What a supervisor needs from its gateway; shared by every supervisor.
struct SupervisorContext: Sendable {
    let configuration: GatewayConfiguration
    let registry: Registry
    let registrar: DeviceRegistrar
    let logger: Logger
    let clock: SupervisionClock
    let metrics: GatewayMetrics
    let directory: SupervisorDirectory
    /// The SIM PINs the supervisor may enter (replaced when the daemon reloads its config).
    let simPINs: SIMPINStore
}

/// Supervises one port for its whole life, from appearance to removal:
///
/// ```
///  ┌────────────────────────────────────────────────────────────────────────────────────┐
///  │ probing ─► configuring ─► searching ─► registering ─► ready ◄─► searching           │
///  │    │          │   ▲  │        │   ▲          │          │ ▲       │                  │
///  │    │    SIM ► │   │  │  denied│   │registered│          │ └ waiting (denied,        │
///  │    │  locked ◄┘   │  │ no svc ▼   │          │          │    no service; regained)  │
///  │    │  waiting ────┘  │     waiting┘          │          │ reboot banner ─► probing  │
///  │    └──────────────┴── failure ┴──────────────┴──────────┘                           │
///  │                          ▼                                                          │
///  │   failed ── backoff (initial × 2ⁿ, cap, jitter) ──► probing                         │
///  │   failed (NOT_RESPONDING: silent after max_resets resets) ── operator ──► probing    │
///  └────────────────────────────────────────────────────────────────────────────────────┘
///  any state ── nbgw modem release ──► released ── nbgw modem resume ──► probing
///  any state ── nbgw modem reset | reprobe ──► probing (reset: the dialect's reboot first)
///  no AT answer ever ─► not_modem (stop)      port gone / vanished / shutdown ─► absent (stop)
/// ```
///
/// `waiting` and `locked` keep the session open: the module is fine, something outside it must
/// change (a SIM, a PIN, a cell), and the supervisor goes on by itself when it does
/// (``awaitUsableSIM(session:hub:identity:)``, ``awaitRegistration(session:hub:dialect:)``).
/// Operators' requests (``SupervisorMailbox``) end whatever phase runs: an attempt, a backoff, a
/// release, having given up.
///
/// One attempt: probe (``ModemProbe``, the port's own speeds first), claiming the IMEI and
/// recording it in the modem table as soon as the probe reads it, while the rest of the probe
/// runs (``probeClaimingEarly()``) → persist the full identity → open a session at the speed found
/// → ``ModemBringUp/apply(_:)`` → wait for `+CEREG` registration → register with the cloud
/// through ``DeviceRegistrar`` (idempotent by IMEI: the same device id on every replug) → ready:
/// follow URCs and poll signal until something ends it.
///
/// Every state change is one short store write and one log line with `port`, `imei`, `state`.
/// The supervisor never holds a lock across an `await`, and nothing it waits on is shared with
/// another port, so one port's trouble never slows another.
final class ModemSupervisor: Sendable {
    /// What one attempt ended with.
    enum AttemptOutcome: Sendable {
        /// The module rebooted while ready and answers again: probe it afresh, no backoff.
        case reinitialise
        case failure(ModemFailure)
        /// Another port already is the AT port of this IMEI.
        case secondary(atPort: String, imei: String)
    }

    /// Facts that change while the supervisor runs, shared with its watch tasks.
    struct Status {
        var everAnswered = false
        var imei: String?
        var deviceID: String?
        var state: ModemState = .probing
        /// The current attempt reached `ready` (a later failure starts the backoff afresh).
        var reachedReady = false
        /// The reason announced with ``state``.
        var reason: ModemReason?
    }

    /// How a phase of the supervisor's life ended: on its own, or by an operator's request.
    enum PhaseEnd<Value: Sendable>: Sendable {
        case finished(Value)
        case request(SupervisorMailbox.Request)
    }

    /// What the run loop does after an operator's request.
    enum NextStep: Sendable {
        /// Start a new attempt; `reset`: reboot the module first.
        case attempt(reset: Bool)
        /// The task was cancelled while released.
        case stop
    }

    let port: ModemPort
    let entry: SupervisorDirectory.Entry
    let context: SupervisorContext
    let status = Mutex(Status())

    init(entry: SupervisorDirectory.Entry, context: SupervisorContext) {
        self.port = entry.port
        self.entry = entry
        self.context = context
    }

    var path: String { port.path }
    var configuration: GatewayConfiguration { context.configuration }

    /// Runs until the port is gone, is no modem, or the task is cancelled; returns the state the
    /// port is left in (already persisted).
    func run() async -> ModemState {
        var failures = 0
        // Consecutive failures of a module that stopped answering; each next attempt resets it.
        var silent = 0
        var reset = false
        attempts: while !Task.isCancelled {
            status.withLock { $0.reachedReady = false }
            let resettingFirst = reset
            reset = false
            let ended = await racingRequests { await self.attempt(resettingFirst: resettingFirst) }
            if Task.isCancelled { break }
            let outcome: AttemptOutcome
            switch ended {
            case .request(let request):
                switch await handle(request) {
                case .attempt(let resetFirst):
                    (failures, silent, reset) = (0, 0, resetFirst)
                    continue attempts
                case .stop:
                    break attempts
                }
            case .finished(let finished):
                outcome = finished
            }
            if status.withLock({ $0.reachedReady }) { (failures, silent) = (0, 0) }
            switch outcome {
            case .reinitialise:
                failures = 0
            case .secondary(let holder, let imei):
                return await stopAsSecondary(atPort: holder, imei: imei)
            case .failure(let failure):
                switch failure.disposition {
                case .notModem:
                    await transition(
                        to: .notModem,
                        ModemRecord.Change(failure: failure.record),
                        reason: ModemReason(failure),
                        failure: failure
                    )
                    return .notModem
                case .gone:
                    await transition(to: .absent, ModemRecord.Change(failure: failure.record), failure: failure)
                    return .absent
                case .retry:
                    failures += 1
                    if failure.meansSilentModule {
                        silent += 1
                        reset = true
                    } else {
                        silent = 0
                    }
                    if silent > configuration.maxResets {
                        switch await giveUp(after: failure, attempts: silent) {
                        case .attempt(let resetFirst):
                            (failures, silent, reset) = (0, 0, resetFirst)
                            continue attempts
                        case .stop:
                            break attempts
                        }
                    }
                    let delay = configuration.backoff.delay(afterFailures: failures)
                    await transition(
                        to: .failed,
                        ModemRecord.Change(
                            failure: failure.record,
                            attempts: failures,
                            retryAt: Date().addingTimeInterval(delay.seconds)
                        ),
                        reason: ModemReason(failure),
                        failure: failure,
                        retryIn: delay
                    )
                    let clock = context.clock
                    let waited = await racingRequests { () -> Bool in
                        do {
                            try await clock.sleep(delay)
                            return true
                        } catch {
                            return false
                        }
                    }
                    switch waited {
                    case .finished(true):
                        continue attempts
                    case .finished(false):
                        break attempts
                    case .request(let request):
                        switch await handle(request) {
                        case .attempt(let resetFirst):
                            (failures, silent, reset) = (0, 0, resetFirst)
                        case .stop:
                            break attempts
                        }
                    }
                }
            }
        }
        return await stopOnCancellation()
    }

    /// Runs `body` until it finishes or an operator's request arrives, whichever is first; a
    /// request ends `body` (cancelled, and awaited: the session is closed before this returns).
    func racingRequests<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> PhaseEnd<Value> {
        let mailbox = entry.mailbox
        return await withTaskGroup(of: PhaseEnd<Value>?.self) { group in
            group.addTask { .finished(await body()) }
            group.addTask { await mailbox.next().map { .request($0) } }
            var first: PhaseEnd<Value>?
            while let next = await group.next() {
                if first == nil, let next {
                    first = next
                    group.cancelAll()
                } else if case .request(let late)? = next {
                    // The body finished while a request was being handed over: keep it for later.
                    mailbox.putBack(late)
                }
            }
            // The body always ends with a result (cancelled, it returns early), so `first` is set.
            return first!
        }
    }

    /// Carries out an operator's request between two phases.
    func handle(_ request: SupervisorMailbox.Request) async -> NextStep {
        switch request.action {
        case .reset:
            log(.notice, "reset requested by \(request.requester)")
            return .attempt(reset: true)
        case .reprobe, .resume:
            log(.notice, "\(request.action.rawValue) requested by \(request.requester)")
            return .attempt(reset: false)
        case .release:
            return await released(by: request.requester)
        }
    }

    /// The port is closed and left to `requester` until a resume (or the task is cancelled: the port
    /// went away, the gateway stops).
    func released(by requester: String) async -> NextStep {
        log(.notice, "released by \(requester); the port is left alone until `nbgw modem resume`")
        await transition(
            to: .released,
            ModemRecord.Change(clearsRetry: true),
            reason: ModemReason(
                .released,
                "\(path) was released by \(requester) at \(Date().formatted(.iso8601)); the daemon leaves it alone until "
                    + "`nbgw modem resume \(status.withLock { $0.imei } ?? path)`"
            )
        )
        while let request = await entry.mailbox.next() {
            if request.action == .resume {
                log(.notice, "resumed by \(request.requester)")
                return .attempt(reset: false)
            }
        }
        return .stop
    }

    /// The module stopped answering and `attempts` resets did not bring it back: `failed` with
    /// `NOT_RESPONDING`, no more retries until an operator's request (or the port going away).
    func giveUp(after failure: ModemFailure, attempts: Int) async -> NextStep {
        let module = status.withLock { $0.imei }.map { "\(path) (IMEI \($0))" } ?? path
        await transition(
            to: .failed,
            ModemRecord.Change(failure: failure.record, attempts: attempts, clearsRetry: true),
            reason: ModemReason(
                .notResponding,
                "\(module) is not responding after \(attempts) attempts, each with a reset where the module took one "
                    + "(last: \(failure.message)); power-cycle it, then `nbgw modem reprobe \(status.withLock { $0.imei } ?? path)`"
            ),
            failure: failure
        )
        guard let request = await entry.mailbox.next() else { return .stop }
        return await handle(request)
    }

    // MARK: One attempt

    /// Probe → identify → bring-up → network → cloud → ready → watch; `resettingFirst` reboots the
    /// module (its dialect's command) once the session is open, before the bring-up.
    func attempt(resettingFirst: Bool = false) async -> AttemptOutcome {
        do {
            try await context.registry.modems.beginProbe(
                port: path,
                deviceKey: port.deviceKey,
                attributes: port.attributes
            )
        } catch {
            log(.warning, "cannot record the probe in the store: \(error)")
        }
        announce(.probing)

        let (probed, identified) = await probeClaimingEarly()
        if let identified, let refused = refusal(identified.claim, imei: identified.imei) {
            return refused
        }
        let report: ModemProbeReport
        switch probed {
        case .success(let success):
            report = success
        case .failure(let error):
            // The same failure as without an early claim: the row (which may have the IMEI by
            // now) goes `failed` in `run`, and the claim stays, as after any later failure.
            return .failure(.probe(error, everAnswered: status.withLock { $0.everAnswered }))
        }
        guard let imei = report.imei else {
            return .failure(
                ModemFailure(
                    .noIMEI,
                    "\(path) (\(report.manufacturer ?? "?") \(report.model ?? "?")) gave no valid IMEI: "
                        + (report.notes.first { $0.hasPrefix("imei") } ?? "AT+CGSN failed")
                )
            )
        }
        // Claimed while the probe ran; only an IMEI the probe did not announce is claimed here.
        if identified?.imei != imei, let refused = refusal(claim(imei: imei), imei: imei) {
            return refused
        }
        let dialect = dialect(for: report)
        let identity = Self.identity(of: report, imei: imei, dialect: dialect)
        do {
            let record = try await context.registry.modems.recordIdentity(
                port: path,
                identity,
                state: ModemState.configuring.rawValue
            )
            status.withLock { $0.deviceID = record.deviceID }
        } catch {
            return .failure(ModemFailure(.storeUnavailable, "\(path) (IMEI \(imei)): \(error)"))
        }
        announce(.configuring)

        let connection: ModemConnection
        do {
            var options = probeOptions
            options.baudRates = [report.baud]
            connection = try await probe(options: options).connect(port: path)
        } catch {
            return .failure(.probe(error, everAnswered: true))
        }
        let session = ATSession(
            transport: connection.transport,
            configuration: dialect.sessionConfiguration(defaultTimeout: configuration.commandTimeout)
        )
        let hub = ModemEventHub(urcs: session.urcs, dialect: dialect)
        entry.live.current = LiveSessionSlot.Live(session: session, hub: hub, dialect: dialect)
        let outcome = await operate(
            session: session,
            hub: hub,
            dialect: dialect,
            identity: identity,
            resettingFirst: resettingFirst
        )
        entry.live.current = nil
        await session.close()
        return outcome
    }

    /// Bring-up, network registration, cloud registration, then the watch, on an open session.
    func operate(
        session: ATSession,
        hub: ModemEventHub,
        dialect: ModemDialect,
        identity: ModemRecord.Identity,
        resettingFirst: Bool = false
    ) async -> AttemptOutcome {
        var identity = identity
        let imei = identity.imei
        var phase = ModemState.configuring
        do {
            let bringUp = ModemBringUp(session: session, dialect: dialect, clock: context.clock.clock)
            if resettingFirst {
                if dialect.rebootCommand != nil {
                    log(.notice, "rebooting the module (\(dialect.rebootCommand!.command)) before the bring-up")
                    _ = try await bringUp.reboot(events: hub, within: configuration.rebootRecovery)
                } else {
                    log(.notice, "\(dialect.name) has no reboot command: probed afresh without a reboot")
                }
            }
            // Echo is on after every boot (V.250 E1); off keeps the traffic and the logs short.
            _ = try? await session.send("ATE0")
            // Numeric CME errors from here on: the SIM's state is read from them.
            _ = try? await session.send(CMEE.Set(.numeric))
            let sim = try await awaitUsableSIM(session: session, hub: hub, identity: identity)
            identity = sim
            if status.withLock({ $0.state }) != .configuring {
                await transition(to: .configuring)
            }
            var plan = configuration.plan
            plan.leavesRadioOff = configuration.keepsRadioOff
            let summary = try await bringUp.apply(plan)
            log(.debug, "bring-up sent \(summary.commands.joined(separator: "; "))")
            if configuration.keepsRadioOff {
                return await holdWithRadioOff(session: session, hub: hub)
            }

            phase = .searching
            await transition(to: .searching, ModemRecord.Change(seen: true))
            let rebootsBefore = hub.rebootCount
            guard
                let registered = try await awaitRegistration(session: session, hub: hub, dialect: dialect)
            else {
                // The SIM went away or changed while searching: gate it again, no backoff.
                return .reinitialise
            }
            // Subscribe before anything else can happen, and catch a reboot that slipped between.
            let events = hub.subscribe()
            if hub.rebootCount != rebootsBefore {
                throw ModemBringUpError.rebooted(marker: "boot banner", port: path)
            }
            _ = try? await session.send(COPS.SetFormat(.numeric))
            let plmn = (try? await session.send(COPS.Read()))?.name
            let registration = Self.registration(registered, dialect: dialect, operator: plmn)

            phase = .registering
            await transition(to: .registering, ModemRecord.Change(registration: registration, seen: true))
            let cloud = try await registerWithCloud(identity: identity, dialect: dialect)

            phase = .ready
            status.withLock { status in
                status.deviceID = cloud.device.deviceID
                status.reachedReady = true
            }
            await transition(
                to: .ready,
                ModemRecord.Change(attempts: 0, clearsRetry: true, deviceID: cloud.device.deviceID, seen: true)
            )
            return await watch(session: session, events: events, dialect: dialect, registration: registration)
        } catch {
            return .failure(.session(error, port: path, imei: imei, phase: phase))
        }
    }

    /// Registers the module through the one registration code path; counts the outcome.
    func registerWithCloud(identity: ModemRecord.Identity, dialect: ModemDialect) async throws -> CloudRegistration {
        do {
            let registration = try await context.registrar.register(
                imei: identity.imei,
                imsi: identity.imsi,
                iccid: identity.iccid,
                manufacturer: identity.manufacturer.flatMap { Self.text($0, limit: 64) },
                model: identity.model.flatMap { Self.text($0, limit: 64) },
                firmware: identity.firmware,
                productID: configuration.productID ?? identity.model.flatMap { Self.text($0, limit: 64) } ?? dialect.id
            )
            context.metrics.countRegistration(registration.created ? .created : .existing)
            log(
                .info,
                registration.created ? "registered with the cloud" : "already registered with the cloud",
                ["device_id": "\(registration.device.deviceID)"]
            )
            return registration
        } catch {
            context.metrics.countRegistration(.failed)
            throw error
        }
    }

    // MARK: Probing

    /// The configured probe options with the port's own speeds first.
    var probeOptions: ModemProbeOptions {
        var options = configuration.probe
        if !port.baudRates.isEmpty {
            options.baudRates = port.baudRates + options.baudRates.filter { !port.baudRates.contains($0) }
        }
        return options
    }

    /// A probe whose transports are metered. Its clock is real time: wake and query timeouts
    /// measure a real port, whatever clock times the supervision.
    func probe(options: ModemProbeOptions) -> ModemProbe {
        let exclusive = options.exclusive
        let metrics = context.metrics
        let directory = context.directory
        let path = self.path
        let id = entry.id
        let onFirstAnswer: @Sendable () -> Void = { [self] in
            let first = status.withLock { status in
                defer { status.everAnswered = true }
                return !status.everAnswered
            }
            if first { directory.markAnswered(path: path, id: id) }
        }
        return ModemProbe(options: options, clock: ContinuousClock()) { (port, baudRate) throws(ATTransportError) in
            let serial = try SerialPortTransport(
                path: port,
                configuration: SerialPortConfiguration(baudRate: baudRate, exclusive: exclusive)
            )
            return MeteredTransport(serial, meter: ATTrafficMeter(metrics: metrics, onFirstAnswer: onFirstAnswer))
        }
    }

    /// The probe's dialect, or discovery's hint when the probe only recognised plain 27.007.
    func dialect(for report: ModemProbeReport) -> ModemDialect {
        dialect(named: report.dialect)
    }

    /// The dialect of id `name`, or discovery's hint when it is plain 27.007 (or unknown).
    func dialect(named name: String) -> ModemDialect {
        let probed = ModemDialect.named(name) ?? .ts27007
        if probed.id == ModemDialect.ts27007.id, let hint = port.dialectHint, let hinted = ModemDialect.named(hint) {
            return hinted
        }
        return probed
    }

    // MARK: Stopping

    /// Another port is this module's AT port: this one is a secondary interface.
    func stopAsSecondary(atPort holder: String, imei: String) async -> ModemState {
        let failure = ModemFailure(
            .secondaryInterface,
            "\(path) is another interface of the module with IMEI \(imei), supervised on \(holder)",
            disposition: .notModem
        )
        // A sibling stopped before it started has no row yet: make one, so the port is accounted for.
        let registry = context.registry
        let port = self.port
        let change = ModemRecord.Change(
            state: ModemState.notModem.rawValue,
            reason: ModemRecord.Reason(code: failure.code.rawValue, message: failure.message),
            failure: failure.record
        )
        let written = await Task {
            _ = try? await registry.modems.beginProbe(
                port: port.path,
                deviceKey: port.deviceKey,
                attributes: port.attributes
            )
            return try? await registry.modems.update(port: port.path, change)
        }.value
        if written == nil { log(.warning, "could not record the port as a secondary interface in the store") }
        announce(.notModem, reason: ModemReason(failure), failure: failure)
        return .notModem
    }

    /// The task was cancelled: the port vanished, a sibling became the AT port, or the gateway is
    /// shutting down. The session is already closed; the row must not claim a state nobody
    /// supervises any more.
    func stopOnCancellation() async -> ModemState {
        switch entry.signal.reason {
        case .secondary(let holder, let imei):
            return await stopAsSecondary(atPort: holder, imei: imei)
        case .vanished:
            await markAbsent()
            announce(.absent, failure: ModemFailure(.deadPort, "\(path) was removed", disposition: .gone))
            return .absent
        case nil:
            await markAbsent()
            announce(.absent)
            return .absent
        }
    }

    /// Marks the row absent from a task of its own: this task is cancelled, and a cancelled task's
    /// store write is refused. Bounded by the store's busy timeout.
    func markAbsent() async {
        let registry = context.registry
        let path = self.path
        let written = await Task {
            try? await registry.modems.markAbsent(port: path)
        }.value
        if written == nil { log(.warning, "could not mark the port absent in the store") }
    }

    // MARK: Identity

    /// The report's facts in the store's shape, with values that break the store's rules dropped.
    static func identity(of report: ModemProbeReport, imei: String, dialect: ModemDialect) -> ModemRecord.Identity {
        ModemRecord.Identity(
            imei: imei,
            dialect: dialect.id,
            manufacturer: report.manufacturer.flatMap { text($0, limit: 128) },
            model: report.model.flatMap { text($0, limit: 128) },
            firmware: report.firmware.flatMap { text($0, limit: 128) },
            imsi: report.imsi.flatMap { try? IMSI($0).digits },
            iccid: report.iccid.flatMap { try? ICCID($0).value },
            baud: report.baud,
            registration: ModemRecord.Registration(
                stat: report.registration.stat,
                tac: report.registration.tac,
                ci: report.registration.ci,
                act: report.registration.act,
                technology: report.registration.technology,
                operator: report.operator,
                rejectCause: report.registration.rejectCause,
                activeTimeSeconds: report.registration.psm.activeTimeSeconds,
                periodicTAUSeconds: report.registration.psm.periodicTAUSeconds
            ),
            signal: ModemRecord.Signal(
                rssiDBm: report.signal.rssiDBm,
                rsrpDBm: report.signal.rsrpDBm,
                rsrqDB: report.signal.rsrqDB
            )
        )
    }

    /// A registration report in the store's shape (3GPP TS 27.007 §10.1.22 fields).
    static func registration(
        _ status: RegistrationStatus,
        dialect: ModemDialect,
        operator plmn: String?
    ) -> ModemRecord.Registration {
        ModemRecord.Registration(
            stat: status.stat,
            tac: status.areaCode,
            ci: status.cellID,
            act: status.accessTechnology,
            technology: status.accessTechnology.flatMap { dialect.technology(forAccessTechnology: $0) }?.rawValue,
            operator: plmn,
            rejectCause: status.rejectCause,
            activeTimeSeconds: status.activeTimeSeconds,
            periodicTAUSeconds: status.periodicTAUSeconds,
            at: Date()
        )
    }

    /// `value` trimmed, when it is 1…`limit` printable characters.
    static func text(_ value: String, limit: Int) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= limit,
            trimmed.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { return nil }
        return trimmed
    }
}

extension ModemFailure {
    /// The failure as the store keeps it.
    var record: (code: String, message: String) { (code.rawValue, message) }
}

extension Duration {
    /// The duration in seconds, for wall-clock arithmetic.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
