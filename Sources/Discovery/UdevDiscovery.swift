import CUDev
import Foundation
import Logging
import PosixSupport

#if canImport(Glibc)
import Glibc
#endif

/// Finds serial ports through libudev: the `tty` subsystem now (``enumerate()``), and add/remove as
/// they happen (``events()``).
///
/// ```swift
/// let discovery = try UdevDiscovery(logger: logger)
/// for await event in discovery.events() {           // ends when this task is cancelled
///     guard case .added(let port) = event else { continue }
///     if case .probe(let hint, let reason) = CandidatePolicy.standard.decide(port) { … }
/// }
/// ```
///
/// Ownership: libudev objects are not thread-safe, so nothing here is shared. Every ``enumerate()``
/// call uses its own libudev context on the caller's thread, and every ``events()`` stream owns a
/// context, a monitor and one thread that are released when the stream ends.
public final class UdevDiscovery: Sendable {
    let logger: Logger

    /// Checks that libudev works here: `/sys` is readable and a context can be created (else throws
    /// ``UdevDiscoveryError/udevUnavailable(detail:)``). Logs an error when no netlink monitor can be
    /// bound (some sandboxes forbid the socket) and a warning when udevd does not run (no
    /// `/run/udev/control`, typical in containers): in both cases hot-plug events never arrive, while
    /// ``enumerate()`` and the start of ``events()`` still work.
    public init(logger: Logger) throws {
        self.logger = logger
        guard access("/sys", R_OK) == 0 else {
            throw UdevDiscoveryError.udevUnavailable(
                detail: "/sys is not readable: \(Errno.current.description)"
            )
        }
        let context = try UdevContext()
        do {
            _ = try UdevMonitor(context: context)
        } catch {
            // Enumeration still works without the monitor; only hot-plug is lost.
            logger.error("udev hot-plug will not work here: \(error)")
        }
        if access("/run/udev/control", F_OK) != 0 {
            logger.warning(
                """
                udevd does not seem to run (no /run/udev/control): unless something else sends udev events \
                (umockdev in tests), hot-plugged ports will not be seen until restart
                """,
                metadata: ["hint": "run systemd-udevd, or list the ports under [[ports]] in the config"]
            )
        }
    }

    /// Every `tty` device with a node, in sysfs order. Virtual consoles and on-board UARTs are
    /// included; ``CandidatePolicy`` decides which ones to probe.
    public func enumerate() throws -> [UdevPort] {
        try UdevContext().enumerateTTYs()
    }

    /// How many ``events()`` threads of this process have not finished yet (counted from the call,
    /// before the thread is scheduled, until the thread has released its monitor): how to check that
    /// ending a stream leaves nothing behind.
    public static var runningEventThreads: Int { UdevEventLoop.running.load(ordering: .relaxed) }

    /// Port events: opens the netlink monitor first, then enumerates (an ``UdevEvent/added(_:)`` for
    /// each existing port), then follows add and remove. A port that appears between the monitor's
    /// start and the enumeration is reported once; a remove is only reported for a port reported as
    /// added. The stream ends when the consuming task is cancelled (or the stream is dropped): its
    /// thread wakes at once, releases the monitor and exits.
    public func events() -> AsyncStream<UdevEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: UdevEvent.self)
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            let failure = UdevDiscoveryError.monitorUnavailable(detail: "pipe: \(error)")
            logger.error("cannot follow udev events: \(failure)")
            continuation.finish()
            return stream
        }
        // Also after the loop has ended and closed the pipe (its `continuation.finish()` runs this):
        // a wake after close writes nothing.
        continuation.onTermination = { _ in wake.wake() }
        let logger = self.logger
        // Counted here, before the thread exists, so that the count never misses a stream whose
        // thread has not been scheduled yet; the thread takes it down as its last act.
        UdevEventLoop.running.add(1, ordering: .relaxed)
        let thread = Thread {
            defer { UdevEventLoop.running.subtract(1, ordering: .relaxed) }
            UdevEventLoop(logger: logger, continuation: continuation, wake: wake).run()
        }
        thread.start()
        return stream
    }
}
