import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CLinux)
import CLinux
#endif

/// The one thread that reads every open serial port of the process: it waits on each port's fd
/// and close-wake pipe (see ``SerialPortIO``) and on its own wake pipe, which says that a port was
/// added. On Linux through epoll (level-triggered, so the same readiness rules as `poll()`), where
/// a wake-up costs the same with 4 ports or 256; elsewhere through `poll()`.
///
/// Why one thread and not one per port: a gateway holds dozens of ports that each send a few bytes
/// a second; a parked thread per port cost about 10 kB of stack and a malloc arena share each (with
/// 32 modules, 32 threads and a third of a megabyte), and the work per wake-up is one `read()`.
/// Nothing on this thread blocks: the fds are non-blocking, the inbox hand-off only takes a lock,
/// and a closing port's last steps run on that port's write queue (``SerialPortIO``).
///
/// Started on the first port and kept for the life of the process (an idle wait costs nothing).
final class SerialPortPoller: @unchecked Sendable {
    private static let instance = ATLocked<SerialPortPoller?>(nil)

    /// The process's poller, made at the first port. When the process is out of descriptors at
    /// that moment the port fails to open (naming `port`); the next port tries again.
    static func shared(opening port: String) throws(ATTransportError) -> SerialPortPoller {
        let result: Result<SerialPortPoller, ATTransportError> = instance.withLock { instance in
            if let instance { return .success(instance) }
            do throws(ATTransportError) {
                let made = try SerialPortPoller(opening: port)
                instance = made
                return .success(made)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Added ports not yet taken into the wait set, and whether the thread runs.
    private let incoming = ATLocked((ports: [SerialPortIO](), started: false))
    /// The wait set's ports by token (the poller thread's alone); token 0 is the wake pipe.
    private var ports: [UInt64: SerialPortIO] = [:]
    private var nextToken: UInt64 = 1
    #if os(Linux)
    private let epollFD: Int32
    #endif

    private init(opening port: String) throws(ATTransportError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .configurationFailed(port: port, operation: "pipe (serial poller)", errno: errno)
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        #if os(Linux)
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 0
        if epollFD < 0 || epoll_ctl(epollFD, EPOLL_CTL_ADD, ends[0], &event) != 0 {
            let code = errno
            if epollFD >= 0 { _ = posixClose(epollFD) }
            for end in ends { _ = posixClose(end) }
            throw .configurationFailed(port: port, operation: "epoll (serial poller)", errno: code)
        }
        self.epollFD = epollFD
        #endif
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// Reads `port` from now on, until it closes.
    func add(_ port: SerialPortIO) {
        let start = incoming.withLock { incoming in
            incoming.ports.append(port)
            defer { incoming.started = true }
            return !incoming.started
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "nbgw-serial"
            thread.start()
        }
        var byte: UInt8 = 1
        // EAGAIN (pipe full) is fine: the pipe is readable already, which is all that matters.
        _ = posixWrite(wakeWrite, &byte, 1)
    }

    private func drainWakePipe() {
        var sink = [UInt8](repeating: 0, count: 64)
        while posixRead(wakeRead, &sink, sink.count) > 0 {}
    }

    private func takeIncoming() -> [SerialPortIO] {
        incoming.withLock { incoming in
            defer { incoming.ports.removeAll() }
            return incoming.ports
        }
    }

    /// Handles the events of the port with `token`; closes it (out of the wait set first: its fds
    /// are closed later, on its write queue, and their numbers may then be handed out again).
    private func service(token: UInt64, portEvents: Int16, wakeEvents: Int16, buffer: inout [UInt8]) {
        guard let port = ports[token] else { return }  // closed earlier in the same batch
        guard let reason = port.service(portEvents: portEvents, wakeEvents: wakeEvents, buffer: &buffer) else {
            return
        }
        unwatch(port)
        ports[token] = nil
        port.release(reason: reason)
    }

    #if os(Linux)
    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // One buffer for the life of the thread. (An Array here, passed through
        // withUnsafeMutableBufferPointer while a slice of it was iterated, was copied on every
        // wake-up: 0.7 MB of heap at the start-up peak in a heaptrack profile.)
        let eventCapacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: eventCapacity)
        events.initialize(repeating: epoll_event(), count: eventCapacity)
        while true {
            for port in takeIncoming() {
                let token = nextToken
                nextToken += 1
                ports[token] = port
                // Token × 2 for the port's fd, + 1 for its close-wake pipe.
                if let failure = watch(port.fd, data: token << 1) ?? watch(port.wakeRead, data: token << 1 | 1) {
                    // A descriptor epoll cannot wait on (a regular file): the port cannot be read.
                    unwatch(port)
                    ports[token] = nil
                    port.release(reason: .ioError(errno: failure))
                }
            }
            let count = epoll_wait(epollFD, events, Int32(eventCapacity), -1)
            if count < 0 { continue }  // EINTR
            for index in 0..<Int(count) {
                let event = events[index]
                let data = event.data.u64
                if data == 0 {
                    drainWakePipe()
                    continue
                }
                // EPOLLIN, EPOLLERR and EPOLLHUP have poll()'s values.
                let bits = Int16(truncatingIfNeeded: event.events)
                let isWake = data & 1 == 1
                service(token: data >> 1, portEvents: isWake ? 0 : bits, wakeEvents: isWake ? bits : 0, buffer: &buffer)
            }
        }
    }

    /// Adds `fd` to the wait set; returns the errno on failure.
    private func watch(_ fd: Int32, data: UInt64) -> Int32? {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = data
        return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 ? nil : errno
    }

    private func unwatch(_ port: SerialPortIO) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, port.fd, nil)
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, port.wakeRead, nil)
    }
    #else
    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds: [pollfd] = []
        while true {
            for port in takeIncoming() {
                ports[nextToken] = port
                nextToken += 1
            }
            let tokens = Array(ports.keys)
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for token in tokens {
                fds.append(pollfd(fd: ports[token]!.fd, events: Int16(POLLIN), revents: 0))
                fds.append(pollfd(fd: ports[token]!.wakeRead, events: Int16(POLLIN), revents: 0))
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0 { continue }  // EINTR
            if fds[0].revents != 0 { drainWakePipe() }
            for (index, token) in tokens.enumerated() {
                let portEvents = fds[1 + 2 * index].revents
                let wakeEvents = fds[2 + 2 * index].revents
                if portEvents != 0 || wakeEvents != 0 {
                    service(token: token, portEvents: portEvents, wakeEvents: wakeEvents, buffer: &buffer)
                }
            }
        }
    }

    private func unwatch(_ port: SerialPortIO) {}
    #endif
}
