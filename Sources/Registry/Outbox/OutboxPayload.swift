import DeviceIdentity
import Foundation

/// What an outbox row asks the cloud to do, stored as JSON in `cloud_outbox.payload`.
///
/// The one encoder of outbox rows: single binds, group commits, CSV batches and registrations all
/// write rows through ``json``, and senders read them back with ``decode(operation:json:)``. The
/// JSON has sorted keys and unescaped slashes, as rows written before this type existed (by the
/// HTTP cloud's client, or by SQL's `json_object` in a batch) and they read back the same.
public enum OutboxPayload: Sendable, Equatable {
    case register(Register)
    case bind(Bind)
    case unbind(Unbind)

    /// `register`: the module's identity and, when the IMEI is already known locally, the ids to keep.
    public struct Register: Codable, Sendable, Equatable {
        public var identity: ModuleIdentity
        public var proposedDeviceID: String?
        public var proposedLabelCode: String?

        public init(identity: ModuleIdentity, proposedDeviceID: String? = nil, proposedLabelCode: String? = nil) {
            self.identity = identity
            self.proposedDeviceID = proposedDeviceID
            self.proposedLabelCode = proposedLabelCode
        }
    }

    /// `bind`: the binding the cloud must hold (account = the cloud's user, home = its home or asset).
    public struct Bind: Codable, Sendable, Equatable {
        public var deviceID: String
        public var account: String
        public var home: String

        public init(deviceID: String, account: String, home: String) {
            self.deviceID = deviceID
            self.account = account
            self.home = home
        }
    }

    /// `unbind`: the device whose binding the cloud must drop (and what it was, for reports).
    public struct Unbind: Codable, Sendable, Equatable {
        public var deviceID: String
        public var account: String?
        public var home: String?

        public init(deviceID: String, account: String?, home: String?) {
            self.deviceID = deviceID
            self.account = account
            self.home = home
        }
    }

    public var operation: Registry.OutboxEntry.Operation {
        switch self {
        case .register: .register
        case .bind: .bind
        case .unbind: .unbind
        }
    }

    /// What the work is about: the IMEI for `register`, the device id otherwise. The outbox sends
    /// one subject's rows in order.
    public var subject: String {
        switch self {
        case .register(let register): register.identity.imei.digits
        case .bind(let bind): bind.deviceID
        case .unbind(let unbind): unbind.deviceID
        }
    }

    /// The row's JSON.
    public var json: String {
        switch self {
        case .register(let register): OutboxPayload.encode(register)
        case .bind(let bind): OutboxPayload.encode(bind)
        case .unbind(let unbind): OutboxPayload.encode(unbind)
        }
    }

    /// Reads a row's payload back.
    ///
    /// - Throws: a message naming what is wrong, when the JSON does not match the operation.
    public static func decode(operation: Registry.OutboxEntry.Operation, json: String) throws -> OutboxPayload {
        let decoder = JSONDecoder()
        let data = Data(json.utf8)
        switch operation {
        case .register: return .register(try decoder.decode(Register.self, from: data))
        case .bind: return .bind(try decoder.decode(Bind.self, from: data))
        case .unbind: return .unbind(try decoder.decode(Unbind.self, from: data))
        }
    }

    static func encode<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Why `try!`: these payloads are plain strings and a ModuleIdentity, which always encode.
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }
}
