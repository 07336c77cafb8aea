import Console
import ServiceLifecycle

/// The console's CSV batches as one of the daemon's services (docs/console.md, "Batches"): sweeps
/// the batch directory at start and every ``ConsoleBatches/sweepInterval`` on `clock`; at graceful
/// shutdown stops the running batch at its next chunk boundary and waits for it (a chunk commits in
/// well under a second). Its job is left open in the store (interrupted, resumable from the batch
/// page), and its chunk writes no longer hold up the gateway's last ones (the modems marked
/// absent), which stops after it.
struct ConsoleBatchService<C: Clock>: Service, CustomStringConvertible where C.Duration == Duration {
    let batches: ConsoleBatches
    let clock: C

    var description: String { "console-batches" }

    func run() async throws {
        // Cancelled at graceful shutdown (or when the group ends): then stop the batches.
        await cancelWhenGracefulShutdown {
            await batches.sweepPeriodically(every: ConsoleBatches.sweepInterval, clock: clock)
        }
        await batches.stop()
    }
}
