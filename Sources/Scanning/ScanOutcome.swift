/// What one scan of a session did.
public struct ScanOutcome: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        /// Bound now.
        case bound
        /// Already bound to this account and home.
        case unchanged
        /// Refused: ``ScanOutcome/code`` says why.
        case failed
        /// The same payload again within the repeat window (a scanner's double read): ignored.
        case `repeat`
    }

    /// The scan's number in the session, from 1.
    public var number: Int
    public var status: Status
    /// The payload as scanned (rejected scans: nil).
    public var payload: String?
    /// The error code of a failed scan (`UNKNOWN_DEVICE`, `NOT_NB_DEVICE`, `INVALID_QR`, …).
    public var code: String?
    /// What happened, and for a failure what to do.
    public var message: String
    public var deviceID: String?
    public var imei: String?
    public var account: String?
    public var home: String?
    /// With a remote cloud: `synced`, `queued` or `failed`.
    public var cloudSync: String?
    /// For a repeat: the scan it repeats.
    public var repeatOf: Int?

    public var isFailure: Bool { status == .failed }
}

/// A session's running counts.
public struct ScanTallies: Sendable, Equatable, Codable {
    public var scans = 0
    public var bound = 0
    public var unchanged = 0
    public var failed = 0
    public var repeats = 0
    /// Bound locally, the cloud's copy still to send (the outbox sends it).
    public var queued = 0

    public init() {}

    /// `12 scans: 9 bound, 1 unchanged, 1 failed, 1 repeat`.
    public var summary: String {
        var text =
            "\(scans) scan\(scans == 1 ? "" : "s"): \(bound) bound, \(unchanged) unchanged, \(failed) failed, "
            + "\(repeats) repeat\(repeats == 1 ? "" : "s") ignored"
        if queued > 0 { text += " (\(queued) queued for the cloud)" }
        return text
    }
}
