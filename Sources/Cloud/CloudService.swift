import DeviceIdentity
import Pairing

/// The remote side of nbgw: a cloud that registers modules, resolves the labels it issued and
/// keeps bindings in step with the gateway's store.
///
/// A cloud does remote work only. The local store, the outbox, the rules and the "local first"
/// order are the caller's (`Provisioning`): a bind commits locally with its outbox row, then the
/// row is handed to ``send(_:attempt:)``; a registration is recorded locally with the ids the cloud
/// answered. So an adapter is one type with these methods and knows no store type.
///
/// Every call carries a ``CloudAttempt``: the idempotency key (a resend after a crash or a timeout
/// gets the cloud's first answer, so each effect happens once) and how patient to be. Failures are
/// ``CloudFailure``s, which say whether the work may be retried.
///
/// One instance per process, shared by every caller; ``shutdown()`` closes its connections.
public protocol CloudService: Sendable {
    /// A short name for logs and reports (`embedded`, a base URL).
    var name: String { get }

    /// The URL prefix of the labels printed for this cloud's modules (`labelBase + labelCode`).
    /// A scanned label under this prefix whose code the store holds resolves locally, without a
    /// round trip.
    var labelBase: String { get }

    /// True when local bindings must reach this cloud (every remote cloud); false for the embedded
    /// cloud, whose state is the store itself. Work for a cloud that syncs goes through the outbox.
    var syncsBindings: Bool { get }

    /// True when ``send(_:attempt:)`` needs the module's own secret
    /// (``CloudBindingChange/moduleSecret``): a cloud that checks a thing's password when its
    /// owners change. The outbox reads the secret from the store only for such a cloud.
    var wantsModuleSecret: Bool { get }

    /// Registers a module, idempotent by IMEI: the same IMEI keeps its device id. The answer's ids
    /// are recorded in the store by the caller.
    func register(_ module: CloudModule, attempt: CloudAttempt) async throws(CloudFailure) -> CloudRegisteredModule

    /// Resolves a label the store does not know (the seed's "Parse QR code" step) to the device it
    /// names, with the module's identity when the cloud tells it (a fleet cloud resolves the labels
    /// every gateway of the tenant printed). A cloud that resolves no labels of others refuses with
    /// a message that says so.
    func resolveLabel(_ label: LabelReference, attempt: CloudAttempt) async throws(CloudFailure)
        -> CloudResolvedLabel

    /// Applies one committed binding change in the cloud (an outbox row's work). Returns the
    /// cloud's answer as JSON, kept with the row.
    func send(_ change: CloudBindingChange, attempt: CloudAttempt) async throws(CloudFailure) -> String

    /// Applies several committed changes (a drain's claimed rows, one per device), one result
    /// each in order, each exactly as ``send(_:attempt:)`` would (same keys, same answers). A cloud
    /// with a batch endpoint sends them in a few requests; the default sends them one by one.
    func send(batch: [CloudBatchItem]) async -> [Result<String, CloudFailure>]

    /// How many rows a drain should hand ``send(batch:)`` at once: 1 for a cloud that sends
    /// them one by one (the default), its batch size for one with a batch endpoint.
    var preferredBatchSize: Int { get }

    /// What the cloud holds about `modules` (and, when it can list them, everything else it
    /// holds), for `nbgw cloud sync --check`.
    func inventory(of modules: [CloudInventory.Module]) async throws(CloudFailure) -> CloudInventory

    /// Closes connections; the cloud must not be used afterwards.
    func shutdown() async
}

extension CloudService {
    /// No cloud but one that says so needs a module's secret to change its owners.
    public var wantsModuleSecret: Bool { false }
}

extension CloudService {
    public var preferredBatchSize: Int { 1 }

    /// One ``send(_:attempt:)`` after another.
    public func send(batch: [CloudBatchItem]) async -> [Result<String, CloudFailure>] {
        await sendOneByOne(batch)
    }

    /// One ``send(_:attempt:)`` after another: the default of ``send(batch:)``, and what a cloud
    /// with a batch endpoint falls back to.
    public func sendOneByOne(_ batch: [CloudBatchItem]) async -> [Result<String, CloudFailure>] {
        var results: [Result<String, CloudFailure>] = []
        for item in batch {
            do throws(CloudFailure) {
                results.append(.success(try await send(item.change, attempt: item.attempt)))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }
}
