import Cloud
import DeviceIdentity
import Foundation
import Logging
import NBGWCore
import Registry

/// Turns a claimed outbox row into one cloud call and settles the row exactly once: done,
/// pending again later, or dead. The one place outbox work meets a cloud: commands that just
/// committed a change send their row at once through ``sendNow(_:budget:clock:)``, and
/// ``OutboxDrainer`` sends the rest.
///
/// Each call carries the row's idempotency key, so a row sent again (after a crash, a lost lease
/// or a caller that stopped waiting) gets the cloud's first answer and its effect happens once.
public struct OutboxSender: Sendable {
    /// How sending one row ended.
    public enum Result: Sendable {
        /// A registration the cloud answered and the store recorded (row done).
        case registered(Registry.Registration, labelPayload: String)
        /// Row done; the cloud's answer as JSON.
        case done(String)
        /// Transient failure (or the caller stopped waiting): the row is pending again.
        case rescheduled(NBGWError)
        /// The configuration is wrong (credentials, clock, data center): row pending again; stop.
        case stopped(NBGWError)
        /// The cloud refused it for good: row dead.
        case dead(NBGWError)
        /// Another sender took the row over (our lease ran out); it settles the row.
        case claimLost(NBGWError)
        /// This process cannot open the module credentials the row needs (it holds no secrets key:
        /// an operator's CLI): the row is pending again at once, unchanged, for the daemon.
        case leftForDaemon(NBGWError)
    }

    public let registry: Registry
    public let cloud: any CloudService
    /// The lease owner written on rows this sender claims.
    public let owner: String
    /// How long a claimed row stays ours (``Registry/Registry/Outbox-swift.struct/claim(owner:lease:limit:)``).
    public let lease: Duration
    /// Spacing of a row's later tries after transient failures: 30 s doubling to 1 h.
    public let backoff: RetryPolicy
    let jitter: @Sendable () -> Double
    let logger: Logger

