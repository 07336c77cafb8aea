/// The result of a successful bind.
public struct BindOutcome: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// A new binding was created.
        case bound
        /// The device was already bound to this account and home; nothing changed.
        case unchanged
    }

    public var status: Status
    public var binding: BindingRecord
}
