import Foundation
import Registry

extension IngestAPI {
    /// A bind's result: `bind --json`'s shape.
    public struct BindResponse: Encodable, Sendable {
        public var status: String
        public var deviceId: String
        public var imei: String
        public var account: String
        public var home: String
        public var boundAt: Date
        public var source: String
        public var `operator`: String?
        public var cloudSync: String?
        public var cloudMessage: String?
    }

    /// An unbind's result: `unbind --json`'s shape.
    public struct UnbindResponse: Encodable, Sendable {
        public var status: String
        public var deviceId: String
        public var account: String
        public var home: String
        public var cloudSync: String?
        public var cloudMessage: String?
    }

    /// A page of bindings; `nextCursor` is absent on the last page.
    public struct BindingsPage: Encodable, Sendable {
        public var bindings: [BindingRecord]
        public var nextCursor: String?
    }

    /// A new pairing token: `token create --json`'s shape.
    public struct TokenResponse: Encodable, Sendable {
        public var token: String
        public var home: String
        public var expiresAt: Date
    }

    /// A pairing token's result (the seed's "query pairing result").
    public struct PairingResultResponse: Encodable, Sendable {
        public struct Failure: Encodable, Sendable {
            public var at: Date
            public var deviceId: String?
            public var account: String?
            public var home: String?
            public var code: String
            public var message: String?
        }

        /// `pending` (unused, unexpired), `used` (a device bound with it) or `expired`.
        public var status: String
        public var home: String
        public var createdAt: Date
        public var expiresAt: Date
        public var usedAt: Date?
        /// Devices bound with this token (a token is single-use: zero or one).
        public var devices: [BindingRecord]
        public var failures: [Failure]
    }

    /// `GET /v1/devices/{deviceId}`: `devices show --json`'s shape plus the ingest trail.
    public struct DeviceResponse: Encodable, Sendable {
        public var device: DeviceRecord
        public var qr: String
        public var binding: BindingRecord?
        public var audit: [AuditEntry]
        /// Ingest API requests about this device: key name and client address per change.
        public var ingest: [Registry.IngestAuditEntry]
    }

    /// One modem in `GET /v1/modems`.
    public struct Modem: Encodable, Sendable {
        public var deviceId: String
        public var imei: String
        public var manufacturer: String?
        public var model: String?
        public var firmware: String?
        /// The daemon's live state from the modem table (`ready`, `searching`, `absent`, …);
        /// `unknown` for a registered device the daemon has never seen.
        public var state: String
        /// The port the daemon last saw the module on (nil if never seen).
        public var port: String?
        /// The last signal level read, dBm (RSRP where the module reports it, else RSSI).
        public var signalDbm: Int?
        /// When the module last answered.
        public var lastSeen: Date?
    }

    /// `GET /v1/modems`.
    public struct ModemsPage: Encodable, Sendable {
        public var modems: [Modem]
        /// `registry`: the view is read from the store the daemon writes (its modem table).
        public var source: String
        public var nextCursor: String?
    }

    /// The error body.
    public struct ErrorBody: Encodable, Sendable {
        public struct Detail: Encodable, Sendable {
            public var code: String
            public var message: String
        }

        public var error: Detail
    }
}