    /// - Parameters:
    ///   - owner: the lease owner; by default one unique to this process and sender.
    ///   - logger: where unsent rows are logged (never payload secrets); nil logs nothing.
    public init(
        registry: Registry,
        cloud: any CloudService,
        owner: String? = nil,
        lease: Duration = .seconds(300),
        backoff: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(30), maximumDelay: .seconds(3600)),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        logger: Logger? = nil
    ) {
        self.registry = registry
        self.cloud = cloud
        self.owner =
            owner ?? "nbgw-\(ProcessInfo.processInfo.processIdentifier)-\(IdempotencyKey.make().suffix(8))"
        self.lease = lease
        self.backoff = backoff
        self.jitter = jitter
        self.logger = logger ?? Logger(label: "nbgw.outbox", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// False when the cloud needs the modules' credentials to send anything (a thing's password
    /// and token at Kii) and this process cannot open them (no secrets key): then nothing is
    /// claimed here, and the rows wait for the daemon (docs/operations.md, "Module credentials").
    public var canSend: Bool {
        !cloud.wantsModuleSecret || registry.secretsKey.key != nil
    }

    /// Why this process leaves its cloud work to the daemon (``canSend`` false), for `subject`.
    func credentialsUnavailable(_ subject: String) -> String {
        "this cloud needs the module credentials of \(subject), sealed under the store's secrets key, and this "
            + "process has none (\(registry.secretsKey)); only nbgwd (and root) can open them (docs/operations.md, "
            + "\"Module credentials\")"
    }

    // MARK: Sending one row

    /// Sends a claimed row and settles it.
    public func process(_ entry: Registry.OutboxEntry, patience: CloudAttempt.Patience) async -> Result {
        let attempt = CloudAttempt(idempotencyKey: entry.idempotencyKey, patience: patience)
        let payload: OutboxPayload
        do {
            payload = try OutboxPayload.decode(operation: entry.operation, json: entry.payload)
        } catch {
            return settle(
                entry,
                CloudFailure(
                    .refused,
                    NBGWError(.internalError, "outbox row #\(entry.id) has an unreadable payload: \(error)")
                )
            )
        }
        do throws(CloudFailure) {
            switch payload {
            case .register(let register):
                return try await sendRegister(entry, register, attempt)
            case .bind(let bind):
                let change = try bindingChange(.bind, bind.deviceID, account: bind.account, home: bind.home)
                return try complete(entry, try await cloud.send(change, attempt: attempt))
            case .unbind(let unbind):
                let change = try bindingChange(.unbind, unbind.deviceID, account: unbind.account, home: unbind.home)
                return try complete(entry, try await cloud.send(change, attempt: attempt))
            }
        } catch {
            return failed(entry, error)
        }
    }

    /// The cloud's binding change of a bind or unbind row, with the module's credential and secret
    /// from the store: one place for ``process(_:patience:)`` and ``process(batch:patience:)``.
    private func bindingChange(
        _ action: CloudBindingChange.Action,
        _ deviceID: String,
        account: String?,
        home: String?
    ) throws(CloudFailure) -> CloudBindingChange {
        CloudBindingChange(
            action: action,
            deviceID: deviceID,
            account: account,
            home: home,
            moduleCredential: try local { () throws(NBGWError) in
                try registry.directory.moduleCredential(deviceID: deviceID)
            },
            moduleSecret: try secret(deviceID: deviceID)
        )
    }

    /// Sends claimed rows and settles each: registrations one by one (each is recorded in the
    /// store as the cloud answers it), binding changes together through the cloud's
    /// ``Cloud/CloudService/send(batch:)`` (one round trip for many rows where the cloud has a
    /// batch endpoint). One result per row, in order; each row settles exactly as ``process(_:patience:)``
    /// would settle it.
    public func process(batch entries: [Registry.OutboxEntry], patience: CloudAttempt.Patience) async -> [Result] {
        var results = [Result?](repeating: nil, count: entries.count)
        var changes: [(index: Int, item: CloudBatchItem)] = []
        for (index, entry) in entries.enumerated() {
            guard entry.operation != .register,
                let payload = try? OutboxPayload.decode(operation: entry.operation, json: entry.payload)
            else {
                results[index] = await process(entry, patience: patience)
                continue
            }
            do throws(CloudFailure) {
                let change: CloudBindingChange
                switch payload {
                case .register:
                    results[index] = await process(entry, patience: patience)
                    continue
                case .bind(let bind):
                    change = try bindingChange(.bind, bind.deviceID, account: bind.account, home: bind.home)
                case .unbind(let unbind):
                    change = try bindingChange(.unbind, unbind.deviceID, account: unbind.account, home: unbind.home)
                }
                let attempt = CloudAttempt(idempotencyKey: entry.idempotencyKey, patience: patience)
                changes.append((index, CloudBatchItem(change: change, attempt: attempt)))
            } catch {
                results[index] = failed(entry, error)
            }
        }
        if !changes.isEmpty {
            let answers = await cloud.send(batch: changes.map(\.item))
            for ((index, _), answer) in zip(changes, answers) {
                let entry = entries[index]
                switch answer {
                case .success(let json):
                    do throws(CloudFailure) {
                        results[index] = try complete(entry, json)
                    } catch {
                        results[index] = failed(entry, error)
                    }
                case .failure(let failure):
                    results[index] = failed(entry, failure)
                }
            }
        }
        return results.map { $0 ?? .rescheduled(NBGWError(.internalError, "outbox row not sent")) }
    }

    /// Settles a row whose sending failed, as ``process(_:patience:)`` does.
    private func failed(_ entry: Registry.OutboxEntry, _ error: CloudFailure) -> Result {
        if error.kind == .refused, error.error.code == .storeUnavailable {
            return .claimLost(error.error)
        }
        if error.error.code == .secretsKeyMissing {
            return leaveForDaemon(entry, error.error)
        }
        return settle(entry, error)
    }

    /// Claims a just-committed row and sends it while the caller waits at most `budget` (measured
    /// on `clock`). The local change stands whatever happens; the status says where the cloud
    /// stands. When the budget runs out first, the call is cancelled and the row is pending again
    /// at once, for the drainer (its key makes a resend safe even if the cloud got the first).
    public func sendNow(
        _ entry: Registry.OutboxEntry,
        budget: Duration,
        clock: any Clock<Duration>
    ) async -> CloudSyncStatus {
        guard canSend else {
            return CloudSyncStatus(
                state: .queued,
                outboxID: entry.id,
                message: "outbox row #\(entry.id); the daemon sends it: " + credentialsUnavailable(entry.subject),
                code: ErrorCode.secretsKeyMissing.rawValue
            )
        }
        let claimed: Registry.OutboxEntry?
        do {
            claimed = try registry.outbox.claim(id: entry.id, owner: owner, lease: lease)
        } catch {
            return CloudSyncStatus(
                state: .queued,
                outboxID: entry.id,
                message: error.message,
                code: error.code.rawValue
            )
        }
        guard let claimed else {
            return CloudSyncStatus(
                state: .queued,
                outboxID: entry.id,
                message: "queued behind earlier cloud work for \(entry.subject); `nbgw cloud sync` or the daemon "
                    + "sends it"
            )
        }
        let (result, inTime) = await Budget.run(budget, on: clock) {
            await process(claimed, patience: .interactive)
        }
        switch result {
        case .done, .registered:
            return CloudSyncStatus(state: .synced, outboxID: entry.id)
        case .rescheduled(let error) where !inTime:
            return CloudSyncStatus(
                state: .queued,
                outboxID: entry.id,
                message: "the cloud did not answer within \(Budget.describe(budget)); queued (outbox row "
                    + "#\(entry.id)), `nbgw cloud sync` or the daemon sends it",
                code: error.code.rawValue
            )
        case .rescheduled(let error), .stopped(let error), .claimLost(let error), .leftForDaemon(let error):
            return CloudSyncStatus(
                state: .queued,
                outboxID: entry.id,
                message: error.message,
                code: error.code.rawValue
            )
        case .dead(let error):
            return CloudSyncStatus(
                state: .failed,
                outboxID: entry.id,
                message: error.message,
                code: error.code.rawValue
            )
        }
    }

    // MARK: Operations

    private func sendRegister(
        _ entry: Registry.OutboxEntry,
        _ payload: OutboxPayload.Register,
        _ attempt: CloudAttempt
    ) async throws(CloudFailure) -> Result {
        let identity = payload.identity
        // Only a cloud that authenticates things by password gets (and so makes) a secret.
        let secret =
            cloud.wantsModuleSecret
            ? try local { () throws(NBGWError) in try registry.directory.moduleSecret(imei: identity.imei.digits) }
            : nil
        let module = CloudModule(
            identity: identity,
            knownDeviceID: payload.proposedDeviceID,
            knownLabelCode: payload.proposedLabelCode,
            secret: secret
        )
        let answer = try await cloud.register(module, attempt: attempt)
        let stored = Self.answerJSON([
            "deviceId": answer.deviceID.rawValue, "labelCode": answer.labelCode, "qrcode": answer.labelPayload,
        ])
        let registration = try local { () throws(NBGWError) in
            try registry.directory.recordRegistration(
                identity,
                deviceID: answer.deviceID,
                labelCode: answer.labelCode,
                credential: answer.credential,
                minted: answer.minted,
                completing: Registry.OutboxCompletion(outboxID: entry.id, owner: owner, result: stored)
            )
        }
        guard let registration else {
            throw CloudFailure(
                .unavailable,
                NBGWError(
                    .internalError,
                    "the cloud's ids for IMEI \(identity.imei) are taken by another module in the store; trying again"
                )
            )
        }
        // A module the store knew keeps its label code (and its device id) whatever code the cloud
        // would give it (Kii: the IMEI); its label is the store's.
        let labelPayload =
            registration.device.labelCode == answer.labelCode
            ? answer.labelPayload : cloud.labelBase + registration.device.labelCode
        return .registered(registration, labelPayload: labelPayload)
    }

    private func complete(_ entry: Registry.OutboxEntry, _ result: String) throws(CloudFailure) -> Result {
        let settled = try local { () throws(NBGWError) in
            try registry.outbox.complete(id: entry.id, owner: owner, result: result)
        }
        guard settled else {
            return .claimLost(
                NBGWError(
                    .storeUnavailable,
                    "outbox row #\(entry.id) was taken over by another sender; it records the result"
                )
            )
        }
        return .done(result)
    }

    /// Runs a store call; a store that fails mid-send means the claim may be lost (another sender
    /// settles the row), so its error is `STORE_UNAVAILABLE`, refused, and not settled here. A
    /// credential this process cannot open keeps its code: without the key the row is left for the
    /// daemon (``leaveForDaemon(_:_:)``); under another key it is a configuration to fix (pending
    /// with backoff, the drain stops).
    private func local<T>(_ body: () throws(NBGWError) -> T) throws(CloudFailure) -> T {
        do {
            return try body()
        } catch {
            switch error.code {
            case .internalError, .secretsKeyMissing, .invalidArgument: throw CloudFailure(.refused, error)
            case .secretsKeyMismatch: throw CloudFailure(.misconfigured, error)
            default: throw CloudFailure(.refused, NBGWError(.storeUnavailable, error.message))
            }
        }
    }

    /// The module's secret for a cloud that wants it with a binding change (a thing's password
    /// at Kii), nil for every other: a secret is read only where it is sent.
    private func secret(deviceID: String) throws(CloudFailure) -> String? {
        guard cloud.wantsModuleSecret else { return nil }
        return try local { () throws(NBGWError) in try registry.directory.moduleSecret(deviceID: deviceID) }
    }

    // MARK: Settling

    /// Gives the row back due at once (no backoff: the cloud did nothing wrong; the claim still
    /// counts as an attempt), with why in its last error (`nbgw cloud sync --check` shows it), for
    /// the daemon to send. Reached only past ``canSend`` (a credential a cloud that wants no secret
    /// still reads).
    private func leaveForDaemon(_ entry: Registry.OutboxEntry, _ error: NBGWError) -> Result {
        let message = "outbox row #\(entry.id); the daemon sends it: " + credentialsUnavailable(entry.subject)
        do {
            guard
                try registry.outbox.fail(
                    id: entry.id,
                    owner: owner,
                    code: error.code.rawValue,
                    message: message,
                    retryAfter: .zero
                )
            else {
                return .claimLost(NBGWError(error.code, message + " (the row was taken over by another sender)"))
            }
        } catch {
            return .stopped(error)
        }
        return .leftForDaemon(NBGWError(error.code, message))
    }

    private func settle(_ entry: Registry.OutboxEntry, _ failure: CloudFailure) -> Result {
        let error = failure.error
        let delay: Duration? =
            switch failure.kind {
            case .refused: nil
            // The caller stopped waiting, not the cloud: due again at once.
            case .cancelled: .zero
            case .unavailable, .misconfigured: backoff.delay(afterAttempt: entry.attempts, jitter: jitter())
            }
        logger.warning(
            "cloud outbox row not sent",
            metadata: [
                "outbox_id": "\(entry.id)", "operation": "\(entry.operation.rawValue)", "subject": "\(entry.subject)",
                "code": "\(error.code.rawValue)", "kind": "\(failure.kind.rawValue)",
                "retry_in_ms": "\(delay.map { "\($0.wholeMilliseconds)" } ?? "never")",
                "error": "\(error.message)",
            ]
        )
        do {
            let settled = try registry.outbox.fail(
                id: entry.id,
                owner: owner,
                code: error.code.rawValue,
                message: error.message,
                retryAfter: delay
            )
            guard settled else {
                return .claimLost(
                    NBGWError(error.code, error.message + " (outbox row #\(entry.id) was taken over by another sender)")
                )
            }
        } catch {
            return .stopped(error)
        }
        switch failure.kind {
        case .misconfigured: return .stopped(error)
        case .refused: return .dead(error)
        case .unavailable, .cancelled: return .rescheduled(error)
        }
    }

    static func answerJSON(_ object: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Why `try!`: a dictionary of strings always encodes.
        return String(decoding: try! encoder.encode(object), as: UTF8.self)
    }
}
