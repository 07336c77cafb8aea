import ATKit

extension ModemSupervisor {
    /// What woke a supervisor that waits for its module (``waitForChange(_:timeout:pinsSince:matters:)``).
    enum Wake: Sendable {
        /// An event that matters.
        case event(ModemEvent)
        /// The event stream ended: the session closed.
        case ended
        /// The timeout passed (on the supervision clock).
        case tick
        /// The SIM PIN book was replaced (the daemon reloaded its config).
        case pins
        /// The task was cancelled.
        case cancelled
    }

    /// Waits for the first of: an event of `events` that `matters`, `timeout` on the injected clock,
    /// and (with `pinsSince`) a new SIM PIN book. `events` is consumed by this call: subscribe anew
    /// for the next wait, *before* re-reading the module's state, so nothing falls in between.
    func waitForChange(
        _ events: AsyncStream<ModemEvent>,
        timeout: Duration,
        pinsSince: Int? = nil,
        matters: @escaping @Sendable (ModemEvent) -> Bool
    ) async -> Wake {
        let clock = context.clock
        let pins = context.simPINs
        return await withTaskGroup(of: Wake?.self) { group in
            group.addTask {
                for await event in events where matters(event) { return .event(event) }
                return Task.isCancelled ? nil : .ended
            }
            group.addTask {
                do {
                    try await clock.sleep(timeout)
                    return .tick
                } catch {
                    return nil
                }
            }
            if let pinsSince {
                group.addTask {
                    await pins.changed(since: pinsSince)
                    return Task.isCancelled ? nil : .pins
                }
            }
            defer { group.cancelAll() }
            while let wake = await group.next() {
                if let wake { return wake }
                if Task.isCancelled { return .cancelled }
            }
            return .cancelled
        }
    }

    /// "/dev/ttyUSB2 (IMEI 866…)" for messages.
    var moduleName: String {
        status.withLock { $0.imei }.map { "\(path) (IMEI \($0))" } ?? path
    }

    /// How an operator names this module on the command line: its IMEI, else its port.
    var operatorKey: String {
        status.withLock { $0.imei } ?? path
    }
}
