import Foundation

/// A person who signs in to the web console (docs/console.md), as the store keeps them.
public struct ConsoleOperator: Sendable, Equatable, Codable {
    /// What a person may do in the console.
    public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
        /// Binds devices (the bind page, pairing results) and nothing else.
        case binder
        /// A binder who also runs batches, browses and unbinds, and watches the modems.
        case `operator`
        /// An operator who also acts on modems through the daemon (reset, re-probe, release, resume).
        case admin

        var rank: Int {
            switch self {
            case .binder: 0
            case .operator: 1
            case .admin: 2
            }
        }

        public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
    }

    public var name: String
    public var role: Role
    /// The password's PHC string (`$scrypt$…`); never a password.
    public var passwordHash: String
    /// Sign-ins refused in a row since the last success.
    public var failedAttempts: Int
    /// While in the future, every sign-in is refused without looking at the password.
    public var lockedUntil: Date?
    public var createdAt: Date
    public var lastSignInAt: Date?

    public init(
        name: String,
        role: Role,
        passwordHash: String,
        failedAttempts: Int = 0,
        lockedUntil: Date? = nil,
        createdAt: Date,
        lastSignInAt: Date? = nil
    ) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
    }
}
