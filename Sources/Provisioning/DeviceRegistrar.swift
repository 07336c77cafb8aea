import Cloud
import DeviceIdentity
import Logging
import NBGWCore
import Registry

/// Registers modules with the configured cloud and records them in the store: `nbgw devices
/// register` and the daemon's supervisors, through this one code path.
///
/// - A cloud that does not sync (the embedded one) answers at once with the ids the store holds
///   for the IMEI, or new minted ones; they are recorded in one transaction (minted ids that clash
///   with another module's are minted again).
/// - A cloud that syncs gets the registration through the outbox: a `register` row (superseding an
///   unsent one for the same IMEI) is sent at once under its key with the cloud's full retry
///   policy, and the answer is recorded in the transaction that marks the row done. If the cloud
///   cannot be reached the row stays queued for the drainer, and the error says so.
public struct DeviceRegistrar: Sendable {
    public let cloud: any CloudService
    public let registry: Registry
    let sender: OutboxSender

    /// - Parameter logger: where unsent outbox rows are logged; nil logs nothing.
    public init(cloud: any CloudService, registry: Registry, logger: Logger? = nil) {
        self.cloud = cloud
        self.registry = registry
        self.sender = OutboxSender(registry: registry, cloud: cloud, logger: logger)
    }

    /// Validates raw identity strings (as typed by an operator or read from a modem) and registers.
    public func register(
        imei: String,
        imsi: String? = nil,
        iccid: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        productID: String? = nil
    ) async throws(NBGWError) -> CloudRegistration {
        let identity: ModuleIdentity
        do {
            identity = ModuleIdentity(
                imei: try IMEI(imei),
                imsi: try imsi.map { value throws(IdentityError) in try IMSI(value) },
                iccid: try iccid.map { value throws(IdentityError) in try ICCID(value) },
                manufacturer: try DeviceRegistrar.text(manufacturer, "manufacturer", limit: 64),
                model: try DeviceRegistrar.text(model, "model", limit: 64),
                firmware: try DeviceRegistrar.text(firmware, "firmware", limit: 128),
                productID: try DeviceRegistrar.text(productID, "product", limit: 64)
            )
        } catch let error as IdentityError {
            throw NBGWError(.invalidArgument, "\(error); check the value printed on the module or read by AT")
        } catch let error as NBGWError {
            throw error
        } catch {
            throw NBGWError(.invalidArgument, "\(error)")
        }
        return try await register(identity)
    }

    /// Registers a validated identity (idempotent by IMEI: the same device id on every call).
    public func register(_ identity: ModuleIdentity) async throws(NBGWError) -> CloudRegistration {
        let existing = try registry.directory.device(imei: identity.imei.digits)
        guard cloud.syncsBindings else {
            return try await registerLocally(identity, existing: existing)
        }
        let entry = try registry.outbox.enqueue(
            Registry.OutboxRequest(
                .register(
                    .init(
                        identity: identity,
                        proposedDeviceID: existing?.deviceID,
                        proposedLabelCode: existing?.labelCode
                    )
                )
            ),
            supersedeUnfinished: true
        )
        guard sender.canSend else {
            throw NBGWError(
                .secretsKeyMissing,
                "the registration of IMEI \(identity.imei) is queued (outbox row #\(entry.id)); the daemon sends it: "
                    + sender.credentialsUnavailable("IMEI \(identity.imei)")
            )
        }
        guard let claimed = try registry.outbox.claim(id: entry.id, owner: sender.owner, lease: sender.lease) else {
            throw NBGWError(
                .timeout,
                "the registration of IMEI \(identity.imei) is queued behind earlier cloud work for it (outbox row "
                    + "#\(entry.id)); run `nbgw cloud sync` or let the daemon send it, then register again"
            )
        }
        switch await sender.process(claimed, patience: .background) {
        case .registered(let registration, let labelPayload):
            return CloudRegistration(
                device: registration.device,
                labelPayload: labelPayload,
                created: registration.created,
                changedFields: registration.changedFields
            )
        case .done:
            throw NBGWError(.internalError, "outbox row #\(entry.id) was not a registration")
        case .rescheduled(let error), .stopped(let error), .leftForDaemon(let error):
            throw NBGWError(
                error.code,
                error.message + "; the registration of IMEI \(identity.imei) is queued (outbox row #\(entry.id))"
            )
        case .dead(let error), .claimLost(let error):
            throw error
        }
    }

    /// The embedded cloud: its answer is recorded directly.
    private func registerLocally(
        _ identity: ModuleIdentity,
        existing: DeviceRecord?
    ) async throws(NBGWError) -> CloudRegistration {
        let module = CloudModule(
            identity: identity,
            knownDeviceID: existing?.deviceID,
            knownLabelCode: existing?.labelCode
        )
        // Why a loop: minted ids could, with negligible probability, be another module's; the
        // store refuses them (nil) and the cloud mints again.
        for _ in 0..<8 {
            let answer: CloudRegisteredModule
            do {
                answer = try await cloud.register(
                    module,
                    attempt: CloudAttempt(idempotencyKey: IdempotencyKey.make(), patience: .background)
                )
            } catch {
                throw error.error
            }
            if let registration = try registry.directory.recordRegistration(
                identity,
                deviceID: answer.deviceID,
                labelCode: answer.labelCode,
                credential: answer.credential,
                minted: answer.minted
            ) {
                return CloudRegistration(
                    device: registration.device,
                    labelPayload: cloud.labelBase + registration.device.labelCode,
                    created: registration.created,
                    changedFields: registration.changedFields
                )
            }
        }
        throw NBGWError(.internalError, "could not mint a unique device id for IMEI \(identity.imei)")
    }

    static func text(_ value: String?, _ name: String, limit: Int) throws -> String? {
        guard let value else { return nil }
        guard !value.isEmpty, value.count <= limit,
            value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            throw NBGWError(
                .invalidArgument,
                "\(name) \(value.escapedForDisplay()) must be 1 to \(limit) printable characters"
            )
        }
        return value
    }
}
