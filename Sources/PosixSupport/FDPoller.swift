#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CLinux)
import CLinux
#endif

/// Waits on a set of descriptors for one thread: the readiness half of every event loop in the
/// gateway (the serial ports' reader, udev's monitor, the operator's HTTP and control sockets, the
/// modem simulator, the hooks' output).
///
/// Each descriptor is watched with a caller's `token`; ``wait(timeoutMilliseconds:)`` says how many
/// descriptors are ready and ``event(at:)`` gives each one's token and events. Readiness is
/// level-triggered with either mechanism: what a loop leaves unread is reported again at the next
/// wait, so a loop may bound the work it does per descriptor and per wake-up.
///
/// Two mechanisms, because the loops differ in what a wake-up costs them:
/// - ``init()``: `poll(2)` over an array. The loops with a handful of descriptors whose interest
///   changes every round (a connection goes from reading to writing, a listener pauses) rebuild the
///   set before each wait (``removeAll()``, then ``watch(_:for:token:)``): a few array appends and
///   one system call, where epoll would need a system call per change and a descriptor of its own.
/// - ``init(epollCapacity:)``: `epoll(7)` on Linux (elsewhere `poll(2)` over the same registrations).
///   For the serial ports: dozens of ports in a set that changes only when a port opens or closes,
///   where a wake-up costs the same with 4 ports or 256; with `poll(2)` every wake-up walked every
///   port's descriptors (64 four-port modules: 0.98 s to IMEI against 0.62–0.66 s,
///   docs/operations.md "Memory"). Its event buffer is allocated once.
///
/// Why not an event-loop library: one parked thread per loop costs a few kilobytes, where NIO's
/// event loops cost the daemon about 2 MB of resident memory (docs/operations.md "Memory").
///
/// Not thread-safe: the loop's thread owns it. Another thread wakes the loop through a
/// ``WakePipe`` the loop watches.
public struct FDPoller: ~Copyable {
    /// One ready descriptor: the token it was watched with, and what it reported.
    public struct Event: Sendable, Hashable {
        public let token: UInt64
        public let events: FDEvents

        public init(token: UInt64, events: FDEvents) {
            self.token = token
            self.events = events
        }
    }

    /// The epoll instance, or -1 for `poll(2)`.
    private let epollFD: Int32
    #if os(Linux)
    /// epoll's event buffer, allocated once. (An `Array` of events handed to `epoll_wait` was copied
    /// on wake-ups: 0.7 MB of heap at the daemon's start-up peak in a heaptrack profile.)
    private let epollEvents: UnsafeMutablePointer<epoll_event>?
    #endif
    private let epollCapacity: Int
    private var epollReady = 0
    /// `poll(2)`'s set and the token of each entry, in the order they were watched.
    private var fds: [pollfd] = []
    private var tokens: [UInt64] = []
    /// What the last `poll(2)` reported, in the order of the set.
    private var ready: [Event] = []

    /// A set waited on with `poll(2)`, events reported in the order the descriptors were watched.
    public init() {
        epollFD = -1
        epollCapacity = 0
        #if os(Linux)
        epollEvents = nil
        #endif
    }

    /// A set waited on with `epoll(7)` on Linux, at most `epollCapacity` events per wait (more ready
    /// descriptors are reported by the next wait); elsewhere with `poll(2)`. Throws when the process
    /// or the system is out of descriptors or memory for the epoll instance.
    public init(epollCapacity: Int) throws(Errno) {
        #if os(Linux)
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw Errno.current }
        epollFD = fd
        self.epollCapacity = max(1, epollCapacity)
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: self.epollCapacity)
        events.initialize(repeating: epoll_event(), count: self.epollCapacity)
        epollEvents = events
        #else
        self.init()
        #endif
    }

    deinit {
        #if os(Linux)
        if epollFD >= 0 { Posix.close(epollFD) }
        epollEvents?.deallocate()
        #endif
    }

    /// Watches `fd` for `events` (error and hang-up are always reported), reported with `token`.
    /// A descriptor is watched once; ``unwatch(_:)`` it before its number can come back.
    ///
    /// - Returns: nil, or why epoll refused the descriptor (`EPERM`: a regular file, which epoll
    ///   cannot wait on; `ENOMEM`, `ENOSPC`). `poll(2)` refuses nothing here: a descriptor that is
    ///   not open is reported ``FDEvents/invalid`` by the next wait.
    @discardableResult
    public mutating func watch(_ fd: Int32, for events: FDEvents, token: UInt64) -> Errno? {
        #if os(Linux)
        if epollFD >= 0 {
            var event = epoll_event()
            event.events = events.rawValue
            event.data.u64 = token
            return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 ? nil : Errno.current
        }
        #endif
        fds.append(pollfd(fd: fd, events: Int16(truncatingIfNeeded: events.rawValue), revents: 0))
        tokens.append(token)
        return nil
    }

    /// Stops watching `fd`; call it before `fd` is closed. Events already returned by the last wait
    /// stay readable through ``event(at:)``, so a loop may unwatch while it walks them.
    public mutating func unwatch(_ fd: Int32) {
        #if os(Linux)
        if epollFD >= 0 {
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
            return
        }
        #endif
        guard let index = fds.firstIndex(where: { $0.fd == fd }) else { return }
        fds.remove(at: index)
        tokens.remove(at: index)
    }

    /// Empties a `poll(2)` set, keeping its storage, to build the next round's set. (An epoll set is
    /// changed descriptor by descriptor.)
    public mutating func removeAll() {
        precondition(epollFD < 0, "FDPoller.removeAll() is for poll(2) sets; unwatch epoll's descriptors one by one")
        fds.removeAll(keepingCapacity: true)
        tokens.removeAll(keepingCapacity: true)
    }

    /// Blocks until a watched descriptor is ready or `timeoutMilliseconds` pass (-1: no limit, 0:
    /// just look). Returns how many are ready (0 on timeout); ``event(at:)`` gives them.
    ///
    /// Throws what the system call failed with: `EINTR` (a signal; wait again), `ENOMEM`, or `EBADF`
    /// and `EINVAL` (a bug in the set).
    public mutating func wait(timeoutMilliseconds: Int32) throws(Errno) -> Int {
        #if os(Linux)
        if epollFD >= 0 {
            epollReady = 0
            let count = epoll_wait(epollFD, epollEvents, Int32(epollCapacity), timeoutMilliseconds)
            guard count >= 0 else { throw Errno.current }
            epollReady = Int(count)
            return epollReady
        }
        #endif
        ready.removeAll(keepingCapacity: true)
        let count = fds.withUnsafeMutableBufferPointer { set in
            poll(set.baseAddress, nfds_t(set.count), timeoutMilliseconds)
        }
        guard count >= 0 else { throw Errno.current }
        for index in fds.indices where fds[index].revents != 0 {
            let bits = UInt32(UInt16(bitPattern: fds[index].revents))
            ready.append(Event(token: tokens[index], events: FDEvents(rawValue: bits)))
        }
        return ready.count
    }

    /// The `index`th ready descriptor of the last ``wait(timeoutMilliseconds:)``
    /// (`0 ..< ` what it returned): with `poll(2)` in the order the descriptors were watched, with
    /// epoll in the kernel's order.
    public func event(at index: Int) -> Event {
        #if os(Linux)
        if epollFD >= 0 {
            precondition(index >= 0 && index < epollReady, "FDPoller.event(at:) past the last wait's events")
            let event = epollEvents![index]
            return Event(token: event.data.u64, events: FDEvents(rawValue: event.events))
        }
        #endif
        return ready[index]
    }
}
