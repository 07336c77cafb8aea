/// The two things the session needs from its injected `Clock`, with the clock's `Instant` type
/// erased (an `any Clock<Duration>` cannot compute durations between its instants directly).
struct ATSessionClock: Sendable {
    /// Sleeps for a duration; throws `CancellationError` when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    /// Starts a stopwatch; calling the result returns the time elapsed since.
    let startStopwatch: @Sendable () -> @Sendable () -> Duration

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        sleep = { duration in try await clock.sleep(for: duration) }
        startStopwatch = {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
    }
}
