/// One outbox change and its attempt, sent with others (``CloudService/send(batch:)``).
public struct CloudBatchItem: Sendable {
    public var change: CloudBindingChange
    public var attempt: CloudAttempt

    public init(change: CloudBindingChange, attempt: CloudAttempt) {
        self.change = change
        self.attempt = attempt
    }
}
