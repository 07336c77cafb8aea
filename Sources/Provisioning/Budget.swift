/// A caller's patience with the cloud: the work runs, and the caller waits for it at most a
/// budget measured on an injected clock.
enum Budget {
    /// Runs `work`; when `budget` runs out first, cancels it and waits for it to wind down (a
    /// cancelled cloud call ends at once, with its row settled). `inTime` says which came first.
    ///
    /// Why wait for the cancelled work instead of leaving it behind: its result settles an outbox
    /// row or says what the cloud answered, and the caller reports that truthfully.
    static func run<T: Sendable>(
        _ budget: Duration,
        on clock: any Clock<Duration>,
        _ work: @escaping @Sendable () async -> T
    ) async -> (value: T, inTime: Bool) {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await work() }
            group.addTask {
                // A cancelled sleep (the work finished first) ends the child at once.
                try? await clock.sleep(for: budget)
                return nil
            }
            var inTime = true
            while let next = await group.next() {
                if let value = next {
                    group.cancelAll()
                    return (value, inTime)
                }
                // The budget ran out first (or the sleep was cancelled with the group).
                inTime = false
                group.cancelAll()
            }
            preconditionFailure("the work child always yields a value")
        }
    }

    /// `2 s`, `500 ms`: for messages.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}
