import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one thread that reads every open serial port of the process: it waits in `poll()` on each
/// port's fd and close-wake pipe (see ``SerialPortIO``) and on its own wake pipe, which says that
/// a port was added.
///
/// Why one thread and not one per port: a gateway holds dozens of ports that each send a few bytes
/// a second; a parked thread per port cost about 10 kB of stack and a malloc arena share each (with
/// 32 modules, 32 threads and a third of a megabyte), and the work per wake-up is one `read()`.
/// Nothing on this thread blocks: the fds are non-blocking, the inbox hand-off only takes a lock,
/// and a closing port's last steps run on that port's write queue (``SerialPortIO``).
///
/// Started on the first port and kept for the life of the process (an idle `poll()` costs nothing).
final class SerialPortPoller: @unchecked Sendable {
    static let shared = SerialPortPoller()

    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Added ports not yet taken into the poll set, and whether the thread runs.
    private let incoming = ATLocked((ports: [SerialPortIO](), started: false))
    /// The poll set's ports: the poller thread's alone.
    private var ports: [SerialPortIO] = []

    private init() {
        var ends: [Int32] = [-1, -1]
        // Without its wake pipe the process cannot read any serial port; it is created once, at the
        // first port, so failing here means the process is out of descriptors at that moment.
        precondition(pipe(&ends) == 0, "ATKit: cannot create the serial poller's wake pipe (errno \(errno))")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
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

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds: [pollfd] = []
        while true {
            ports += incoming.withLock { incoming in
                defer { incoming.ports.removeAll() }
                return incoming.ports
            }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for port in ports {
                fds.append(pollfd(fd: port.fd, events: Int16(POLLIN), revents: 0))
                fds.append(pollfd(fd: port.wakeRead, events: Int16(POLLIN), revents: 0))
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                // EINTR; or ENOMEM, where the next round may get the memory.
                continue
            }
            if fds[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while posixRead(wakeRead, &sink, sink.count) > 0 {}
            }
            var open: [SerialPortIO] = []
            open.reserveCapacity(ports.count)
            for (index, port) in ports.enumerated() {
                let reason = port.service(
                    portEvents: fds[1 + 2 * index].revents,
                    wakeEvents: fds[2 + 2 * index].revents,
                    buffer: &buffer
                )
                if let reason {
                    // Out of the poll set first: its fds are closed later, on its write queue, and
                    // their numbers may then be handed out again.
                    port.release(reason: reason)
                } else {
                    open.append(port)
                }
            }
            ports = open
        }
    }
}
