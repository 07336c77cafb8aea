/// What the emulator saw: requests, idempotent replays, and effects (state changes) per kind.
/// Tests compare requests with effects to show exactly-once delivery.
public struct EmulatorStats: Codable, Sendable, Equatable {
    public var requests: Int
    public var replays: Int
    /// `register`, `register_update`, `pairing_token`, `bind`, `unbind`, `token_grant`, `token_refresh`.
    public var effects: [String: Int]
    /// How many times each fault fired.
    public var faultsFired: [String: Int]

    public init(requests: Int, replays: Int, effects: [String: Int], faultsFired: [String: Int]) {
        self.requests = requests
        self.replays = replays
        self.effects = effects
        self.faultsFired = faultsFired
    }

    enum CodingKeys: String, CodingKey {
        case requests, replays, effects
        case faultsFired = "faults_fired"
    }

    public func effects(_ kind: String) -> Int { effects[kind] ?? 0 }
}
