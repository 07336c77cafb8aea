import Foundation

/// One row of the append-only audit log (register, bind, unbind, token events).
public struct AuditEntry: Sendable, Equatable, Codable {
    public var id: Int64
    public var at: Date
    public var event: String
    public var deviceID: String?
    public var imei: String?
    public var account: String?
    public var home: String?
    public var source: String?
    public var `operator`: String?
    public var code: String?
    public var detail: String?

    enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId"
        case id, at, event, imei, account, home, source, `operator`, code, detail
    }
}
