/// Whether a process may open and seal the store's module credentials: it holds the secrets key,
/// or it does not and the reason says why (for the messages of the work it leaves to the daemon).
/// ``Registry`` is opened with one (``Registry/init(path:clock:busyTimeout:walCheckpointing:access:secretsKey:)``).
public enum SecretsKeyAccess: Sendable, CustomStringConvertible {
    /// This process holds the key.
    case key(StoreSecretsKey)
    /// It does not; why, as a phrase ("no secrets key was given to this process").
    case unavailable(String)

    /// What a library caller that names no key gets.
    public static let none = SecretsKeyAccess.unavailable("no secrets key was given to this process")

    /// The key, or nil.
    public var key: StoreSecretsKey? {
        if case .key(let key) = self { return key }
        return nil
    }

    /// The key's id, or why there is none; never key material.
    public var description: String {
        switch self {
        case .key(let key): "secrets key \(key.id)"
        case .unavailable(let reason): "no secrets key (\(reason))"
        }
    }
}
