import Foundation
import PosixSupport
import Synchronization

/// The one thread that reads every open serial port of the process: it waits on each port's fd
/// and close-wake pipe (see ``SerialPortIO``) and on its own wake pipe, which says that a port was
/// added. Through an epoll ``FDPoller`` (level-triggered, so the same readiness rules as `poll()`),
/// where a wake-up costs the same with 4 ports or 256.
///
/// Why one thread and not one per port: a gateway holds dozens of ports that each send a few bytes
/// a second; a parked thread per port cost about 10 kB of stack and a malloc arena share each (with
/// 32 modules, 32 threads and a third of a megabyte), and the work per wake-up is one `read()`.
/// Nothing on this thread blocks: the fds are non-blocking, the inbox hand-off only takes a lock,
/// and a closing port's last steps run on that port's write queue (``SerialPortIO``).
///
/// Started on the first port and kept for the life of the process (an idle wait costs nothing).
///
/// State: `poller`, `ports` and `nextToken` belong to the poller thread alone (hence
/// `@unchecked Sendable`); what other threads touch is in `incoming` and `wake`.
final class SerialPortPoller: @unchecked Sendable {
    private static let instance = Mutex<SerialPortPoller?>(nil)

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

    /// Epoll events taken per wake-up; more ready ports are served at the next one.
    private static let eventCapacity = 64
    /// The token of the poller's own wake pipe; a port's tokens are its number × 2 (its fd) and
    /// × 2 + 1 (its close-wake pipe), numbers starting at 1.
    private static let wakeToken: UInt64 = 0

    private let wake: WakePipe
    /// Added ports not yet taken into the wait set, and whether the thread runs.
    private let incoming = Mutex((ports: [SerialPortIO](), started: false))
    private var poller: FDPoller
    /// The wait set's ports by number.
    private var ports: [UInt64: SerialPortIO] = [:]
    private var nextToken: UInt64 = 1

    private init(opening port: String) throws(ATTransportError) {
        do {
            wake = try WakePipe()
        } catch {
            throw .configurationFailed(port: port, operation: "pipe (serial poller)", errno: error.code)
        }
        do {
            poller = try FDPoller(epollCapacity: Self.eventCapacity)
        } catch {
            wake.close()
            throw .configurationFailed(port: port, operation: "epoll (serial poller)", errno: error.code)
        }
        if let failure = poller.watch(wake.readEnd, for: .readable, token: Self.wakeToken) {
            wake.close()
            throw .configurationFailed(port: port, operation: "epoll (serial poller)", errno: failure.code)
        }
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
        wake.wake()
    }

    private func takeIncoming() -> [SerialPortIO] {
        incoming.withLock { incoming in
            defer { incoming.ports.removeAll() }
            return incoming.ports
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            for port in takeIncoming() {
                let number = nextToken
                nextToken += 1
                ports[number] = port
                if let failure = poller.watch(port.fd, for: .readable, token: number << 1)
                    ?? poller.watch(port.wake.readEnd, for: .readable, token: number << 1 | 1)
                {
                    // A descriptor epoll cannot wait on (a regular file): the port cannot be read.
                    unwatch(port)
                    ports[number] = nil
                    port.release(reason: .ioError(errno: failure.code))
                }
            }
            let count: Int
            do {
                count = try poller.wait(timeoutMilliseconds: -1)
            } catch {
                continue  // EINTR
            }
            for index in 0..<count {
                let event = poller.event(at: index)
                if event.token == Self.wakeToken {
                    wake.drain()
                    continue
                }
                let isWake = event.token & 1 == 1
                service(
                    number: event.token >> 1,
                    portEvents: isWake ? [] : event.events,
                    wakeEvents: isWake ? event.events : [],
                    buffer: &buffer
                )
            }
        }
    }

    /// Handles the events of the port with `number`; closes it (out of the wait set first: its fds
    /// are closed later, on its write queue, and their numbers may then be handed out again).
    private func service(number: UInt64, portEvents: FDEvents, wakeEvents: FDEvents, buffer: inout [UInt8]) {
        guard let port = ports[number] else { return }  // closed earlier in the same batch
        guard let reason = port.service(portEvents: portEvents, wakeEvents: wakeEvents, buffer: &buffer) else {
            return
        }
        unwatch(port)
        ports[number] = nil
        port.release(reason: reason)
    }

    private func unwatch(_ port: SerialPortIO) {
        poller.unwatch(port.fd)
        poller.unwatch(port.wake.readEnd)
    }
}
