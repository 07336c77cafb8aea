import Foundation
import NBGWCore

/// A device's binding to an account and one of its homes (strong binding: at most one per device).
public struct BindingRecord: Sendable, Equatable, Codable {
    public var deviceID: String
    public var imei: String
    public var account: String
    public var home: String
    public var boundAt: Date
    public var source: BindingSource
    public var `operator`: String?

    enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId"
        case imei, account, home, boundAt, source, `operator`
    }
}
