import Foundation
import PosixSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The simulator's single thread: one `poll()` (an ``FDPoller`` rebuilt each round) over every
/// port's pty master and a ``WakePipe``, and a timer list for scripted latencies, boot delays and
/// network events.
///
/// Ownership: `ports`, `timers` and every ``SimulatedModem`` are touched only on the loop
/// thread (hence `@unchecked Sendable`). Other threads talk to it through ``perform(_:)`` (a locked
/// queue plus a byte in the wake pipe) and read the statistics through their own lock.
///
/// Timing: `poll()` takes milliseconds, so the loop sleeps in `poll()` until less than a
/// millisecond is left and then `usleep`s the rest; scripted latencies are honoured to within
/// tens of microseconds, which matters for a benchmark that compares host time with them.
final class SimulatorLoop: @unchecked Sendable {
    private struct Timer {
        let deadline: ContinuousClock.Instant
        let sequence: UInt64
        let action: () -> Void
    }

    let timeScale: Double
    private let clock = ContinuousClock()
    private var ports: [SimulatedPort] = []
    private var timers: [Timer] = []
    private var timerSequence: UInt64 = 0
    private var running = true
    private let requests = Mutex<[@Sendable (SimulatorLoop) -> Void]>([])
    private let statistics: Mutex<[SimulatedPortStatistics]>
    private let closedPorts = Mutex<Set<Int>>([])
    private let wake: WakePipe
    /// The poll set's token for the wake pipe; a port's token is its index in `ports`.
    private static let wakeToken = UInt64.max
    private let finished = DispatchSemaphore(value: 0)

    init(timeScale: Double, portCount: Int) throws(SimulatorConfigurationError) {
        self.timeScale = timeScale
        self.statistics = Mutex((0..<portCount).map { SimulatedPortStatistics(index: $0) })
        do {
            wake = try WakePipe()
        } catch {
            throw SimulatorConfigurationError("pipe failed: errno \(error.code)")
        }
    }

    var now: ContinuousClock.Instant { clock.now }

    /// Adds a port before the loop starts.
    func add(_ port: SimulatedPort) {
        ports.append(port)
    }

    /// Starts the thread; every port powers on first thing on it. Returns once they have, so the
    /// power-on banners are out before any host can open a port (and flush them, as a host that
    /// opens a running module's port does).
    func start() {
        let poweredOn = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            for port in ports { port.modem.powerOn() }
            poweredOn.signal()
            run()
            for port in ports where port.isOpen { port.terminal.close() }
            wake.close()
            finished.signal()
        }
        thread.name = "nbgw-modem-sim"
        thread.start()
        poweredOn.wait()
    }

    /// Stops the thread and closes every pty; returns when done.
    func stop() {
        perform { loop in loop.running = false }
        finished.wait()
    }

    /// Runs `block` on the loop thread.
    func perform(_ block: @escaping @Sendable (SimulatorLoop) -> Void) {
        requests.withLock { $0.append(block) }
        wake.wake()
    }

    /// The port at `index`, on the loop thread only.
    func port(_ index: Int) -> SimulatedPort? {
        ports.indices.contains(index) ? ports[index] : nil
    }

    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping () -> Void) {
        timerSequence += 1
        let timer = Timer(deadline: deadline, sequence: timerSequence, action: action)
        // Keep the list sorted by (deadline, sequence): binary search for the insertion point.
        var low = 0
        var high = timers.count
        while low < high {
            let middle = (low + high) / 2
            if timers[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
        }
        timers.insert(timer, at: low)
    }

    func publish(_ portStatistics: SimulatedPortStatistics) {
        statistics.withLock { $0[portStatistics.index] = portStatistics }
    }

    func portClosed(_ port: SimulatedPort) {
        _ = closedPorts.withLock { $0.insert(port.index) }
    }

    /// A copy of every port's counters (any thread).
    var currentStatistics: [SimulatedPortStatistics] { statistics.withLock { $0 } }

    /// Indices of ports that have hung up (any thread).
    var hungUpPorts: Set<Int> { closedPorts.withLock { $0 } }

    private func run() {
        var poller = FDPoller()
        while running {
            poller.removeAll()
            poller.watch(wake.readEnd, for: .readable, token: Self.wakeToken)
            for (index, port) in ports.enumerated() where port.isOpen {
                let events: FDEvents = port.outbox.isEmpty ? .readable : [.readable, .writable]
                poller.watch(port.terminal.master, for: events, token: UInt64(index))
            }
            // A failed wait (EINTR) reports nothing; the timers are still looked at.
            let count = (try? poller.wait(timeoutMilliseconds: pollTimeout())) ?? 0
            for index in 0..<count {
                let event = poller.event(at: index)
                if event.token == Self.wakeToken {
                    runRequests()
                    continue
                }
                let port = ports[Int(event.token)]
                if event.events.contains(.writable) { port.flush() }
                if event.events.contains(.readable) { port.readInput() }
            }
            fireDueTimers()
        }
    }

    /// Milliseconds to wait in `poll()`: until the next timer, sleeping away a final fraction of a
    /// millisecond first so the timer fires on time.
    private func pollTimeout() -> Int32 {
        guard let next = timers.first?.deadline else { return -1 }
        let remaining = now.duration(to: next)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        if microseconds < 1000 {
            usleep(UInt32(microseconds))
            return 0
        }
        return Int32(min(microseconds / 1000, Int64(Int32.max)))
    }

    private func fireDueTimers() {
        let current = now
        while let first = timers.first, first.deadline <= current {
            timers.removeFirst()
            first.action()
        }
    }

    /// Drains the wake pipe and runs what other threads asked for.
    private func runRequests() {
        wake.drain()
        let pending = requests.withLock { requests in
            defer { requests.removeAll() }
            return requests
        }
        for request in pending { request(self) }
    }
}
