/// The result of ``CloudSyncChecker/check(registry:cloud:)``: counts on both sides and every
/// divergence, pending outbox work first.
public struct CloudSyncReport: Sendable, Equatable, Codable {
    public var localDevices: Int
    public var cloudDevices: Int
    public var localBindings: Int
    public var cloudBindings: Int
    public var divergences: [CloudSyncDivergence]

    public init(
        localDevices: Int,
        cloudDevices: Int,
        localBindings: Int,
        cloudBindings: Int,
        divergences: [CloudSyncDivergence]
    ) {
        self.localDevices = localDevices
        self.cloudDevices = cloudDevices
        self.localBindings = localBindings
        self.cloudBindings = cloudBindings
        self.divergences = divergences
    }

    /// No divergence at all, pending work included.
    public var isConsistent: Bool { divergences.isEmpty }
}
