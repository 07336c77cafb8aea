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
    /// The ingest API key's name, on the rows of binds made through the ingest API (migration v6).
    public var apiKey: String?
    /// The ingest API client's address (`ip:port`), with ``apiKey``.
    public var clientAddress: String?

    enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId"
        case id, at, event, imei, account, home, source, `operator`, code, detail, apiKey, clientAddress
    }
}
