#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CLinux)
import CLinux
#endif

/// A few threads of their own for expensive, blocking work (key derivation, image decoding)
/// that async callers await, with a bounded line in front of them.
///
/// Why not Swift's cooperative pool: it has one thread per core (two on a small gateway), and
/// every task of the daemon (the supervisors, the listeners, the watchdog's heartbeat) shares
/// them. Work that holds a thread for a second blocks all of that: 100 concurrent console
/// sign-ins (scrypt on the pool) held off the watchdog ping for 34.6 s. Here the work runs on
/// ``threads`` dedicated threads whatever arrives, and what cannot even wait in line
/// (``capacity`` jobs) is refused at once with ``Busy``, for the caller to answer 429.
///
/// ```swift
/// let kdf = BoundedWorkQueue(name: "nbgwd-kdf", threads: 1, capacity: 8)
/// let matches = try await kdf.run { hasher.verify(password, against: hash) }
/// ```
public final class BoundedWorkQueue: @unchecked Sendable {
    /// The queue was full (or stopped): the work did not run.
    public struct Busy: Error, Sendable, Equatable, CustomStringConvertible {
        /// Jobs running when it was refused.
        public let running: Int
        /// Jobs waiting when it was refused.
        public let waiting: Int
        /// True when the queue was stopped.
        public let stopped: Bool

        public init(running: Int, waiting: Int, stopped: Bool) {
            self.running = running
            self.waiting = waiting
            self.stopped = stopped
        }

        public var description: String {
            stopped ? "the work queue is stopped" : "\(running) running and \(waiting) waiting: the queue is full"
        }
    }

    /// The name its threads carry (`ps -L`, `top -H`).
    public let name: String
    /// Threads that run jobs.
    public let threads: Int
    /// Jobs that may wait for a thread; one more is refused.
    public let capacity: Int
    /// Nice levels the queue's threads drop by: their work yields the CPU to the rest of the process.
    public let niceSteps: Int32

    // State, guarded by `mutex`: what waits, what runs, whether the queue stops.
    private var waiting: [@Sendable () -> Void] = []
    private var head = 0
    private var running = 0
    private var finished = 0
    private var stopping = false
    private var started = 0
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// - Parameters:
    ///   - threads: how many jobs run at once (at least 1).
    ///   - capacity: how many more may wait (0: only as many as there are threads, none waiting).
    ///   - niceSteps: how far below the process the threads run (``Posix/lowerCurrentThreadPriority(by:)``);
    ///     0 keeps the process's priority.
    public init(name: String, threads: Int, capacity: Int, niceSteps: Int32 = 0) {
        self.name = name
        self.threads = max(1, threads)
        self.capacity = max(0, capacity)
        self.niceSteps = max(0, niceSteps)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `work` on one of the queue's threads and returns its result; the calling task waits
    /// without holding a thread.
    ///
    /// - Throws: ``Busy`` at once when ``threads`` jobs run and ``capacity`` wait already, or the
    ///   queue was stopped.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(Busy) -> T {
        let result: Result<T, Busy> = await withCheckedContinuation { continuation in
            let job: @Sendable () -> Void = { continuation.resume(returning: .success(work())) }
            if let refusal = enqueue(job) { continuation.resume(returning: .failure(refusal)) }
        }
        return try result.get()
    }

    /// Jobs running and waiting now.
    public var load: (running: Int, waiting: Int) {
        locked { (running, waiting.count - head) }
    }

    /// Jobs that have run to the end since the queue was made.
    public var completed: Int { locked { finished } }

    /// Stops taking work: what waits still runs, later calls throw ``Busy``; the threads end once
    /// the line is empty.
    public func stop() {
        locked {
            stopping = true
            pthread_cond_broadcast(condition)
        }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Busy? {
        locked { () -> Busy? in
            let queued = waiting.count - head
            if stopping { return Busy(running: running, waiting: queued, stopped: true) }
            guard running + queued < threads + capacity else {
                return Busy(running: running, waiting: queued, stopped: false)
            }
            waiting.append(job)
            // A new thread when the idle ones (started, not running) cannot take every waiting job.
            if started < threads && queued + 1 > started - running {
                started += 1
                startThread()
            }
            pthread_cond_signal(condition)
            return nil
        }
    }

    /// Threads start on first need, so an idle daemon (a console nobody signs in to) has none.
    private func startThread() {
        let box = Unmanaged.passRetained(self)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        // Why 256 KiB: the work is C (scrypt, zbar) with small Swift frames around it; the default
        // 8 MiB stack is address space each thread keeps.
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let created = pthread_create(
            &thread,
            &attributes,
            { raw in
                #if canImport(Glibc)
                let queue = Unmanaged<BoundedWorkQueue>.fromOpaque(raw!).takeRetainedValue()
                #else
                let queue = Unmanaged<BoundedWorkQueue>.fromOpaque(raw).takeRetainedValue()
                #endif
                queue.work()
                return nil
            },
            box.toOpaque()
        )
        if created == 0 {
            pthread_detach(thread)
        } else {
            // No thread (the process is at its thread limit): the job waits for a running one, or
            // for the next start attempt.
            box.release()
            started -= 1
        }
    }

    private func work() {
        #if canImport(CLinux)
        // The kernel keeps 15 bytes of a thread's name.
        _ = pthread_setname_np(pthread_self(), String(name.utf8.prefix(15))!)
        #endif
        if niceSteps > 0 { Posix.lowerCurrentThreadPriority(by: niceSteps) }
        while let job = next() {
            job()
            locked {
                running -= 1
                finished += 1
            }
        }
    }

    /// The next job, or nil once stopped and empty.
    private func next() -> (@Sendable () -> Void)? {
        locked { () -> (@Sendable () -> Void)? in
            while head == waiting.count {
                if stopping {
                    started -= 1
                    return nil
                }
                pthread_cond_wait(condition, mutex)
            }
            let job = waiting[head]
            head += 1
            if head == waiting.count || head > 64 {
                waiting.removeFirst(head)
                head = 0
            }
            running += 1
            return job
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
