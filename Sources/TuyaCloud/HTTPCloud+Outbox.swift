import DeviceIdentity
import Foundation
import Pairing
import Registry

/// Sending outbox rows: one place that turns a claimed row into cloud calls (with the row's
/// idempotency key) and settles the row exactly once, used by the commands that just committed
/// a change and by ``OutboxDrainer``.
extension HTTPCloud {
    /// How sending one row ended.
    enum ProcessResult: Sendable {
        /// A registration the cloud answered and the store recorded (row done).
        case registered(Registry.Registration, qrcode: String)
        /// Row done; the stored result JSON.
        case done(String)
        /// Transient failure: the row is pending again, with a later next attempt.
        case rescheduled(NBGWError)
        /// The configuration is wrong (credentials, clock, data center): row pending again; stop.
        case stopped(NBGWError)
        /// The cloud refused it for good: row dead.
        case dead(NBGWError)
        /// Another sender took the row over (our lease ran out); it settles the row.
        case claimLost(NBGWError)
    }

    enum OutboxFailure: Error {
        case cloud(TuyaCloudError)
        case local(NBGWError)
        case payload(String)
    }

    /// Sends a claimed row and settles it: done, rescheduled or dead.
    func process(_ entry: Registry.OutboxEntry, owner: String, policy: RetryPolicy?) async -> ProcessResult {
        do throws(OutboxFailure) {
            switch entry.operation {
            case .register: return try await sendRegister(entry, owner: owner, policy: policy)
            case .bind: return try await sendBind(entry, owner: owner, policy: policy)
            case .unbind: return try await sendUnbind(entry, owner: owner, policy: policy)
            }
        } catch {
            return settle(entry, owner: owner, failure: error)
        }
    }

