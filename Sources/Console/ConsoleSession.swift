import Foundation
import Registry

/// A signed-in person: who, what they may do, and the CSRF token every form of theirs carries.
public struct ConsoleSession: Sendable, Equatable {
    public var operatorName: String
    /// The operator's role, read from their row at each request (a change of role ends the session).
    public var role: ConsoleOperator.Role
    /// The synchronizer token: a hidden field of every form, the `X-CSRF-Token` header of every
    /// script request. Random per session, compared in constant time.
    public var csrfToken: String
    /// The client's address at sign-in.
    public var clientAddress: String
    public var createdAt: Date
    /// The last request, to the minute (``ConsoleSessions/touchInterval``).
    public var lastSeenAt: Date

    public init(_ record: ConsoleSessionRecord) {
        operatorName = record.operatorName
        role = record.role
        csrfToken = record.csrfToken
        clientAddress = record.clientAddress
        createdAt = record.createdAt
        lastSeenAt = record.lastSeenAt
    }

    /// Whether `token` is this session's CSRF token.
    public func acceptsCSRF(_ token: String?) -> Bool {
        guard let token, !token.isEmpty else { return false }
        return ConsoleSecret.equal(token, csrfToken)
    }
}
