/// Tracks the start-up of the daemon's services, so `READY=1` goes to systemd only once each of
/// them runs: the gateway has its ports, the HTTP listeners are bound.
public actor DaemonReadiness {
    private var pending: Set<String>
    private var details: [(component: String, detail: String)] = []
    private var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiter = 0

    /// - Parameter components: names that must report ready (`gateway`, `metrics`, `ingest`).
    public init(expecting components: Set<String>) {
        pending = components
    }

    /// Records that `component` runs; `detail` (e.g. `metrics on 127.0.0.1:9464`) goes into the
    /// status line.
    public func markReady(_ component: String, detail: String? = nil) {
        guard pending.remove(component) != nil else { return }
        if let detail { details.append((component, detail)) }
        guard pending.isEmpty else { return }
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.continuation.resume(returning: true) }
    }

    /// True once every expected component reported ready.
    public var isReady: Bool { pending.isEmpty }

    /// Components that have not reported yet, sorted.
    public var waitingFor: [String] { pending.sorted() }

    /// The details given to ``markReady(_:detail:)``, in order, joined with `; `.
    public var summary: String {
        details.map(\.detail).joined(separator: "; ")
    }

    /// Suspends until every component is ready (true) or the task is cancelled (false).
    public func waitUntilReady() async -> Bool {
        if pending.isEmpty { return true }
        nextWaiter += 1
        let id = nextWaiter
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if pending.isEmpty || Task.isCancelled {
                    continuation.resume(returning: pending.isEmpty)
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }
}