    private func settle(_ entry: Registry.OutboxEntry, owner: String, failure: OutboxFailure) -> ProcessResult {
        let error: NBGWError
        let retry: Bool
        var stop = false
        switch failure {
        case .cloud(let cloudError):
            error = cloudError.nbgwError
            stop = cloudError.isConfigurationProblem
            retry = stop || cloudError.isTransient || cloudError.kind == .cancelled
        case .local(let localError):
            if localError.code == .storeUnavailable {
                return .claimLost(localError)
            }
            error = localError
            retry = false
        case .payload(let detail):
            error = NBGWError(.internalError, "outbox row #\(entry.id) has an unreadable payload: \(detail)")
            retry = false
        }
        let delay = retry ? outboxBackoff.delay(afterAttempt: entry.attempts, jitter: client.jitter()) : nil
        logger.warning(
            "cloud outbox row not sent",
            metadata: [
                "outbox_id": "\(entry.id)", "operation": "\(entry.operation.rawValue)", "subject": "\(entry.subject)",
                "code": "\(error.code.rawValue)",
                "retry_in_ms": "\(delay.map { "\($0.wholeMilliseconds)" } ?? "never")",
                "error": "\(error.message)",
            ]
        )
        do {
            let settled = try registry.failOutbox(
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
        if stop { return .stopped(error) }
        return retry ? .rescheduled(error) : .dead(error)
    }

    private func sendRegister(
        _ entry: Registry.OutboxEntry,
        owner: String,
        policy: RetryPolicy?
    ) async throws(OutboxFailure) -> ProcessResult {
        let payload = try decode(OutboxPayload.Register.self, entry)
        let identity = payload.identity
        let request = CloudAPI.RegisterRequest(
            imei: identity.imei.digits,
            imsi: identity.imsi?.digits,
            iccid: identity.iccid?.value,
            manufacturer: identity.manufacturer,
            model: identity.model,
            firmware: identity.firmware,
            productID: identity.productID,
            deviceID: payload.proposedDeviceID,
            labelCode: payload.proposedLabelCode
        )
        let result: CloudAPI.RegisterResult
        do {
            result = try await requestRegister(request, key: entry.idempotencyKey, policy: policy)
        } catch {
            throw .cloud(error)
        }
        guard let deviceID = try? DeviceID(result.deviceID), (4...64).contains(result.labelCode.utf8.count) else {
            throw .cloud(
                TuyaCloudError(
                    .malformedResponse("device id or label code outside nbgw's rules"),
                    operation: "register IMEI \(identity.imei)",
                    endpoint: "POST \(configuration.baseURL)\(CloudAPI.modulesPath)"
                )
            )
        }
        let stored = try json(["deviceId": result.deviceID, "labelCode": result.labelCode, "qrcode": result.qrcode])
        do {
            let registration = try registry.completeCloudRegistration(
                outboxID: entry.id,
                owner: owner,
                identity: identity,
                deviceID: deviceID,
                labelCode: result.labelCode,
                result: stored
            )
            return .registered(registration, qrcode: result.qrcode)
        } catch {
            throw .local(error)
        }
    }

    /// A bind needs a pairing token of the home, then the bind with it. Both carry keys derived
    /// from the row's key, so a resend after a crash gets the same token and the same bind answer.
    /// Why generations: a token that expired while the cloud was unreachable cannot be revived;
    /// the bind's refusal proves it did not take effect, so a new token under a new key is safe.
    private func sendBind(
        _ entry: Registry.OutboxEntry,
        owner: String,
        policy: RetryPolicy?
    ) async throws(OutboxFailure) -> ProcessResult {
        let payload = try decode(OutboxPayload.Bind.self, entry)
        var lastRefusal: TuyaCloudError?
        for generation in 1...3 {
            let result: CloudAPI.BindResult
            do throws(TuyaCloudError) {
                let token = try await requestPairingToken(
                    home: payload.home,
                    account: payload.account,
                    key: "\(entry.idempotencyKey).t\(generation)",
                    policy: policy
                )
                result = try await requestBind(
                    deviceID: payload.deviceID,
                    account: payload.account,
                    home: payload.home,
                    token: token.token,
                    key: "\(entry.idempotencyKey).b\(generation)",
                    policy: policy
                )
            } catch
                where error.code == TuyaErrorCode.pairingTokenExpired || error.code == TuyaErrorCode.pairingTokenInvalid
            {
                lastRefusal = error
                continue
            } catch {
                throw .cloud(error)
            }
            return try complete(
                entry,
                owner: owner,
                result: try json(["deviceId": result.deviceID, "status": result.status])
            )
        }
        // Three fresh tokens refused in a row: something is off with time, not with the bind.
        var transient = lastRefusal!
        transient.kind = .timedOut("three pairing tokens in a row were refused as expired or invalid")
        throw .cloud(transient)
    }

    private func sendUnbind(
        _ entry: Registry.OutboxEntry,
        owner: String,
        policy: RetryPolicy?
    ) async throws(OutboxFailure) -> ProcessResult {
        let payload = try decode(OutboxPayload.Unbind.self, entry)
        var answer: (deviceID: String, status: String)
        do throws(TuyaCloudError) {
            let result = try await requestUnbind(deviceID: payload.deviceID, key: entry.idempotencyKey, policy: policy)
            answer = (result.deviceID, result.status)
        } catch  where error.code == TuyaErrorCode.deviceNotBound || error.code == TuyaErrorCode.deviceNotExist {
            // The cloud already has what the unbind wants: nothing bound.
            answer = (payload.deviceID, "not-bound")
        } catch {
            throw .cloud(error)
        }
        return try complete(
            entry,
            owner: owner,
            result: try json(["deviceId": answer.deviceID, "status": answer.status])
        )
    }

    private func complete(
        _ entry: Registry.OutboxEntry,
        owner: String,
        result: String
    ) throws(OutboxFailure) -> ProcessResult {
        do {
            guard try registry.completeOutbox(id: entry.id, owner: owner, result: result) else {
                throw OutboxFailure.local(
                    NBGWError(
                        .storeUnavailable,
                        "outbox row #\(entry.id) was taken over by another sender; it records the result"
                    )
                )
            }
            return .done(result)
        } catch let failure as OutboxFailure {
            throw failure
        } catch let error as NBGWError {
            throw .local(NBGWError(.storeUnavailable, error.message))
        } catch {
            throw .local(NBGWError(.storeUnavailable, "\(error)"))
        }
    }

    private func decode<Payload: Decodable>(
        _ type: Payload.Type,
        _ entry: Registry.OutboxEntry
    ) throws(OutboxFailure)
        -> Payload
    {
        do {
            return try CloudJSON.decode(type, from: entry.payload)
        } catch {
            throw .payload("\(error)")
        }
    }

    private func json(_ object: [String: String]) throws(OutboxFailure) -> String {
        do {
            return try CloudJSON.string(object)
        } catch {
            throw .payload("\(error)")
        }
    }

    // MARK: Local change + outbox

    /// Binds locally under the seed's rules (``Registry/Registry/bindInGroup(_:timeout:enqueue:)``) and, in the same
    /// transaction, queues the cloud bind; then tries to send it at once (``interactivePolicy``).
    /// The local bind stands whatever the cloud does; ``CloudBindResult/sync`` says where the cloud
    /// stands.
    public func bind(
        _ command: BindCommand,
        timeout: Duration = BindingRules.defaultActivationTimeout,
        syncNow: Bool = true
    ) async throws(NBGWError) -> CloudBindResult {
        let synced = try await registry.bindInGroup(command, timeout: timeout) { outcome in
            guard outcome.status == .bound else { return nil }
            let binding = outcome.binding
            return Registry.OutboxRequest(
                operation: .bind,
                subject: binding.deviceID,
                payload: (try? CloudJSON.string(
                    OutboxPayload.Bind(deviceID: binding.deviceID, account: binding.account, home: binding.home)
                )) ?? "{}"
            )
        }
        guard let entry = synced.outboxEntry else {
            return CloudBindResult(outcome: synced.change, sync: CloudSyncStatus(state: .notNeeded))
        }
        let sync =
            syncNow
            ? await sendNow(entry)
            : CloudSyncStatus(state: .queued, outboxID: entry.id, message: "queued for the cloud")
        return CloudBindResult(outcome: synced.change, sync: sync)
    }

    /// Unbinds locally and, in the same transaction, queues the cloud unbind; then tries to send it.
    public func unbind(
        deviceID: String,
        source: BindingSource,
        operator: String? = nil,
        syncNow: Bool = true
    ) async throws(NBGWError) -> CloudUnbindResult {
        let synced = try registry.unbind(deviceID: deviceID, source: source, operator: `operator`) { binding in
            Registry.OutboxRequest(
                operation: .unbind,
                subject: binding.deviceID,
                payload: (try? CloudJSON.string(
                    OutboxPayload.Unbind(deviceID: binding.deviceID, account: binding.account, home: binding.home)
                )) ?? "{}"
            )
        }
        guard let entry = synced.outboxEntry else {
            return CloudUnbindResult(binding: synced.change, sync: CloudSyncStatus(state: .notNeeded))
        }
        let sync =
            syncNow
            ? await sendNow(entry)
            : CloudSyncStatus(state: .queued, outboxID: entry.id, message: "queued for the cloud")
        return CloudUnbindResult(binding: synced.change, sync: sync)
    }

    /// Claims a just-committed row and sends it once with the interactive policy.
    func sendNow(_ entry: Registry.OutboxEntry) async -> CloudSyncStatus {
        let claimed: Registry.OutboxEntry?
        do {
            claimed = try registry.claimOutbox(id: entry.id, owner: owner, lease: outboxLease)
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
                message: "queued behind earlier cloud work for \(entry.subject); `nbgw cloud sync` sends it"
            )
        }
        switch await process(claimed, owner: owner, policy: interactivePolicy) {
        case .done, .registered:
            return CloudSyncStatus(state: .synced, outboxID: entry.id)
        case .rescheduled(let error), .stopped(let error), .claimLost(let error):
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
}
