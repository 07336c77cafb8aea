import Foundation

/// A home (the seed's "space"): where bound devices live; owned by one owner account.
public struct Home: Sendable, Equatable, Codable {
    public var id: Int64
    public var name: String
    public var owner: String
    /// Products that may be bound here; empty means any product.
    public var allowedProducts: [String]
    public var createdAt: Date
}
