/// How one cloud call is made: under which idempotency key and how patiently.
public struct CloudAttempt: Sendable, Equatable {
    /// How long a call may keep retrying.
    public enum Patience: String, Sendable, Equatable {
        /// Someone waits for the answer (a bind at a bench, a label being resolved): few, quick
        /// retries; the caller also bounds the whole call by its own budget.
        case interactive
        /// Nobody waits (the outbox drainer, a registration): the cloud's full retry policy.
        case background
    }

    /// The key the cloud deduplicates on: the outbox row's for outbox work, a fresh one otherwise.
    public var idempotencyKey: String
    public var patience: Patience

    public init(idempotencyKey: String, patience: Patience) {
        self.idempotencyKey = idempotencyKey
        self.patience = patience
    }
}
