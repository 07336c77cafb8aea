import Foundation

/// A console session as the store keeps it (migration v13), with its operator's current name and
/// role read from their row: a session never carries a role of its own.
public struct ConsoleSessionRecord: Sendable, Equatable {
    /// SHA-256 of the cookie's value, hex.
    public var digest: String
    public var operatorName: String
    /// The operator's role now (a change of role ends the session, so this is also the role at sign-in).
    public var role: ConsoleOperator.Role
    /// The synchronizer token every form of the session carries.
    public var csrfToken: String
    /// The client's address at sign-in.
    public var clientAddress: String
    public var createdAt: Date
    /// When a request last used it, to the minute (the store is written at most once a minute per session).
    public var lastSeenAt: Date
    /// The absolute end.
    public var expiresAt: Date

    public init(
        digest: String,
        operatorName: String,
        role: ConsoleOperator.Role,
        csrfToken: String,
        clientAddress: String,
        createdAt: Date,
        lastSeenAt: Date,
        expiresAt: Date
    ) {
        self.digest = digest
        self.operatorName = operatorName
        self.role = role
        self.csrfToken = csrfToken
        self.clientAddress = clientAddress
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
    }
}
