import Foundation

/// A user account bindings belong to (the seed's "user account").
public struct Account: Sendable, Equatable, Codable {
    /// Owners can strong-bind devices into their homes; guests cannot bind at all.
    public enum Role: String, Sendable, Codable, CaseIterable {
        case owner
        case guest
    }

    public var id: Int64
    public var name: String
    public var role: Role
    public var createdAt: Date
}
