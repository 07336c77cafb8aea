import Registry

/// A signed-in person: who, what they may do, and the CSRF token every form of theirs carries.
public struct ConsoleSession: Sendable, Equatable {
    public var operatorName: String
    public var role: ConsoleOperator.Role
    /// The synchronizer token: a hidden field of every form, the `X-CSRF-Token` header of every
    /// script request. Random per session, compared in constant time.
    public var csrfToken: String
    /// The client's address at sign-in.
    public var clientAddress: String
    /// Monotonic instants (``ConsoleSessions/now``).
    public var createdAt: Duration
    public var lastSeenAt: Duration

    /// Whether `token` is this session's CSRF token.
    public func acceptsCSRF(_ token: String?) -> Bool {
        guard let token, !token.isEmpty else { return false }
        return ConsoleSecret.equal(token, csrfToken)
    }
}
