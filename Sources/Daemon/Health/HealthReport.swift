import Registry

/// What `GET /healthz` answers: 200 with `"status": "ok"` while the store is usable, 503 with
/// `"status": "unavailable"` when it is not (systemd, a load balancer or a monitoring probe acts on
/// the status code; the body says why: `storeReason` for a program, `storeError` for a person), and
/// every modem row of the store.
///
/// ```json
/// {"modemList":[{"imei":"864425038511212","port":"/dev/ttyUSB2","state":"ready"}],
///  "modems":{"ready":1},"modemsTotal":1,"status":"ok","store":"ok","uptimeSeconds":42.5}
/// ```
public struct HealthReport: Sendable, Codable, Equatable {
    /// One row of the modem table, as `/healthz` lists it.
    public struct Modem: Sendable, Codable, Equatable {
        public var port: String
        /// Nil until the probe has read it.
        public var imei: String?
        /// `probing` … `ready`, `failed`, `absent`, `not_modem` (docs/gateway.md).
        public var state: String
        /// The code of the row's last failure (`REGISTRATION_DENIED`, …); it stays after the
        /// module recovers, as in `nbgw modem show`.
        public var lastErrorCode: String?
        /// Why the module is in its state now (`SIM_ABSENT`, `NO_SERVICE`, `REGISTRATION_DENIED`…,
        /// docs/gateway.md), nil when the state says it all.
        public var reason: String?
        /// The reason in words, with what to do.
        public var reasonMessage: String?

        public init(record: ModemRecord) {
            port = record.port
            imei = record.imei
            state = record.state
            lastErrorCode = record.lastError?.code
            reason = record.reason?.code
            reasonMessage = record.reason?.message
        }
    }

    /// Why the store is unusable, as `/healthz` names it (docs/operations.md, "Metrics and health").
    public enum StoreReason: String, Sendable, Codable, Equatable {
        /// The file is gone.
        case removed
        /// Another writer holds the write lock longer than a bind would wait for it.
        case locked
        /// SQLite can only open it read-only (mode, owner, a read-only mount).
        case readOnly = "read_only"
        /// Its filesystem has less room than the store's log may need.
        case diskFull = "disk_full"
        /// Taking the write lock failed otherwise.
        case failed
        /// A read of the store failed.
        case unreadable

        /// The reason for a store that ``Registry/writability(wait:minimumFreeBytes:)`` found not writable.
        public init(_ state: StoreWritability.State) {
            switch state {
            case .locked: self = .locked
            case .readOnly: self = .readOnly
            case .diskFull: self = .diskFull
            case .writable, .failed: self = .failed
            }
        }
    }

    /// `ok` or `unavailable`.
    public var status: String
    /// `ok` or `unavailable`.
    public var store: String
    /// Why the store is unusable (absent when it is fine), in words: what, where, what to do.
    public var storeError: String?
    /// Why the store is unusable, for a program (absent when it is fine).
    public var storeReason: StoreReason?
    /// Supervised modems by state (`ready`, `probing`, …); states with no modem are left out.
    public var modems: [String: Int]
    /// All supervised modems.
    public var modemsTotal: Int
    /// Every row of the modem table (present ones first, by port; then absent ones, most recently
    /// seen first), from the same store read as the metrics' per-modem series.
    public var modemList: [Modem]
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// The rows ``modemList`` shows, whole: `/metrics` renders its per-modem series from them.
    /// Not part of the JSON.
    public var records: [ModemRecord] = []
    /// The HTTP cloud's unsent outbox rows (0 with the embedded cloud), for `/metrics`. Not part of
    /// the JSON.
    public var outboxPending: Int = 0

    enum CodingKeys: String, CodingKey {
        case status, store, storeError, storeReason, modems, modemsTotal, modemList, uptimeSeconds
    }

    public init(
        storeError: String?,
        storeReason: StoreReason? = nil,
        modems: [String: Int],
        uptimeSeconds: Double,
        records: [ModemRecord] = [],
        outboxPending: Int = 0
    ) {
        self.status = storeError == nil ? "ok" : "unavailable"
        self.store = storeError == nil ? "ok" : "unavailable"
        self.storeError = storeError
        self.storeReason = storeError == nil ? nil : storeReason
        self.modems = modems.filter { $0.value > 0 }
        self.modemsTotal = modems.values.reduce(0, +)
        self.modemList = records.map(Modem.init(record:))
        self.uptimeSeconds = uptimeSeconds
        self.records = records
        self.outboxPending = outboxPending
    }

    /// True when the daemon can do its job (the store is usable).
    public var isHealthy: Bool { storeError == nil }
}
