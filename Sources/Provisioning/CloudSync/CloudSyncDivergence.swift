/// One way the local store and the cloud disagree (``CloudSyncChecker``).
public struct CloudSyncDivergence: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Registered locally, unknown to the cloud.
        case deviceMissingInCloud = "device-missing-in-cloud"
        /// The same IMEI under different device ids.
        case deviceIDMismatch = "device-id-mismatch"
        /// Registered in the cloud, unknown locally (another gateway's module, or a lost store).
        case deviceOnlyInCloud = "device-only-in-cloud"
        /// Bound locally, not in the cloud.
        case bindingMissingInCloud = "binding-missing-in-cloud"
        /// Bound in the cloud, not locally.
        case bindingOnlyInCloud = "binding-only-in-cloud"
        /// Bound on both sides, to different accounts or homes.
        case bindingDiffers = "binding-differs"
        /// Local work not yet sent (the outbox has it; `nbgw cloud sync` sends it).
        case syncPending = "sync-pending"
        /// Local work the cloud refused (a dead outbox row).
        case syncFailed = "sync-failed"
    }

    public var kind: Kind
    public var deviceID: String?
    public var imei: String?
    /// The local side, in words (`alice/lab`, a device id).
    public var local: String?
    /// The cloud side, in words.
    public var cloud: String?
    /// What it means and what to do next.
    public var detail: String

    public init(
        kind: Kind,
        deviceID: String? = nil,
        imei: String? = nil,
        local: String? = nil,
        cloud: String? = nil,
        detail: String
    ) {
        self.kind = kind
        self.deviceID = deviceID
        self.imei = imei
        self.local = local
        self.cloud = cloud
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case kind
        case deviceID = "deviceId"
        case imei, local, cloud, detail
    }
}
