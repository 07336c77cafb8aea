/// The injected clock with its `Instant` type erased: sleeping and measuring elapsed time is all
/// supervision needs (backoff, registration deadlines, signal polling).
struct SupervisionClock: Sendable {
    /// Sleeps for a duration; throws `CancellationError` when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    /// Starts a stopwatch; calling the result returns the time elapsed since.
    let startStopwatch: @Sendable () -> @Sendable () -> Duration
    /// The clock itself, for ``ATKit/ModemBringUp``.
    let clock: any Clock<Duration>

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        self.clock = clock
        sleep = { duration in try await clock.sleep(for: duration) }
        startStopwatch = {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
    }
}
