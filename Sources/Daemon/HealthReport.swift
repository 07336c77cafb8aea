/// What `GET /healthz` answers: 200 with `"status": "ok"` while the store is usable, 503 with
/// `"status": "unavailable"` when it is not (systemd, a load balancer or a monitoring probe acts on
/// the status code; the body says why).
///
/// ```json
/// {"status":"ok","store":"ok","modems":{"ready":8,"registering":1},"modemsTotal":9,"uptimeSeconds":42.5}
/// ```
public struct HealthReport: Sendable, Codable, Equatable {
    /// `ok` or `unavailable`.
    public var status: String
    /// `ok` or `unavailable`.
    public var store: String
    /// Why the store is unusable (absent when it is fine).
    public var storeError: String?
    /// Supervised modems by state (`ready`, `probing`, …); states with no modem are left out.
    public var modems: [String: Int]
    /// All supervised modems.
    public var modemsTotal: Int
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double

    public init(storeError: String?, modems: [String: Int], uptimeSeconds: Double) {
        self.status = storeError == nil ? "ok" : "unavailable"
        self.store = storeError == nil ? "ok" : "unavailable"
        self.storeError = storeError
        self.modems = modems.filter { $0.value > 0 }
        self.modemsTotal = modems.values.reduce(0, +)
        self.uptimeSeconds = uptimeSeconds
    }

    /// True when the daemon can do its job (the store is usable).
    public var isHealthy: Bool { storeError == nil }
}
